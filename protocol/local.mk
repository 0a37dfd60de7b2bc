# protocol/ — sans-IO DISCO coordinator and peer machines, messages.
noinst_LIBRARIES += protocol/libdlproto.a
protocol_libdlproto_a_SOURCES = \
	protocol/proto-aggregator.c \
	protocol/proto-aggregator.h \
	protocol/proto-config.c \
	protocol/proto-config.h \
	protocol/proto-coord.c protocol/proto-coord-robust.c protocol/proto-coord-private.h \
	protocol/proto-coord.h \
	protocol/proto-input.h \
	protocol/proto-message.c \
	protocol/proto-message.h \
	protocol/proto-omap.h \
	protocol/proto-outbox.c \
	protocol/proto-outbox.h \
	protocol/proto-peer.c \
	protocol/proto-peer-exchange.c protocol/proto-peer-pool.c protocol/proto-peer-sync.c \
	protocol/proto-peer-private.h \
	protocol/proto-peer.h \
	$(NULL)
