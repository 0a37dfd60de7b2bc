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
# its tests live in protocol/disco/tests/ (tests/README.md), on DISCO's
# layer over the hand-held world (proto-harness.h):
# make check TESTS=protocol/disco/tests/test-protocol
DISCO_HARNESS_SOURCES = protocol/disco/tests/proto-harness.c protocol/disco/tests/proto-harness.h $(HARNESS_SOURCES)
check_PROGRAMS += protocol/disco/tests/test-protocol
TESTS += protocol/disco/tests/test-protocol
check_PROGRAMS += protocol/disco/tests/test-sync
TESTS += protocol/disco/tests/test-sync
check_PROGRAMS += protocol/disco/tests/test-robust
TESTS += protocol/disco/tests/test-robust
check_PROGRAMS += protocol/disco/tests/test-disco-failures
TESTS += protocol/disco/tests/test-disco-failures
check_PROGRAMS += protocol/disco/tests/test-fidelity
TESTS += protocol/disco/tests/test-fidelity
check_PROGRAMS += protocol/disco/tests/test-disco-machine
TESTS += protocol/disco/tests/test-disco-machine
protocol_disco_tests_test_protocol_SOURCES = protocol/disco/tests/test-protocol.c $(DISCO_HARNESS_SOURCES) $(MSG_FILL_SOURCES)
protocol_disco_tests_test_protocol_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_disco_tests_test_sync_SOURCES = protocol/disco/tests/test-sync.c $(DISCO_HARNESS_SOURCES)
protocol_disco_tests_test_sync_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_disco_tests_test_robust_SOURCES = protocol/disco/tests/test-robust.c $(DISCO_HARNESS_SOURCES)
protocol_disco_tests_test_robust_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_disco_tests_test_disco_failures_SOURCES = protocol/disco/tests/test-disco-failures.c $(DISCO_HARNESS_SOURCES)
protocol_disco_tests_test_disco_failures_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_disco_tests_test_fidelity_SOURCES = protocol/disco/tests/test-fidelity.c $(DISCO_HARNESS_SOURCES)
protocol_disco_tests_test_fidelity_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_disco_tests_test_disco_machine_CFLAGS = $(DL_CHECK_CFLAGS)
# the replicated coordinator and the session peer around DISCO's machines
# (protocol/replica/tests/test-replica: around a toy family's)
check_PROGRAMS += protocol/disco/tests/test-disco-replica
TESTS += protocol/disco/tests/test-disco-replica
protocol_disco_tests_test_disco_replica_CFLAGS = $(DL_CHECK_CFLAGS)
# DISCO's cases of the shared layers' tests (the loader's keys, explore's
# targets, the summary's counters, the frames fuzz at robust)
check_PROGRAMS += protocol/disco/tests/test-disco-shared
TESTS += protocol/disco/tests/test-disco-shared
protocol_disco_tests_test_disco_shared_SOURCES = protocol/disco/tests/test-disco-shared.c $(PLAN_CHECK_SOURCES) $(FAMILY_HARNESS_SOURCES)
protocol_disco_tests_test_disco_shared_CFLAGS = $(DL_CHECK_CFLAGS)
# whole runs of the world under DISCO (tests/test-world: the ones any
# default family passes)
check_PROGRAMS += protocol/disco/tests/test-disco-world
TESTS += protocol/disco/tests/test-disco-world
protocol_disco_tests_test_disco_world_SOURCES = protocol/disco/tests/test-disco-world.c tests/slow-start-bound.h $(WORLD_HARNESS_SOURCES)
protocol_disco_tests_test_disco_world_CFLAGS = $(DL_CHECK_CFLAGS)
# DISCO's own code as a guest against these machines (needs DISCO's
# archives, ../shared/disco; it says SKIP without them)
TESTS += protocol/disco/tests/disco-guest.sh
EXTRA_DIST += protocol/disco/tests/disco-guest.sh protocol/disco/tests/disco-trees.sh
