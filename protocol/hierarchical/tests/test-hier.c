/* test-hier.c — the hierarchical family (protocol/hierarchical/): the
 * election, rounds through heads under hand-held time, the loss of a head,
 * and a late head catching up. */
#include "config.h"

#include "protocol/hierarchical/hier.h"
#include "tests/family-harness.h"
#include "protocol/proto-machine.h"
#include "protocol/hierarchical/hier-config.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <check.h>
#include <string.h>

static ProtoConfig
hier_cfg (guint min, guint rounds, guint cluster_size)
{
  ProtoConfig c;
  proto_config_init (&c, "hierarchical");
  c.min_participants = min;
  c.rounds = rounds;
  HierConfig *hc = hier_config_mut (&c);
  hc->cluster_size = cluster_size;
  hc->cluster_radius = 20 * DL_MS;   /* the keys' defaults (hier-keys.c) */
  hc->fanin = 32;
  hc->election_timeout = 5 * DL_S;
  hc->head_timeout = 10 * DL_S;
  return c;
}

static ProtoMachine *
hp (GW *g, guint i)
{
  return g->m[i];
}

/* the coordinator alone: a message from peer `from` at `now` */
static void
coord_gets (ProtoMachine *c, DlTime now, ProtoNodeId from, ProtoMsg *m, ProtoOutbox *out)
{
  proto_machine_handle (c, now, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = from, .msg = m }, out);
}

/* ... a message of `type` (its degree: a hello's score) at 0 */
static void
coord_says (ProtoMachine *c, ProtoNodeId from, ProtoMsgType type, guint32 degree, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  m.degree = degree;
  coord_gets (c, 0, from, &m, out);
}

/* the coordinator alone, min_participants min, clusters of cluster_size */
static ProtoMachine *
coord_alone (guint min, guint cluster_size, ProtoOutbox *out)
{
  ProtoConfig cfg = hier_cfg (min, 1, cluster_size);
  proto_outbox_init (out);
  return hier_coord_new (&cfg);
}

/* the last message of `type` the outbox sends, or NULL */
static const ProtoMsg *
sent_of (const ProtoOutbox *out, ProtoMsgType type)
{
  const ProtoMsg *r = NULL;
  for (guint i = 0; i < proto_outbox_len (out); i++)
    if (proto_outbox_get (out, i)->kind == PROTO_ACT_SEND && proto_outbox_get (out, i)->msg.type == type)
      r = &proto_outbox_get (out, i)->msg;
  return r;
}

START_TEST (test_score)
{
  ProtoPeerEnv e = { .speed = 2, .uplink_bps = 20000000 };
  ck_assert_uint_eq (hier_score (&e), 40000);
  e.speed = 0.5;
  ck_assert_uint_eq (hier_score (&e), 10000);
}
END_TEST

START_TEST (test_election_and_rounds)
{
  /* one cluster of 4: p2 is fastest but behind symmetric NAT, p4 next: p4 heads.
   * Training adds the peer's id: round 1 ends with the mean 2.5 everywhere,
   * round 2 with 2.5 + 2.5 = 5 */
  ProtoConfig cfg = hier_cfg (4, 2, 4);
  ProtoPeerEnv envs[4] = {
    { .region = "", .speed = 1, .uplink_bps = 20000000 },
    { .region = "", .speed = 9, .uplink_bps = 20000000, .nat_symmetric = TRUE },
    { .region = "", .speed = 2, .uplink_bps = 20000000 },
    { .region = "", .speed = 3, .uplink_bps = 20000000 },
  };
  GW *g = gw_new_env (&cfg, 4, 2, envs);
  gw_start_all (g);
  gw_settle (g);
  if (g_getenv ("HIER_DEBUG"))
    for (guint i = 0; i < g->log->len; i++)
      g_printerr ("%s\n", (char *) g->log->pdata[i]);
  ck_assert_uint_eq (gw_count (g, "p4 is head"), 1);
  ck_assert (hier_peer_is_head (hp (g, 4)));
  ck_assert (!hier_peer_is_head (hp (g, 2)));
  for (guint i = 1; i <= 4; i++)
    {
      ck_assert_uint_eq (proto_machine_rounds_done (hp (g, i)), 2);
      ck_assert_int_eq (proto_machine_state (hp (g, i)), HIER_PEER_DONE);
      ck_assert_float_eq_tol (learn_weights_data (proto_machine_model (hp (g, i)))[1], 5.0f, 1e-5f);
    }
  /* every member's update went to the head, not to the others */
  ck_assert_uint_eq (gw_count (g, "sent HierUpdate"), 3 * 2);
  ck_assert_uint_eq (gw_count (g, "sent HierResult"), 3 * 2);
  gw_free (g);
}
END_TEST

START_TEST (test_two_clusters_agree)
{
  /* 6 peers in clusters of 3: two heads exchange their means; everyone
   * ends each round with the mean of all six (3.5, then 7) */
  ProtoConfig cfg = hier_cfg (6, 2, 3);
  GW *g = gw_new (&cfg, 6, 1);
  gw_start_all (g);
  gw_settle (g);
  guint heads = 0;
  for (guint i = 1; i <= 6; i++)
    {
      heads += hier_peer_is_head (hp (g, i));
      ck_assert_uint_eq (proto_machine_rounds_done (hp (g, i)), 2);
      ck_assert_float_eq_tol (learn_weights_data (proto_machine_model (hp (g, i)))[0], 7.0f, 1e-5f);
    }
  ck_assert_uint_eq (heads, 2);
  ck_assert_uint_eq (gw_count (g, "sent HierAgg"), 2 * 2);   /* 2 heads x 1 other x 2 rounds */
  gw_free (g);
}
END_TEST

START_TEST (test_heads_tree)
{
  /* 6 clusters of one, fanin 2: the heads form a tree (1, 3, 5 lead pairs;
   * 1 and 5 are the top); the global still is the exact mean everywhere */
  ProtoConfig cfg = hier_cfg (6, 2, 1);
  hier_config_mut (&cfg)->fanin = 2;
  GW *g = gw_new (&cfg, 6, 1);
  gw_start_all (g);
  gw_settle (g);
  for (guint i = 1; i <= 6; i++)
    {
      ck_assert (hier_peer_is_head (hp (g, i)));
      ck_assert_uint_eq (proto_machine_rounds_done (hp (g, i)), 2);
      ck_assert_float_eq_tol (learn_weights_data (proto_machine_model (hp (g, i)))[0], 7.0f, 1e-5f);
    }
  ck_assert_uint_ge (gw_count (g, "6 heads: 2 at the top (fanin 2)"), 1);
  /* per round: 4 subtrees go up (2, 4, 6 to their leaders, 3 to 1), the 2
   * top heads exchange (2), results come down to the 4 */
  ck_assert_uint_eq (gw_count (g, "sent HierAgg"), 2 * (4 + 2));
  ck_assert_uint_eq (gw_count (g, "sent HierResult"), 2 * 4);
  gw_free (g);
}
END_TEST

START_TEST (test_tally_times_out)
{
  /* the coordinator alone: two of three members stand; at the deadline the
   * head is the best of them */
  ProtoOutbox out;
  ProtoMachine *c = coord_alone (3, 3, &out);
  ProtoMsg m;
  for (ProtoNodeId p = 1; p <= 3; p++)
    {
      coord_says (c, p, PROTO_MSG_HELLO, 0, &out);
      coord_says (c, p, PROTO_MSG_HIER_HELLO, 100 * p, &out);
    }
  ck_assert_uint_eq (hier_coord_n_clusters (c), 1);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_HIER_CLUSTER, PROTO_NO_NODE), 3);
  for (ProtoNodeId p = 1; p <= 2; p++)
    {
      proto_msg_init (&m, PROTO_MSG_HIER_CANDIDACY);
      m.round = 1;
      m.degree = 100 * p;
      m.helper = TRUE;
      coord_gets (c, DL_S, p, &m, &out);
    }
  ck_assert_uint_eq (hier_coord_head_of (c, 1), PROTO_NO_NODE);
  ck_assert_int_eq (proto_machine_next_deadline (c), 5 * DL_S);
  proto_machine_handle (c, 5 * DL_S, &(ProtoInput) { .kind = PROTO_IN_DEADLINE }, &out);
  ck_assert_uint_eq (hier_coord_head_of (c, 3), 2);
  /* a member that lost its head stands for epoch 2: a new election */
  proto_msg_init (&m, PROTO_MSG_HIER_CANDIDACY);
  m.round = 2;
  m.degree = 100;
  m.helper = TRUE;
  coord_gets (c, 9 * DL_S, 1, &m, &out);
  ck_assert_uint_eq (hier_coord_head_of (c, 3), PROTO_NO_NODE);
  /* the head's stream closes: it leaves the cluster; at the deadline p1 is head */
  proto_machine_handle (c, 10 * DL_S, &(ProtoInput) { .kind = PROTO_IN_STREAM_CLOSED, .from = 2 }, &out);
  proto_machine_handle (c, 14 * DL_S, &(ProtoInput) { .kind = PROTO_IN_DEADLINE }, &out);
  ck_assert_uint_eq (hier_coord_head_of (c, 3), 1);
  proto_outbox_clear (&out);
  proto_machine_free (c);
}
END_TEST

START_TEST (test_head_lost)
{
  /* p1 heads a cluster of 2; its results never reach p2: after
   * 3 x head_timeout p2 stands for the next epoch */
  ProtoConfig cfg = hier_cfg (2, 2, 2);
  ProtoPeerEnv envs[2] = {
    { .region = "", .speed = 5, .uplink_bps = 20000000 },
    { .region = "", .speed = 1, .uplink_bps = 20000000 },
  };
  GW *g = gw_new_env (&cfg, 2, 1, envs);
  gw_start_all (g);
  /* everything but the head's results */
  gw_hold (g, PROTO_MSG_HIER_RESULT);
  gw_settle (g);
  ck_assert_int_eq (proto_machine_state (hp (g, 2)), HIER_PEER_WAIT_RESULT);
  DlTime d = proto_machine_next_deadline (g->m[2]);
  ck_assert_int_eq (d, g->now + 3 * hier_config (&cfg)->head_timeout);
  g->now = d;
  gw_feed (g, 2, &(ProtoInput) { .kind = PROTO_IN_DEADLINE });
  ck_assert_uint_eq (gw_count (g, "no result from the head"), 1);
  ck_assert_int_eq (proto_machine_state (hp (g, 2)), HIER_PEER_WAIT_HEAD);
  gw_free (g);
}
END_TEST

/* two peers, min 2, one round: p2's NewNodeInfo is held, the rest
 * settled (p1 trained and waits for a head, p2 in connecting) */
static GW *
admission_held (const ProtoConfig *cfg)
{
  GW *g = gw_new (cfg, 2, 1);
  harness_hold (g, PROTO_MSG_WELCOME, PROTO_SERVER, 2);
  gw_start_all (g);
  gw_settle (g);
  ck_assert_int_eq (proto_machine_state (hp (g, 1)), HIER_PEER_WAIT_HEAD);
  ck_assert_int_eq (proto_machine_state (hp (g, 2)), HIER_PEER_CONNECTING);
  return g;
}

START_TEST (test_lost_new_node_info)
{
  /* min 2: p2's NewNodeInfo is lost.  p2 waits in connecting and, with
   * min_participants counting it, the clusters never form: p1 waits for a
   * head.  head_timeout after its ClientConnected p2 says it again, is
   * admitted once more (one member still), and both finish.  Without the
   * repeat both wait for good (dlsim explore --faults drop --messages
   * NewNodeInfo; protocol/hierarchical/scenarios/hier-lost-new-node-info.ini). */
  ProtoConfig cfg = hier_cfg (2, 1, 2);
  GW *g = admission_held (&cfg);
  ck_assert_uint_eq (harness_drop (g, PROTO_MSG_WELCOME, 2), 1);
  gw_unhold (g);
  ck_assert_int_eq (proto_machine_next_deadline (g->m[2]), g->now + hier_config (&cfg)->head_timeout);
  harness_advance_to (g, g->now + hier_config (&cfg)->head_timeout);
  ck_assert_uint_eq (harness_queued (g, PROTO_MSG_HELLO, PROTO_SERVER), 1);
  gw_settle (g);
  for (guint i = 1; i <= 2; i++)
    {
      ck_assert_int_eq (proto_machine_state (hp (g, i)), HIER_PEER_DONE);
      ck_assert_uint_eq (proto_machine_rounds_done (hp (g, i)), 1);
    }
  /* one cluster of the two: p2 was not counted twice */
  ProtoMachine *c = g->m[0];
  ck_assert_uint_eq (hier_coord_n_clusters (c), 1);
  ck_assert_uint_ne (hier_coord_head_of (c, 1), PROTO_NO_NODE);
  ck_assert_uint_eq (hier_coord_head_of (c, 2), hier_coord_head_of (c, 1));
  ck_assert_uint_eq (gw_count (g, "received ClientConnected"), 3);
  gw_free (g);
}
END_TEST

START_TEST (test_late_new_node_info)
{
  /* p2's NewNodeInfo is only late: it says ClientConnected again at
   * head_timeout, then both answers come; the first admits it, the second
   * is dropped (it listens for NewNodeInfo only in connecting), and it says
   * hello once; p1, with no cluster announced head_timeout after its hello,
   * says its own again (hier-peer-effects.c, _hier_peer_say_hello): three */
  ProtoConfig cfg = hier_cfg (2, 1, 2);
  GW *g = admission_held (&cfg);
  harness_advance_to (g, g->now + hier_config (&cfg)->head_timeout);
  gw_settle (g);
  ck_assert_uint_eq (harness_queued (g, PROTO_MSG_WELCOME, 2), 2);
  gw_unhold (g);
  gw_settle (g);
  ck_assert_uint_eq (proto_machine_received_count (hp (g, 2), PROTO_MSG_WELCOME), 2);
  ck_assert_uint_eq (gw_count (g, "dropped NewNodeInfo"), 1);
  ck_assert_uint_eq (gw_count (g, "sent HierHello"), 3);
  for (guint i = 1; i <= 2; i++)
    ck_assert_uint_eq (proto_machine_rounds_done (hp (g, i)), 1);
  ck_assert_uint_eq (hier_coord_n_clusters (g->m[0]), 1);
  gw_free (g);
}
END_TEST

START_TEST (test_repeated_admission)
{
  /* the coordinator alone: a member's repeated ClientConnected is answered
   * as the first (NewNodeInfo with its id; joined_mid_training once the
   * clusters formed), and it stays one member: with min 2, two hellos form
   * the clusters at once (counted twice, a third member without hello
   * would hold them back election_timeout) */
  ProtoOutbox out;
  ProtoMachine *c = coord_alone (2, 3, &out);
  const ProtoNodeId order[] = { 1, 2, 2, 3, 3 };
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    {
      proto_outbox_reset (&out);
      coord_says (c, order[k], PROTO_MSG_HELLO, 0, &out);
      ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_WELCOME, order[k]), 1);
      const ProtoMsg *r = sent_of (&out, PROTO_MSG_WELCOME);
      ck_assert_uint_eq (r->node, order[k]);
      ck_assert_int_eq (r->joined_mid_training, order[k] == 3);   /* p3 after the clusters formed */
      if (k == 2)
        for (ProtoNodeId p = 1; p <= 2; p++)
          coord_says (c, p, PROTO_MSG_HIER_HELLO, 100 * p, &out);
      if (k >= 2)
        ck_assert_uint_eq (hier_coord_n_clusters (c), 1);
    }
  ck_assert_int_eq (proto_machine_next_deadline (c), 5 * DL_S);   /* the election, not a form deadline */
  proto_outbox_clear (&out);
  proto_machine_free (c);
}
END_TEST

/* With every wait at its largest the stall window saturates at
 * DL_TIME_NEVER, never wraps into the past (tests/test-machine.c checks
 * DISCO's; a wrapped product livelocked a run). */
START_TEST (test_hier_waits_saturate)
{
  ProtoConfig c;
  proto_config_init (&c, "hierarchical");
  c.peer_connection_timeout = 1281024 * DL_H;
  c.model_sync_timeout = c.payload_timeout = DL_TIME_NEVER / 2;
  hier_config_mut (&c)->head_timeout = hier_config_mut (&c)->election_timeout = DL_TIME_NEVER / 2;
  ck_assert_int_eq (proto_family_lookup ("hierarchical")->stall_window (&c), DL_TIME_NEVER);
}
END_TEST

static Suite *
suite (void)
{
  Suite *s = suite_create ("hierarchical");
  TCase *t = tcase_create ("machines");
  tcase_add_test (t, test_hier_waits_saturate);
  tcase_add_test (t, test_score);
  tcase_add_test (t, test_election_and_rounds);
  tcase_add_test (t, test_two_clusters_agree);
  tcase_add_test (t, test_heads_tree);
  tcase_add_test (t, test_tally_times_out);
  tcase_add_test (t, test_head_lost);
  tcase_add_test (t, test_lost_new_node_info);
  tcase_add_test (t, test_late_new_node_info);
  tcase_add_test (t, test_repeated_admission);
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
