# protocol/disco/ — the disco family: DISCO's coordinator and peer
# (README.md beside this file); included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/disco/disco-config.c protocol/disco/disco-config.h \
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
# DISCO's own code as a guest against these machines (needs DISCO's
# archives, ../shared/disco; it says SKIP without them)
TESTS += protocol/disco/tests/disco-guest.sh
EXTRA_DIST += protocol/disco/tests/disco-guest.sh protocol/disco/tests/disco-trees.sh
