# protocol/guest/ — the guest family (README.md beside this file); included
# from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/guest/guest-config.h \
	protocol/guest/guest-family.c \
	protocol/guest/guest-keys.c \
	protocol/guest/guest-line.c protocol/guest/guest-line.h \
	protocol/guest/guest-msgs.c protocol/guest/guest-msgs.h \
	protocol/guest/guest-proc.c protocol/guest/guest-proc.h \
	$(NULL)
EXTRA_DIST += protocol/guest/README.md protocol/guest/local.mk
# its tests live in protocol/guest/tests/ (tests/README.md): the line
# protocol's Check program, and guests as a user runs them
# make check TESTS='protocol/guest/tests/test-guest protocol/guest/tests/guest.sh'
check_PROGRAMS += protocol/guest/tests/test-guest
TESTS += protocol/guest/tests/test-guest protocol/guest/tests/guest.sh
EXTRA_DIST += protocol/guest/tests/guest.sh
protocol_guest_tests_test_guest_SOURCES = protocol/guest/tests/test-guest.c $(FAMILY_HARNESS_SOURCES)
protocol_guest_tests_test_guest_CFLAGS = $(DL_CHECK_CFLAGS)
# its scenarios live in protocol/guest/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/guest/scenarios/, three folders below guests/,
# so that their relative guest_command, ../../../guests/..., works there
# as in the source tree; tests/cli.sh checks this list).  They need
# python3 and DISCO's code: tests/scenarios.sh, tools/family-diff,
# tools/fuzz-scenarios and .ci/run's ThreadSanitizer pass leave them out;
# protocol/guest/tests/guest.sh and protocol/disco/tests/disco-guest.sh
# run them
nobase_dist_pkgdata_DATA += \
	protocol/guest/scenarios/pushpull.ini \
	protocol/guest/scenarios/asyncio-sleep.ini \
	protocol/guest/scenarios/disco-three-rounds.ini \
	protocol/guest/scenarios/disco-leave.ini \
	protocol/guest/scenarios/disco-late-joiner.ini \
	protocol/guest/scenarios/disco-link-fail.ini \
	protocol/guest/scenarios/disco-late-sync.ini \
	protocol/guest/scenarios/disco-crash-exchange.ini \
	protocol/guest/scenarios/disco-partition.ini \
	protocol/guest/scenarios/disco-secure.ini \
	protocol/guest/scenarios/disco1110/s04-fast-peer-payload-dropped-fixed.ini \
	protocol/guest/scenarios/disco1110/s05-retry-off-by-one-fixed.ini \
	protocol/guest/scenarios/disco1110/s06-retry-counter-session-wide.ini \
	protocol/guest/scenarios/disco1110/s07-orphan-timer.ini \
	protocol/guest/scenarios/disco1110/s08-stuck-linking-node.ini \
	protocol/guest/scenarios/disco1110/s08-stuck-linking.ini \
	protocol/guest/scenarios/disco1110/s09-retry-wipes-ready-flag.ini \
	protocol/guest/scenarios/disco1110/s10-provider-replaced-by-syncing-peer-fixed.ini \
	protocol/guest/scenarios/disco1110/s11-no-provider-left.ini \
	protocol/guest/scenarios/disco1110/s12-provider-leaves-during-sync.ini \
	protocol/guest/scenarios/disco1110/s13-stale-model-served.ini \
	protocol/guest/scenarios/disco1110/s14-retry-destroys-sync-link.ini \
	protocol/guest/scenarios/disco1110/s15-dead-link-reused.ini \
	protocol/guest/scenarios/disco1110/s17-leave-during-exchange.ini \
	protocol/guest/scenarios/disco1110/s18-leave-in-connect-phase.ini \
	protocol/guest/scenarios/disco1110/s19-join-in-connect-phase.ini \
	protocol/guest/scenarios/disco1110/s19-ready-in-connect-phase-deadlock.ini \
	protocol/guest/scenarios/disco1110/s20-finished-peers-block-late-joiner.ini \
	protocol/guest/scenarios/disco1110/s21-second-waiting-node.ini \
	protocol/guest/scenarios/disco1110/s21-second-waiting.ini \
	protocol/guest/scenarios/disco1110/s23-syncing-counts-for-min.ini \
	protocol/guest/scenarios/disco1110/s24-exclusion-below-min.ini \
	protocol/guest/scenarios/disco1110/s26-signal-to-departed-peer.ini \
	protocol/guest/scenarios/disco1110/s27-future-round-payload.ini \
	protocol/guest/scenarios/disco1110/s31-stray-connections-ready.ini \
	protocol/guest/scenarios/disco1110/disco-crash-exchange.ini \
	protocol/guest/scenarios/disco1110/disco-exclusion.ini \
	protocol/guest/scenarios/disco1110/disco-late-joiner.ini \
	protocol/guest/scenarios/disco1110/disco-late-sync.ini \
	protocol/guest/scenarios/disco1110/disco-leave.ini \
	protocol/guest/scenarios/disco1110/disco-link-fail.ini \
	protocol/guest/scenarios/disco1110/disco-partition.ini \
	protocol/guest/scenarios/disco1110/disco-retry-late.ini \
	protocol/guest/scenarios/disco1110/disco-retry-lost.ini \
	protocol/guest/scenarios/disco1110/disco-secure.ini \
	protocol/guest/scenarios/disco1110/disco-sync-provider-leaves.ini \
	protocol/guest/scenarios/disco1110/disco-sync-two.ini \
	protocol/guest/scenarios/disco1110/disco-three-rounds.ini \
	protocol/guest/scenarios/disco1110-found/drop-signal-progress-in-connecting-to-peers.ini \
	protocol/guest/scenarios/disco1110-found/five-peers-link-down-progress-in-updating-model.ini \
	protocol/guest/scenarios/disco1110-found/five-peers-partition-progress-in-connecting-to-peers.ini \
	protocol/guest/scenarios/disco1110-found/excluded-was-told-in-not-enough-participants.ini \
	protocol/guest/scenarios/disco1110-found/progress-in-connecting-to-peers.ini \
	protocol/guest/scenarios/disco1110-found/progress-in-connecting.ini \
	protocol/guest/scenarios/disco1110-found/progress-in-updating-model.ini \
	$(NULL)
