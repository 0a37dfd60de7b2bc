/* test-robust.c — the robust version's fixes on the machines themselves,
 * each against the DISCO behaviour it replaces (docs/protocol.md, "robust:
 * what changed and why"), with the harness of proto-harness.h.  The
 * -robust twins in protocol/disco/scenarios/failures/ test the same in the world. */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-msgs.h"

#include <check.h>
#include <string.h>


START_TEST (test_helper_flag_on_the_wire)
{
  /* DISCO's PeerIsReady has no field and keeps its size; robust's helper
   * flag travels, and a decoder reads both forms */
  ProtoMsg m, back;
  proto_msg_init (&m, PROTO_MSG_READY);
  gsize plain = proto_msg_wire_size (&m);
  m.helper = TRUE;
  g_autoptr (GBytes) b = proto_msg_encode (&m);
  ck_assert_uint_gt (g_bytes_get_size (b), plain);
  ck_assert (proto_msg_decode (b, &back, NULL));
  ck_assert (back.helper);
  m.helper = FALSE;
  g_autoptr (GBytes) b2 = proto_msg_encode (&m);
  ck_assert_uint_eq (g_bytes_get_size (b2), plain);
  ck_assert (proto_msg_decode (b2, &back, NULL));
  ck_assert (!back.helper);
}
END_TEST

START_TEST (test_versions_by_name)
{
  DiscoVersion v;
  ck_assert (disco_version_from_name ("robust", &v, NULL) && v == DISCO_VERSION_ROBUST);
  ck_assert (disco_version_from_name ("disco-pre775", &v, NULL) && v == DISCO_VERSION_PRE775);
  g_autoptr (GError) e = NULL;
  ck_assert (!disco_version_from_name ("robust2", &v, &e));
  ck_assert (strstr (e->message, "robust") != NULL);
  ProtoConfig c;
  disco_config_init (&c, DISCO_VERSION_1110);
  ck_assert (disco_wait_timeout (&c) == DL_TIME_NEVER);
  ck_assert (!disco_config (&c)->robust_single_timer && !disco_config (&c)->robust_checkpoint);
  disco_config_init (&c, DISCO_VERSION_ROBUST);
  ck_assert (disco_wait_timeout (&c) == 2 * T60);
  ck_assert (disco_config (&c)->connect_barrier && disco_config (&c)->model_sync);
}
END_TEST

/* S7 and S9: the same script as test-protocol's S9 (the 1-3 link fails).
 * DISCO wipes 2's ready flag and 2 drops the Retry; robust has no timer in
 * the collect phase and excludes the two ends, who are told. */
START_TEST (test_s09_no_retry_while_collecting)
{
  Harness *h = h_s09_opening (DISCO_VERSION_ROBUST);
  /* the Retry sent everyone back to collect; a new list, a new timer */
  ck_assert_uint_eq (disco_coord_pending_timers (h->coord), 1);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "connect");
  for (guint k = 0; k < 4; k++)
    {
      h_wait (h, T60);
    }
  ck_assert_uint_eq (h_count_log (h, "dropped RetryPeerConnections"), 0);
  ck_assert_uint_eq (h_count_log (h, "dropped ConnectionFail"), 0);
  ck_assert (!proto_machine_connected (h->m[1]));
  ck_assert (!proto_machine_connected (h->m[3]));
  ck_assert (proto_machine_connected (h->m[2]));
  ck_assert_uint_le (disco_coord_pending_timers (h->coord), 1);
  h_free (h);
}
END_TEST

/* S6: one timeout per round never adds up. */
START_TEST (test_s06_retry_counter_per_round)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 6);
  disco_config_mut (&c)->max_connection_retry = 1;
  Harness *h = h_new (&c, 2, 4);
  for (guint i = 1; i <= 2; i++)
    h_start (h, i);
  for (guint round = 0; round < 5; round++)
    {
      h_settle (h);
      /* p2's ConnectionsReady of this attempt is lost: one timeout */
      ck_assert_uint_ge (h_drop (h, DISCO_MSG_CONNECTIONS_READY, PROTO_SERVER), 0);
      h_wait (h, T60);
    }
  ck_assert_uint_eq (h_count_log (h, "excluded"), 0);
  ck_assert_uint_ge (proto_machine_rounds_done (h->m[1]), 4);
  h_free (h);
}
END_TEST

/* S19 and S31 on the coordinator: a newcomer's PeerIsReady in the connect
 * phase is kept for the next collect, a stray ConnectionsReady ignored. */
START_TEST (test_s19_s31_connect_phase_is_the_members)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 1);
  Harness *h = h_new (&c, 3, 4);
  h_members (h, 3, 2);
  /* 3 is not ready: the straggler timer, then a list of 1 and 2 */
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 0);
  h_advance (h, T60);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, 1), 1);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, 3), 0);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "connect");
  h_to_coord (h, 3, DISCO_MSG_JOIN_ROUND);
  h_to_coord (h, 3, PROTO_MSG_READY);
  h_to_coord (h, 3, DISCO_MSG_CONNECTIONS_READY);        /* stray */
  ck_assert_uint_eq (h_count_log (h, "not in the connect phase: ignored"), 1);
  ck_assert (!disco_coord_has_connect_flag (h->coord, 3));
  h_to_coord (h, 1, DISCO_MSG_CONNECTIONS_READY);
  h_to_coord (h, 2, DISCO_MSG_CONNECTIONS_READY);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_START_WEIGHT_SHARING, 3), 0);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_START_WEIGHT_SHARING, 1), 1);
  /* 3 kept its readiness through the Start */
  ck_assert (disco_coord_is_ready (h->coord, 3));
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  h_free (h);
}
END_TEST

/* S17: a member leaves during the exchange.  DISCO waits forever
 * (test-protocol's S17).  robust: if the coordinator still counts it as
 * exchanging, its close sends the others a Retry and they abort within
 * aggregation_wait; if it had finished (its Payloads were lost all the
 * same), the progress deadline (payload_timeout) ends the exchange. */
static Harness *
s17_start (gboolean leaver_finishes)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 2);
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold (h, DISCO_MSG_PAYLOAD, 3);
  if (!leaver_finishes)
    h_hold_to (h, DISCO_MSG_PAYLOAD, 3);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  h_leave (h, 3);
  h_drop (h, DISCO_MSG_PAYLOAD, PROTO_NO_NODE);   /* in flight on links that closed */
  h_unhold (h);
  h_settle (h);
  return h;
}

START_TEST (test_s17_close_during_exchange_retry)
{
  Harness *h = s17_start (FALSE);
  ck_assert_uint_eq (h_count_log (h, "a member left during the exchange"), 1);
  ck_assert_uint_eq (h_count_log (h, "a member left: the exchange ends within aggregation_wait"), 2);
  h_wait (h, 15 * DL_S);
  ck_assert_uint_eq (h_count_log (h, "the exchange is aborted"), 2);
  h_wait (h, T60);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 2);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[2]), 2);
  h_free (h);
}
END_TEST

START_TEST (test_s17_lost_payloads_deadline)
{
  Harness *h = s17_start (TRUE);
  ck_assert_uint_eq (h_count_log (h, "a member left during the exchange"), 0);   /* 3 had finished */
  h_wait (h, T60 - 1);
  ck_assert_uint_eq (h_count_log (h, "the exchange is aborted"), 0);
  h_wait (h, 1);
  ck_assert_uint_eq (h_count_log (h, "no contribution for payload_timeout: the exchange is aborted"), 2);
  h_wait (h, T60);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 2);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[2]), 2);
  h_free (h);
}
END_TEST

/* S27: a Payload of another round is refused; the strict aggregator. */
START_TEST (test_s27_exact_round)
{
  g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
  disco_aggregator_set_strict (a, TRUE);
  ProtoNodeId ids[] = { 1, 2, 3 };
  disco_aggregator_set_nodes (a, ids, 3);
  float w1[] = { 1 }, w2[] = { 2 }, w9[] = { 9 };
  g_autoptr (LearnWeights) l1 = learn_weights_new_from (w1, 1);
  g_autoptr (LearnWeights) l2 = learn_weights_new_from (w2, 1);
  g_autoptr (LearnWeights) l9 = learn_weights_new_from (w9, 1);
  gboolean refused;
  ck_assert (disco_aggregator_add (a, 1, l1, 0, 0, &refused) == NULL && !refused);
  ck_assert (disco_aggregator_add (a, 2, l2, 0, 0, &refused) == NULL && !refused);
  /* a fourth node's contribution does not fill a strict aggregator (DISCO's
   * mean counts it: mean.ts) */
  ProtoNodeId four[] = { 1, 2, 3, 4 };
  disco_aggregator_set_nodes (a, four, 4);
  ck_assert (disco_aggregator_add (a, 4, l9, 0, 0, &refused) == NULL);
  disco_aggregator_set_nodes (a, ids, 3);
  ck_assert (!disco_aggregator_has_contribution (a, 3));
  g_autoptr (LearnWeights) r = disco_aggregator_add (a, 3, l2, 0, 0, &refused);
  ck_assert (r != NULL);
  /* (1 + 2 + 2) / 3: node 4's 9 is not averaged in */
  ck_assert_double_eq_tol (learn_weights_data (r)[0], 5.0 / 3, 1e-6);
  ck_assert_uint_eq (disco_aggregator_round (a), 1);
}
END_TEST

/* S20: a finished peer that stays is a helper: it never starts a round
 * alone, and a late joiner trains with it. */
START_TEST (test_s20_helpers_help_only)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 1);
  Harness *h = h_new (&c, 3, 4);
  h_start (h, 1);
  h_start (h, 2);
  h_settle (h);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  assert_state (h, 1, DISCO_PEER_DONE);
  assert_state (h, 2, DISCO_PEER_DONE);
  ck_assert_uint_ge (h_count_log (h, "PeerIsReady"), 4);
  h_wait (h, 10 * T60);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);   /* helpers alone: no round */
  h_start (h, 3);                                        /* joins mid-training, syncs */
  h_settle (h);
  h_wait (h, T60);
  ck_assert (disco_peer_synced (h->peers[3]));
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[3]), 1);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);   /* a helper's round is not its own */
  ck_assert_uint_eq (disco_coord_round (h->coord), 2);
  h_free (h);
}
END_TEST

/* S25: everyone leaves; the coordinator kept the model and the round, and
 * the next joiner syncs from it. */
START_TEST (test_s25_checkpoint_survives_reset)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 1);
  Harness *h = h_new (&c, 4, 4);
  h_start (h, 1);
  h_start (h, 2);
  h_settle (h);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[2]), 1);
  h_leave (h, 1);
  h_leave (h, 2);
  h_settle (h);
  ck_assert_uint_ge (h_count_log (h, "checkpoint of the last round kept"), 1);
  ck_assert_uint_eq (disco_coord_connections (h->coord), 0);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  h_start (h, 3);
  h_start (h, 4);
  h_settle (h);
  h_wait (h, T60);
  ck_assert (disco_peer_synced (h->peers[3]));
  ck_assert (disco_peer_synced (h->peers[4]));
  ck_assert (learn_weights_equal (disco_peer_latest_model (h->peers[3]), disco_peer_latest_model (h->peers[4])));
  h_free (h);
}
END_TEST

/* A lost PeersForRound: DISCO waits forever; robust says PeerIsReady again
 * after 2T and the attempt starts over. */
START_TEST (test_lost_list_said_again)
{
  ProtoConfig c;
  Harness *h = h_two_training (DISCO_VERSION_ROBUST, 1);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_settle (h);
  ck_assert_uint_ge (h_count_log (h, "PeersForRound"), 1);
  h_free (h);

  for (int v = 0; v < 2; v++)
    {
      c = h_cfg (v ? DISCO_VERSION_ROBUST : DISCO_VERSION_1110, 2, 1);
      h = h_new (&c, 2, 4);
      h->auto_train = FALSE;
      h_start (h, 1);
      h_start (h, 2);
      h_settle (h);
      h_finish_training (h, 1);
      h_hold_to (h, PROTO_MSG_ROUND_PEERS, 2);
      h_finish_training (h, 2);
      h_settle (h);
      ck_assert_uint_eq (h_drop (h, PROTO_MSG_ROUND_PEERS, 2), 1);
      h_unhold (h);
      for (guint k = 0; k < 6; k++)
        {
          h_wait (h, T60);
        }
      ck_assert_uint_eq (proto_machine_rounds_done (h->m[2]), v ? 1 : 0);
      h_free (h);
    }
}
END_TEST

/* S22 (every version, robust included): EnoughParticipants overtaking
 * NewNodeInfo, which only separate channels could do (the world keeps the
 * coordinator's stream FIFO), does not leave the peer paused: the client's
 * inversion flag (setupServerCallbacks, client.ts). */
START_TEST (test_s22_enough_before_info)
{
  for (int v = 0; v < 2; v++)
    {
      ProtoConfig c = h_cfg (v ? DISCO_VERSION_ROBUST : DISCO_VERSION_1110, 2, 1);
      Harness *h = h_new (&c, 2, 4);
      h->auto_train = FALSE;
      h_hold_to (h, PROTO_MSG_WELCOME, 1);
      h_start (h, 1);
      h_settle (h);
      h_start (h, 2);
      h_settle (h);   /* Enough reaches p1 first */
      ck_assert_uint_eq (h_queued (h, PROTO_MSG_WELCOME, 1), 1);
      h_unhold (h);
      h_settle (h);
      assert_state (h, 1, DISCO_PEER_TRAINING);
      ck_assert (!disco_peer_paused (h->peers[1]));
      h_free (h);
    }
}
END_TEST

static void
feed_link (Harness *h, guint i, ProtoInputKind kind, ProtoNodeId from)
{
  ProtoInput in = { .kind = kind, .from = from, .via = PROTO_VIA_LINK };
  harness_feed (h, i, &in);
}

/* The scripts of the S15 tests: p1 (of five peers) is given the list 2,
 * 3, 4, 5 and links to each, which come up only when fed (feed_link);
 * then a SignalNewPeer for 3. */
static const ProtoNodeId s15_ids[] = { 2, 3, 4, 5 };

static Harness *
s15_linking (void)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_ROBUST, 2, 2);
  Harness *h = h_pair_training (&c, 5);
  h->auto_links = FALSE;
  h_finish_training (h, 1);
  h_drop (h, PROTO_MSG_READY, PROTO_NO_NODE);
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_ROUND_PEERS);
  proto_msg_set_peers (&m, s15_ids, G_N_ELEMENTS (s15_ids));
  h_to_peer (h, 1, PROTO_SERVER, &m);
  proto_msg_clear (&m);
  return h;
}

static void
s15_newcomer_3 (Harness *h)
{
  ProtoMsg m;
  proto_msg_init (&m, DISCO_MSG_SIGNAL_NEW_PEER);
  m.node = 3;
  h_to_peer (h, 1, PROTO_SERVER, &m);
  proto_msg_clear (&m);
}

/* S15 replaces a closed link from the middle of the pool (issue 44: the
 * pool is one table of records in creation order, and the records after
 * the dropped one move up a place): every other link keeps its own state,
 * and the new one is at the end, fresh. */
START_TEST (test_s15_replace_keeps_the_others)
{
  Harness *h = s15_linking ();
  DiscoPeer *p = h->peers[1];
  ck_assert_uint_eq (disco_peer_pool_size (p), 4);   /* 2, 3, 4, 5: p1 answers each */
  feed_link (h, 1, PROTO_IN_LINK_UP, 3);
  feed_link (h, 1, PROTO_IN_LINK_CLOSED, 3);
  feed_link (h, 1, PROTO_IN_LINK_UP, 4);
  ck_assert_int_eq (disco_peer_link_state (p, 2), DISCO_LINK_WAIT_OFFER);
  ck_assert_int_eq (disco_peer_link_state (p, 3), DISCO_LINK_CLOSED);
  ck_assert_int_eq (disco_peer_link_state (p, 4), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 5), DISCO_LINK_WAIT_OFFER);
  /* a newcomer 3: its sync getPeers replaces the closed link (S15) */
  s15_newcomer_3 (h);
  ck_assert_uint_eq (h_count_log (h, "closed or failed: replaced"), 1);
  ck_assert_uint_eq (disco_peer_pool_size (p), 4);
  ck_assert_int_eq (disco_peer_link_state (p, 2), DISCO_LINK_WAIT_OFFER);
  ck_assert_int_eq (disco_peer_link_state (p, 3), DISCO_LINK_WAIT_OFFER);
  ck_assert_int_eq (disco_peer_link_state (p, 4), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 5), DISCO_LINK_WAIT_OFFER);
  /* 5 and 3 are still waited for: each coming up is taken */
  feed_link (h, 1, PROTO_IN_LINK_UP, 5);
  feed_link (h, 1, PROTO_IN_LINK_UP, 3);
  ck_assert_int_eq (disco_peer_link_state (p, 5), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 3), DISCO_LINK_UP);
  h_free (h);
}
END_TEST

/* S15 in a sync getPeers while the round still waits for its links: the
 * link to 3 closed before it came up, so 3 is still in the round's
 * pending list when a SignalNewPeer for 3 replaces the link.  The new
 * link stands for 3 in that list: whichever order the four links come up
 * in (_i: 3's turn), the round's wait ends with the last of them (the
 * sync getPeers leaves the round's set as it was, and the new link takes
 * the old one's place in it: disco-peer-pool.c, get_peer). */
START_TEST (test_s15_replaced_while_pending)
{
  Harness *h = s15_linking ();
  assert_state (h, 1, DISCO_PEER_LINKING);
  feed_link (h, 1, PROTO_IN_LINK_CLOSED, 3);
  s15_newcomer_3 (h);
  ck_assert_uint_eq (h_count_log (h, "closed or failed: replaced"), 1);
  const ProtoNodeId others[] = { 2, 4, 5 };
  for (guint k = 0, o = 0; k < 4; k++)
    {
      assert_state (h, 1, DISCO_PEER_LINKING);
      feed_link (h, 1, PROTO_IN_LINK_UP, k == (guint) _i ? 3 : others[o++]);
    }
  for (guint k = 0; k < G_N_ELEMENTS (s15_ids); k++)
    ck_assert_int_eq (disco_peer_link_state (h->peers[1], s15_ids[k]), DISCO_LINK_UP);
  assert_state (h, 1, DISCO_PEER_WAIT_DECISION);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_CONNECTIONS_READY, PROTO_SERVER), 1);
  h_free (h);
}
END_TEST

static Suite *
suite (void)
{
  Suite *s = suite_create ("robust");
  TCase *t = tcase_create ("fixes");
  tcase_add_test (t, test_helper_flag_on_the_wire);
  tcase_add_test (t, test_versions_by_name);
  tcase_add_test (t, test_s09_no_retry_while_collecting);
  tcase_add_test (t, test_s06_retry_counter_per_round);
  tcase_add_test (t, test_s19_s31_connect_phase_is_the_members);
  tcase_add_test (t, test_s17_close_during_exchange_retry);
  tcase_add_test (t, test_s17_lost_payloads_deadline);
  tcase_add_test (t, test_s27_exact_round);
  tcase_add_test (t, test_s20_helpers_help_only);
  tcase_add_test (t, test_s25_checkpoint_survives_reset);
  tcase_add_test (t, test_lost_list_said_again);
  tcase_add_test (t, test_s22_enough_before_info);
  tcase_add_test (t, test_s15_replace_keeps_the_others);
  tcase_add_loop_test (t, test_s15_replaced_while_pending, 0, 4);
  suite_add_tcase (s, t);
  return s;
}

int
main (void)
{
  SRunner *r = srunner_create (suite ());
  srunner_run_all (r, CK_NORMAL);
  int failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed == 0 ? 0 : 1;
}
