/* test-fidelity.c — the machines against DISCO's own code: one test (or
 * more) for each behaviour of issue #10 where dlsim used to differ from
 * DISCO, each naming the DISCO file and function it follows.  Time is
 * hand-held (tests/proto-harness.c). */
#include "config.h"

#include "tests/proto-harness.h"
#include "protocol/proto-aggregator.h"
#include "learn/learn-weights.h"

#include <check.h>
#include <math.h>
#include <string.h>

static ProtoConfig
cfg (ProtoVersion v, guint min, guint rounds)
{
  ProtoConfig c;
  proto_config_init (&c, v);
  c.min_participants = min;
  c.rounds = rounds;
  return c;
}

static void
assert_state (Harness *h, guint i, ProtoPeerState s)
{
  if (proto_peer_state (h->peers[i]) != s)
    h_dump (h);
  ck_assert_msg (proto_peer_state (h->peers[i]) == s, "p%u is %s, expected %s", i,
                 proto_peer_state_name (proto_peer_state (h->peers[i])), proto_peer_state_name (s));
}

/* ------------------------------------------------- 1. the aggregation wait */

/* Secure aggregation, 3 peers, min 3; StartWeightSharing to p3 arrives
 * `late` after the others'.  exchangeWeightUpdates (decentralized_client.ts)
 * races each communication round against a 15 s timeout; on expiry it
 * breaks and returns `await this.aggregationResult`, the promise of the
 * communication round it broke in. */
static Harness *
secure_late_start (DlTime late, guint rounds)
{
  ProtoConfig c = cfg (PROTO_VERSION_DISCO_1110, 3, rounds);
  c.aggregation = PROTO_AGG_SECURE;
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold_to (h, PROTO_MSG_START_WEIGHT_SHARING, 3);
  h_settle (h);
  assert_state (h, 1, PROTO_PEER_EXCHANGING);
  assert_state (h, 3, PROTO_PEER_WAIT_DECISION);
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
      ck_assert_uint_eq (proto_peer_rounds_done (h->peers[i]), 1);
      ck_assert_uint_eq (proto_peer_agg_comm_round (h->peers[i]), 1);   /* stays in comm round 1 */
      ck_assert_uint_eq (proto_peer_agg_round (h->peers[i]), 0);
      g_autofree char *sent = g_strdup_printf ("p%u sent Payload", i);
      ck_assert_uint_eq (h_count_log (h, sent), 2);
      assert_state (h, i, PROTO_PEER_WAIT_PEERS);   /* round 2 waits for p3's PeerIsReady */
    }
  ck_assert_uint_eq (h_count_log (h, "comm round 0: break"), 2);
  /* partial sums differ from each other (random shares in +-100) */
  ck_assert (!learn_weights_equal (proto_peer_model (h->peers[1]), proto_peer_model (h->peers[2])));
  /* p3 sent its partial sum and waits in communication round 1 forever */
  h_advance (h, 2 * DL_H);
  h_settle (h);
  assert_state (h, 3, PROTO_PEER_EXCHANGING);
  ck_assert_uint_eq (proto_peer_rounds_done (h->peers[3]), 0);
  assert_state (h, 1, PROTO_PEER_WAIT_PEERS);
  h_free (h);
}
END_TEST

START_TEST (test_secure_wait_not_expired_is_consensus)
{
  /* the control: p3's Start 10 s late, within the 15 s wait: consensus */
  Harness *h = secure_late_start (10 * DL_S, 2);
  for (guint i = 1; i <= 3; i++)
    {
      assert_state (h, i, PROTO_PEER_DONE);
      ck_assert_uint_eq (proto_peer_agg_comm_round (h->peers[i]), 0);
      ck_assert (learn_weights_max_abs_diff (proto_peer_model (h->peers[i]), proto_peer_model (h->peers[1])) < 1e-3);
    }
  h_free (h);
}
END_TEST

START_TEST (test_mean_wait_expiry_only_waits)
{
  /* mean has one communication round: the expiry breaks the loop and the
   * same promise is awaited with no limit; when the Payload comes, the round
   * ends with the mean, as without the expiry */
  ProtoConfig c = cfg (PROTO_VERSION_DISCO_1110, 3, 1);
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold_to (h, PROTO_MSG_START_WEIGHT_SHARING, 3);
  h_settle (h);
  h_advance (h, 40 * DL_S);
  ck_assert_uint_eq (h_count_log (h, "the result is awaited with no limit"), 2);
  h_unhold (h);
  h_settle (h);
  for (guint i = 1; i <= 3; i++)
    {
      assert_state (h, i, PROTO_PEER_DONE);
      ck_assert (learn_weights_equal (proto_peer_model (h->peers[i]), proto_peer_model (h->peers[1])));
    }
  h_free (h);
}
END_TEST

START_TEST (test_receive_timeout_uses_a_reception)
{
  /* receivePayloads: a 60 s waitMessageWithTimeout that expires moves the
   * loop on to its next reception; after the last one the peer has no
   * Payload listener for that link (not "logs only") */
  ProtoConfig c = cfg (PROTO_VERSION_DISCO_1110, 3, 1);
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_hold_to (h, PROTO_MSG_START_WEIGHT_SHARING, 3);
  h_settle (h);
  h_advance (h, 61 * DL_S);
  ck_assert_uint_ge (h_count_log (h, "p1 timer-fired Payload node=3"), 1);
  ck_assert (!proto_peer_listens (h->peers[1], PROTO_MSG_PAYLOAD, 3));
  h_unhold (h);
  h_settle (h);
  ck_assert_uint_eq (h_count_log (h, "p1 dropped Payload"), 1);
  assert_state (h, 1, PROTO_PEER_EXCHANGING);   /* hung: the Payload came after the loop ended */
  h_free (h);
}
END_TEST

/* ------------------------------------------ 8. the aggregator's counting */

START_TEST (test_aggregator_counts_every_stored_contribution)
{
  /* MeanAggregator.isFull: contributions[0].size >= nodes.size, whatever the
   * nodes: a contribution stored under an earlier node set still counts. */
  g_autoptr (ProtoAggregator) a = proto_aggregator_new (PROTO_AGG_MEAN, 100, NULL);
  const ProtoNodeId first[] = { 1, 2, 3 }, second[] = { 1, 2 };
  g_autoptr (LearnWeights) w = learn_weights_new (3);
  gboolean refused;
  proto_aggregator_set_nodes (a, first, 3);
  ck_assert_ptr_null (proto_aggregator_add (a, 3, w, 0, 0, &refused));
  proto_aggregator_set_nodes (a, second, 2);   /* a Retry, then a smaller list */
  /* 3's stale entry and 1's make 2 >= 2: full although 2 never contributed */
  g_autoptr (LearnWeights) r = proto_aggregator_add (a, 1, w, 0, 0, &refused);
  ck_assert_ptr_nonnull (r);
  ck_assert_uint_eq (proto_aggregator_round (a), 1);
  ck_assert_uint_eq (proto_aggregator_stored (a, 0), 0);   /* cleared after the last comm round */
  /* secure: exactly nodes.size, so a stale extra entry blocks the round */
  g_autoptr (DlRandom) rng = dl_random_new (1, "t", 0);
  g_autoptr (ProtoAggregator) s = proto_aggregator_new (PROTO_AGG_SECURE, 100, rng);
  proto_aggregator_set_nodes (s, first, 3);
  ck_assert_ptr_null (proto_aggregator_add (s, 3, w, 0, 0, &refused));
  ck_assert_ptr_null (proto_aggregator_add (s, 2, w, 0, 0, &refused));
  proto_aggregator_set_nodes (s, second, 1);                             /* {1} */
  ck_assert_ptr_null (proto_aggregator_add (s, 1, w, 0, 0, &refused));   /* 3 stored != 1 */
  ck_assert_uint_eq (proto_aggregator_comm_round (s), 0);
  /* validity: a future round passes, an older one and a stranger do not */
  ck_assert (proto_aggregator_is_valid (s, 1, 5));
  ck_assert (!proto_aggregator_is_valid (s, 3, 0));
  ck_assert (!proto_aggregator_is_valid (a, 1, 0));   /* a is in round 1: round 0 is older */
  ck_assert_ptr_null (proto_aggregator_add (s, 1, w, 0, 2, &refused));
  ck_assert (refused);
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
      g_autoptr (ProtoAggregator) a = proto_aggregator_new (PROTO_AGG_MEAN, 100, NULL);
      proto_aggregator_set_nodes (a, ids, n);
      LearnWeights *arrival[10];
      LearnWeights *r = NULL;
      gboolean refused;
      for (guint i = 0; i < n; i++)
        {
          arrival[i] = ws[order[i]];
          r = proto_aggregator_add (a, ids[order[i]], ws[order[i]], 0, 0, &refused);
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
  tcase_add_test (tc, test_aggregator_sum_order_is_rounding_only);
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
