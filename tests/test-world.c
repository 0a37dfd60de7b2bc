/* test-world.c — whole runs of the simulated world (sim/sim-world.c) with
 * the real protocol machines (the default family's: the registry's first)
 * and models: determinism, ordered delivery under jitter, crash
 * detection, stragglers, availability and FedScale traces, drawn
 * attributes floored, a bad config refused.  The runs whose checks are a
 * family's behaviour are its own (DISCO's:
 * protocol/disco/tests/test-disco-world).  No SQLite. */
#include "config.h"

#include "sim/sim-world.h"
#include "tests/world-harness.h"
#include "scenario/sim-trace.h"
#include "scenario/sim-fedscale.h"

#include <check.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static char *
run_digest (uint64_t seed, guint *obs)
{
  WorldSetup s;
  world_setup_softmax (&s, 4, 3, seed);
  s.cfg.latency = (DlDist) { .kind = DL_DIST_LOGNORMAL, .unit = DL_UNIT_DURATION, .a = 40e6, .b = 0.5 };
  s.cfg.speed = (DlDist) { .kind = DL_DIST_UNIFORM, .unit = DL_UNIT_NUMBER, .a = 0.5, .b = 2 };
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = DL_S, .a = 4 };
  g_array_append_val (s.cfg.actions, a);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  world_run (&s, &rec, &w);
  *obs = rec.observations;
  char *d = g_strdup (g_checksum_get_string (rec.sum));
  world_teardown (w, &rec, &s);
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

START_TEST (test_ordered_delivery_under_jitter)
{
  /* Heavy jitter on every channel: if a later message could overtake an
   * earlier one (Start before PeersForRound), peers would drop it and hang. */
  for (uint64_t seed = 1; seed <= 10; seed++)
    {
      WorldSetup s;
      world_setup_none (&s, 4, 3, 1000);
      s.cfg.seed = seed;
      s.cfg.latency = (DlDist) { .kind = DL_DIST_UNIFORM, .unit = DL_UNIT_DURATION, .a = 1e6, .b = 2e9 };
      s.cfg.server_latency = s.cfg.latency;
      WorldRec rec;
      world_rec_init (&rec);
      SimWorld *w;
      const SimResult *res = world_run (&s, &rec, &w);
      ck_assert_msg (res->outcome == SIM_OUTCOME_COMPLETED, "seed %" G_GUINT64_FORMAT ": %s", seed,
                     sim_outcome_name (res->outcome));
      ck_assert_uint_eq (res->peers_finished, 4);
      sim_world_free (w);
      world_rec_clear (&rec);
      world_setup_clear (&s);
    }
}
END_TEST

START_TEST (test_crash_is_detected_late)
{
  /* p3 crashes while training after round 2's exchange; the coordinator sees
   * it only after crash_detection, then p1 and p2 go on without it. */
  WorldSetup s;
  world_setup_none (&s, 3, 4, 1000);
  s.cfg.none_samples = 5000;              /* 5 s of training per round */
  s.cfg.proto.min_participants = 2;
  s.cfg.crash_detection = dl_dist_constant (DL_UNIT_DURATION, 30.0 * DL_S);
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = 500 * DL_MS, .a = 3 };
  g_array_append_val (s.cfg.actions, a);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  world_assert_peer (w, 3, "crashed");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 4);
  ck_assert_int_ge (res->end, 30 * DL_S);   /* waited for the detection */
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_straggler_slows_rounds)
{
  WorldSetup s;
  world_setup_none (&s, 3, 2, 1000);
  s.cfg.none_samples = 1000;          /* 1 s of training per round at speed 1 */
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  DlTime fast = world_run (&s, &rec, &w)->end;
  sim_world_free (w);
  world_rec_clear (&rec);
  SimAction a = { .kind = SIM_ACT_SLOW, .at = 0, .a = 2, .value = 50 };
  g_array_append_val (s.cfg.actions, a);
  world_rec_init (&rec);
  DlTime slow = world_run (&s, &rec, &w)->end;
  ck_assert_msg (slow >= fast + 2 * 48 * DL_S && slow <= fast + 2 * 50 * DL_S, "fast %" G_GINT64_FORMAT " slow %" G_GINT64_FORMAT, fast, slow);
  ck_assert_double_eq_tol (sim_world_peer (w, 2)->speed, 1.0 / 50, 1e-12);
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_bad_config_is_an_error)
{
  WorldSetup s;
  world_setup_none (&s, 3, 1, 10);
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
  world_setup_clear (&s);
}
END_TEST

/* test_trace_parse_and_replay's parser checks, a step per kind of file. */

/* libcsv: BOM, CRLF, quoted fields, a quoted first record after the header */
static void
check_trace_libcsv (void)
{
  g_autoptr (GError) qe = NULL;
  g_autoptr (GArray) q = sim_trace_parse ("\xEF\xBB\xBF\"peer\",join,leave\r\n\"p1\",\"0\",\r\n\"p2\", 5 ,\"never\"\r\n",
                                          "q.csv", &qe);
  ck_assert_msg (q != NULL, "%s", qe ? qe->message : "");
  ck_assert_uint_eq (q->len, 2);
  ck_assert_uint_eq (g_array_index (q, SimTraceEntry, 0).peer, 1);
  ck_assert (g_array_index (q, SimTraceEntry, 1).join == 5 * DL_S);
}

/* bad lines, each refused with its line and why */
static void
check_trace_bad_lines (void)
{
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
}

/* several intervals of one peer (a return may begin at the leave) */
static void
check_trace_intervals (void)
{
  g_autoptr (GError) me = NULL;
  g_autoptr (GArray) m = sim_trace_parse ("p1,30,\np1,0,10\np1,10,20\np2,5,6\n", "multi.csv", &me);
  ck_assert_msg (m != NULL, "%s", me ? me->message : "");
  ck_assert_uint_eq (m->len, 4);
  ck_assert_int_eq (g_array_index (m, SimTraceEntry, 0).join, 0);
  ck_assert_uint_eq (g_array_index (m, SimTraceEntry, 0).line, 2);
  ck_assert_uint_eq (g_array_index (m, SimTraceEntry, 1).peer, 2);
  ck_assert_int_eq (g_array_index (m, SimTraceEntry, 3).join, 30 * DL_S);
}

/* files: one that is not there, and a NUL byte refused with its line (it
 * ended the file: p2 was lost) */
static void
check_trace_files (void)
{
  g_autoptr (GError) fe = NULL;
  ck_assert (sim_trace_load ("/nonexistent/avail.csv", &fe) == NULL);
  ck_assert (strstr (fe->message, "/nonexistent/avail.csv") != NULL);
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
}

START_TEST (test_trace_parse_and_replay)
{
  g_autoptr (GError) e = NULL;
  check_trace_libcsv ();
  g_autoptr (GArray) t = sim_trace_parse ("peer,join,leave\np2,0,100\n1,0,\n# late\np3,30.5,never\n",
                                          "avail.csv", &e);
  ck_assert_msg (t != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (t->len, 3);
  ck_assert_uint_eq (g_array_index (t, SimTraceEntry, 0).peer, 1);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 0).leave, DL_TIME_NEVER);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 1).leave, 100 * DL_S);
  ck_assert_int_eq (g_array_index (t, SimTraceEntry, 2).join, 30500 * DL_MS);
  check_trace_bad_lines ();
  check_trace_intervals ();
  check_trace_files ();

  /* replay: p1, p2 from the start, p3 at 30.5 s; p2 leaves at 100 s */
  WorldSetup s;
  world_setup_none (&s, 0, 3, 100);
  s.cfg.none_samples = 20000;           /* 20 s of training per round */
  s.cfg.proto.min_participants = 2;
  s.cfg.trace = g_steal_pointer (&t);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 3);
  ck_assert_int_eq (sim_world_peer (w, 3)->joined, 30500 * DL_MS);
  ck_assert_int_eq (sim_world_peer (w, 2)->left, 100 * DL_S);
  ck_assert (sim_world_peer (w, 3)->synced);   /* joined mid-training */
  ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT);
  world_teardown (w, &rec, &s);
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
  WorldSetup s;
  world_setup_softmax (&s, 0, 20, 7);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 20 * DL_MS;      /* rounds of a few seconds: p3 leaves in round 6 or so */
  ck_assert (dl_dist_parse ("uniform(0.5, 2)", DL_UNIT_NUMBER, &s.cfg.speed, NULL));
  s.cfg.trace = t;
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  world_run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 4);   /* p4 is p3's second session */
  world_assert_peer (w, 3, "left");
  ck_assert_int_eq (sim_world_peer (w, 3)->left, 40 * DL_S);
  ck_assert_uint_gt (sim_world_peer (w, 3)->rounds, 0);
  ck_assert_int_eq (sim_world_peer (w, 4)->joined, 80 * DL_S);
  ck_assert (sim_world_peer (w, 4)->synced);       /* a late joiner: the model sync */
  ck_assert_uint_gt (sim_world_peer (w, 4)->rounds, 0);
  ck_assert (sim_world_peer (w, 4)->speed == sim_world_peer (w, 3)->speed);
  ck_assert (sim_world_peer (w, 1)->speed != sim_world_peer (w, 3)->speed);
  world_teardown (w, &rec, &s);
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
  WorldSetup s;
  world_setup_softmax (&s, 0, 20, 7);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 20 * DL_MS;
  s.cfg.trace = t;
  s.cfg.return_initial = initial;
  WorldRec rec;
  world_rec_init (&rec);
  rec.watch = 4;
  rec.watch_origin = 3;
  SimWorld *w;
  world_run (&s, &rec, &w);
  ck_assert (rec.watch_model != NULL);
  ck_assert_uint_gt (sim_world_peer (w, 3)->rounds, 0);   /* p3 trained: its model is not the initial one */
  ck_assert (learn_weights_equal (rec.watch_model, rec.origin_model) == !initial);
  world_teardown (w, &rec, &s);
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

  WorldSetup s;
  world_setup_none (&s, 3, 2, 100);
  s.cfg.sample_cost = 6 * DL_MS;
  s.cfg.capacity = cap;
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  world_run (&s, &rec, &w);
  ck_assert_double_eq_tol (sim_world_peer (w, 1)->speed, 1.0, 1e-12);   /* 6 ms / (3 x 2 ms) */
  ck_assert_double_eq_tol (sim_world_peer (w, 3)->speed, 0.2, 1e-12);
  ck_assert_double_eq (sim_world_peer (w, 2)->speed, 1.0);               /* not listed: [peers] speed */
  ck_assert_uint_eq (sim_world_peer (w, 1)->uplink_bps, 8192000);
  ck_assert_uint_eq (sim_world_peer (w, 1)->downlink_bps, 8192000);
  ck_assert_uint_eq (sim_world_peer (w, 2)->uplink_bps, s.cfg.uplink_bps);
  world_teardown (w, &rec, &s);

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

START_TEST (test_crash_detection_distribution_and_never)
{
  /* p3 crashes while training (5 s per round); uniform(10s, 20s) detection:
   * the close is seen 10 to 20 s later and the others go on; never: the
   * stream stays open, p3 counts as a participant forever, nobody gets a
   * list (S20) */
  for (int never = 0; never < 2; never++)
    {
      WorldSetup s;
      world_setup_none (&s, 3, 3, 1000);
      s.cfg.none_samples = 5000;
      s.cfg.proto.min_participants = 2;
      s.cfg.crash_never_detected = never;
      ck_assert (dl_dist_parse ("uniform(10s, 20s)", DL_UNIT_DURATION, &s.cfg.crash_detection, NULL));
      SimAction a = { .kind = SIM_ACT_CRASH, .at = 2 * DL_S, .a = 3 };
      g_array_append_val (s.cfg.actions, a);
      WorldRec rec;
      world_rec_init (&rec);
      SimWorld *w;
      const SimResult *res = world_run (&s, &rec, &w);
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
      world_teardown (w, &rec, &s);
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
  suite_add_tcase (s, tf);
  TCase *tc = tcase_create ("runs");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_same_seed_same_observations);
  tcase_add_test (tc, test_ordered_delivery_under_jitter);
  tcase_add_test (tc, test_crash_is_detected_late);
  tcase_add_test (tc, test_straggler_slows_rounds);
  tcase_add_test (tc, test_bad_config_is_an_error);
  tcase_add_test (tc, test_trace_parse_and_replay);
  tcase_add_test (tc, test_trace_peer_returns);
  tcase_add_loop_test (tc, test_trace_return_model, 0, 2);
  tcase_add_test (tc, test_fedscale_behaviour);
  tcase_add_test (tc, test_fedscale_capacity);
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
