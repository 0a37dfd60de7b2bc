# protocol/ — what every protocol family shares (messages, inputs, outboxes,
# the [protocol] config, the machine interface), and one folder per family:
# protocol/disco/ holds DISCO's sans-IO coordinator and peer machines,
# protocol/gossip/ the sparsified-gossip family's.  Each family declares its message
# types in its folder (<family>-msgs.c), and its ProtoFamily (listed in
# proto-machine.c) points to them.  A family with a local.mk of its own
# lists its sources there and is included at the end of this file: that
# include line is the build's half of registering a family, the other half
# its line in proto-machine.c's family list.
noinst_LIBRARIES += protocol/libdlproto.a
protocol_libdlproto_a_SOURCES = \
	protocol/proto-config.c \
	protocol/proto-config.h \
	protocol/proto-input.h \
	protocol/proto-keys.c \
	protocol/proto-keys.h \
	protocol/proto-links.c \
	protocol/proto-links.h \
	protocol/proto-machine.c \
	protocol/proto-machine.h \
	protocol/proto-message.c \
	protocol/proto-message-decode.c \
	protocol/proto-message.h \
	protocol/proto-msg-class.h \
	protocol/proto-msg-codec.c \
	protocol/proto-msg-registry.c \
	protocol/proto-omap.h \
	protocol/proto-outbox.c \
	protocol/proto-outbox.h \
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
	protocol/replica/replica-msgs.c protocol/replica/replica-msgs.h \
	protocol/replica/proto-replica.h protocol/replica/replica-raft.c protocol/replica/replica-session.c \
	$(NULL)
EXTRA_DIST += protocol/disco/README.md protocol/replica/README.md

# families whose folder lists its own sources
include protocol/guest/local.mk
include protocol/fedavg/local.mk
include protocol/pipeline/local.mk
include protocol/hierarchical/local.mk
include protocol/gossip/local.mk
