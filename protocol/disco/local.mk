# protocol/disco/ — the disco family: DISCO's coordinator and peer
# (README.md beside this file); included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/disco/disco-family.c \
	protocol/disco/disco-keys.c \
	protocol/disco/disco-msgs.c protocol/disco/disco-msgs.h \
	protocol/disco/proto-aggregator.c \
	protocol/disco/proto-aggregator.h \
	protocol/disco/proto-coord.c protocol/disco/proto-coord-effects.c protocol/disco/proto-coord-straggler.c protocol/disco/proto-coord-private.h \
	protocol/disco/proto-coord.h \
	protocol/disco/proto-peer.c protocol/disco/proto-peer-effects.c protocol/disco/proto-peer-listen.c \
	protocol/disco/proto-peer-exchange.c protocol/disco/proto-peer-pool.c protocol/disco/proto-peer-sync.c \
	protocol/disco/proto-peer-private.h \
	protocol/disco/proto-peer.h \
	$(NULL)
EXTRA_DIST += protocol/disco/README.md protocol/disco/local.mk
