# protocol/ — what every protocol family shares (messages, inputs, outboxes,
# the [protocol] config, the machine interface, the family registry), the
# session layer (protocol/session/: hello, welcome, the signalling relay and
# peer links, for any family that admits and links peers), the
# replicated coordinator (protocol/replica/, not a family: it wraps any
# family's), and one folder per family (protocol/disco/, gossip/,
# hierarchical/, pipeline/, guest/, fedavg/).  Each family's folder lists
# its sources in its own local.mk, included at the end of this file: that
# include line is the build's half of registering a family, the other half
# its entry in proto-machine.c's family list (docs/architecture.md,
# "Registering a family"; tools/family-diff shows that nothing else is).
noinst_LIBRARIES += protocol/libdlproto.a
protocol_libdlproto_a_SOURCES = \
	protocol/proto-config.c \
	protocol/proto-config.h \
	protocol/proto-input.h \
	protocol/proto-keys.c \
	protocol/proto-keys.h \
	protocol/proto-machine.c \
	protocol/proto-machine-base.c \
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
	protocol/proto-wire-normal.c \
	protocol/proto-wire-normal.h \
	protocol/session/session-links.c protocol/session/session-links.h \
	protocol/session/session-msgs.c protocol/session/session-msgs.h \
	protocol/replica/replica-msgs.c protocol/replica/replica-msgs.h \
	protocol/replica/proto-replica.h protocol/replica/replica-raft.c protocol/replica/replica-session.c \
	$(NULL)
EXTRA_DIST += protocol/replica/README.md protocol/session/README.md
# the replicated coordinator's tests live in protocol/replica/tests/
# (tests/README.md): make check TESTS=protocol/replica/tests/test-replica
# The group of replicas and its cases, around any family's machines
# (protocol/replica/tests/replica-harness.h): test-replica runs them
# around a toy family's, a family's own program around its (DISCO's
# test-disco-replica)
REPLICA_HARNESS_SOURCES = protocol/replica/tests/replica-harness.c protocol/replica/tests/replica-harness.h
check_PROGRAMS += protocol/replica/tests/test-replica
TESTS += protocol/replica/tests/test-replica
protocol_replica_tests_test_replica_SOURCES = protocol/replica/tests/test-replica.c $(REPLICA_HARNESS_SOURCES)
protocol_replica_tests_test_replica_CFLAGS = $(DL_CHECK_CFLAGS)

# the families: each folder lists its own sources
include protocol/disco/local.mk
include protocol/guest/local.mk
include protocol/fedavg/local.mk
include protocol/pipeline/local.mk
include protocol/hierarchical/local.mk
include protocol/gossip/local.mk
