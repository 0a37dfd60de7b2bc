/* test-pipeline.c — the pipeline family's machines under hand-held time
 * (protocol/pipeline/): routing, a whole session through the registry and
 * the servers, next-peer pushes and the check of pushed copies, a faulty
 * server, a push for an unknown session, a crashed server replaced with a
 * replay. Messages arrive in send order with no latency (the harness of
 * family-harness.h); time moves to the machines' deadlines (compute,
 * timeouts) by hand.  One whole run of the world: pushes queued behind
 * another on their connection keep its window. */
#include "config.h"

#include "protocol/pipeline/pipe.h"
#include "tests/family-harness.h"
#include "tests/plan-check.h"
#include "protocol/proto-machine.h"
#include "protocol/pipeline/pipe-config.h"
#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"
#include "scenario/sim-scenario.h"
#include "sim/sim-world.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static ProtoConfig
pipe_cfg (guint servers, guint replicas, guint sessions, guint steps, gboolean next_peer)
{
  ProtoConfig c;
  proto_config_init (&c, "pipeline");
  PipeConfig *pc = pipe_config_mut (&c);
  pc->blocks = 16;
  pc->servers = servers;
  pc->replicas = replicas;
  pc->sessions = sessions;
  pc->steps = steps;
  c.rounds = steps;
  pc->next_peer = next_peer;
  pc->hidden_size = 4096;
  pc->compute_per_block = dl_dist_constant (DL_UNIT_DURATION, 1e6);   /* 1 ms */
  pc->step_timeout = 5 * DL_S;
  return c;
}

/* Settles, then moves time to the earliest deadline and fires every
 * machine due then, until nothing is due before `limit`. */
static void
run_until (GW *g, DlTime limit)
{
  for (guint guard = 0; guard < 100000; guard++)
    {
      gw_settle (g);
      DlTime d = DL_TIME_NEVER;
      for (guint i = 0; i <= g->n; i++)
        if (g->alive[i])
          d = MIN (d, proto_machine_next_deadline (g->m[i]));
      if (d == DL_TIME_NEVER || d > limit)
        return;
      g->now = MAX (g->now, d);
      for (guint i = 0; i <= g->n; i++)
        if (g->alive[i] && proto_machine_next_deadline (g->m[i]) <= g->now)
          gw_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_DEADLINE });
    }
  ck_abort_msg ("the pipeline never went quiet");
}

static ProtoMachine *
peer (GW *g, guint i)
{
  return g->m[i];
}

static ProtoPeerView
view (GW *g, guint i)
{
  ProtoPeerView v;
  proto_machine_view (g->m[i], &v);
  return v;
}

/* Runs g until it goes quiet (100 s at most): the client, p1, has
 * finished its session. */
static void
run_to_done (GW *g)
{
  run_until (g, DL_S * 100);
  ck_assert_int_eq (proto_machine_state (peer (g, 1)), PIPE_PEER_DONE);
}

/* A world of `peers` peers (p1 the client) under c, all started and run
 * to the client's end (run_to_done). */
static GW *
session_run (const ProtoConfig *c, guint peers)
{
  GW *g = gw_new (c, peers, 4);
  gw_start_all (g);
  run_to_done (g);
  return g;
}

/* ---------------------------------------------------------------- routing */

START_TEST (test_route_prefers_near_and_fast)
{
  /* two replicas of each half: the client is near p1 and p4 */
  PipeServerInfo s[] = {
    { .id = 1, .start = 0, .end = 8, .speed = 1, .rtt = 20 * DL_MS },
    { .id = 2, .start = 0, .end = 8, .speed = 1, .rtt = 200 * DL_MS },
    { .id = 3, .start = 8, .end = 16, .speed = 1, .rtt = 200 * DL_MS },
    { .id = 4, .start = 8, .end = 16, .speed = 1, .rtt = 20 * DL_MS },
  };
  PipeRouteCost cost = { .block_ns = 1e6 };
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (PipeHop));
  ck_assert (pipe_route (s, 4, NULL, 0, 16, &cost, path));
  ck_assert_uint_eq (path->len, 2);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 0).server, 0);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).server, 3);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).start, 8);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).end, 16);
  /* a server 50x slower loses even when it is nearer: 400 ms of compute
   * against 2 x 90 ms more of round trip */
  s[3].speed = 0.02;
  ck_assert (pipe_route (s, 4, NULL, 0, 16, &cost, path));
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).server, 2);
  /* skipped (banned) servers are left out */
  gboolean skip[4] = { TRUE, FALSE, FALSE, FALSE };
  ck_assert (pipe_route (s, 4, skip, 0, 16, &cost, path));
  ck_assert_uint_eq (g_array_index (path, PipeHop, 0).server, 1);
  /* a part of the chain: blocks 8..16 only */
  ck_assert (pipe_route (s, 4, NULL, 8, 16, &cost, path));
  ck_assert_uint_eq (path->len, 1);
}
END_TEST

START_TEST (test_route_gap_and_overlap)
{
  PipeServerInfo s[] = {
    { .id = 1, .start = 0, .end = 6, .speed = 1, .rtt = DL_TIME_NEVER },
    { .id = 2, .start = 8, .end = 16, .speed = 1, .rtt = DL_TIME_NEVER },
  };
  PipeRouteCost cost = { .block_ns = 1e6 };
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (PipeHop));
  ck_assert (!pipe_route (s, 2, NULL, 0, 16, &cost, path));   /* blocks 6, 7: nobody */
  /* an overlapping server covers the gap: p3 runs 4..10, entered where p1 ends */
  PipeServerInfo t[] = { s[0], s[1], { .id = 3, .start = 4, .end = 10, .speed = 1, .rtt = DL_TIME_NEVER } };
  ck_assert (pipe_route (t, 3, NULL, 0, 16, &cost, path));
  ck_assert_uint_eq (path->len, 3);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).server, 2);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).start, 6);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).end, 10);
  ck_assert_uint_eq (g_array_index (path, PipeHop, 2).start, 10);
}
END_TEST

START_TEST (test_route_family_hint)
{
  /* next-peer: from p1 (family 0), p2 (family 1, nearer the client) or p3
   * (family 0, as p1): with the hint the hop inside family 0 is free */
  PipeServerInfo s[] = {
    { .id = 1, .start = 0, .end = 8, .speed = 1, .family = 0, .rtt = 50 * DL_MS },
    { .id = 2, .start = 8, .end = 16, .speed = 1, .family = 1, .rtt = 40 * DL_MS },
    { .id = 3, .start = 8, .end = 16, .speed = 1, .family = 0, .rtt = 60 * DL_MS },
  };
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (PipeHop));
  PipeRouteCost cost = { .block_ns = 1e6, .next_peer = TRUE };
  ck_assert (pipe_route (s, 3, NULL, 0, 16, &cost, path));
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).server, 1);   /* no hint: the nearer p2 */
  cost.family_hint = TRUE;
  ck_assert (pipe_route (s, 3, NULL, 0, 16, &cost, path));
  ck_assert_uint_eq (g_array_index (path, PipeHop, 1).server, 2);   /* same family: p3 */
}
END_TEST

START_TEST (test_even_split)
{
  ProtoConfig c = pipe_cfg (6, 2, 1, 1, FALSE);
  pipe_config_mut (&c)->blocks = 10;   /* 3 ranges: 4, 3, 3 blocks */
  guint a, b;
  pipe_config_range (pipe_config (&c), 0, &a, &b);
  ck_assert_uint_eq (a, 0);
  ck_assert_uint_eq (b, 4);
  pipe_config_range (pipe_config (&c), 1, &a, &b);
  ck_assert_uint_eq (a, 0);
  ck_assert_uint_eq (b, 4);   /* its replica */
  pipe_config_range (pipe_config (&c), 2, &a, &b);
  ck_assert_uint_eq (a, 4);
  ck_assert_uint_eq (b, 7);
  pipe_config_range (pipe_config (&c), 5, &a, &b);
  ck_assert_uint_eq (a, 7);
  ck_assert_uint_eq (b, 10);
}
END_TEST

/* ---------------------------------------------------------------- sessions */

START_TEST (test_session_client_relay)
{
  ProtoConfig c = pipe_cfg (4, 1, 1, 3, FALSE);
  GW *g = session_run (&c, 5);
  for (guint i = 2; i <= 5; i++)
    {
      ck_assert (pipe_peer_is_server (peer (g, i)));
      ck_assert (view (g, i).serves_only);
      ck_assert_uint_eq (view (g, i).rounds_done, 0);   /* a server does no rounds */
      ck_assert_uint_eq (pipe_peer_computations (peer (g, i)), 3);   /* it computed each step once */
    }
  ck_assert (!pipe_peer_is_server (peer (g, 1)));
  ck_assert (view (g, 1).settled);
  ck_assert_uint_eq (view (g, 1).rounds_done, 3);
  g_autoptr (GArray) chain = pipe_peer_chain (peer (g, 1));
  ck_assert_uint_eq (chain->len, 4);
  for (guint i = 0; i < 4; i++)
    ck_assert_uint_eq (g_array_index (chain, ProtoNodeId, i), i + 2);
  ck_assert_uint_eq (gw_count (g, "sent PipePush"), 0);
  ck_assert_uint_eq (gw_count (g, "step_latency_s"), 3);
  ck_assert_uint_eq (gw_count (g, "client_egress_bytes"), 1);
  ck_assert_uint_eq (gw_count (g, "received PipeClose"), 4);
  gw_free (g);
}
END_TEST

START_TEST (test_next_peer_pushes_and_checks)
{
  ProtoConfig c = pipe_cfg (4, 1, 1, 4, TRUE);
  GW *g = session_run (&c, 5);
  /* step 0 opens the sessions: no push (Petals pushes only to servers
   * that stepped); steps 1..3: p2, p3, p4 push to the next */
  ck_assert_uint_eq (gw_count (g, "sent PipePush"), 9);
  /* step 1's pushes wait for the servers' links and come after the
   * client's copies: ignored; later ones come first and are right */
  ck_assert_uint_eq (gw_count (g, "came after the client's copy: ignored"), 3);
  ck_assert_uint_eq (gw_count (g, "late_pushes"), 3);
  ck_assert_uint_eq (gw_count (g, "early start used"), 6);
  ck_assert_uint_eq (gw_count (g, "thrown away"), 0);
  for (guint i = 2; i <= 5; i++)
    ck_assert_uint_eq (pipe_peer_computations (peer (g, i)), 4);   /* no step computed twice */
  gw_free (g);
}
END_TEST

START_TEST (test_faulty_push_caught)
{
  ProtoConfig c = pipe_cfg (4, 1, 1, 4, TRUE);
  pipe_config_mut (&c)->faulty_share = 1;   /* every server's pushes are wrong */
  GW *g = session_run (&c, 5);
  ck_assert (pipe_peer_is_faulty (peer (g, 2)));
  ck_assert_uint_eq (view (g, 1).rounds_done, 4);
  /* every pushed copy that came first differs from the client's: computed
   * again (steps 2 and 3; step 1's pushes came late) */
  ck_assert_uint_eq (gw_count (g, "sent PipePush"), 9);
  ck_assert_uint_eq (gw_count (g, "early work thrown away"), 6);
  ck_assert_uint_eq (gw_count (g, "early start used"), 0);
  ck_assert_uint_eq (gw_count (g, "recomputations"), 6);
  /* with no latency the client's copy comes while the early work runs: its
   * result is thrown away, never sent (with latency it may reach the
   * client, which waits for the recomputed one: the world's tests) */
  ck_assert_uint_eq (gw_count (g, "result thrown away"), 6);
  ck_assert_uint_eq (gw_count (g, "computed from a wrong pushed copy"), 0);
  /* the thrown-away work does not count as a computation */
  for (guint i = 2; i <= 5; i++)
    ck_assert_uint_eq (pipe_peer_computations (peer (g, i)), 4);
  gw_free (g);
}
END_TEST

/* The value of the first METRIC observation named `name` in the log. */
static gint64
metric_value (GW *g, const char *name)
{
  g_autofree char *tail = g_strdup_printf (": %s", name);
  for (guint i = 0; i < g->log->len; i++)
    {
      const char *l = g->log->pdata[i];
      const char *v = strstr (l, " value=");
      if (strstr (l, "metric") && g_str_has_suffix (l, tail) && v)
        return g_ascii_strtoll (v + 7, NULL, 10);
    }
  return -1;
}

/* steps_per_ks is Petals' benchmark speed: the steps after the first
 * (warm-up) one over the time they took.  Compute times are drawn, so the
 * steps differ in length and counting the warm-up step would give another
 * number. */
START_TEST (test_step_rate_after_warmup)
{
  ProtoConfig c = pipe_cfg (4, 1, 1, 6, FALSE);
  pipe_config_mut (&c)->compute_per_block = (DlDist) { .kind = DL_DIST_LOGNORMAL, .unit = DL_UNIT_DURATION, .a = 1e6, .b = 0.5 };
  GW *g = session_run (&c, 5);
  gint64 first = -1, later = 0;
  for (guint i = 0; i < g->log->len; i++)
    {
      const char *l = g->log->pdata[i];
      const char *r = strstr (l, " round="), *v = strstr (l, " value=");
      if (!g_str_has_suffix (l, ": step_latency_s") || !r || !v)
        continue;
      gint64 ns = g_ascii_strtoll (v + 7, NULL, 10);
      if (g_ascii_strtoll (r + 7, NULL, 10) == 0)
        first = ns;
      else
        later += ns;
    }
  ck_assert (first > 0 && later > 0);
  gint64 want = llround (5 * 1e12 / (double) later);
  ck_assert_int_ne (want, llround (6 * 1e12 / (double) (first + later)));   /* the warm-up step matters */
  ck_assert_int_eq (metric_value (g, "steps_per_ks"), want);
  ck_assert_uint_eq (gw_count (g, "steps_per_ks"), 1);
  gw_free (g);
}
END_TEST

START_TEST (test_hash_copy)
{
  /* client_copy = hash: a server that gets a push gets the client's hash
   * alone; without faults nothing more goes, and the client sends far
   * fewer bytes than with full copies */
  gint64 egress[2];
  for (int hash = 0; hash <= 1; hash++)
    {
      ProtoConfig c = pipe_cfg (4, 1, 1, 4, TRUE);
      pipe_config_mut (&c)->hash_copy = hash;
      GW *g = session_run (&c, 5);
      ck_assert_uint_eq (view (g, 1).rounds_done, 4);
      egress[hash] = metric_value (g, "client_egress_bytes");
      if (hash)
        {
          /* steps 1..3 to p3, p4, p5: the hash alone */
          ck_assert_uint_eq (gw_count (g, "its hash alone"), 9);
          /* step 1's pushes wait for the servers' links: the hash comes
           * first and the server asks for the copy; each push then either
           * matches the hash or comes after the full copy */
          ck_assert_uint_eq (gw_count (g, "sent PipeNeed"), 3);
          ck_assert_uint_eq (gw_count (g, "the push matches the client's hash")
                             + gw_count (g, "the push came after the client's copy"), 3);
          ck_assert_uint_eq (gw_count (g, "early start used"), 6);
        }
      else
        ck_assert_uint_eq (gw_count (g, "sent PipeNeed"), 0);
      gw_free (g);
    }
  ck_assert (egress[0] > 0 && egress[1] > 0);
  /* the 6 hops of steps 2 and 3 that got the hash alone saved about a
   * copy each (4 096 B of hidden states, less a hash message's few bytes) */
  ck_assert_msg (egress[0] - egress[1] >= 6 * 4000, "hash copies: %" G_GINT64_FORMAT " B against %" G_GINT64_FORMAT " B",
                 egress[1], egress[0]);
}
END_TEST

START_TEST (test_hash_copy_faulty)
{
  /* every push wrong: each hash contradicts the push, the server asks for
   * the full copy and computes from it; the session still completes */
  ProtoConfig c = pipe_cfg (4, 1, 1, 4, TRUE);
  pipe_config_mut (&c)->hash_copy = TRUE;
  pipe_config_mut (&c)->faulty_share = 1;
  GW *g = session_run (&c, 5);
  ck_assert_uint_eq (view (g, 1).rounds_done, 4);
  ck_assert_uint_eq (gw_count (g, "early work thrown away"), 6);
  ck_assert_uint_eq (gw_count (g, "sent PipeNeed"), 9);
  ck_assert_uint_eq (gw_count (g, "sends the full copy"), 9);
  ck_assert_uint_eq (gw_count (g, "early start used"), 0);
  gw_free (g);
}
END_TEST

START_TEST (test_push_unknown_session_ignored)
{
  ProtoConfig c = pipe_cfg (2, 1, 1, 1, TRUE);
  GW *g = gw_new (&c, 3, 4);
  gw_start_all (g);
  gw_settle (g);
  ck_assert (pipe_peer_is_server (peer (g, 3)));
  guint before = pipe_peer_computations (peer (g, 3));
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_PUSH);
  m.key = 999;
  m.round = 0;
  m.comm_round = 1234;
  m.nb_participants = 1;
  m.degree = 8;   /* p3's blocks */
  m.node = 16;
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 2, .via = PROTO_VIA_LINK, .msg = &m };
  gw_feed (g, 3, &in);
  proto_msg_clear (&m);
  ck_assert_uint_eq (gw_count (g, "a session it does not hold: ignored"), 1);
  ck_assert_uint_eq (gw_count (g, "pushes_ignored"), 1);
  ck_assert_int_eq (proto_machine_next_deadline (g->m[3]), DL_TIME_NEVER);   /* nothing computes */
  run_until (g, DL_S * 100);
  ck_assert_uint_eq (pipe_peer_computations (peer (g, 3)), before + 1);   /* only the real session's step */
  gw_free (g);
}
END_TEST

START_TEST (test_stale_push_not_computed)
{
  /* a push that comes long after its step was done from the client's copy
   * (and forgotten) is late: not computed again */
  ProtoConfig c = pipe_cfg (2, 1, 1, 12, TRUE);
  GW *g = session_run (&c, 3);
  /* the session is closed at its end: re-open one by hand with a copy of step 11 */
  guint before = pipe_peer_computations (peer (g, 3));
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_STEP);
  m.key = 1;
  m.round = 11;
  m.comm_round = 77;
  m.nb_participants = 1;
  m.degree = 8;   /* p3's blocks */
  m.node = 16;
  gw_feed (g, 3, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = 1, .via = PROTO_VIA_LINK, .msg = &m });
  run_until (g, DL_S * 200);
  ck_assert_uint_eq (pipe_peer_computations (peer (g, 3)), before + 1);
  guint late = gw_count (g, "came after the client's copy");
  m.type = PROTO_MSG_PIPE_PUSH;
  m.round = 0;   /* a step long before the copies that came */
  gw_feed (g, 3, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = 2, .via = PROTO_VIA_LINK, .msg = &m });
  proto_msg_clear (&m);
  ck_assert_uint_eq (gw_count (g, "came after the client's copy"), late + 1);
  ck_assert_int_eq (proto_machine_next_deadline (g->m[3]), DL_TIME_NEVER);
  gw_free (g);
}
END_TEST

/* when p3 hears each of p2's PipePushes, in a whole run of the world */
typedef struct {
  DlTime at[64];
  guint n;
} PushTimes;

static void
push_heard (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  PushTimes *a = ud;
  gboolean heard = o->kind == PROTO_OBS_RECEIVED || o->kind == PROTO_OBS_NOTE || o->kind == PROTO_OBS_REJECTED;
  if (node == 3 && o->other == 2 && o->msg_type == PROTO_MSG_PIPE_PUSH && heard && a->n < G_N_ELEMENTS (a->at))
    a->at[a->n++] = t;
}

/* A message queued behind another on its connection goes with the window
 * that one leaves: the connection is busy, not idle.  Under tcp p2's
 * pushes to p3 are held up 3 s (pipeline-push-unknown-session.ini's rule):
 * the hold-up is not in their round trip (60 ms), the first (16 445
 * bytes, over the initial window) takes two round trips on its new
 * connection and comes after 3 s, and the pushes sent meanwhile wait
 * behind it.  When its last bytes leave, the next one starts with the
 * window it left, so the queued ones come within a few transmission times
 * (0.13 ms each at 1 Gbit/s) of it.  The world used to take the
 * connection for idle since before the first push (its last arrival was
 * read before the first push's was set), restarted the second from the
 * initial window, and it came a round trip (60 ms) later. */
START_TEST (test_queued_push_keeps_window)
{
  const char *text = "[scenario]\nseed = 4\n[protocol]\nfamily = pipeline\nblocks = 16\nservers = 2\n"
                     "steps = 40\nforwarding = next-peer\n[network]\ntransport = tcp\nlatency = 30ms\n"
                     "uplink = 1Gbps\ndownlink = 1Gbps\n[timeline]\n0s = delay PipePush from p2 by 3s count 1000\n";
  g_autofree char *dir = g_dir_make_tmp ("dlsim-queued-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.ini", NULL);
  ck_assert (dir && g_file_set_contents (path, text, -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) sc = sim_scenario_load (path, NULL, &e);
  g_unlink (path);
  g_rmdir (dir);
  ck_assert_msg (sc != NULL, "%s", e ? e->message : "");
  SimBuilt b;
  ck_assert (sim_scenario_build (sc, sc->points->pdata[0], 4, &b, NULL));
  PushTimes a = { 0 };
  SimRecorder sr = { push_heard, NULL, NULL, NULL, &a, NULL };
  SimWorld *w = sim_world_new (&b.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  sim_world_free (w);
  sim_built_clear (&b);
  ck_assert_uint_ge (a.n, 3);
  ck_assert_msg (a.at[0] > 3 * DL_S, "the first push came at %" G_GINT64_FORMAT " ns", a.at[0]);
  ck_assert_msg (a.at[1] - a.at[0] <= DL_MS, "the second push came %" G_GINT64_FORMAT " ns after the first", a.at[1] - a.at[0]);
}
END_TEST

START_TEST (test_crash_replaced_with_replay)
{
  /* 4 servers, 2 ranges of 2 replicas; the client p1's chain uses p2 or
   * p3, then p4 or p5; the second hop's server crashes after step 1 */
  ProtoConfig c = pipe_cfg (4, 2, 1, 4, FALSE);
  GW *g = gw_new (&c, 5, 4);
  gw_start_all (g);
  /* until the client has generated two steps */
  for (guint guard = 0; guard < 1000 && view (g, 1).rounds_done < 2; guard++)
    {
      gw_settle (g);
      DlTime d = DL_TIME_NEVER;
      for (guint i = 0; i <= g->n; i++)
        d = MIN (d, proto_machine_next_deadline (g->m[i]));
      ck_assert (d != DL_TIME_NEVER);
      g->now = MAX (g->now, d);
      for (guint i = 0; i <= g->n; i++)
        if (proto_machine_next_deadline (g->m[i]) <= g->now)
          gw_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_DEADLINE });
    }
  ck_assert_uint_eq (view (g, 1).rounds_done, 2);
  g_autoptr (GArray) chain = pipe_peer_chain (peer (g, 1));
  ck_assert_uint_eq (chain->len, 2);
  ProtoNodeId victim = g_array_index (chain, ProtoNodeId, 1);
  g->alive[victim] = FALSE;   /* a crash: silent */
  run_to_done (g);
  ck_assert_uint_eq (view (g, 1).rounds_done, 4);
  g_autoptr (GArray) after = pipe_peer_chain (peer (g, 1));
  ProtoNodeId repl = g_array_index (after, ProtoNodeId, 1);
  ck_assert_uint_ne (repl, victim);
  ck_assert (repl == 4 || repl == 5);
  ck_assert_uint_eq (gw_count (g, "no result within step_timeout"), 1);
  ck_assert_uint_eq (gw_count (g, "replays the session's inputs"), 1);
  ck_assert_uint_eq (gw_count (g, "session opened by a replay"), 1);
  ck_assert_uint_eq (gw_count (g, "failure_step_latency_s"), 1);
  /* the replayed step took the timeout and more */
  ck_assert (g->now >= pipe_config (&c)->step_timeout);
  /* the replacement took steps 2 and 3 */
  ck_assert_uint_eq (pipe_peer_computations (peer (g, repl)), 2);
  gw_free (g);
}
END_TEST

START_TEST (test_leave_fails_at_once)
{
  ProtoConfig c = pipe_cfg (4, 2, 1, 3, FALSE);
  GW *g = gw_new (&c, 5, 4);
  gw_start_all (g);
  run_until (g, 0);
  gw_settle (g);
  g_autoptr (GArray) chain = pipe_peer_chain (peer (g, 1));
  ck_assert_uint_eq (chain->len, 2);
  ProtoNodeId first = g_array_index (chain, ProtoNodeId, 0);
  /* the link to the first server closes (a graceful leave): no timeout */
  gw_feed (g, 1, &(ProtoInput) { .kind = PROTO_IN_LINK_CLOSED, .from = first });
  ck_assert_uint_eq (gw_count (g, "its link closed"), 1);
  g->alive[first] = FALSE;
  run_to_done (g);
  ck_assert (g->now < pipe_config (&c)->step_timeout);   /* replaced at once, not after step_timeout */
  gw_free (g);
}
END_TEST

START_TEST (test_lost_offer_link_opened_again)
{
  /* the client's offer to the server p2 is lost (the server dropped it
   * before it knew its role, or the relay lost it): the link never comes
   * up; at step_timeout the hop fails, and the link goes with it, so that
   * the next route to p2 offers again (before: the messages queued behind
   * the dead link for good; protocol/pipeline/scenarios/pipeline-lost-role.ini) */
  ProtoConfig c = pipe_cfg (2, 1, 1, 2, FALSE);
  GW *g = gw_new (&c, 3, 4);
  ck_assert_uint_eq (gw_start_losing (g, PROTO_MSG_SIGNAL, 2), 1);
  run_to_done (g);
  ck_assert_uint_eq (view (g, 1).rounds_done, 2);
  ck_assert_uint_eq (gw_count (g, "never came up: dropped"), 1);
  gw_free (g);
}
END_TEST

START_TEST (test_missing_blocks_look_up_again)
{
  /* servers = 2 but only p1, the client, says hello first: no server yet */
  ProtoConfig c = pipe_cfg (2, 1, 1, 1, FALSE);
  GW *g = gw_new (&c, 3, 4);
  gw_feed (g, 1, &(ProtoInput) { .kind = PROTO_IN_START });
  gw_settle (g);
  ck_assert_int_eq (proto_machine_state (peer (g, 1)), PIPE_PEER_WAIT_SERVERS);
  ck_assert_uint_eq (gw_count (g, "no server for some block"), 1);
  gw_feed (g, 2, &(ProtoInput) { .kind = PROTO_IN_START });
  gw_feed (g, 3, &(ProtoInput) { .kind = PROTO_IN_START });
  run_to_done (g);
  ck_assert (g->now >= DL_S);   /* after the first backoff */
  gw_free (g);
}
END_TEST

START_TEST (test_later_peer_serves_least_served_range)
{
  /* 1 client (p1), 2 servers (p2: blocks 0..8, p3: 8..16); p4 joins: it
   * serves a range, the first, which has no server once p2 is gone */
  ProtoConfig c = pipe_cfg (2, 1, 1, 1, FALSE);
  GW *g = gw_new (&c, 4, 4);
  for (guint i = 1; i <= 3; i++)
    gw_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_START });
  gw_settle (g);
  gw_feed (g, 0, &(ProtoInput) { .kind = PROTO_IN_STREAM_CLOSED, .from = 2 });
  gw_feed (g, 4, &(ProtoInput) { .kind = PROTO_IN_START });
  gw_settle (g);
  ck_assert (!pipe_peer_is_server (peer (g, 1)));
  ck_assert (pipe_peer_is_server (peer (g, 3)));
  ck_assert (pipe_peer_is_server (peer (g, 4)));
  guint a, b;
  pipe_peer_range (peer (g, 4), &a, &b);
  ck_assert_uint_eq (a, 0);
  ck_assert_uint_eq (b, 8);
  gw_free (g);
}
END_TEST

/* With every wait at its largest the stall window saturates at
 * DL_TIME_NEVER, never wraps into the past (tests/test-machine.c checks
 * DISCO's; a wrapped product livelocked a run). */
START_TEST (test_pipeline_waits_saturate)
{
  ProtoConfig c;
  proto_config_init (&c, "pipeline");
  c.peer_connection_timeout = 1281024 * DL_H;
  c.model_sync_timeout = c.payload_timeout = DL_TIME_NEVER / 2;
  pipe_config_mut (&c)->step_timeout = DL_TIME_NEVER / 2;
  ck_assert_int_eq (proto_family_lookup ("pipeline")->stall_window (&c), DL_TIME_NEVER);
}
END_TEST

/* Values that passed the loader and then overflowed a product or aborted
 * in malloc are refused, naming the file, the section and the key, and
 * saying the range (tests/test-scenario.c has the common keys'). */
static const struct {
  const char *text, *where, *range;
} out_of_range[] = {
  { "[protocol]\nfamily = pipeline\nstep_timeout = 1000000h\n", "[protocol] step_timeout", "from 0 to 1000h" },
  { "[protocol]\nfamily = pipeline\nservers = 2000000\nreplicas = 1000\nblocks = 2000\n", "[protocol] servers",
    "from 1 to 1000000" },
};

START_TEST (test_pipeline_out_of_range)
{
  fh_assert_refused (out_of_range[_i].text, out_of_range[_i].where, out_of_range[_i].range);
}
END_TEST

/* The pipeline has no rounds and no model: it refuses the common keys of
 * learning (tests/test-scenario.c checks the table against the refusals). */
START_TEST (test_pipeline_refuses_learning_keys)
{
  ck_assert (!sim_scenario_key_applies ("training.rounds", "pipeline"));
  ck_assert (!sim_scenario_key_applies ("model.kind", "pipeline"));
  ck_assert (sim_scenario_key_applies ("network.latency", "pipeline"));
  ck_assert (strstr (sim_scenario_key_family ("training.rounds"), "pipeline") == NULL);
}
END_TEST

/* pipeline's plans of drops and delays name only its fault targets */
START_TEST (test_plans_name_pipeline)
{
  ck_assert_uint_gt (plan_check_family ("scenarios/examples/explore-pipeline.ini", "pipeline", NULL), 20);
}
END_TEST

static Suite *
pipeline_suite (void)
{
  Suite *s = suite_create ("pipeline");
  TCase *tc = tcase_create ("route");
  tcase_add_test (tc, test_plans_name_pipeline);
  tcase_add_test (tc, test_pipeline_waits_saturate);
  tcase_add_loop_test (tc, test_pipeline_out_of_range, 0, G_N_ELEMENTS (out_of_range));
  tcase_add_test (tc, test_pipeline_refuses_learning_keys);
  tcase_add_test (tc, test_route_prefers_near_and_fast);
  tcase_add_test (tc, test_route_gap_and_overlap);
  tcase_add_test (tc, test_route_family_hint);
  tcase_add_test (tc, test_even_split);
  suite_add_tcase (s, tc);
  tc = tcase_create ("sessions");
  tcase_add_test (tc, test_session_client_relay);
  tcase_add_test (tc, test_next_peer_pushes_and_checks);
  tcase_add_test (tc, test_faulty_push_caught);
  tcase_add_test (tc, test_step_rate_after_warmup);
  tcase_add_test (tc, test_hash_copy);
  tcase_add_test (tc, test_hash_copy_faulty);
  tcase_add_test (tc, test_push_unknown_session_ignored);
  tcase_add_test (tc, test_stale_push_not_computed);
  tcase_add_test (tc, test_queued_push_keeps_window);
  tcase_add_test (tc, test_crash_replaced_with_replay);
  tcase_add_test (tc, test_leave_fails_at_once);
  tcase_add_test (tc, test_lost_offer_link_opened_again);
  tcase_add_test (tc, test_missing_blocks_look_up_again);
  tcase_add_test (tc, test_later_peer_serves_least_served_range);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (pipeline_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
