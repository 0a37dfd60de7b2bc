/* test-disco-failures.c — DISCO's failures S4, S7, S8, S9 and S17
 * (DISCO-NOTES.md) as scripted input sequences to its machines that end in
 * the stuck state, each with the version that fixes it where one does.
 * Time is hand-held (proto-harness.c); there is no simulator here. */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-msgs.h"

#include <check.h>
#include <string.h>

/* -------------------------------------------------------- DISCO's failures */

START_TEST (test_s04_fast_peer_payload_dropped_775)
{
  /* disco-775: round 1 reuses the round-0 link.  The fast peer gets its
   * PeersForRound first and sends its Payload at once; the slow peer has no
   * receive loop (its round-0 loop is done) and drops it: it waits forever. */
  Harness *h = h_two_training (DISCO_VERSION_775, 2);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_settle (h);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_hold (h, PROTO_MSG_ROUND_PEERS, PROTO_SERVER);
  h_settle (h);
  ck_assert (h_deliver_one (h, PROTO_MSG_ROUND_PEERS, 2));   /* the fast peer */
  assert_state (h, 2, DISCO_PEER_EXCHANGING);
  ck_assert (h_deliver_one (h, DISCO_MSG_PAYLOAD, 1));            /* overtakes 1's list */
  ck_assert_uint_eq (h_count_log (h, "p1 dropped Payload node=2"), 1);
  h_unhold (h);
  h_settle (h);
  h_advance (h, 2 * DL_H);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);     /* hung */
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  assert_state (h, 2, DISCO_PEER_DONE);           /* it got 1's payload */
  h_free (h);
}
END_TEST

START_TEST (test_s04_fixed_by_barrier_1110)
{
  /* The same ordering under disco-1110: the fast peer only sends
   * ConnectionsReady; payloads wait for StartWeightSharing. */
  Harness *h = h_two_training (DISCO_VERSION_1110, 2);
  for (int r = 0; r < 2; r++)
    {
      h_finish_training (h, 1);
      h_finish_training (h, 2);
      h_hold (h, PROTO_MSG_ROUND_PEERS, PROTO_SERVER);
      h_settle (h);
      ck_assert (h_deliver_one (h, PROTO_MSG_ROUND_PEERS, 2));
      ck_assert_uint_eq (h_queued (h, DISCO_MSG_PAYLOAD, PROTO_NO_NODE), 0);
      h_unhold (h);
      h_settle (h);
    }
  assert_state (h, 1, DISCO_PEER_DONE);
  assert_state (h, 2, DISCO_PEER_DONE);
  h_free (h);
}
END_TEST

START_TEST (test_s07_orphan_timer_deadlock)
{
  Harness *h = h_two_training (DISCO_VERSION_1110, 3);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  /* 2's ConnectionsReady is slow: the timer fires at 60 s */
  h_hold (h, DISCO_MSG_CONNECTIONS_READY, 2);
  h_settle (h);
  h_advance (h, T60);                                 /* Retry, timer T1 until 120 s */
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, PROTO_NO_NODE), 2);
  h_unhold (h);
  h_advance (h, 5 * DL_S);
  h_settle (h);                                       /* re-ready at 65 s: T2 until 125 s */
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  ck_assert_uint_eq (disco_coord_pending_timers (h->coord), 1);   /* T1, orphaned */
  /* next round: 1 is ready first */
  h_finish_training (h, 1);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
  ck_assert (disco_coord_is_ready (h->coord, 1));
  h_advance_to (h, 120 * DL_S);                       /* the orphan fires */
  ck_assert_uint_eq (h_count_log (h, "orphan timer"), 1);
  ck_assert (!disco_coord_is_ready (h->coord, 1));    /* 1's ready flag wiped */
  h_settle (h);                                       /* 1 drops the Retry */
  ck_assert_uint_ge (h_count_log (h, "p1 dropped RetryPeerConnections"), 1);
  h_finish_training (h, 2);
  h_settle (h);
  h_wait (h, DL_H);
  /* deadlock: 1 waits for a list that never comes; 2 too */
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
  assert_state (h, 2, DISCO_PEER_WAIT_PEERS);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  h_free (h);
}
END_TEST

START_TEST (test_s08_stuck_linking_cannot_be_excluded)
{
  /* The 1-2 link never comes up: both stay in getPeers, drop every Retry and
   * the Fail; the coordinator's timer cycles forever; no error is raised. */
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
  Harness *h = h_new (&c, 2, 4);
  h_fail_link (h, 1, 2);
  h_start (h, 1);
  h_start (h, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_LINKING);
  for (int k = 0; k < 10; k++)
    {
      h_wait (h, T60);
    }
  assert_state (h, 1, DISCO_PEER_LINKING);
  assert_state (h, 2, DISCO_PEER_LINKING);
  ck_assert_uint_eq (proto_machine_received_count (h->m[1], DISCO_MSG_RETRY_PEER_CONNECTIONS), 3);
  ck_assert_uint_eq (proto_machine_received_count (h->m[1], DISCO_MSG_CONNECTION_FAIL), 1);
  ck_assert_uint_eq (h_count_log (h, "p1 dropped ConnectionFail"), 1);
  ck_assert_uint_eq (h_count_log (h, "error"), 0);
  ck_assert (proto_machine_connected (h->m[1]));
  ck_assert (!disco_coord_in_round (h->coord, 1));
  ck_assert_uint_eq (disco_coord_pending_timers (h->coord), 1);   /* still cycling */
  h_free (h);
}
END_TEST

START_TEST (test_s09_retry_wipes_ready_flag)
{
  /* Three peers; the 1-3 link fails.  2 processes the first Retry and re-sends
   * PeerIsReady; the second timeout wipes its flag and its Retry is dropped
   * (2 waits for PeersForRound): 2 never re-sends PeerIsReady. */
  Harness *h = h_s09_opening (DISCO_VERSION_1110);
  assert_state (h, 2, DISCO_PEER_WAIT_PEERS);
  ck_assert (disco_coord_is_ready (h->coord, 2));
  h_wait (h, T60);
  ck_assert (!disco_coord_is_ready (h->coord, 2));
  ck_assert_uint_eq (h_count_log (h, "p2 dropped RetryPeerConnections"), 1);
  h_wait (h, DL_H);
  assert_state (h, 2, DISCO_PEER_WAIT_PEERS);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[2]), 0);
  h_free (h);
}
END_TEST

START_TEST (test_s17_leave_during_exchange)
{
  /* Start reached everyone; 3 leaves before its Payloads arrive: 1 and 2 wait
   * 15 s, then forever. */
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 3, 1);
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold (h, DISCO_MSG_PAYLOAD, 3);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  h_leave (h, 3);
  h_drop (h, DISCO_MSG_PAYLOAD, PROTO_NO_NODE);   /* in flight on links that closed */
  h_unhold (h);
  h_settle (h);
  h_advance (h, 15 * DL_S);
  ck_assert_uint_eq (h_count_log (h, "aggregation wait expired"), 2);
  h_wait (h, 2 * DL_H);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  assert_state (h, 2, DISCO_PEER_EXCHANGING);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 0);
  h_free (h);
}
END_TEST

static Suite *
failures_suite (void)
{
  Suite *s = suite_create ("disco-failures");
  TCase *tc = tcase_create ("failures");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_s04_fast_peer_payload_dropped_775);
  tcase_add_test (tc, test_s04_fixed_by_barrier_1110);
  tcase_add_test (tc, test_s07_orphan_timer_deadlock);
  tcase_add_test (tc, test_s08_stuck_linking_cannot_be_excluded);
  tcase_add_test (tc, test_s09_retry_wipes_ready_flag);
  tcase_add_test (tc, test_s17_leave_during_exchange);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (failures_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
