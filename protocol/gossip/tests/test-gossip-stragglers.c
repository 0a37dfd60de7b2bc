/* test-gossip-stragglers.c — the gossip family's straggler policies
 * (protocol/gossip/README.md): the coordinator's decisions under hand-held
 * time, the peers' asynchronous pushes and replies, and whole runs of the
 * hand-held world under each policy. */
#include "config.h"

#include "protocol/gossip/gossip-mix.h"
#include "tests/family-harness.h"
#include "protocol/gossip/tests/gossip-alone.h"
#include "protocol/gossip/tests/gossip-cfg.h"
#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- the coordinator alone */

static guint
lists_to (Co *k, ProtoNodeId to)
{
  return co_sent (k, PROTO_MSG_ROUND_PEERS, to);
}

START_TEST (test_deadline)
{
  /* p3 trains long: 5 s after the first ready the step goes with p1, p2 */
  ProtoConfig cfg = gossip_cfg (2, 3, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_DEADLINE;
  cfg.round_deadline = 5 * DL_S;
  Co k;
  co_init (&k, &cfg, 3);
  co_ready (&k, 1 * DL_S, 1);
  co_ready (&k, 2 * DL_S, 2);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 0);
  ck_assert_int_eq (proto_machine_next_deadline (k.c), 6 * DL_S);
  proto_machine_handle (k.c, 6 * DL_S, &(ProtoInput) { .kind = PROTO_IN_DEADLINE }, &k.out);
  ck_assert_uint_eq (lists_to (&k, 1), 1);
  ck_assert_uint_eq (lists_to (&k, 2), 1);
  ck_assert_uint_eq (lists_to (&k, 3), 0);
  ck_assert_uint_eq (proto_outbox_count_obs (&k.out, PROTO_OBS_TIMER_FIRED), 1);
  /* the late peer joins the next step */
  const ProtoNodeId two[] = { 1, 2 };
  co_targets (&k, 7 * DL_S, two, 2, 0);
  co_ready (&k, 8 * DL_S, 3);
  co_ready (&k, 8 * DL_S, 1);
  co_ready (&k, 8 * DL_S, 2);
  ck_assert_uint_eq (lists_to (&k, 3), 1);
  co_clear (&k);
}
END_TEST

START_TEST (test_deadline_needs_min)
{
  /* past the deadline with fewer than min ready: it waits on */
  ProtoConfig cfg = gossip_cfg (2, 3, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_DEADLINE;
  cfg.round_deadline = 5 * DL_S;
  Co k;
  co_init (&k, &cfg, 3);
  co_ready (&k, 1 * DL_S, 1);
  proto_machine_handle (k.c, 6 * DL_S, &(ProtoInput) { .kind = PROTO_IN_DEADLINE }, &k.out);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 0);
  /* the passed deadline is not a timer any more: a deadline at or before
   * now would be fired again at once, forever (found by dlsim explore) */
  ck_assert_int_eq (proto_machine_next_deadline (k.c), DL_TIME_NEVER);
  co_ready (&k, 7 * DL_S, 2);   /* the deadline has passed: the second ready makes the step */
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 2);
  co_clear (&k);
}
END_TEST

START_TEST (test_wait_waits)
{
  /* the default: no deadline, the step waits for everyone */
  ProtoConfig cfg = gossip_cfg (2, 3, 1);
  Co k;
  co_init (&k, &cfg, 3);
  co_ready (&k, 1 * DL_S, 1);
  co_ready (&k, 2 * DL_S, 2);
  ck_assert_int_eq (proto_machine_next_deadline (k.c), DL_TIME_NEVER);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 0);
  co_ready (&k, 60 * DL_S, 3);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 3);
  co_clear (&k);
}
END_TEST

/* Step 0 with p4 ten times slower than p1..p3; returns after its graph. */
static void
slow_fourth (Co *k)
{
  co_ready (k, 1 * DL_S, 1);
  co_ready (k, 1 * DL_S, 2);
  co_ready (k, 1 * DL_S, 3);
  co_ready (k, 10 * DL_S, 4);
  ck_assert_uint_eq (lists_to (k, PROTO_NO_NODE), 4);
  const ProtoNodeId all[] = { 1, 2, 3, 4 };
  co_targets (k, 10 * DL_S, all, 4, 0);
}

START_TEST (test_drop_slowest)
{
  ProtoConfig cfg = gossip_cfg (2, 9, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_DROP_SLOWEST;
  cfg.drop_factor = 2;
  cfg.drop_rounds = 2;
  Co k;
  co_init (&k, &cfg, 4);
  slow_fourth (&k);
  /* p4 took 10 s against a median of 1 s: steps 1 and 2 go without waiting for it */
  proto_outbox_reset (&k.out);
  const ProtoNodeId three[] = { 1, 2, 3 };
  for (uint32_t step = 1; step <= 2; step++)
    {
      for (ProtoNodeId p = 1; p <= 3; p++)
        co_ready (&k, (10 + step) * DL_S, p);
      ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 3 * step);
      ck_assert_uint_eq (lists_to (&k, 4), 0);
      co_targets (&k, (10 + step) * DL_S, three, 3, step);
    }
  /* step 3: waited for again */
  for (ProtoNodeId p = 1; p <= 3; p++)
    co_ready (&k, 13 * DL_S, p);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 6);
  co_ready (&k, 20 * DL_S, 4);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 10);
  co_clear (&k);
}
END_TEST

START_TEST (test_async_samples)
{
  /* async: a ready peer gets a sample of the others at once, and no step */
  ProtoConfig cfg = gossip_cfg (2, 9, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_ASYNC;
  Co k;
  co_init (&k, &cfg, 4);
  co_ready (&k, 1 * DL_S, 3);
  ck_assert_uint_eq (proto_outbox_count_sends (&k.out, PROTO_MSG_GOSSIP_SAMPLE, 3), 1);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 0);
  for (guint i = 0; i < proto_outbox_len (&k.out); i++)
    {
      ProtoAction *a = proto_outbox_get (&k.out, i);
      if (a->kind == PROTO_ACT_SEND && a->msg.type == PROTO_MSG_GOSSIP_SAMPLE)
        {
          ck_assert_uint_eq (a->msg.n_peers, 3);
          for (guint j = 0; j < a->msg.n_peers; j++)
            ck_assert_uint_ne (a->msg.peers[j], 3);
        }
    }
  co_clear (&k);
}
END_TEST

START_TEST (test_mixed)
{
  /* mixed: the slow p4 goes asynchronous; the others keep their steps */
  ProtoConfig cfg = gossip_cfg (2, 9, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_MIXED;
  Co k;
  co_init (&k, &cfg, 4);
  slow_fourth (&k);
  proto_outbox_reset (&k.out);
  for (ProtoNodeId p = 1; p <= 3; p++)
    co_ready (&k, 11 * DL_S, p);
  ck_assert_uint_eq (lists_to (&k, PROTO_NO_NODE), 3);
  co_ready (&k, 20 * DL_S, 4);
  ck_assert_uint_eq (proto_outbox_count_sends (&k.out, PROTO_MSG_GOSSIP_SAMPLE, 4), 1);
  ck_assert_uint_eq (lists_to (&k, 4), 0);
  co_clear (&k);
}
END_TEST

/* ---------------------------------------------------------------- the peer */

START_TEST (test_staleness_weight)
{
  ck_assert_double_eq_tol (gossip_staleness_weight (0.5, 0.5, 0), 0.5, 1e-12);
  ck_assert_double_eq_tol (gossip_staleness_weight (0.5, 0.5, 3), 0.25, 1e-12);
  ck_assert_double_eq_tol (gossip_staleness_weight (0.8, 0, 7), 0.8, 1e-12);
}
END_TEST

START_TEST (test_push_reply_and_mix)
{
  /* p2 is pushed p1's model (round 0) while it trains: it answers at once;
   * at its own asynchronous step it mixes the push in by staleness */
  ProtoConfig cfg = gossip_cfg (1, 3, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_ASYNC;
  g_autoptr (DlRandom) r = dl_random_new (1, "shares", 2);
  g_autoptr (LearnWeights) init = learn_weights_new (1);
  ProtoOutbox out;
  ProtoMachine *p = gossip_peer_alone (&cfg, init, r, 2, &out);
  ProtoMsg m;
  /* p1 offers a link (1 < 2: p2 offers, so p1's offer is accepted as new) */
  proto_msg_init (&m, PROTO_MSG_SIGNAL);
  m.node = 1;
  m.signal = PROTO_SIGNAL_OFFER;
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = PROTO_SERVER, .msg = &m }, &out);
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_LINK_UP, .from = 1 }, &out);
  const float v[] = { 8 };
  g_autoptr (LearnWeights) w = learn_weights_new_from (v, 1);
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.comm_round = PROTO_GOSSIP_PUSH;
  m.round = 0;
  proto_msg_set_weights (&m, w);
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = 1, .via = PROTO_VIA_LINK, .msg = &m },
                      &out);
  proto_msg_clear (&m);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_GOSSIP_PAYLOAD, 1), 1);   /* the reply */
  ck_assert_int_eq (proto_machine_state (p), GOSSIP_PEER_TRAINING);
  /* trained to 2, then its step: the push is mixed in with weight 0.5 (staleness 0) */
  const float t[] = { 2 };
  g_autoptr (LearnWeights) trained = learn_weights_new_from (t, 1);
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_TRAINING_DONE, .weights = trained }, &out);
  const ProtoNodeId cand[] = { 1 };
  gossip_peer_hears (p, 0, PROTO_MSG_GOSSIP_SAMPLE, cand, 1, &out);
  ck_assert_float_eq_tol (learn_weights_data (proto_machine_model (p))[0], 5.0f, 1e-6f);
  ck_assert_uint_eq (proto_machine_rounds_done (p), 1);
  ck_assert_int_eq (proto_machine_state (p), GOSSIP_PEER_TRAINING);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_GOSSIP_PAYLOAD, 1), 2);  /* and its own push */
  proto_outbox_clear (&out);
  proto_machine_free (p);
}
END_TEST

/* ---------------------------------------------------------------- kademlia */

START_TEST (test_kademlia_world)
{
  /* 12 peers find each other through lookups, without the coordinator's
   * lists, and every one finishes its rounds (asynchronous steps) */
  ProtoConfig cfg = gossip_cfg (1, 3, 2);
  cfg.straggler_policy = PROTO_STRAGGLER_ASYNC;
  gossip_config_mut (&cfg)->discovery = PROTO_DISCOVERY_KADEMLIA;
  gossip_config_mut (&cfg)->dht_k = 4;
  GW *g = gw_new (&cfg, 12, 1);
  gw_start_all (g);
  gw_settle (g);
  for (guint i = 1; i <= 12; i++)
    ck_assert_uint_eq (proto_machine_rounds_done (gw_peer (g, i)), 3);
  ck_assert_uint_gt (gw_count (g, "sent DhtFindNode"), 12);
  ck_assert_uint_eq (gw_count (g, "sent DhtFindNode"), gw_count (g, "received DhtFindNode"));
  ck_assert_uint_eq (gw_count (g, "sent GossipSample"), 0);   /* no coordinator steps */
  ck_assert_uint_eq (gw_count (g, "bootstrap contacts"), 12);
  /* the first peer had no bootstrap contact, yet others found it */
  ck_assert_uint_gt (gw_count (g, "sent GossipPayload node=1 "), 0);
  gw_free (g);
}
END_TEST

START_TEST (test_kademlia_call_timeout)
{
  /* a bootstrap contact that never answers: the call fails at
   * dht_rpc_timeout and the contact leaves the table */
  ProtoConfig cfg = gossip_cfg (1, 3, 1);
  cfg.straggler_policy = PROTO_STRAGGLER_ASYNC;
  gossip_config_mut (&cfg)->discovery = PROTO_DISCOVERY_KADEMLIA;
  g_autoptr (DlRandom) r = dl_random_new (1, "shares", 7);
  g_autoptr (LearnWeights) init = learn_weights_new (1);
  ProtoOutbox out;
  ProtoMachine *p = gossip_peer_alone (&cfg, init, r, 7, &out);
  const ProtoNodeId boot[] = { 3 };
  gossip_peer_hears (p, DL_S, PROTO_MSG_DHT_NODES, boot, 1, &out);
  ck_assert_int_eq (proto_machine_next_deadline (p), DL_S + gossip_config (&cfg)->dht_rpc_timeout);
  proto_machine_handle (p, DL_S + gossip_config (&cfg)->dht_rpc_timeout, &(ProtoInput) { .kind = PROTO_IN_DEADLINE }, &out);
  guint dropped = 0;
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    {
      ProtoAction *a = proto_outbox_get (&out, i);
      dropped += a->kind == PROTO_ACT_OBSERVE && strstr (a->obs.detail, "unanswered: contact dropped") != NULL;
    }
  ck_assert_uint_eq (dropped, 1);
  ck_assert_int_eq (proto_machine_next_deadline (p), DL_TIME_NEVER);
  /* with no contact left, its step pushes to nobody and goes on */
  proto_machine_handle (p, 5 * DL_S, &(ProtoInput) { .kind = PROTO_IN_TRAINING_DONE, .weights = init }, &out);
  ck_assert_uint_eq (proto_machine_rounds_done (p), 1);
  proto_outbox_clear (&out);
  proto_machine_free (p);
}
END_TEST

/* ---------------------------------------------------------------- whole runs */

START_TEST (test_every_policy_finishes)
{
  /* 5 peers, 3 rounds, each policy: everybody finishes; async pushes are answered */
  const ProtoStragglerPolicy policies[] = { PROTO_STRAGGLER_WAIT, PROTO_STRAGGLER_DEADLINE,
                                            PROTO_STRAGGLER_DROP_SLOWEST, PROTO_STRAGGLER_ASYNC,
                                            PROTO_STRAGGLER_MIXED };
  for (guint i = 0; i < G_N_ELEMENTS (policies); i++)
    {
      ProtoConfig cfg = gossip_cfg (2, 3, 2);
      cfg.straggler_policy = policies[i];
      GW *g = gw_new (&cfg, 5, 2);
      gw_start_all (g);
      gw_settle (g);
      for (guint p = 1; p <= 5; p++)
        {
          ck_assert_msg (proto_machine_rounds_done (gw_peer (g, p)) == 3, "%s: p%u did %u rounds",
                         proto_straggler_policy_name (policies[i]), p, proto_machine_rounds_done (gw_peer (g, p)));
          ck_assert_int_eq (proto_machine_state (gw_peer (g, p)), GOSSIP_PEER_DONE);
        }
      if (policies[i] == PROTO_STRAGGLER_ASYNC)
        {
          ck_assert_uint_eq (gw_count (g, "sent GossipSample"), 15);
          ck_assert_uint_gt (gw_count (g, "asynchronous push mixed in"), 0);
        }
      else
        ck_assert_uint_eq (gw_count (g, "sent GossipSample"), 0);
      gw_free (g);
    }
}
END_TEST

static Suite *
suite (void)
{
  Suite *s = suite_create ("gossip-stragglers");
  TCase *t = tcase_create ("coordinator");
  tcase_add_test (t, test_wait_waits);
  tcase_add_test (t, test_deadline);
  tcase_add_test (t, test_deadline_needs_min);
  tcase_add_test (t, test_drop_slowest);
  tcase_add_test (t, test_async_samples);
  tcase_add_test (t, test_mixed);
  suite_add_tcase (s, t);
  t = tcase_create ("peer");
  tcase_add_test (t, test_staleness_weight);
  tcase_add_test (t, test_push_reply_and_mix);
  tcase_add_test (t, test_every_policy_finishes);
  tcase_add_test (t, test_kademlia_world);
  tcase_add_test (t, test_kademlia_call_timeout);
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
  return failed ? 1 : 0;
}
