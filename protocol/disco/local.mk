# protocol/disco/ — the disco family: DISCO's coordinator and peer
# (README.md beside this file); included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/disco/disco-config.c protocol/disco/disco-config.h \
	protocol/disco/disco-family.c \
	protocol/disco/disco-keys.c \
	protocol/disco/disco-msgs.c protocol/disco/disco-msgs.h \
	protocol/disco/disco-aggregator.c \
	protocol/disco/disco-aggregator.h \
	protocol/disco/disco-coord.c protocol/disco/disco-coord-effects.c protocol/disco/disco-coord-straggler.c protocol/disco/disco-coord-private.h \
	protocol/disco/disco-coord.h \
	protocol/disco/disco-peer.c protocol/disco/disco-peer-effects.c protocol/disco/disco-peer-listen.c \
	protocol/disco/disco-peer-exchange.c protocol/disco/disco-peer-pool.c protocol/disco/disco-peer-sync.c \
	protocol/disco/disco-peer-private.h \
	protocol/disco/disco-peer.h \
	$(NULL)
EXTRA_DIST += protocol/disco/README.md protocol/disco/local.mk
