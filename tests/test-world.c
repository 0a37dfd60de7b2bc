/* test-world.c — whole runs of the simulated world (sim/sim-world.c) with
 * the real protocol machines and models: a fault-free run that converges,
 * determinism, bandwidth, ordered delivery under jitter, crashes, stall
 * detection, churn and stragglers.  No SQLite. */
#include "config.h"

#include "sim/sim-world.h"
#include "scenario/sim-trace.h"
#include "scenario/sim-fedscale.h"
#include "scenario/sim-bwtrace.h"
#include "scenario/sim-scenario.h"
#include "protocol/disco/disco-config.h"
#include "protocol/disco/disco-msgs.h"
#include "tests/slow-start-bound.h"

#include <check.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

typedef struct {
  SimWorld *world;
  GChecksum *sum;             /* of every observation and fact, with time */
  guint observations, facts;
  GPtrArray *round_models;    /* per round: GPtrArray of LearnWeights refs */
  GArray *round_acc;          /* mean accuracy per round (sum) */
  GArray *round_acc_n;
  GArray *round_loss;         /* summed loss per round */
  guint dropped;
  DlTime first_close;         /* the coordinator's first "stream closed" */
  ProtoNodeId watch, watch_origin;   /* at watch's first observation: its model and watch_origin's */
  LearnWeights *watch_model, *origin_model;
} Rec;

static void
rec_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  Rec *r = ud;
  r->observations++;
  if (g_getenv ("WORLD_VERBOSE"))
    {
      g_autofree char *line = proto_observation_to_string (o);
      char b[DL_TIME_STR_LEN];
      fprintf (stderr, "%s %s%u %s\n", dl_time_format (t, b), node ? "p" : "S", node, line);
    }
  g_checksum_update (r->sum, (const guchar *) &t, sizeof t);
  g_checksum_update (r->sum, (const guchar *) &node, sizeof node);
  g_autofree char *s = proto_observation_to_string (o);
  g_checksum_update (r->sum, (const guchar *) s, -1);
  if (o->kind == PROTO_OBS_DROPPED)
    r->dropped++;
  if (r->watch && node == r->watch && !r->watch_model && r->world)
    {
      r->watch_model = learn_weights_ref (sim_world_peer_model (r->world, r->watch));
      r->origin_model = learn_weights_ref (sim_world_peer_model (r->world, r->watch_origin));
    }
  if (node == PROTO_SERVER && o->kind == PROTO_OBS_NOTE && strstr (o->detail, "stream closed")
      && r->first_close == 0)
    r->first_close = t;
  if (o->kind == PROTO_OBS_ROUND_END && node != PROTO_SERVER && r->world)
    {
      guint round = (guint) o->round;
      while (r->round_models->len <= round)
        g_ptr_array_add (r->round_models, g_ptr_array_new_with_free_func ((GDestroyNotify) learn_weights_unref));
      g_ptr_array_add (g_ptr_array_index (r->round_models, round),
                       learn_weights_ref (sim_world_peer_model (r->world, node)));
    }
}

static void
rec_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  Rec *r = ud;
  r->facts++;
  if (g_getenv ("WORLD_VERBOSE"))
    {
      char b[DL_TIME_STR_LEN];
      fprintf (stderr, "%s fact node=%u other=%u %s %s\n", dl_time_format (t, b), node, other, kind, detail);
    }
  g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT " %u %u %s %s", t, node, other, kind, detail);
  g_checksum_update (r->sum, (const guchar *) s, -1);
}

static void
rec_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  Rec *r = ud;
  if (round < 0)
    return;
  if (strcmp (name, "loss") == 0)
    {
      if ((guint) round >= r->round_loss->len)
        g_array_set_size (r->round_loss, round + 1);
      g_array_index (r->round_loss, double, round) += v;
      return;
    }
  if (strcmp (name, "accuracy") != 0)
    return;
  if ((guint) round >= r->round_acc->len)
    {
      g_array_set_size (r->round_acc, round + 1);
      g_array_set_size (r->round_acc_n, round + 1);
    }
  g_array_index (r->round_acc, double, round) += v;
  g_array_index (r->round_acc_n, guint, round) += 1;
}

static void
rec_init (Rec *r)
{
  memset (r, 0, sizeof *r);
  r->sum = g_checksum_new (G_CHECKSUM_SHA256);
  r->round_models = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  r->round_acc = g_array_new (FALSE, TRUE, sizeof (double));
  r->round_acc_n = g_array_new (FALSE, TRUE, sizeof (guint));
  r->round_loss = g_array_new (FALSE, TRUE, sizeof (double));
}

static void
rec_clear (Rec *r)
{
  g_checksum_free (r->sum);
  g_clear_pointer (&r->watch_model, learn_weights_unref);
  g_clear_pointer (&r->origin_model, learn_weights_unref);
  g_ptr_array_unref (r->round_models);
  g_array_unref (r->round_acc);
  g_array_unref (r->round_acc_n);
  g_array_unref (r->round_loss);
}

static SimRecorder
recorder (Rec *r)
{
  return (SimRecorder) { rec_obs, rec_fact, rec_metric, NULL, r };
}

typedef struct {
  SimWorldConfig cfg;
  LearnDataset *all, *train, *test;
} Setup;

static void
setup_softmax (Setup *s, guint peers, guint rounds, uint64_t seed)
{
  sim_world_config_init (&s->cfg);
  s->cfg.seed = seed;
  s->cfg.n_peers = peers;
  s->cfg.max_peers = peers;
  s->cfg.proto.min_participants = peers;
  s->cfg.proto.rounds = rounds;
  g_autoptr (DlRandom) r = dl_random_new (seed, "data", DL_RANDOM_NO_NODE);
  s->all = learn_dataset_synthetic (1200, 8, 4, 3.0, r);
  learn_dataset_split (s->all, 0.25, r, &s->train, &s->test);
  s->cfg.train = s->train;
  s->cfg.test = s->test;
  s->cfg.model = (LearnModel) { .kind = LEARN_MODEL_SOFTMAX, .features = 8, .classes = 4,
                                .learning_rate = 0.01f, .batch_size = 16 };
}

static void
setup_none (Setup *s, guint peers, guint rounds, gsize size)
{
  memset (s, 0, sizeof *s);
  sim_world_config_init (&s->cfg);
  s->cfg.n_peers = peers;
  s->cfg.max_peers = MAX (peers, 10);
  s->cfg.proto.min_participants = peers;
  s->cfg.proto.rounds = rounds;
  s->cfg.model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = size };
}

static void
setup_clear (Setup *s)
{
  sim_world_config_clear (&s->cfg);
  learn_dataset_free (s->all);
  learn_dataset_free (s->train);
  learn_dataset_free (s->test);
}

/* Peer i's outcome, by name ("finished", "hung", ...). */
static void
assert_peer (SimWorld *w, guint i, const char *outcome)
{
  const char *got = sim_peer_outcome_name (sim_world_peer (w, i)->outcome);
  ck_assert_msg (strcmp (got, outcome) == 0, "p%u is %s, expected %s", i, got, outcome);
}

static void
teardown (SimWorld *w, Rec *rec, Setup *s)
{
  sim_world_free (w);
  rec_clear (rec);
  setup_clear (s);
}

static const SimResult *
run (Setup *s, Rec *rec, SimWorld **out_world)
{
  SimRecorder sr = recorder (rec);
  g_autoptr (GError) error = NULL;
  SimWorld *w = sim_world_new (&s->cfg, &sr, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  rec->world = w;
  const SimResult *res = sim_world_run (w);
  *out_world = w;
  return res;
}

/* The wall-clock watchdog (sim_world_set_wall_limit): a limit of 1 us is
 * past by the first poll, 4 096 events in, so a run that needs more stops
 * there, outcome interrupted, the error saying why; without a limit the
 * same run completes. */
START_TEST (test_wall_limit_stops_a_run)
{
  Setup s;
  setup_none (&s, 10, 40, 1000);
  Rec rec;
  rec_init (&rec);
  SimRecorder sr = recorder (&rec);
  g_autoptr (GError) error = NULL;
  SimWorld *w = sim_world_new (&s.cfg, &sr, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  rec.world = w;
  sim_world_set_wall_limit (w, 1);
  const SimResult *res = sim_world_run (w);
  ck_assert_msg (res->outcome == SIM_OUTCOME_INTERRUPTED, "%s after %" G_GUINT64_FORMAT " events",
                 sim_outcome_name (res->outcome), res->events);
  ck_assert_msg (strstr (res->error, "the wall-clock limit of 0.000 s was reached"), "%s", res->error);
  ck_assert_uint_eq (res->events, SIM_WORLD_POLL_EVENTS);
  sim_world_free (w);
  w = sim_world_new (&s.cfg, &sr, &error);
  rec.world = w;
  res = sim_world_run (w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_gt (res->events, SIM_WORLD_POLL_EVENTS);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_three_peers_converge)
{
  Setup s;
  setup_softmax (&s, 3, 6, 42);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_eq (res->rounds_completed, 6);
  ck_assert_uint_eq (res->peers_finished, 3);
  ck_assert_uint_eq (res->retries, 0);
  for (guint i = 1; i <= 3; i++)
    {
      assert_peer (w, i, "finished");
      ck_assert_uint_eq (sim_world_peer (w, i)->rounds, 6);
    }
  /* peers agree after every round */
  ck_assert_uint_eq (rec.round_models->len, 6);
  for (guint r = 0; r < 6; r++)
    {
      GPtrArray *ms = g_ptr_array_index (rec.round_models, r);
      ck_assert_uint_eq (ms->len, 3);
      for (guint i = 1; i < 3; i++)
        ck_assert (learn_weights_equal (ms->pdata[0], ms->pdata[i]));
    }
  /* accuracy rises from the initial model's (chance) and the loss falls every round */
  g_autoptr (DlRandom) ir = dl_random_new (42, "initial-model", DL_RANDOM_NO_NODE);
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&s.cfg.model, ir);
  double acc0, loss0;
  learn_model_evaluate (&s.cfg.model, w0, s.test, &acc0, &loss0);
  double last = g_array_index (rec.round_acc, double, 5) / 3;
  ck_assert_msg (acc0 < 0.4 && last >= 0.85, "accuracy %g -> %g", acc0, last);
  double prev = loss0;
  for (guint r = 0; r < 6; r++)
    {
      double l = g_array_index (rec.round_loss, double, r) / 3;
      ck_assert_msg (l < prev, "round %u loss %g, before %g", r, l, prev);
      prev = l;
    }
  ck_assert_double_eq_tol (res->final_accuracy, last, 1e-12);
  ck_assert_double_eq_tol (res->consensus_distance, 0, 1e-12);
  /* time: 300 samples x 1 ms per round at least */
  ck_assert_int_ge (res->end, 6 * 300 * DL_MS);
  teardown (w, &rec, &s);
}
END_TEST

static char *
run_digest (uint64_t seed, guint *obs)
{
  Setup s;
  setup_softmax (&s, 4, 3, seed);
  s.cfg.latency = (DlDist) { .kind = DL_DIST_LOGNORMAL, .unit = DL_UNIT_DURATION, .a = 40e6, .b = 0.5 };
  s.cfg.speed = (DlDist) { .kind = DL_DIST_UNIFORM, .unit = DL_UNIT_NUMBER, .a = 0.5, .b = 2 };
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = DL_S, .a = 4 };
  g_array_append_val (s.cfg.actions, a);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  run (&s, &rec, &w);
  *obs = rec.observations;
  char *d = g_strdup (g_checksum_get_string (rec.sum));
  teardown (w, &rec, &s);
  return d;
}

START_TEST (test_same_seed_same_observations)
{
  guint n1, n2, n3;
  g_autofree char *a = run_digest (7, &n1);
  g_autofree char *b = run_digest (7, &n2);
  g_autofree char *c = run_digest (8, &n3);
  ck_assert_uint_gt (n1, 100);
  ck_assert_uint_eq (n1, n2);
  ck_assert_str_eq (a, b);
  ck_assert_str_ne (a, c);
}
END_TEST

static DlTime
round_time (uint64_t uplink_bps, gsize floats)
{
  Setup s;
  setup_none (&s, 3, 1, floats);
  s.cfg.uplink_bps = uplink_bps;
  s.cfg.downlink_bps = 1000000000;
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  DlTime end = res->end;
  ck_assert_uint_ge (res->bytes, 6 * floats * 4);
  teardown (w, &rec, &s);
  return end;
}

START_TEST (test_bandwidth_charges_weights)
{
  /* 1M floats = 4 MB; each peer sends 2 payloads = 64 Mbit: 8 s at 8 Mbit/s */
  DlTime thin = round_time (8000000, 1000000);
  DlTime thick = round_time (800000000, 1000000);
  ck_assert_int_ge (thin, 8 * DL_S);
  ck_assert_int_lt (thick, 2 * DL_S);
  ck_assert_int_ge (thin - thick, 7 * DL_S);
}
END_TEST

START_TEST (test_ordered_delivery_under_jitter)
{
  /* Heavy jitter on every channel: if a later message could overtake an
   * earlier one (Start before PeersForRound), peers would drop it and hang. */
  for (uint64_t seed = 1; seed <= 10; seed++)
    {
      Setup s;
      setup_none (&s, 4, 3, 1000);
      s.cfg.seed = seed;
      s.cfg.latency = (DlDist) { .kind = DL_DIST_UNIFORM, .unit = DL_UNIT_DURATION, .a = 1e6, .b = 2e9 };
      s.cfg.server_latency = s.cfg.latency;
      Rec rec;
      rec_init (&rec);
      SimWorld *w;
      const SimResult *res = run (&s, &rec, &w);
      ck_assert_msg (res->outcome == SIM_OUTCOME_COMPLETED, "seed %" G_GUINT64_FORMAT ": %s", seed,
                     sim_outcome_name (res->outcome));
      ck_assert_uint_eq (res->peers_finished, 4);
      sim_world_free (w);
      rec_clear (&rec);
      setup_clear (&s);
    }
}
END_TEST

START_TEST (test_crash_is_detected_late)
{
  /* p3 crashes while training after round 2's exchange; the coordinator sees
   * it only after crash_detection, then p1 and p2 go on without it. */
  Setup s;
  setup_none (&s, 3, 4, 1000);
  s.cfg.none_samples = 5000;              /* 5 s of training per round */
  s.cfg.proto.min_participants = 2;
  s.cfg.crash_detection = dl_dist_constant (DL_UNIT_DURATION, 30.0 * DL_S);
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = 500 * DL_MS, .a = 3 };
  g_array_append_val (s.cfg.actions, a);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  assert_peer (w, 3, "crashed");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 4);
  ck_assert_int_ge (res->end, 30 * DL_S);   /* waited for the detection */
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_crash_during_exchange_hangs_s17)
{
  /* p3 crashes 10 ms after the coordinator starts round 2's weight sharing,
   * before its Start arrives: p1 and p2 wait for its Payload forever. */
  Setup s;
  setup_none (&s, 3, 4, 1000);
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = 10 * DL_MS, .a = 3 };
  g_array_append_val (s.cfg.actions, a);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  assert_peer (w, 1, "hung");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 1);
  assert_peer (w, 3, "crashed");
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_stall_detected_s08)
{
  /* The only link never comes up: both peers hang in getPeers; the
   * coordinator's timer keeps cycling; the run is stalled, not time_limit. */
  Setup s;
  setup_none (&s, 2, 2, 1000);
  s.cfg.time_limit = 10 * DL_H;
  SimAction a = { .kind = SIM_ACT_LINK_FAIL, .at = 0, .a = 1, .b = 2 };
  g_array_append_val (s.cfg.actions, a);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  assert_peer (w, 1, "hung");
  assert_peer (w, 2, "hung");
  ck_assert_int_lt (res->end, DL_H);
  ck_assert_uint_ge (res->retries, 3);
  ck_assert_uint_ge (rec.dropped, 3);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_connect_failure_recovers_by_retry)
{
  /* Links fail half the time: Retry rebuilds them; with enough retries runs
   * usually complete, and never end in time_limit. */
  guint completed = 0;
  for (uint64_t seed = 1; seed <= 8; seed++)
    {
      Setup s;
      setup_none (&s, 3, 2, 1000);
      s.cfg.seed = seed;
      s.cfg.connect_failure = 0.3;
      disco_config_mut (&s.cfg.proto)->max_connection_retry = 10;
      Rec rec;
      rec_init (&rec);
      SimWorld *w;
      const SimResult *res = run (&s, &rec, &w);
      ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT);
      completed += res->outcome == SIM_OUTCOME_COMPLETED;
      sim_world_free (w);
      rec_clear (&rec);
      setup_clear (&s);
    }
  ck_assert_uint_ge (completed, 1);
}
END_TEST

START_TEST (test_churn_arrivals)
{
  /* Poisson arrivals up to max_peers; sessions end by leave or crash. */
  Setup s;
  setup_none (&s, 2, 3, 1000);
  s.cfg.proto.min_participants = 2;
  s.cfg.max_peers = 6;
  s.cfg.arrival_rate_per_s = 1.0 / 20;
  s.cfg.session = (DlDist) { .kind = DL_DIST_EXPONENTIAL, .unit = DL_UNIT_DURATION, .a = 60e9 };
  s.cfg.time_limit = DL_H;
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 6);
  guint gone = 0;
  for (guint i = 3; i <= 6; i++)
    {
      SimPeerOutcome o = sim_world_peer (w, i)->outcome;
      ck_assert (o != SIM_PEER_ABSENT);
      gone += o == SIM_PEER_LEFT || o == SIM_PEER_CRASHED;
    }
  ck_assert_uint_ge (gone, 1);
  ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT || res->end == DL_H);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_straggler_slows_rounds)
{
  Setup s;
  setup_none (&s, 3, 2, 1000);
  s.cfg.none_samples = 1000;          /* 1 s of training per round at speed 1 */
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  DlTime fast = run (&s, &rec, &w)->end;
  sim_world_free (w);
  rec_clear (&rec);
  SimAction a = { .kind = SIM_ACT_SLOW, .at = 0, .a = 2, .value = 50 };
  g_array_append_val (s.cfg.actions, a);
  rec_init (&rec);
  DlTime slow = run (&s, &rec, &w)->end;
  ck_assert_msg (slow >= fast + 2 * 48 * DL_S && slow <= fast + 2 * 50 * DL_S, "fast %" G_GINT64_FORMAT " slow %" G_GINT64_FORMAT, fast, slow);
  ck_assert_double_eq_tol (sim_world_peer (w, 2)->speed, 1.0 / 50, 1e-12);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_stragglers_and_nat)
{
  /* every peer a straggler 10x slower: speeds are 0.1 */
  Setup s;
  setup_none (&s, 3, 1, 100);
  s.cfg.straggler_share = 1.0;
  s.cfg.straggler_slowdown = 10;
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  for (guint i = 1; i <= 3; i++)
    ck_assert_double_eq_tol (sim_world_peer (w, i)->speed, 0.1, 1e-12);
  ck_assert_int_ge (res->end, 1000 * DL_MS);   /* 100 samples x 1 ms x 10 */
  teardown (w, &rec, &s);
  /* everyone behind symmetric NAT: no link ever comes up */
  setup_none (&s, 3, 1, 100);
  s.cfg.nat_symmetric_share = 1.0;
  rec_init (&rec);
  res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  ck_assert_uint_eq (res->peers_hung, 3);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_bad_config_is_an_error)
{
  Setup s;
  setup_none (&s, 3, 1, 10);
  s.cfg.proto.min_participants = 0;
  g_autoptr (GError) e = NULL;
  ck_assert (sim_world_new (&s.cfg, NULL, &e) == NULL);
  ck_assert (strstr (e->message, "min_participants") != NULL);
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_CRASH, .at = 0, .a = 99 };
  g_array_append_val (s.cfg.actions, a);
  g_clear_error (&e);
  ck_assert (sim_world_new (&s.cfg, NULL, &e) == NULL);
  ck_assert (strstr (e->message, "p99") != NULL);
  setup_clear (&s);
}
END_TEST


START_TEST (test_trace_parse_and_replay)
{
  g_autoptr (GError) e = NULL;
  {
    /* libcsv: BOM, CRLF, quoted fields, a quoted first record after the header */
    g_autoptr (GError) qe = NULL;
    g_autoptr (GArray) q = sim_trace_parse ("\xEF\xBB\xBF\"peer\",join,leave\r\n\"p1\",\"0\",\r\n\"p2\", 5 ,\"never\"\r\n",
                                            "q.csv", &qe);
    ck_assert_msg (q != NULL, "%s", qe ? qe->message : "");
    ck_assert_uint_eq (q->len, 2);
    ck_assert_uint_eq (g_array_index (q, SimTraceEntry, 0).peer, 1);
    ck_assert (g_array_index (q, SimTraceEntry, 1).join == 5 * DL_S);
  }
  g_autoptr (GArray) t = sim_trace_parse ("peer,join,leave\np2,0,100\n1,0,\n# late\np3,30.5,never\n",
                                          "avail.csv", &e);
  ck_assert_msg (t != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (t->len, 3);
  ck_assert_uint_eq (g_array_index (t, SimTraceEntry, 0).peer, 1);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 0).leave, DL_TIME_NEVER);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 1).leave, 100 * DL_S);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 2).join, 30500 * DL_MS);

  struct { const char *text, *needle; } bad[] = {
    { "p1,0,10\np2,x,10\n", "avail.csv:2: 'p2,x,10': join must be" },
    { "p1,0\np0,1,2\n", "avail.csv:2: 'p0,1,2': the peer must be" },
    { "p1,5,3\n", "avail.csv:1: 'p1,5,3': leave must come after join" },
    { "p1,0,1,2\n", "avail.csv:1: 'p1,0,1,2': expected peer,join,leave" },
    { "p1,0,-4\n", "leave must be a number" },
    /* a peer's intervals may not overlap: the error names the later line */
    { "p1,0\np1,3\n", "avail.csv:2: peer p1 is online from 3 s, which overlaps its interval on line 1" },
    { "p1,10,20\np2,0,5\np1,15,30\n", "avail.csv:3: peer p1 is online from 15 s, which overlaps its interval on line 1" },
    { "p1,50,60\np1,0,55\n", "avail.csv:2: peer p1 is online from 0 s, which overlaps its interval on line 1" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) be = NULL;
      ck_assert (sim_trace_parse (bad[i].text, "avail.csv", &be) == NULL);
      ck_assert_msg (strstr (be->message, bad[i].needle) != NULL, "'%s' lacks '%s'", be->message, bad[i].needle);
    }
  {
    /* several intervals of one peer (a return may begin at the leave) */
    g_autoptr (GError) me = NULL;
    g_autoptr (GArray) m = sim_trace_parse ("p1,30,\np1,0,10\np1,10,20\np2,5,6\n", "multi.csv", &me);
    ck_assert_msg (m != NULL, "%s", me ? me->message : "");
    ck_assert_uint_eq (m->len, 4);
    ck_assert_int_eq (g_array_index (m, SimTraceEntry, 0).join, 0);
    ck_assert_uint_eq (g_array_index (m, SimTraceEntry, 0).line, 2);
    ck_assert_uint_eq (g_array_index (m, SimTraceEntry, 1).peer, 2);
    ck_assert_int_eq (g_array_index (m, SimTraceEntry, 3).join, 30 * DL_S);
  }
  g_autoptr (GError) fe = NULL;
  ck_assert (sim_trace_load ("/nonexistent/avail.csv", &fe) == NULL);
  ck_assert (strstr (fe->message, "/nonexistent/avail.csv") != NULL);
  /* a NUL byte is refused with its line (it ended the file: p2 was lost) */
  g_autofree char *dir = g_dir_make_tmp ("dlsim-trace-XXXXXX", NULL);
  g_autofree char *nul = g_build_filename (dir, "avail.csv", NULL);
  static const char nul_text[] = "p1,0,10\n\0p2,0,10\n";
  ck_assert (g_file_set_contents (nul, nul_text, sizeof nul_text - 1, NULL));
  g_autoptr (GError) ne = NULL;
  g_autoptr (GArray) nt = sim_trace_load (nul, &ne);
  ck_assert (nt == NULL);
  ck_assert_msg (strstr (ne->message, "avail.csv:2: a NUL byte") != NULL, "%s", ne->message);
  g_unlink (nul);
  g_rmdir (dir);

  /* replay: p1, p2 from the start, p3 at 30.5 s; p2 leaves at 100 s */
  Setup s;
  setup_none (&s, 0, 3, 100);
  s.cfg.none_samples = 20000;           /* 20 s of training per round */
  s.cfg.proto.min_participants = 2;
  s.cfg.trace = g_steal_pointer (&t);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 3);
  ck_assert_int_eq (sim_world_peer (w, 3)->joined, 30500 * DL_MS);
  ck_assert_int_eq (sim_world_peer (w, 2)->left, 100 * DL_S);
  ck_assert (sim_world_peer (w, 3)->synced);   /* joined mid-training */
  ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT);
  teardown (w, &rec, &s);
}
END_TEST

/* A peer that leaves and comes back (two intervals in the trace): its
 * return is a new session, a new peer id to the protocol (DISCO's server
 * gives a reconnecting client a fresh id), on the same device (its speed)
 * and, as a late joiner, synced before it trains again. */
START_TEST (test_trace_peer_returns)
{
  g_autoptr (GError) e = NULL;
  GArray *t = sim_trace_parse ("p1,0,\np2,0,\np3,0,40\np3,80,\n", "back.csv", &e);
  ck_assert_msg (t != NULL, "%s", e ? e->message : "");
  Setup s;
  setup_softmax (&s, 0, 20, 7);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 20 * DL_MS;      /* rounds of a few seconds: p3 leaves in round 6 or so */
  ck_assert (dl_dist_parse ("uniform(0.5, 2)", DL_UNIT_NUMBER, &s.cfg.speed, NULL));
  s.cfg.trace = t;
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 4);   /* p4 is p3's second session */
  assert_peer (w, 3, "left");
  ck_assert_int_eq (sim_world_peer (w, 3)->left, 40 * DL_S);
  ck_assert_uint_gt (sim_world_peer (w, 3)->rounds, 0);
  ck_assert_int_eq (sim_world_peer (w, 4)->joined, 80 * DL_S);
  ck_assert (sim_world_peer (w, 4)->synced);       /* a late joiner: the model sync */
  ck_assert_uint_gt (sim_world_peer (w, 4)->rounds, 0);
  ck_assert (sim_world_peer (w, 4)->speed == sim_world_peer (w, 3)->speed);
  ck_assert (sim_world_peer (w, 1)->speed != sim_world_peer (w, 3)->speed);
  teardown (w, &rec, &s);
}
END_TEST

/* What a bandwidth trace test watches: when the watched node first sends
 * a Payload and when one of its Payloads is first received, and the
 * trace's `rate` facts. */
typedef struct {
  ProtoNodeId watch;
  DlTime sent, received;
  GString *rates;
} BwRec;

static void
bw_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  BwRec *r = ud;
  if (o->msg_type != DISCO_MSG_PAYLOAD)
    return;
  if (o->kind == PROTO_OBS_SENT && node == r->watch && r->sent == DL_TIME_NEVER)
    r->sent = t;
  if (o->kind == PROTO_OBS_RECEIVED && o->other == r->watch && r->received == DL_TIME_NEVER)
    r->received = t;
}

static void
bw_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  BwRec *r = ud;
  if (strcmp (kind, "rate") == 0)
    g_string_append_printf (r->rates, "%.3f p%u %s;", t / 1e9, node, detail);
  (void) other;
}

/* A bandwidth trace changes the device: p3's row at 60 s, while it is
 * away (online 0-40 s and from 80 s, trace-leave-and-return's pattern),
 * sets the uplink of its return p4 (a new session, the same device) to
 * 2 Mbit/s instead of the 20 Mbit/s of [network].  p4's first Payload
 * (1 000 025 B of 250 000 floats, 1 045 631 B on the wire: 691 segments of
 * 66 header bytes) takes at least 8 x 1 045 631 / 2 Mbit/s = 4.18 s from
 * its send to its arrival: under fifo its first, under fair both its
 * Payloads share the uplink (8.36 s for both); at 20 Mbit/s it took under
 * 1 s.  peers.uplink_bps keeps the rate before the row (20 Mbit/s).  Loop:
 * sharing = fair, fifo. */
START_TEST (test_bandwidth_trace_follows_the_device)
{
  g_autoptr (GError) e = NULL;
  Setup s;
  setup_none (&s, 0, 20, 250000);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 50 * DL_MS;   /* 5 s of training a round: p4 still has rounds to share */
  s.cfg.sharing_fifo = _i == 1;
  s.cfg.trace = sim_trace_parse ("p1,0,\np2,0,\np3,0,40\np3,80,\n", "back.csv", &e);
  const char *csv = "peer,time,uplink,downlink\np3,60,2Mbps,100Mbps\n";
  s.cfg.rates = sim_bwtrace_parse (csv, strlen (csv), "bw.csv", &e);
  ck_assert_msg (s.cfg.trace && s.cfg.rates, "%s", e ? e->message : "");
  BwRec r = { 4, DL_TIME_NEVER, DL_TIME_NEVER, g_string_new (NULL) };
  SimRecorder sr = { bw_obs, bw_fact, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 4);
  ck_assert_str_eq (r.rates->str, "60.000 p3 uplink 2Mbps, downlink 100Mbps (bandwidth_trace line 2);");
  ck_assert_msg (r.sent != DL_TIME_NEVER && r.received != DL_TIME_NEVER, "p4 sent no Payload that arrived");
  ck_assert_int_ge (r.sent, 80 * DL_S);
  DlTime took = r.received - r.sent;
  ck_assert_msg (took >= 4180 * DL_MS && took <= 9 * DL_S, "p4's first Payload took %" G_GINT64_FORMAT " ns", took);
  ck_assert_uint_eq (sim_world_peer (w, 4)->uplink_bps, 20000000);
  g_string_free (r.rates, TRUE);
  sim_world_free (w);
  setup_clear (&s);
}
END_TEST

/* [network] transport on a 2-peer round: p1's Payload (1 000 025 B, 691
 * segments, 1 045 631 B on the wire) over 100 Mbit/s links, 50 ms one way,
 * on a peer link that has just come up (a new connection), takes from its
 * send to its reception: fluid, its bytes at line rate; tcp, the analytic
 * slow-start time from 10 segments of 1 514 wire bytes, 2 W - 1 segment a
 * round, with a round trip of 100 ms; sctp, the same from RFC 4960's 4 380
 * bytes, 1.5 W a round, and for both the last segment's time on the
 * downlink once more (the switch stores and forwards it); plus the 50 ms
 * latency.  Loop: fluid, tcp, sctp. */
START_TEST (test_transport_slow_start)
{
  g_autoptr (GError) e = NULL;
  Setup s;
  setup_none (&s, 2, 1, 250000);
  s.cfg.transport = (SimWireTransport) _i;
  s.cfg.latency = dl_dist_constant (DL_UNIT_DURATION, 50e6);
  s.cfg.server_latency = dl_dist_constant (DL_UNIT_DURATION, 1e6);
  s.cfg.uplink_bps = s.cfg.downlink_bps = 100000000;
  BwRec r = { 1, DL_TIME_NEVER, DL_TIME_NEVER, g_string_new (NULL) };
  SimRecorder sr = { bw_obs, bw_fact, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_msg (r.sent != DL_TIME_NEVER && r.received != DL_TIME_NEVER, "p1 sent no Payload that arrived");
  double c = 100e6 / 8e9, wire = 1045631, seg = 1448 + 66;
  double want = _i == SIM_TRANSPORT_FLUID ? wire / c
                : _i == SIM_TRANSPORT_TCP ? slow_start_bound_ns (wire, c, 100e6, 10 * seg, 2, seg)
                                          : slow_start_bound_ns (wire, c, 100e6, 4380, 1.5, 0);
  want += 50e6 + (_i == SIM_TRANSPORT_FLUID ? 0 : ceil (seg / c));
  DlTime took = r.received - r.sent;
  ck_assert_msg (fabs ((double) took - want) <= 3, "transport %d: %" G_GINT64_FORMAT " ns, want %.0f", _i, took, want);
  g_string_free (r.rates, TRUE);
  sim_world_free (w);
  setup_clear (&s);
}
END_TEST

/* p1's Payloads: when each was sent and when each was received */
typedef struct {
  DlTime sent[3], received[3];
  guint n_sent, n_received;
} PayRec;

static void
pay_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  PayRec *r = ud;
  if (o->msg_type != DISCO_MSG_PAYLOAD)
    return;
  if (o->kind == PROTO_OBS_SENT && node == 1 && r->n_sent < 3)
    r->sent[r->n_sent++] = t;
  if (o->kind == PROTO_OBS_RECEIVED && o->other == 1 && r->n_received < 3)
    r->received[r->n_received++] = t;
}

/* A connection idle longer than its retransmission timeout starts again
 * from the initial window; one idle less keeps its window.  Two rounds on
 * the link of test_transport_slow_start (it stays up): round 1's Payload
 * ends with a window of the link's bandwidth-delay product (1.25 MB, more
 * than the Payload).  With 100 ms of training between rounds the link is
 * idle about 154 ms, under its timeout of 300 ms (round trip + 200 ms):
 * round 2's Payload goes at line rate (its bytes at 100 Mbit/s, the
 * stored-and-forwarded segment, the latency).  With 500 ms of training it
 * is idle longer: round 2 starts cold and takes what round 1 took; with
 * [network] slow_start_after_idle = false it keeps its window and goes at
 * line rate, as after the short idle.  Loop: short, long, long without
 * the restart. */
START_TEST (test_transport_idle_restart)
{
  g_autoptr (GError) e = NULL;
  Setup s;
  setup_none (&s, 2, 2, 250000);
  s.cfg.transport = SIM_TRANSPORT_TCP;
  s.cfg.latency = dl_dist_constant (DL_UNIT_DURATION, 50e6);
  s.cfg.server_latency = dl_dist_constant (DL_UNIT_DURATION, 1e6);
  s.cfg.uplink_bps = s.cfg.downlink_bps = 100000000;
  s.cfg.sample_cost = _i == 0 ? DL_MS : 5 * DL_MS;   /* 100 samples: 100 or 500 ms */
  s.cfg.slow_start_after_idle = _i != 2;
  PayRec r = { 0 };
  SimRecorder sr = { pay_obs, NULL, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_uint_eq (r.n_sent, 2);
  ck_assert_uint_eq (r.n_received, 2);
  double c = 100e6 / 8e9, wire = 1045631, seg = 1448 + 66;
  DlTime first = r.received[0] - r.sent[0], second = r.received[1] - r.sent[1];
  double cold = slow_start_bound_ns (wire, c, 100e6, 10 * seg, 2, seg) + 50e6 + ceil (seg / c);
  ck_assert_msg (fabs ((double) first - cold) <= 3, "round 1: %" G_GINT64_FORMAT " ns, want %.0f", first, cold);
  double want = _i != 1 ? wire / c + 50e6 + ceil (seg / c) : cold;
  ck_assert_msg (fabs ((double) second - want) <= 3, "round 2 (idle %" G_GINT64_FORMAT " ns): %" G_GINT64_FORMAT " ns, want %.0f",
                 r.sent[1] - r.received[0], second, want);
  sim_world_free (w);
  setup_clear (&s);
}
END_TEST

/* Writes text to a file of a fresh temporary folder; returns its path. */
static char *
write_temp (const char *name, const char *text)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-fedscale-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
remove_temp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_unlink (path);
  g_rmdir (dir);
}

/* FedScale's client behaviour trace: intervals active[i]..inactive[i]
 * repeating every finish_time (or duration), up to the horizon; one that
 * wraps the period's end joins the next period's first. */
/* churn.return_model: a return starts from the last model of the peer
 * that came back (own), or from the initial model (initial). */
START_TEST (test_trace_return_model)
{
  gboolean initial = _i == 1;
  GArray *t = sim_trace_parse ("p1,0,\np2,0,\np3,0,40\np3,80,\n", "back.csv", NULL);
  Setup s;
  setup_softmax (&s, 0, 20, 7);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 20 * DL_MS;
  s.cfg.trace = t;
  s.cfg.return_initial = initial;
  Rec rec;
  rec_init (&rec);
  rec.watch = 4;
  rec.watch_origin = 3;
  SimWorld *w;
  run (&s, &rec, &w);
  ck_assert (rec.watch_model != NULL);
  ck_assert_uint_gt (sim_world_peer (w, 3)->rounds, 0);   /* p3 trained: its model is not the initial one */
  ck_assert (learn_weights_equal (rec.watch_model, rec.origin_model) == !initial);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_fedscale_behaviour)
{
  g_autofree char *path = write_temp ("behave.jsonl",
    "# two clients\n"
    "{\"client_id\": 2, \"duration\": 600, \"finish_time\": 600, \"active\": [0, 300], \"inactive\": [200, 600], \"model\": \"x\"}\n"
    "\n"
    "{\"client_id\": 5, \"duration\": 1000, \"active\": [100.5], \"inactive\": [400]}\n");
  g_autoptr (GError) e = NULL;
  g_autoptr (GArray) t = sim_fedscale_load_behaviour (path, 1300 * DL_S, &e);
  ck_assert_msg (t != NULL, "%s", e ? e->message : "");
  remove_temp (path);
  /* p2: [0, 200], [300, 800] (600..800 wraps), [900, 1400]; p5: [100.5, 400], [1100.5, 1400] */
  static const struct { guint peer; double join_s, leave_s; } want[] = {
    { 2, 0, 200 }, { 5, 100.5, 400 }, { 2, 300, 800 }, { 2, 900, 1400 }, { 5, 1100.5, 1400 },
  };
  ck_assert_uint_eq (t->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < t->len; i++)
    {
      const SimTraceEntry *x = &g_array_index (t, SimTraceEntry, i);
      ck_assert_uint_eq (x->peer, want[i].peer);
      ck_assert_int_eq (x->join, (DlTime) (want[i].join_s * 1e9));
      ck_assert_int_eq (x->leave, (DlTime) (want[i].leave_s * 1e9));
    }

  struct { const char *text, *needle; } bad[] = {
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [5]}\n{\"client_id\": 0, \"duration\": 10, \"active\": [0], \"inactive\": [5]}\n",
      "b.jsonl:2: client_id must be a whole number from 1" },
    { "# c\n{\"client_id\": 1, \"duration\": 10, \"active\": [0, 4], \"inactive\": [5]}\n", "b.jsonl:2: active and inactive must be lists of one length" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [3], \"inactive\": [3]}\n", "b.jsonl:1: each inactive time must come after" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0, 2], \"inactive\": [5, 6]}\n", "b.jsonl:1: an interval overlaps the one before" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [20]}\n", "b.jsonl:1: a time is past finish_time" },
    { "{\"client_id\": 1, \"active\": [0], \"inactive\": [5]}\n", "b.jsonl:1: duration must be" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [\"5\"]}\n", "b.jsonl:1: active and inactive must be lists of seconds" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [5]}\n{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [5]}\n",
      "b.jsonl:2: this client_id has a line already" },
    { "{\"client_id\": 1, \"duration\": 10, \"active\": [0], \"inactive\": [5]}\n[1, 2]\n", "b.jsonl:2: expected one JSON object per line" },
    { "\n{\"client_id\": 1, \"duration\": 10,\n", "b.jsonl:2:" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *bp = write_temp ("b.jsonl", bad[i].text);
      g_autoptr (GError) be = NULL;
      GArray *bt = sim_fedscale_load_behaviour (bp, 100 * DL_S, &be);
      remove_temp (bp);
      ck_assert_msg (bt == NULL, "case %zu parsed", i);
      ck_assert_msg (strstr (be->message, bad[i].needle) != NULL, "'%s' lacks '%s'", be->message, bad[i].needle);
    }
}
END_TEST

/* FedScale's device capacity trace sets a listed peer's speed (a training
 * sample is 3 inferences of `computation` ms) and both its rates (kbit/s,
 * 1 kbit = 1024 bits); an unlisted peer keeps the drawn ones. */
START_TEST (test_fedscale_capacity)
{
  g_autofree char *path = write_temp ("cap.jsonl",
    "{\"client_id\": 1, \"computation\": 2.0, \"communication\": 8000}\n"
    "{\"client_id\": 3, \"computation\": 10, \"communication\": 1000.5}\n");
  g_autoptr (GError) e = NULL;
  GArray *cap = sim_fedscale_load_capacity (path, &e);
  ck_assert_msg (cap != NULL, "%s", e ? e->message : "");
  remove_temp (path);
  ck_assert_uint_eq (cap->len, 4);
  ck_assert_double_eq (g_array_index (cap, SimCapacity, 3).ms_per_sample, 10);
  ck_assert_uint_eq (g_array_index (cap, SimCapacity, 3).bps, 1024512);

  Setup s;
  setup_none (&s, 3, 2, 100);
  s.cfg.sample_cost = 6 * DL_MS;
  s.cfg.capacity = cap;
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  run (&s, &rec, &w);
  ck_assert_double_eq_tol (sim_world_peer (w, 1)->speed, 1.0, 1e-12);   /* 6 ms / (3 x 2 ms) */
  ck_assert_double_eq_tol (sim_world_peer (w, 3)->speed, 0.2, 1e-12);
  ck_assert_double_eq (sim_world_peer (w, 2)->speed, 1.0);               /* not listed: [peers] speed */
  ck_assert_uint_eq (sim_world_peer (w, 1)->uplink_bps, 8192000);
  ck_assert_uint_eq (sim_world_peer (w, 1)->downlink_bps, 8192000);
  ck_assert_uint_eq (sim_world_peer (w, 2)->uplink_bps, s.cfg.uplink_bps);
  teardown (w, &rec, &s);

  struct { const char *text, *needle; } bad[] = {
    { "{\"client_id\": 1, \"computation\": 0, \"communication\": 10}\n", "c.jsonl:1: computation must be" },
    { "\n{\"client_id\": 1, \"computation\": 1, \"communication\": \"fast\"}\n", "c.jsonl:2: communication must be" },
    { "{\"client_id\": 2.5, \"computation\": 1, \"communication\": 10}\n", "c.jsonl:1: client_id must be" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *bp = write_temp ("c.jsonl", bad[i].text);
      g_autoptr (GError) be = NULL;
      GArray *bc = sim_fedscale_load_capacity (bp, &be);
      remove_temp (bp);
      ck_assert_msg (bc == NULL, "case %zu parsed", i);
      ck_assert_msg (strstr (be->message, bad[i].needle) != NULL, "'%s' lacks '%s'", be->message, bad[i].needle);
    }
}
END_TEST

START_TEST (test_partition_isolates_a_peer)
{
  /* p1 is cut off from the coordinator before it connects: its
   * ClientConnected is lost and DISCO never retries it; p2 and p3 train. */
  Setup s;
  setup_none (&s, 3, 2, 100);
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_PARTITION, .at = 0, .groups = g_array_new (FALSE, TRUE, sizeof (guint)) };
  g_array_set_size (a.groups, 4);
  g_array_index (a.groups, guint, 1) = 1;   /* p1 alone; server, p2, p3 in group 0 */
  g_array_append_val (s.cfg.actions, a);
  SimAction h = { .kind = SIM_ACT_HEAL, .at = 10 * DL_S };
  g_array_append_val (s.cfg.actions, h);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  assert_peer (w, 1, "hung");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 0);
  assert_peer (w, 2, "finished");
  assert_peer (w, 3, "finished");
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_drop_and_delay_actions)
{
  /* drop StartWeightSharing to p2 once: p2 waits in the race, the others
   * wait for its Payload: stalled. */
  Setup s;
  setup_none (&s, 3, 2, 100);
  SimAction d = { .kind = SIM_ACT_DROP, .at = 0, .a = 2, .msg_type = DISCO_MSG_START_WEIGHT_SHARING, .count = 1 };
  g_array_append_val (s.cfg.actions, d);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  ck_assert_uint_eq (sim_world_peer (w, 2)->rounds, 0);
  ck_assert_uint_eq (res->retries, 0);
  teardown (w, &rec, &s);

  /* delay p1's first ConnectionsReady past T: one timeout, a Retry cycle,
   * then the round completes */
  setup_none (&s, 3, 2, 100);
  SimAction y = { .kind = SIM_ACT_DELAY, .at = 0, .a = 1, .msg_type = DISCO_MSG_CONNECTIONS_READY,
                  .count = 1, .delay = 70 * DL_S };
  g_array_append_val (s.cfg.actions, y);
  rec_init (&rec);
  res = run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_eq (res->retries, 1);
  ck_assert_int_ge (res->end, 60 * DL_S);
  ck_assert_uint_eq (sim_world_peer (w, 1)->retries_received, 1);
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_graceful_close_after_what_was_sent)
{
  /* A WebSocket delivers what was sent before the close frame first: p3's
   * ConnectionsReady, delayed 5 s, still reaches the coordinator before the
   * close of its leave at 2 s, completes the barrier, and the round starts
   * with p3 in it (then S17: p1 and p2 wait for its Payload).  The close is
   * seen after it, with the stream's latency. */
  Setup s;
  setup_none (&s, 3, 1, 100);
  s.cfg.proto.min_participants = 2;
  SimAction y = { .kind = SIM_ACT_DELAY, .at = 0, .a = 3, .msg_type = DISCO_MSG_CONNECTIONS_READY,
                  .count = 1, .delay = 5 * DL_S };
  SimAction l = { .kind = SIM_ACT_LEAVE, .at = 2 * DL_S, .a = 3 };
  g_array_append_val (s.cfg.actions, y);
  g_array_append_val (s.cfg.actions, l);
  Rec rec;
  rec_init (&rec);
  SimWorld *w;
  const SimResult *res = run (&s, &rec, &w);
  ck_assert_uint_eq (res->retries, 0);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  assert_peer (w, 1, "hung");
  assert_peer (w, 3, "left");
  ck_assert_int_ge (rec.first_close, 5 * DL_S);   /* after the delayed ConnectionsReady */
  teardown (w, &rec, &s);
}
END_TEST

static const SimResult *
exchange_then_depart (Setup *s, Rec *rec, SimWorld **w, SimActionKind kind)
{
  /* 4 MB weights on 8 Mbit/s uplinks: each of p3's two Payloads takes 4 s
   * to leave its uplink; p3 departs 1 s after Start reached it */
  setup_none (s, 3, 1, 1000000);
  s->cfg.proto.min_participants = 2;
  s->cfg.uplink_bps = 8000000;
  SimAction a = { .kind = kind, .round = 1, .after = 1 * DL_S, .a = 3 };
  g_array_append_val (s->cfg.actions, a);
  rec_init (rec);
  return run (s, rec, w);
}

START_TEST (test_crash_loses_unsent_leave_does_not)
{
  Setup s;
  Rec rec;
  SimWorld *w;
  /* a graceful leave: the Payloads already handed to the transport go out */
  const SimResult *res = exchange_then_depart (&s, &rec, &w, SIM_ACT_LEAVE);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  assert_peer (w, 1, "finished");
  teardown (w, &rec, &s);
  /* a crash: what had not fully left p3's uplink is lost; p1 and p2 hang */
  res = exchange_then_depart (&s, &rec, &w, SIM_ACT_CRASH);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  assert_peer (w, 1, "hung");
  assert_peer (w, 2, "hung");
  teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_crash_detection_distribution_and_never)
{
  /* p3 crashes while training (5 s per round); uniform(10s, 20s) detection:
   * the close is seen 10 to 20 s later and the others go on; never: the
   * stream stays open, p3 counts as a participant forever, nobody gets a
   * list (S20) */
  for (int never = 0; never < 2; never++)
    {
      Setup s;
      setup_none (&s, 3, 3, 1000);
      s.cfg.none_samples = 5000;
      s.cfg.proto.min_participants = 2;
      s.cfg.crash_never_detected = never;
      ck_assert (dl_dist_parse ("uniform(10s, 20s)", DL_UNIT_DURATION, &s.cfg.crash_detection, NULL));
      SimAction a = { .kind = SIM_ACT_CRASH, .at = 2 * DL_S, .a = 3 };
      g_array_append_val (s.cfg.actions, a);
      Rec rec;
      rec_init (&rec);
      SimWorld *w;
      const SimResult *res = run (&s, &rec, &w);
      if (never)
        {
          ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
          ck_assert_int_eq (rec.first_close, 0);
          ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 0);
        }
      else
        {
          ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
          ck_assert_int_ge (rec.first_close, 12 * DL_S);
          ck_assert_int_le (rec.first_close, 22 * DL_S);
          ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 3);
        }
      teardown (w, &rec, &s);
    }
}
END_TEST

/* A speed or a rate drawn from a distribution that reaches below 0 is
 * floored, never negative: normal(0.1, 1) and normal(100kbps, 1Mbps)
 * draw below their floors for about half the peers.  The clamp used to
 * test one draw and return the next (MAX evaluated the sample twice). */
START_TEST (test_drawn_attributes_floored)
{
  SimWorldConfig cfg;
  sim_world_config_init (&cfg);
  cfg.seed = 7;
  ck_assert (dl_dist_parse ("normal(0.1, 1)", DL_UNIT_NUMBER, &cfg.speed, NULL));
  ck_assert (dl_dist_parse ("normal(100kbps, 1Mbps)", DL_UNIT_RATE, &cfg.uplink, NULL));
  ck_assert (dl_dist_parse ("normal(100kbps, 1Mbps)", DL_UNIT_RATE, &cfg.downlink, NULL));
  cfg.rates_drawn = TRUE;
  guint floored = 0;
  for (ProtoNodeId id = 1; id <= 200; id++)
    {
      SimPeerAttrs a;
      sim_peer_attributes (&cfg, id, &a);
      ck_assert_msg (a.speed >= SIM_PEER_MIN_SPEED, "p%u: speed %g", id, a.speed);
      ck_assert_msg (a.uplink_bps >= 1000 && a.uplink_bps < UINT64_C (1) << 40, "p%u: uplink %" G_GUINT64_FORMAT, id, a.uplink_bps);
      ck_assert_msg (a.downlink_bps >= 1000 && a.downlink_bps < UINT64_C (1) << 40, "p%u: downlink %" G_GUINT64_FORMAT, id,
                     a.downlink_bps);
      floored += a.speed == SIM_PEER_MIN_SPEED;
    }
  ck_assert_uint_gt (floored, 50);   /* the floor was reached, so tested */
}
END_TEST

static Suite *
world_suite (void)
{
  Suite *s = suite_create ("world");
  TCase *tf = tcase_create ("floors");
  tcase_add_test (tf, test_drawn_attributes_floored);
  tcase_add_test (tf, test_wall_limit_stops_a_run);
  suite_add_tcase (s, tf);
  TCase *tc = tcase_create ("runs");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_three_peers_converge);
  tcase_add_test (tc, test_same_seed_same_observations);
  tcase_add_test (tc, test_bandwidth_charges_weights);
  tcase_add_test (tc, test_ordered_delivery_under_jitter);
  tcase_add_test (tc, test_crash_is_detected_late);
  tcase_add_test (tc, test_stall_detected_s08);
  tcase_add_test (tc, test_crash_during_exchange_hangs_s17);
  tcase_add_test (tc, test_connect_failure_recovers_by_retry);
  tcase_add_test (tc, test_churn_arrivals);
  tcase_add_test (tc, test_straggler_slows_rounds);
  tcase_add_test (tc, test_bad_config_is_an_error);
  tcase_add_test (tc, test_stragglers_and_nat);
  tcase_add_test (tc, test_trace_parse_and_replay);
  tcase_add_test (tc, test_trace_peer_returns);
  tcase_add_loop_test (tc, test_transport_slow_start, 0, 3);
  tcase_add_loop_test (tc, test_transport_idle_restart, 0, 3);
  tcase_add_loop_test (tc, test_bandwidth_trace_follows_the_device, 0, 2);
  tcase_add_loop_test (tc, test_trace_return_model, 0, 2);
  tcase_add_test (tc, test_fedscale_behaviour);
  tcase_add_test (tc, test_fedscale_capacity);
  tcase_add_test (tc, test_partition_isolates_a_peer);
  tcase_add_test (tc, test_drop_and_delay_actions);
  tcase_add_test (tc, test_graceful_close_after_what_was_sent);
  tcase_add_test (tc, test_crash_loses_unsent_leave_does_not);
  tcase_add_test (tc, test_crash_detection_distribution_and_never);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (world_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
