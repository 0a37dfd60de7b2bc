/* test-fidelity.c — the machines against DISCO's own code: one test (or
 * more) for each behaviour of issue #10 where dlsim used to differ from
 * DISCO, each naming the DISCO file and function it follows.  Time is
 * hand-held (proto-harness.c). */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "protocol/disco/disco-aggregator.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-msgs.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------- 1. the aggregation wait */

/* Secure aggregation, 3 peers, min 3; StartWeightSharing to p3 arrives
 * `late` after the others'.  exchangeWeightUpdates (decentralized_client.ts)
 * races each communication round against a 15 s timeout; on expiry it
 * breaks and returns `await this.aggregationResult`, the promise of the
 * communication round it broke in. */
/* Three peers, min 3, StartWeightSharing to p3 held back. */
static Harness *
three_start_held (DiscoAggregation agg, guint rounds)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 3, rounds);
  disco_config_mut (&c)->aggregation = agg;
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold_to (h, DISCO_MSG_START_WEIGHT_SHARING, 3);
  h_settle (h);
  return h;
}

static Harness *
secure_late_start (DlTime late, guint rounds)
{
  Harness *h = three_start_held (DISCO_AGG_SECURE, rounds);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  assert_state (h, 3, DISCO_PEER_WAIT_DECISION);
  h_advance (h, late);
  h_unhold (h);
  h_settle (h);
  return h;
}

START_TEST (test_secure_wait_expires_in_comm_round_0)
{
  Harness *h = secure_late_start (20 * DL_S, 2);
  /* p1 and p2 broke at 15 s in communication round 0, then took round 0's
   * result (their partial sums) as the model when p3's shares came; they
   * never sent a partial sum: 2 Payloads each, all of communication round 0 */
  for (guint i = 1; i <= 2; i++)
    {
      ck_assert_uint_eq (proto_machine_rounds_done (h->m[i]), 1);
      ck_assert_uint_eq (disco_peer_agg_comm_round (h->peers[i]), 1);   /* stays in comm round 1 */
      ck_assert_uint_eq (disco_peer_agg_round (h->peers[i]), 0);
      g_autofree char *sent = g_strdup_printf ("p%u sent Payload", i);
      ck_assert_uint_eq (h_count_log (h, sent), 2);
      assert_state (h, i, DISCO_PEER_WAIT_PEERS);   /* round 2 waits for p3's PeerIsReady */
    }
  ck_assert_uint_eq (h_count_log (h, "comm round 0: break"), 2);
  /* partial sums differ from each other (random shares in +-100) */
  ck_assert (!learn_weights_equal (proto_machine_model (h->m[1]), proto_machine_model (h->m[2])));
  /* p3 sent its partial sum and waits in communication round 1 forever */
  h_wait (h, 2 * DL_H);
  assert_state (h, 3, DISCO_PEER_EXCHANGING);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[3]), 0);
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
  h_free (h);
}
END_TEST

START_TEST (test_secure_wait_not_expired_is_consensus)
{
  /* the control: p3's Start 10 s late, within the 15 s wait: consensus */
  Harness *h = secure_late_start (10 * DL_S, 2);
  for (guint i = 1; i <= 3; i++)
    {
      assert_state (h, i, DISCO_PEER_DONE);
      ck_assert_uint_eq (disco_peer_agg_comm_round (h->peers[i]), 0);
      ck_assert (learn_weights_max_abs_diff (proto_machine_model (h->m[i]), proto_machine_model (h->m[1])) < 1e-3);
    }
  h_free (h);
}
END_TEST

START_TEST (test_mean_wait_expiry_only_waits)
{
  /* mean has one communication round: the expiry breaks the loop and the
   * same promise is awaited with no limit; when the Payload comes, the round
   * ends with the mean, as without the expiry */
  Harness *h = three_start_held (DISCO_AGG_MEAN, 1);
  h_advance (h, 40 * DL_S);
  ck_assert_uint_eq (h_count_log (h, "the result is awaited with no limit"), 2);
  h_unhold (h);
  h_settle (h);
  for (guint i = 1; i <= 3; i++)
    {
      assert_state (h, i, DISCO_PEER_DONE);
      ck_assert (learn_weights_equal (proto_machine_model (h->m[i]), proto_machine_model (h->m[1])));
    }
  h_free (h);
}
END_TEST

START_TEST (test_receive_timeout_uses_a_reception)
{
  /* receivePayloads: a 60 s waitMessageWithTimeout that expires moves the
   * loop on to its next reception; after the last one the peer has no
   * Payload listener for that link (not "logs only") */
  Harness *h = three_start_held (DISCO_AGG_MEAN, 1);
  h_advance (h, 61 * DL_S);
  ck_assert_uint_ge (h_count_log (h, "p1 timer-fired Payload node=3"), 1);
  ck_assert (!proto_machine_listens (h->m[1], DISCO_MSG_PAYLOAD, 3));
  h_unhold (h);
  h_settle (h);
  ck_assert_uint_eq (h_count_log (h, "p1 dropped Payload"), 1);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);   /* hung: the Payload came after the loop ended */
  h_free (h);
}
END_TEST

/* robust, async and mixed: weights by staleness give sum w x / sum w;
 * equal weights, or another round's, the plain mean */
START_TEST (test_aggregator_staleness_weights)
{
  const ProtoNodeId nodes[] = { 1, 2 };
  const float x1[] = { 0.0f, 3.0f }, x2[] = { 6.0f, 9.0f };
  g_autoptr (LearnWeights) w1 = learn_weights_new_from (x1, 2);
  g_autoptr (LearnWeights) w2 = learn_weights_new_from (x2, 2);
  gboolean refused;
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
      disco_aggregator_set_strict (a, TRUE);
      disco_aggregator_set_nodes (a, nodes, 2);
      const double wt[] = { 1.0, k == 1 ? 1.0 : 0.5 };   /* 2 is stale (weight 0.5), or not */
      disco_aggregator_set_weights (a, k == 2 ? 7 : 0, nodes, wt, 2);   /* k = 2: another round's */
      ck_assert_ptr_null (disco_aggregator_add (a, 1, w1, 0, 0, &refused));
      g_autoptr (LearnWeights) r = disco_aggregator_add (a, 2, w2, 0, 0, &refused);
      ck_assert_ptr_nonnull (r);
      const float *d = learn_weights_data (r);
      if (k == 0)
        {
          ck_assert_float_eq_tol (d[0], 2.0f, 1e-6f);   /* (0 + 0.5 x 6) / 1.5 */
          ck_assert_float_eq_tol (d[1], 5.0f, 1e-6f);   /* (3 + 0.5 x 9) / 1.5 */
        }
      else
        {
          ck_assert_float_eq_tol (d[0], 3.0f, 1e-6f);
          ck_assert_float_eq_tol (d[1], 6.0f, 1e-6f);
        }
    }
}
END_TEST

/* ------------------------------------------ 8. the aggregator's counting */

START_TEST (test_aggregator_counts_every_stored_contribution)
{
  /* MeanAggregator.isFull: contributions[0].size >= nodes.size, whatever the
   * nodes: a contribution stored under an earlier node set still counts. */
  g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
  const ProtoNodeId first[] = { 1, 2, 3 }, second[] = { 1, 2 };
  g_autoptr (LearnWeights) w = learn_weights_new (3);
  gboolean refused;
  disco_aggregator_set_nodes (a, first, 3);
  ck_assert_ptr_null (disco_aggregator_add (a, 3, w, 0, 0, &refused));
  disco_aggregator_set_nodes (a, second, 2);   /* a Retry, then a smaller list */
  /* 3's stale entry and 1's make 2 >= 2: full although 2 never contributed */
  g_autoptr (LearnWeights) r = disco_aggregator_add (a, 1, w, 0, 0, &refused);
  ck_assert_ptr_nonnull (r);
  ck_assert_uint_eq (disco_aggregator_round (a), 1);
  ck_assert_uint_eq (disco_aggregator_stored (a, 0), 0);   /* cleared after the last comm round */
  /* secure: exactly nodes.size, so a stale extra entry blocks the round */
  g_autoptr (DlRandom) rng = dl_random_new (1, "t", 0);
  g_autoptr (DiscoAggregator) s = disco_aggregator_new (DISCO_AGG_SECURE, 100, rng);
  disco_aggregator_set_nodes (s, first, 3);
  ck_assert_ptr_null (disco_aggregator_add (s, 3, w, 0, 0, &refused));
  ck_assert_ptr_null (disco_aggregator_add (s, 2, w, 0, 0, &refused));
  disco_aggregator_set_nodes (s, second, 1);                             /* {1} */
  ck_assert_ptr_null (disco_aggregator_add (s, 1, w, 0, 0, &refused));   /* 3 stored != 1 */
  ck_assert_uint_eq (disco_aggregator_comm_round (s), 0);
  /* validity: a future round passes, an older one and a stranger do not */
  ck_assert (disco_aggregator_is_valid (s, 1, 5));
  ck_assert (!disco_aggregator_is_valid (s, 3, 0));
  ck_assert (!disco_aggregator_is_valid (a, 1, 0));   /* a is in round 1: round 0 is older */
  ck_assert_ptr_null (disco_aggregator_add (s, 1, w, 0, 2, &refused));
  ck_assert (refused);
}
END_TEST

/* setNodes makes a Set: a list with repeated ids counts each once, in
 * isFull as in the count the peer reads, and the order is the first
 * sight of each.  A count of the list's length (5) would never fill
 * with three nodes. */
START_TEST (test_aggregator_counts_a_list_with_repeats_once)
{
  const ProtoNodeId nodes[] = { 5, 2, 5, 9, 2 };
  g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
  disco_aggregator_set_nodes (a, nodes, G_N_ELEMENTS (nodes));
  ck_assert_uint_eq (disco_aggregator_n_nodes (a), 3);
  ck_assert_uint_eq (disco_aggregator_node (a, 0), 5);
  ck_assert_uint_eq (disco_aggregator_node (a, 1), 2);
  ck_assert_uint_eq (disco_aggregator_node (a, 2), 9);
  g_autoptr (LearnWeights) w = learn_weights_new (2);
  gboolean refused;
  ck_assert_ptr_null (disco_aggregator_add (a, 5, w, 0, 0, &refused));
  ck_assert_ptr_null (disco_aggregator_add (a, 2, w, 0, 0, &refused));
  g_autoptr (LearnWeights) r = disco_aggregator_add (a, 9, w, 0, 0, &refused);
  ck_assert_ptr_nonnull (r);
  disco_aggregator_set_nodes (a, NULL, 0);   /* no nodes: nothing fills */
  ck_assert_uint_eq (disco_aggregator_n_nodes (a), 0);
  ck_assert_ptr_null (disco_aggregator_add (a, 9, w, 1, 0, &refused));
  ck_assert (refused);   /* 9 is no longer a node */
}
END_TEST

/* The store finds each node's contribution whether its id is small (the
 * dense array), far beyond the contributions (its hash table) or the
 * largest; re-adding overwrites, and strict is_full sees every one. */
START_TEST (test_aggregator_store_ids_near_and_far)
{
  const ProtoNodeId nodes[] = { 2, 1500, 3000000, UINT32_MAX - 1, 9 };
  const float x[] = { 1, 2, 4, 8, 16 };
  g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
  disco_aggregator_set_strict (a, TRUE);
  disco_aggregator_set_nodes (a, nodes, G_N_ELEMENTS (nodes));
  gboolean refused;
  for (guint i = 0; i + 1 < G_N_ELEMENTS (nodes); i++)
    {
      g_autoptr (LearnWeights) w = learn_weights_new_from (i == 0 ? &x[4] : &x[i], 1);
      ck_assert_ptr_null (disco_aggregator_add (a, nodes[i], w, 0, 0, &refused));
      ck_assert (!refused);
      for (guint k = 0; k < G_N_ELEMENTS (nodes); k++)
        ck_assert_int_eq (disco_aggregator_has_contribution (a, nodes[k]), k <= i);
    }
  /* node 2 again, now with its real value: replaced, not added */
  g_autoptr (LearnWeights) w0 = learn_weights_new_from (&x[0], 1);
  ck_assert_ptr_null (disco_aggregator_add (a, nodes[0], w0, 0, 0, &refused));
  ck_assert_uint_eq (disco_aggregator_stored (a, 0), 4);
  ck_assert (!disco_aggregator_has_contribution (a, 1501) && !disco_aggregator_has_contribution (a, 3));
  g_autoptr (LearnWeights) w4 = learn_weights_new_from (&x[4], 1);
  g_autoptr (LearnWeights) r = disco_aggregator_add (a, nodes[4], w4, 0, 0, &refused);
  ck_assert_ptr_nonnull (r);
  ck_assert_float_eq_tol (learn_weights_data (r)[0], (1 + 2 + 4 + 8 + 16) / 5.0f, 1e-6);
  ck_assert (!disco_aggregator_has_contribution (a, nodes[3]));   /* cleared with the round */
}
END_TEST

/* The store keeps no arrival order (issue 44: a map from the node to its
 * weights, no list beside it): the sum still goes in node-id order, with
 * far ids too.  1e17 + (-1e17) + 1 is 1 in that order and 0 in any order
 * that adds the 1 before the two cancel. */
START_TEST (test_aggregator_sums_far_ids_in_id_order)
{
  const ProtoNodeId nodes[] = { 3, 5000, 9000 };   /* the map holds 9000 before 5000 */
  const float x[] = { 1e17f, -1e17f, 1.0f };
  g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
  disco_aggregator_set_nodes (a, nodes, G_N_ELEMENTS (nodes));
  gboolean refused;
  const guint arrival[] = { 2, 0, 1 };
  LearnWeights *r = NULL;
  for (guint k = 0; k < G_N_ELEMENTS (arrival); k++)
    {
      g_autoptr (LearnWeights) w = learn_weights_new_from (&x[arrival[k]], 1);
      r = disco_aggregator_add (a, nodes[arrival[k]], w, 0, 0, &refused);
      ck_assert (!refused);
      ck_assert ((r != NULL) == (k + 1 == G_N_ELEMENTS (arrival)));
    }
  ck_assert_float_eq (learn_weights_data (r)[0], 1.0f / 3.0f);
  learn_weights_unref (r);
}
END_TEST

START_TEST (test_aggregator_sum_order_is_rounding_only)
{
  /* DISCO sums in arrival order, dlsim in node-id order: the two differ only
   * in float rounding.  10 contributions of 1000 floats, 20 arrival orders. */
  const guint n = 10;
  const gsize len = 1000;
  g_autoptr (DlRandom) rng = dl_random_new (7, "sum-order", 0);
  LearnWeights *ws[10];
  ProtoNodeId ids[10];
  for (guint i = 0; i < n; i++)
    {
      ids[i] = i + 1;
      ws[i] = learn_weights_new (len);
      float *d = learn_weights_data_mut (ws[i]);
      for (gsize k = 0; k < len; k++)
        d[k] = (float) ((dl_random_uniform (rng) * 2 - 1) * 100);
    }
  for (int trial = 0; trial < 20; trial++)
    {
      guint order[10];
      for (guint i = 0; i < n; i++)
        order[i] = i;
      for (guint i = n - 1; i > 0; i--)
        {
          guint j = (guint) dl_random_below (rng, i + 1);
          guint t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
      g_autoptr (DiscoAggregator) a = disco_aggregator_new (DISCO_AGG_MEAN, 100, NULL);
      disco_aggregator_set_nodes (a, ids, n);
      LearnWeights *arrival[10];
      LearnWeights *r = NULL;
      gboolean refused;
      for (guint i = 0; i < n; i++)
        {
          arrival[i] = ws[order[i]];
          r = disco_aggregator_add (a, ids[order[i]], ws[order[i]], 0, 0, &refused);
        }
      ck_assert_ptr_nonnull (r);
      g_autoptr (LearnWeights) disco = learn_weights_mean (arrival, n);
      double d = learn_weights_max_abs_diff (r, disco);
      ck_assert_msg (d < 1e-4, "arrival vs id order differ by %g", d);
      learn_weights_unref (r);
    }
  for (guint i = 0; i < n; i++)
    learn_weights_unref (ws[i]);
}
END_TEST

/* ------------------------------ 3. the exclusion branch rebuilds the flags */

START_TEST (test_exclusion_rebuilds_flags_from_round_peers)
{
  /* handleTimeout (decentralized_controller.ts), exclusion branch:
   * #connectFinishedNodes = #roundPeers.map(() => false).  A peer whose
   * JoinRound came in the connect phase gets a flag (S19); a stray flag
   * from a peer outside the round goes (S31).  M = 0: the first timeout
   * excludes. */
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
  disco_config_mut (&c)->max_connection_retry = 0;
  Harness *h = h_new (&c, 3, 4);
  h_to_coord (h, 1, PROTO_MSG_HELLO);
  h_to_coord (h, 2, PROTO_MSG_HELLO);
  h_to_coord (h, 1, DISCO_MSG_JOIN_ROUND);
  h_to_coord (h, 2, DISCO_MSG_JOIN_ROUND);
  h_to_coord (h, 1, PROTO_MSG_READY);
  h_to_coord (h, 2, PROTO_MSG_READY);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "connect");
  h_to_coord (h, 1, DISCO_MSG_CONNECTIONS_READY);
  /* p3 connects (round 0: not syncing) and joins while the round connects */
  h_to_coord (h, 3, PROTO_MSG_HELLO);
  h_to_coord (h, 3, DISCO_MSG_JOIN_ROUND);
  ck_assert (disco_coord_in_round (h->coord, 3));
  ck_assert (!disco_coord_has_connect_flag (h->coord, 3));
  h_advance (h, 60 * DL_S);
  ck_assert_uint_eq (h_count_log (h, "S excluded"), 1);           /* p2: no ConnectionsReady */
  ck_assert (!disco_coord_in_round (h->coord, 2));
  ck_assert (disco_coord_has_connect_flag (h->coord, 3));         /* S19: p3 is waited for */
  ck_assert (disco_coord_has_connect_flag (h->coord, 1));
  /* p2, excluded, sends a stray ConnectionsReady: a flag outside the round */
  h_to_coord (h, 2, DISCO_MSG_CONNECTIONS_READY);
  ck_assert (disco_coord_has_connect_flag (h->coord, 2));
  h_advance (h, 60 * DL_S);                                       /* exclusion again: p1, p3 */
  ck_assert (!disco_coord_has_connect_flag (h->coord, 2));        /* S31: the stray flag is gone */
  h_free (h);
}
END_TEST

/* ------------------------------------ 4. the draft head's connection timer */

static guint
retries_after (DiscoVersion v, DlTime timeout, DlTime wait)
{
  ProtoConfig c = h_cfg (v, 2, 1);
  c.peer_connection_timeout = timeout;
  Harness *h = h_new (&c, 2, 4);
  h_to_coord (h, 1, PROTO_MSG_HELLO);
  h_to_coord (h, 2, PROTO_MSG_HELLO);
  h_to_coord (h, 1, PROTO_MSG_READY);
  h_to_coord (h, 2, PROTO_MSG_READY);
  h_to_coord (h, 1, DISCO_MSG_CONNECTIONS_READY);
  h_advance (h, wait);
  guint n = h_count_log (h, "S retry");
  h_free (h);
  return n;
}

START_TEST (test_draft_timer_is_60s)
{
  /* 3bfce91d's controller calls startTimeout() without an argument: its
   * default, 60 s, whatever maxPeerConnectionTime says; dcf4b31e passes
   * maxPeerConnectionTime */
  ck_assert_uint_eq (retries_after (DISCO_VERSION_1110, 10 * DL_S, 10 * DL_S), 1);
  ck_assert_uint_eq (retries_after (DISCO_VERSION_1110_DRAFT, 10 * DL_S, 59 * DL_S), 0);
  ck_assert_uint_eq (retries_after (DISCO_VERSION_1110_DRAFT, 10 * DL_S, 60 * DL_S), 1);
  ck_assert_uint_eq (retries_after (DISCO_VERSION_1110_DRAFT, 120 * DL_S, 60 * DL_S), 1);
}
END_TEST

/* -------------------------------------------------- 8. disco-775 details */

START_TEST (test_775_own_id_in_list_exchanges_alone)
{
  /* establishPeerConnections at b95004b4 catches the own-id error (nodes =
   * {self}, no connections) and onRoundEndCommunication goes on to
   * exchangeWeightUpdates: the peer aggregates its own weights alone.
   * disco-1110 waits in the race instead. */
  for (int v = 0; v < 2; v++)
    {
      ProtoConfig c = h_cfg (v ? DISCO_VERSION_775 : DISCO_VERSION_1110, 2, 1);
      Harness *h = h_new (&c, 2, 4);
      h->auto_train = FALSE;
      h_start (h, 1);
      h_start (h, 2);
      h_settle (h);
      h_finish_training (h, 1);
      h_drop (h, PROTO_MSG_READY, PROTO_NO_NODE);
      assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_ROUND_PEERS);
      const ProtoNodeId ids[] = { 1, 2 };
      proto_msg_set_peers (&m, ids, 2);
      h_to_peer (h, 1, PROTO_SERVER, &m);
      proto_msg_clear (&m);
      if (v)
        {
          assert_state (h, 1, DISCO_PEER_DONE);
          ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
        }
      else
        assert_state (h, 1, DISCO_PEER_WAIT_DECISION);
      h_free (h);
    }
}
END_TEST

START_TEST (test_775_no_reset_no_counts)
{
  /* b95004b4's controller: no reset() when the last connection closes (the
   * round number survives), and NewNodeInfo / Waiting / Enough carry no
   * nbOfParticipants */
  for (int v = 0; v < 2; v++)
    {
      ProtoConfig c = h_cfg (v ? DISCO_VERSION_775 : DISCO_VERSION_1110, 2, 2);
      Harness *h = h_new (&c, 2, 4);
      h_start (h, 1);
      h_start (h, 2);
      h_settle (h);
      ck_assert_uint_eq (disco_coord_round (h->coord), 2);
      h_leave (h, 1);
      h_leave (h, 2);
      h_settle (h);
      ck_assert_uint_eq (disco_coord_round (h->coord), v ? 2 : 0);
      ck_assert_uint_eq (h_count_log (h, "S reset"), v ? 0 : 1);
      h_free (h);
      /* the NewNodeInfo a fresh coordinator answers a second connection with */
      g_autoptr (ProtoMachine) co = disco_coord_new (&c);
      ProtoOutbox out;
      proto_outbox_init (&out);
      ProtoMsg cc;
      proto_msg_init (&cc, PROTO_MSG_HELLO);
      ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 1, .msg = &cc };
      proto_machine_handle (co, 0, &in, &out);
      in.from = 2;
      proto_machine_handle (co, 0, &in, &out);
      guint infos = 0, enoughs = 0;
      for (guint k = 0; k < proto_outbox_len (&out); k++)
        {
          ProtoAction *a = proto_outbox_get (&out, k);
          if (a->kind != PROTO_ACT_SEND)
            continue;
          if (a->msg.type == PROTO_MSG_WELCOME && a->to == 2)
            {
              infos++;
              ck_assert_uint_eq (a->msg.nb_participants, v ? 0 : 2);
            }
          if (a->msg.type == DISCO_MSG_ENOUGH_PARTICIPANTS)
            {
              enoughs++;
              ck_assert_uint_eq (a->msg.nb_participants, v ? 0 : 2);
            }
        }
      ck_assert_uint_eq (infos, 1);
      ck_assert_uint_eq (enoughs, 1);
      proto_outbox_clear (&out);
    }
}
END_TEST

/* ------------------------------------------ 5. runtime = browser | node */

START_TEST (test_node_runtime_exits_on_uncaught_errors)
{
  /* Each input makes DISCO's client throw where nothing catches it; a
   * browser logs it, Node.js ends the process (the peer disconnects). */
  for (int k = 0; k < 4; k++)
    for (int node = 0; node < 2; node++)
      {
        ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
        disco_config_mut (&c)->node_runtime = node;
        Harness *h = h_new (&c, 2, 4);
        h->auto_train = FALSE;
        h_start (h, 1);
        h_start (h, 2);
        h_settle (h);
        assert_state (h, 1, DISCO_PEER_TRAINING);
        ProtoMsg m;
        if (k == 0)
          {
            /* PeerPool.signal for a peer not in the pool */
            proto_msg_init (&m, PROTO_MSG_SIGNAL);
            m.node = 2;
            m.signal = PROTO_SIGNAL_OFFER;
            h_to_peer (h, 1, PROTO_SERVER, &m);
          }
        else if (k == 1)
          {
            /* handleSignalNewPeer naming ourselves: getPeers rejects */
            proto_msg_init (&m, DISCO_MSG_SIGNAL_NEW_PEER);
            m.node = 1;
            h_to_peer (h, 1, PROTO_SERVER, &m);
          }
        else if (k == 2)
          {
            /* a second WaitingForMoreParticipants (S21) */
            proto_msg_init (&m, DISCO_MSG_WAITING_FOR_MORE);
            h_to_peer (h, 1, PROTO_SERVER, &m);
            ck_assert (proto_machine_connected (h->m[1]));
            h_to_peer (h, 1, PROTO_SERVER, &m);
          }
        else
          {
            /* simple-peer's unhandled `error`: a link whose ICE fails */
            proto_msg_init (&m, PROTO_MSG_ROUND_PEERS);
            h_finish_training (h, 1);
            h_finish_training (h, 2);
            h->auto_links = FALSE;
            h_fail_link (h, 1, 2);
            h_settle (h);
            ProtoInput in = { .kind = PROTO_IN_LINK_FAILED, .from = 2 };
            ProtoOutbox out;
            proto_outbox_init (&out);
            proto_machine_handle (h->m[1], h->now, &in, &out);
            guint disconnects = 0;
            for (guint i = 0; i < proto_outbox_len (&out); i++)
              disconnects += proto_outbox_get (&out, i)->kind == PROTO_ACT_DISCONNECT;
            ck_assert_uint_eq (disconnects, node ? 1 : 0);
            proto_outbox_clear (&out);
          }
        proto_msg_clear (&m);
        ck_assert_msg (proto_machine_connected (h->m[1]) == !node, "case %d node %d", k, node);
        if (node)
          {
            assert_state (h, 1, DISCO_PEER_FAILED);
            ck_assert_str_ne (proto_machine_base (h->m[1])->error, "");
          }
        h_free (h);
      }
}
END_TEST

/* ------------------------------------------------ 8. pool shutdown's 1 s */

START_TEST (test_pool_shutdown_waits_for_destroyed_links)
{
  /* PeerPool.shutdown races the peers' destroy() against 1 s; a link that
   * was already destroyed never emits 'close' again, so the race takes the
   * full second: the Retry's PeerIsReady (and ConnectionFail's disconnect)
   * come 1 s later; with only live links, at once. */
  for (int closed = 0; closed < 2; closed++)
    for (int fail = 0; fail < 2; fail++)
      {
        ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
        Harness *h = h_new (&c, 2, 4);
        h_start (h, 1);
        h_start (h, 2);
        h_hold (h, DISCO_MSG_CONNECTIONS_READY, PROTO_NO_NODE);
        h_settle (h);
        assert_state (h, 1, DISCO_PEER_WAIT_DECISION);
        if (closed)
          {
            ProtoInput in = { .kind = PROTO_IN_LINK_CLOSED, .from = 2 };
            ProtoOutbox out;
            proto_outbox_init (&out);
            proto_machine_handle (h->m[1], h->now, &in, &out);
            proto_outbox_clear (&out);
          }
        ProtoMsg m;
        proto_msg_init (&m, fail ? DISCO_MSG_CONNECTION_FAIL : DISCO_MSG_RETRY_PEER_CONNECTIONS);
        h_to_peer (h, 1, PROTO_SERVER, &m);
        guint ready_before = h_queued (h, PROTO_MSG_READY, PROTO_SERVER);
        if (closed)
          {
            assert_state (h, 1, DISCO_PEER_POOL_SHUTDOWN);
            ck_assert (proto_machine_connected (h->m[1]));
            ck_assert_int_eq (proto_machine_next_deadline (h->m[1]), h->now + DL_S);
            /* the race is over: Start is not listened for any more */
            ck_assert (!proto_machine_listens (h->m[1], DISCO_MSG_START_WEIGHT_SHARING, PROTO_SERVER));
            h_advance (h, DL_S - 1);
            assert_state (h, 1, DISCO_PEER_POOL_SHUTDOWN);
            h_advance (h, 1);
          }
        if (fail)
          {
            assert_state (h, 1, DISCO_PEER_FAILED);
            ck_assert (!proto_machine_connected (h->m[1]));
          }
        else
          {
            assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
            ck_assert_uint_eq (h_queued (h, PROTO_MSG_READY, PROTO_SERVER), ready_before + closed);
          }
        proto_msg_clear (&m);
        h_free (h);
      }
}
END_TEST

static Suite *
fidelity_suite (void)
{
  Suite *s = suite_create ("fidelity");
  TCase *tc = tcase_create ("aggregation");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_secure_wait_expires_in_comm_round_0);
  tcase_add_test (tc, test_secure_wait_not_expired_is_consensus);
  tcase_add_test (tc, test_mean_wait_expiry_only_waits);
  tcase_add_test (tc, test_receive_timeout_uses_a_reception);
  tcase_add_test (tc, test_aggregator_counts_every_stored_contribution);
  tcase_add_test (tc, test_aggregator_sums_far_ids_in_id_order);
  tcase_add_test (tc, test_aggregator_counts_a_list_with_repeats_once);
  tcase_add_test (tc, test_aggregator_store_ids_near_and_far);
  tcase_add_test (tc, test_aggregator_staleness_weights);
  tcase_add_test (tc, test_aggregator_sum_order_is_rounding_only);
  suite_add_tcase (s, tc);
  tc = tcase_create ("coordinator");
  tcase_add_test (tc, test_exclusion_rebuilds_flags_from_round_peers);
  tcase_add_test (tc, test_draft_timer_is_60s);
  tcase_add_test (tc, test_775_own_id_in_list_exchanges_alone);
  tcase_add_test (tc, test_775_no_reset_no_counts);
  tcase_add_test (tc, test_node_runtime_exits_on_uncaught_errors);
  tcase_add_test (tc, test_pool_shutdown_waits_for_destroyed_links);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (fidelity_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
