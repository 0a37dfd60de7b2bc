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
protocol_disco_tests_test_disco_replica_SOURCES = protocol/disco/tests/test-disco-replica.c $(REPLICA_HARNESS_SOURCES)
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
# its scenarios live in protocol/disco/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/disco/scenarios/; tests/cli.sh checks this
# list): DISCO's own tests (regression/), its known failures S1-S31 with
# their fixed and -robust twins (failures/), further edge cases (edge/),
# explore's findings (found/, and found/775/ and found/draft/ on those
# versions), the all-to-all bandwidth runs (bandwidth/) and the C twins of
# the guest family's DISCO #1110 files (disco1110-twins/: disco-guest.sh)
nobase_dist_pkgdata_DATA += \
	protocol/disco/scenarios/disco1110-twins/disco-crash-exchange.ini \
	protocol/disco/scenarios/disco1110-twins/disco-exclusion.ini \
	protocol/disco/scenarios/disco1110-twins/disco-late-joiner.ini \
	protocol/disco/scenarios/disco1110-twins/disco-late-sync.ini \
	protocol/disco/scenarios/disco1110-twins/disco-leave.ini \
	protocol/disco/scenarios/disco1110-twins/disco-link-fail.ini \
	protocol/disco/scenarios/disco1110-twins/disco-partition.ini \
	protocol/disco/scenarios/disco1110-twins/disco-retry-late.ini \
	protocol/disco/scenarios/disco1110-twins/disco-retry-lost.ini \
	protocol/disco/scenarios/disco1110-twins/disco-secure.ini \
	protocol/disco/scenarios/disco1110-twins/disco-sync-provider-leaves.ini \
	protocol/disco/scenarios/disco1110-twins/disco-sync-two.ini \
	protocol/disco/scenarios/disco1110-twins/disco-three-rounds.ini \
	protocol/disco/scenarios/bandwidth/a2a-16-20mbps.ini \
	protocol/disco/scenarios/bandwidth/a2a-8-20mbps.ini \
	protocol/disco/scenarios/bandwidth/a2a-8-mixed-uplinks.ini \
	protocol/disco/scenarios/edge/crash-during-sync.ini \
	protocol/disco/scenarios/edge/crash-frees-downlinks.ini \
	protocol/disco/scenarios/edge/crash-frees-downlinks-robust.ini \
	protocol/disco/scenarios/edge/crash-loses-unsent.ini \
	protocol/disco/scenarios/edge/crash-never-detected.ini \
	protocol/disco/scenarios/edge/join-while-list-sent.ini \
	protocol/disco/scenarios/edge/leave-after-delayed-ready.ini \
	protocol/disco/scenarios/edge/leave-delivers-sent.ini \
	protocol/disco/scenarios/edge/secure-late-start.ini \
	protocol/disco/scenarios/edge/secure-with-churn.ini \
	protocol/disco/scenarios/edge/straggler-50x-robust.ini \
	protocol/disco/scenarios/edge/straggler-50x.ini \
	protocol/disco/scenarios/edge/node-send-on-closed-link-browser.ini \
	protocol/disco/scenarios/edge/node-send-on-closed-link.ini \
	protocol/disco/scenarios/edge/retry-close-crosses-link.ini \
	protocol/disco/scenarios/edge/stale-second-add-robust.ini \
	protocol/disco/scenarios/edge/stale-second-add.ini \
	protocol/disco/scenarios/edge/thin-uplink-large-model.ini \
	protocol/disco/scenarios/edge/thin-uplink-large-model-fifo.ini \
	protocol/disco/scenarios/failures/s01-ready-after-min-left-out-fixed.ini \
	protocol/disco/scenarios/failures/s01-ready-after-min-left-out.ini \
	protocol/disco/scenarios/failures/s02-leave-breaks-round-fixed.ini \
	protocol/disco/scenarios/failures/s02-leave-breaks-round.ini \
	protocol/disco/scenarios/failures/s03-late-joiner-initial-model-fixed.ini \
	protocol/disco/scenarios/failures/s03-late-joiner-initial-model-robust.ini \
	protocol/disco/scenarios/failures/s03-late-joiner-initial-model.ini \
	protocol/disco/scenarios/failures/s04-fast-peer-payload-dropped-fixed.ini \
	protocol/disco/scenarios/failures/s04-fast-peer-payload-dropped-robust.ini \
	protocol/disco/scenarios/failures/s04-fast-peer-payload-dropped.ini \
	protocol/disco/scenarios/failures/s05-retry-off-by-one-fixed.ini \
	protocol/disco/scenarios/failures/s05-retry-off-by-one-robust.ini \
	protocol/disco/scenarios/failures/s05-retry-off-by-one.ini \
	protocol/disco/scenarios/failures/s06-retry-counter-session-wide-robust.ini \
	protocol/disco/scenarios/failures/s06-retry-counter-session-wide.ini \
	protocol/disco/scenarios/failures/s07-orphan-timer-robust.ini \
	protocol/disco/scenarios/failures/s07-orphan-timer.ini \
	protocol/disco/scenarios/failures/s08-stuck-linking-node-robust.ini \
	protocol/disco/scenarios/failures/s08-stuck-linking-node.ini \
	protocol/disco/scenarios/failures/s08-stuck-linking-robust.ini \
	protocol/disco/scenarios/failures/s08-stuck-linking.ini \
	protocol/disco/scenarios/failures/s09-retry-wipes-ready-flag-robust.ini \
	protocol/disco/scenarios/failures/s09-retry-wipes-ready-flag.ini \
	protocol/disco/scenarios/failures/s10-provider-replaced-by-syncing-peer-fixed.ini \
	protocol/disco/scenarios/failures/s10-provider-replaced-by-syncing-peer-node-robust.ini \
	protocol/disco/scenarios/failures/s10-provider-replaced-by-syncing-peer-node.ini \
	protocol/disco/scenarios/failures/s10-provider-replaced-by-syncing-peer-robust.ini \
	protocol/disco/scenarios/failures/s10-provider-replaced-by-syncing-peer.ini \
	protocol/disco/scenarios/failures/s11-no-provider-left-robust.ini \
	protocol/disco/scenarios/failures/s11-no-provider-left.ini \
	protocol/disco/scenarios/failures/s11-no-provider-left-webapp.ini \
	protocol/disco/scenarios/failures/s12-provider-leaves-during-sync-robust.ini \
	protocol/disco/scenarios/failures/s12-provider-leaves-during-sync.ini \
	protocol/disco/scenarios/failures/s13-stale-model-served-robust.ini \
	protocol/disco/scenarios/failures/s13-stale-model-served.ini \
	protocol/disco/scenarios/failures/s14-retry-destroys-sync-link-robust.ini \
	protocol/disco/scenarios/failures/s14-retry-destroys-sync-link.ini \
	protocol/disco/scenarios/failures/s15-dead-link-reused-robust.ini \
	protocol/disco/scenarios/failures/s15-dead-link-reused.ini \
	protocol/disco/scenarios/failures/s17-leave-during-exchange-robust.ini \
	protocol/disco/scenarios/failures/s17-leave-during-exchange.ini \
	protocol/disco/scenarios/failures/s18-leave-in-connect-phase-robust.ini \
	protocol/disco/scenarios/failures/s18-leave-in-connect-phase.ini \
	protocol/disco/scenarios/failures/s19-join-in-connect-phase-robust.ini \
	protocol/disco/scenarios/failures/s19-join-in-connect-phase.ini \
	protocol/disco/scenarios/failures/s19-ready-in-connect-phase-deadlock-robust.ini \
	protocol/disco/scenarios/failures/s19-ready-in-connect-phase-deadlock.ini \
	protocol/disco/scenarios/failures/s20-finished-peers-block-late-joiner-robust.ini \
	protocol/disco/scenarios/failures/s20-finished-peers-block-late-joiner.ini \
	protocol/disco/scenarios/failures/s20-finished-peers-block-late-joiner-webapp.ini \
	protocol/disco/scenarios/failures/s21-second-waiting-node-robust.ini \
	protocol/disco/scenarios/failures/s21-second-waiting-node.ini \
	protocol/disco/scenarios/failures/s21-second-waiting-robust.ini \
	protocol/disco/scenarios/failures/s21-second-waiting.ini \
	protocol/disco/scenarios/failures/s23-syncing-counts-for-min-robust.ini \
	protocol/disco/scenarios/failures/s23-syncing-counts-for-min.ini \
	protocol/disco/scenarios/failures/s23-syncing-counts-for-min-webapp.ini \
	protocol/disco/scenarios/failures/s24-exclusion-below-min-robust.ini \
	protocol/disco/scenarios/failures/s24-exclusion-below-min.ini \
	protocol/disco/scenarios/failures/s25-everyone-leaves-model-lost-robust.ini \
	protocol/disco/scenarios/failures/s25-everyone-leaves-model-lost.ini \
	protocol/disco/scenarios/failures/s26-signal-to-departed-peer-robust.ini \
	protocol/disco/scenarios/failures/s26-signal-to-departed-peer.ini \
	protocol/disco/scenarios/failures/s27-future-round-payload-robust.ini \
	protocol/disco/scenarios/failures/s27-future-round-payload.ini \
	protocol/disco/scenarios/failures/s31-stray-connections-ready-robust.ini \
	protocol/disco/scenarios/failures/s31-stray-connections-ready.ini \
	protocol/disco/scenarios/found/775/explore-base-no-lost-model.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-exchanging-dropped-Payload.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-exchanging.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-linking-dropped-Payload.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-linking.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-wait-peers-for-round-dropped-Payload.ini \
	protocol/disco/scenarios/found/775/explore-base-progress-in-wait-peers-for-round.ini \
	protocol/disco/scenarios/found/draft/explore-base-own-round-only.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-exchanging-dropped-Payload.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-exchanging.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-sync-linking.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-wait-peers-for-round-dropped-StartWeightSharing.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-wait-peers-for-round.ini \
	protocol/disco/scenarios/found/draft/explore-base-progress-in-wait-start-retry-fail.ini \
	protocol/disco/scenarios/found/draft/explore-base-retries-before-exclusion.ini \
	protocol/disco/scenarios/found/draft/explore-base-sync-served-model-sync-timed-out.ini \
	protocol/disco/scenarios/found/draft/explore-base-sync-served-told-to-sync-from-itself.ini \
	protocol/disco/scenarios/found/explore-base-excluded-was-told-in-linking-dropped-ConnectionFail.ini \
	protocol/disco/scenarios/found/explore-base-excluded-was-told-in-paused-before-ready-dropped-ConnectionFail.ini \
	protocol/disco/scenarios/found/explore-base-excluded-was-told-in-paused-before-ready-dropped-RetryPeerConnections.ini \
	protocol/disco/scenarios/found/explore-base-own-round-only.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-exchanging-dropped-Payload.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-exchanging.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-linking-dropped-ConnectionFail.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-linking-dropped-RetryPeerConnections.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-sync-linking.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-wait-peers-for-round-dropped-ConnectionFail.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-wait-peers-for-round-dropped-RetryPeerConnections.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-wait-peers-for-round-dropped-StartWeightSharing.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-wait-peers-for-round.ini \
	protocol/disco/scenarios/found/explore-base-progress-in-wait-start-retry-fail.ini \
	protocol/disco/scenarios/found/explore-base-retries-before-exclusion.ini \
	protocol/disco/scenarios/found/explore-base-sync-served-model-sync-timed-out.ini \
	protocol/disco/scenarios/found/f1-early-payloads-next-round-tag.ini \
	protocol/disco/scenarios/regression/consensus-mean-10.ini \
	protocol/disco/scenarios/regression/consensus-mean-3.ini \
	protocol/disco/scenarios/regression/consensus-secure-10.ini \
	protocol/disco/scenarios/regression/consensus-secure-3.ini \
	protocol/disco/scenarios/regression/controller-exclusion-draft.ini \
	protocol/disco/scenarios/regression/controller-exclusion.ini \
	protocol/disco/scenarios/regression/controller-one-retry.ini \
	protocol/disco/scenarios/regression/late-joiner-syncs.ini \
	protocol/disco/scenarios/regression/robust-drop-slowest.ini \
	protocol/disco/scenarios/regression/robust-async.ini \
	protocol/disco/scenarios/regression/replica-leader-crash.ini \
	protocol/disco/scenarios/regression/replica-no-majority.ini \
	protocol/disco/scenarios/regression/replica-one-coordinator-crash.ini \
	protocol/disco/scenarios/regression/replica-primary-backup-loss.ini \
	protocol/disco/scenarios/regression/replica-raft-no-loss.ini \
	protocol/disco/scenarios/regression/reset-after-everyone-leaves.ini \
	protocol/disco/scenarios/regression/status-timeline.ini \
	protocol/disco/scenarios/regression/bandwidth-trace.ini \
	protocol/disco/scenarios/regression/bandwidth-trace-fifo.ini \
	protocol/disco/scenarios/regression/trace-fedscale.ini \
	protocol/disco/scenarios/regression/trace-fedscale-capacity.ini \
	protocol/disco/scenarios/regression/trace-leave-and-return.ini \
	protocol/disco/scenarios/regression/robust-ready-crossing.ini \
	$(NULL)
