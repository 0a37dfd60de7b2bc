/* test-net-body.c — the world's network (sim/sim-net.c) holding a message
 * body shared by the messages in flight that say the same apart from the
 * recipient: a peer sends one message to its other peers over their links,
 * some of them dead; the body is shared, freed once, after the last
 * delivery, and each receiver reads its own `node`; messages queued on
 * one link arrive in order, the sender's close behind them; a delay rule
 * holds a message, not its round trip.  The world is built
 * but not run: the test makes the peers and links itself and takes the
 * deliveries in place of the machines (SimWorldCallbacks). */
#include "config.h"

#include "sim/sim-world-private.h"
#include "tests/world-harness.h"
#include "tests/msg-fill.h"

#include <check.h>

#define N_PEERS 7

typedef struct {
  guint delivered;
  ProtoNodeId to[N_PEERS + 1];       /* by delivery: the receiver */
  ProtoNodeId node[N_PEERS + 1];     /* and the node it read */
  guint64 live[N_PEERS + 1];         /* the live bodies while it read */
  guint32 round[N_PEERS + 1];        /* and the message's round */
  DlTime at[N_PEERS + 1];            /* and when */
  guint closed_after;                /* p2's link closed notice: after this many deliveries + 1 */
} Tap;

static Tap tap;

static void
tap_peer (SimWorld *w, Node *n, const ProtoInput *in)
{
  if (in->kind == PROTO_IN_LINK_CLOSED && n->id == 2 && in->from == 1)
    tap.closed_after = tap.delivered + 1;
  if (in->kind != PROTO_IN_MESSAGE || tap.delivered >= N_PEERS)
    return;
  tap.round[tap.delivered] = in->msg->round;
  tap.to[tap.delivered] = n->id;
  tap.node[tap.delivered] = in->msg->node;
  tap.live[tap.delivered] = w->live_bodies;
  tap.at[tap.delivered] = sim_engine_now (w->engine);
  tap.delivered++;
}

static void
tap_server (SimWorld *w, guint k, const ProtoInput *in)
{
  (void) w, (void) k, (void) in;
}

static const SimWorldCallbacks tap_cb = { .dispatch_peer = tap_peer, .dispatch_server = tap_server };

/* A type whose example owns no array and carries weights (a model's
 * payload, in whatever family declares one): its body can be shared. */
static gboolean
shareable_example (ProtoMsg *out)
{
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    {
      if (!proto_msg_type_known (t))
        continue;
      fill_msg (out, t);
      if (out->weights && !out->peers && !out->indices && !out->signal_data && !out->inner
          && !out->sess_seq && !out->sess_ack)
        return TRUE;
      proto_msg_clear (out);
    }
  return FALSE;
}

static gboolean
dead_link (ProtoNodeId to)
{
  return to == 3 || to == 6;
}

static void
make_peers (SimWorld *w)
{
  for (ProtoNodeId i = 1; i <= N_PEERS; i++)
    sim_ensure_node (w, i)->status = NODE_ONLINE;
  for (ProtoNodeId i = 2; i <= N_PEERS; i++)
    {
      Link *l = sim_link_get (w, 1, i, TRUE);
      sim_link_set_obj (l, 0, TRUE);
      sim_link_set_obj (l, 1, TRUE);
      l->up = TRUE;
      l->dead = dead_link (i);
    }
}

/* s's world, recorded by rec, its deliveries tapped (tap, cleared) and
 * p1's links made (make_peers) */
static SimWorld *
tap_world (WorldSetup *s, WorldRec *rec)
{
  world_rec_init (rec);
  SimWorld *w = world_build (s, rec);
  w->cb = &tap_cb;
  memset (&tap, 0, sizeof tap);
  make_peers (w);
  return w;
}

START_TEST (test_body_shared_freed_once)
{
  WorldSetup s;
  world_setup_none (&s, N_PEERS, 1, 1000);
  WorldRec rec;
  SimWorld *w = tap_world (&s, &rec);

  ProtoMsg proto;
  ck_assert (shareable_example (&proto));
  for (ProtoNodeId i = 2; i <= N_PEERS; i++)
    {
      ProtoMsg m;
      proto_msg_copy (&m, &proto);
      m.node = i;   /* the recipient, as in a payload */
      sim_net_send (w, 1, i, PROTO_VIA_LINK, &m);
      proto_msg_clear (&m);
    }
  proto_msg_clear (&proto);
  /* one body for the four messages in flight (two were lost at once) */
  ck_assert_uint_eq (w->live_bodies, 1);

  for (guint steps = 0; steps < 100000 && sim_engine_step (w->engine); steps++)
    ;
  ck_assert_uint_eq (tap.delivered, N_PEERS - 1 - 2);
  gboolean seen[N_PEERS + 1] = { FALSE };
  for (guint k = 0; k < tap.delivered; k++)
    {
      ck_assert_msg (!dead_link (tap.to[k]), "p%u got a message sent on a dead link", tap.to[k]);
      ck_assert_msg (tap.node[k] == tap.to[k], "p%u read node %u", tap.to[k], tap.node[k]);
      ck_assert_msg (tap.live[k] == 1, "delivery %u: %" G_GUINT64_FORMAT " live bodies", k,
                     tap.live[k]);
      ck_assert (!seen[tap.to[k]]);
      seen[tap.to[k]] = TRUE;
    }
  /* freed once, after the last delivery */
  ck_assert_uint_eq (w->live_bodies, 0);
  world_teardown (w, &rec, &s);
}
END_TEST

/* Messages queued on one link's channel (sharing = fair: the head in
 * flight, the rest behind it, linked by their slab indices) arrive in the
 * order sent, and the sender's close of the link waits behind them (in
 * the world's map of waiting closes, not in the 48-byte link record):
 * its notice arrives after the last of them. */
START_TEST (test_link_queue_then_close)
{
  WorldSetup s;
  world_setup_none (&s, N_PEERS, 1, 1000);
  WorldRec rec;
  SimWorld *w = tap_world (&s, &rec);
  ck_assert_uint_eq (sizeof (Link), 48);

  ProtoMsg proto;
  ck_assert (shareable_example (&proto));
  for (guint32 k = 1; k <= 4; k++)
    {
      ProtoMsg m;
      proto_msg_copy (&m, &proto);
      m.node = 2;
      m.round = k;
      sim_net_send (w, 1, 2, PROTO_VIA_LINK, &m);
      proto_msg_clear (&m);
    }
  proto_msg_clear (&proto);
  Link *l = sim_link_get (w, 1, 2, FALSE);
  int side = sim_link_side (1, 2);
  ck_assert (l->q[side] != 0 && l->q[side] != l->q_tail[side]);
  sim_net_close_link (w, 1, 2, TRUE);
  ck_assert_uint_eq (l->waits, 1u << side);
  ck_assert_uint_eq (dl_word_map_size (w->close_waits), 1);

  for (guint steps = 0; steps < 100000 && sim_engine_step (w->engine); steps++)
    ;
  ck_assert_uint_eq (tap.delivered, 4);
  for (guint k = 0; k < 4; k++)
    ck_assert_msg (tap.round[k] == k + 1, "delivery %u: round %u", k, tap.round[k]);
  ck_assert_msg (tap.closed_after == 5, "the close arrived after %u deliveries", tap.closed_after - 1);
  ck_assert_uint_eq (l->waits, 0);
  ck_assert_uint_eq (l->q[side], 0);
  ck_assert_uint_eq (dl_word_map_size (w->close_waits), 0);
  world_teardown (w, &rec, &s);
}
END_TEST

/* One message of 80 000 bytes of weights from p1 to p2 under tcp (50 ms
 * each way, 1 Gbit/s: several windows of slow start), held `delay` by a
 * delay rule of p1's; when it arrives. */
static DlTime
delayed_arrival (DlTime delay)
{
  WorldSetup s;
  world_setup_none (&s, N_PEERS, 1, 1000);
  s.cfg.transport = SIM_TRANSPORT_TCP;
  s.cfg.latency = dl_dist_constant (DL_UNIT_DURATION, 50e6);
  s.cfg.uplink_bps = s.cfg.downlink_bps = 1000000000;
  WorldRec rec;
  SimWorld *w = tap_world (&s, &rec);

  ProtoMsg m;
  ck_assert (shareable_example (&m));
  learn_weights_unref (m.weights);
  m.weights = learn_weights_new_symbolic (20000);
  m.node = 2;
  Rule rule = { .msg_type = (int) m.type, .node = 1, .count = 1, .delay = delay };
  if (delay > 0)
    g_array_append_val (w->delay_rules, rule);
  sim_net_send (w, 1, 2, PROTO_VIA_LINK, &m);
  proto_msg_clear (&m);
  for (guint steps = 0; steps < 100000 && sim_engine_step (w->engine); steps++)
    ;
  ck_assert_uint_eq (tap.delivered, 1);
  DlTime at = tap.at[0];
  world_teardown (w, &rec, &s);
  return at;
}

/* A delay rule makes its message take D longer and nothing more
 * (docs/user-guide.md, "delay TYPE from pN by D"): the rule holds the
 * message, not its ACKs, so its slow start still doubles the window
 * every round trip of its path, twice the latency, and not twice the
 * latency plus D.  Before, a 3 s hold-up of a message of several
 * windows cost 3 s more for every round trip of its ramp. */
START_TEST (test_delay_rule_not_in_round_trip)
{
  DlTime plain = delayed_arrival (0), held = delayed_arrival (3 * DL_S);
  ck_assert_msg (plain > 200 * DL_MS, "%" G_GINT64_FORMAT " ns: not several round trips", (gint64) plain);
  ck_assert_msg (held - plain == 3 * DL_S, "held %" G_GINT64_FORMAT " ns, not 3 s, longer than without the rule",
                 (gint64) (held - plain));
}
END_TEST

static Suite *
net_body_suite (void)
{
  Suite *s = suite_create ("net-body");
  TCase *tc = tcase_create ("body");
  tcase_add_test (tc, test_body_shared_freed_once);
  tcase_add_test (tc, test_link_queue_then_close);
  tcase_add_test (tc, test_delay_rule_not_in_round_trip);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (net_body_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
