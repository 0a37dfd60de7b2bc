/* test-testbed.c — testbed/ without root, sockets or child processes: the
 * command line of a peer's process (loopback and in its namespace), what
 * the testbed refuses and why (the plan of namespaces --netem would make
 * is test-testbed-netns.c's), the record and control lines both ways, the
 * run's tally fed record lines, and the
 * merge of node databases (the clock offset from the ClientConnected /
 * NewNodeInfo round trip, the merged order, the refusals, a node's
 * database written and read back), the files check --testbed keeps and
 * the seeds of repeats (a node's secret is test-testbed-secret.c's). */
#include "config.h"

#include "testbed/testbed.h"
#include "testbed/testbed-merge.h"
#include "testbed/testbed-netns.h"
#include "testbed/testbed-node.h"
#include "testbed/testbed-private.h"
#include "testbed/testbed-records.h"
#include "testbed/testbed-secret.h"
#include "protocol/session/session-msgs.h"
#include "results/res-query.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *
scenario_path (const char *rel)
{
  const char *src = g_getenv ("DLSIM_SRCDIR");
  return g_build_filename (src ? src : ".", rel, NULL);
}

/* A scenario of this test's: 3 peers, 3 rounds of a softmax on synthetic
 * data, with no key of any family's, so that it loads under whichever
 * family is the default (the registry's first); `more` is appended. */
static const char neutral_text[] = "[scenario]\nseed = 1\n[protocol]\nmin_participants = 3\n"
                                   "[training]\nrounds = 3\n[model]\nkind = softmax\nlearning_rate = 0.05\n"
                                   "[data]\nfeatures = 8\nclasses = 3\nsamples = 1200\nseparation = 3.0\n"
                                   "[peers]\ncount = 3\n";

/* The neutral scenario (and `more`) as name in a fresh temporary folder;
 * its path (remove_neutral takes both away). */
static char *
write_neutral (const char *name, const char *more)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-tb-scn-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strconcat (neutral_text, more, NULL);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
remove_neutral (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_unlink (path);
  g_rmdir (dir);
}

/* The neutral scenario with [expect] the testbed can check, loaded with
 * sets (the file is gone once it is loaded). */
static SimScenario *
load_neutral (const char *const *sets)
{
  g_autofree char *path = write_neutral ("neutral.ini", "[expect]\noutcome = completed\nrounds_completed = 3\n");
  g_autoptr (GError) error = NULL;
  SimScenario *s = sim_scenario_load (path, sets, &error);
  ck_assert_msg (s != NULL, "%s: %s", path, error ? error->message : "?");
  remove_neutral (path);
  return s;
}

static char *
joined (char **v)
{
  return g_strjoinv (" ", v);
}

/* ---------------------------------------------------------------- a peer's command line */

/* peer id's command line, the coordinator at port, is before, the
 * scenario's path, after */
static void
assert_argv (const TestbedRun *tb, ProtoNodeId id, guint16 port, const char *before, const char *after)
{
  g_auto (GStrv) argv = _testbed_procs_argv (tb, id, port);
  g_autofree char *got = joined (argv);
  g_autofree char *want = g_strconcat (before, tb->scenario->path, after, NULL);
  ck_assert_str_eq (got, want);
}

START_TEST (test_peer_argv)
{
  const char *sets[] = { "training.rounds=2", NULL };
  g_autoptr (SimScenario) s = load_neutral (sets);
  SimBuilt built;
  ck_assert (sim_scenario_build (s, s->points->pdata[0], 7, &built, NULL));
  TestbedRun tb;
  _testbed_run_init (&tb, s, s->points->pdata[0], 7, (char **) sets, &built.cfg, NULL);
  tb.self_exe = "/opt/bin/dlsim";
  tb.t0_us = 123456;
  tb.emulate_latency = TRUE;
  assert_argv (&tb, 2, 40000, "/opt/bin/dlsim node peer --coordinator=127.0.0.1:40000 --emulate-latency --name=p2 "
                              "--scenario=", " --seed=7 --point=0 --t0=123456 --report --set=training.rounds=2");
  /* with --netem: dlsim exec'd inside the peer's namespace, the
   * coordinator on the bridge, the peer's links on its own address; no
   * latency added with --no-latency's flag off */
  tb.net = testbed_netns_new_plan (4242, 120);
  tb.emulate_latency = FALSE;
  tb.sets = NULL;
  assert_argv (&tb, 3, 7000, "ip netns exec dlsim-4242-p3 /opt/bin/dlsim node peer --coordinator=10.120.0.1:7000 "
                             "--listen=10.120.0.4 --name=p3 --scenario=", " --seed=7 --point=0 --t0=123456 --report");
  g_clear_pointer (&tb.net, testbed_netns_free);
  _testbed_run_clear (&tb);
  sim_built_clear (&built);
}
END_TEST

/* ---------------------------------------------------------------- refusals */

static void
assert_refused (const char *set, gboolean netem, const char *why)
{
  const char *sets[] = { set, NULL };
  g_autoptr (SimScenario) s = load_neutral (sets);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (!testbed_scenario_supported (s, netem, &error), "%s accepted", set);
  g_autofree char *want = g_strdup_printf ("%s: %s: not supported in the testbed", s->path, why);
  ck_assert_str_eq (error->message, want);
}

START_TEST (test_refusals)
{
  g_autoptr (SimScenario) plain = load_neutral (NULL);
  ck_assert (testbed_scenario_supported (plain, FALSE, NULL));
  assert_refused ("network.loss=0.1", FALSE, "[network] loss");
  assert_refused ("network.connect_failure=0.5", FALSE, "[network] connect_failure");
  assert_refused ("timeline.5s=partition p1 | server,p2,p3", FALSE, "[timeline] partition (without --netem)");
  assert_refused ("timeline.5s=heal", FALSE, "[timeline] heal (without --netem)");
  assert_refused ("timeline.5s=link-down p1 p2", TRUE, "[timeline] link-down");
  /* a bandwidth trace changes rates the sockets cannot follow (the
   * shared trace of scenarios/traces/, on this test's own scenario: no
   * family's file, so that the tree without a family still runs it) */
  g_autofree char *trace = scenario_path ("scenarios/traces/uplink-drop.csv");
  g_autofree char *trace_abs = g_canonicalize_filename (trace, NULL);
  g_autofree char *set_bw = g_strconcat ("network.bandwidth_trace=", trace_abs, NULL);
  const char *bw_sets[] = { set_bw, NULL };
  g_autoptr (SimScenario) bw = load_neutral (bw_sets);
  g_autoptr (GError) ebw = NULL;
  ck_assert (!testbed_scenario_supported (bw, TRUE, &ebw));
  g_autofree char *wbw = g_strdup_printf ("%s: [network] bandwidth_trace: not supported in the testbed", bw->path);
  ck_assert_str_eq (ebw->message, wbw);
  /* with --netem a partition is blackhole routes */
  const char *sets[] = { "timeline.5s=partition p1 | server,p2,p3", NULL };
  g_autoptr (SimScenario) part = load_neutral (sets);
  ck_assert (testbed_scenario_supported (part, TRUE, NULL));
}
END_TEST

START_TEST (test_family_refused_before_anything)
{
  /* (a family whose machines do not run on sockets, its no_testbed, is
   * refused before a database, a process or a socket is made: the
   * families' own tests, test-guest.c and test-fedavg.c) */
  TestbedReport rep;
  TestbedRunStatus st;
  /* a scenario the testbed cannot express: refused as bad input */
  const char *sets[] = { "network.loss=0.2", NULL };
  g_autoptr (SimScenario) lossy = load_neutral (sets);
  testbed_report_init (&rep);
  g_autoptr (GError) e2 = NULL;
  st = testbed_run_point (lossy, lossy->points->pdata[0], 1, NULL, NULL, "/nonexistent/dlsim", TESTBED_LOOPBACK,
                          &rep, &e2);
  ck_assert_int_eq (st, TESTBED_RUN_REFUSED);
  ck_assert_ptr_nonnull (strstr (e2->message, "[network] loss: not supported in the testbed"));
  testbed_report_clear (&rep);
}
END_TEST

/* ---------------------------------------------------------------- record lines */

typedef struct {
  GPtrArray *lines;
  GString *got;
} Collect;

static void
collect_line (gpointer ud, const char *line)
{
  Collect *c = ud;
  g_ptr_array_add (c->lines, g_strdup (line));
}

static void
got_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  Collect *c = ud;
  g_string_append_printf (c->got, "O %" G_GINT64_FORMAT " %u %d [%s] %d %u %d %" G_GINT64_FORMAT " [%s]\n", t, node,
                          (int) o->kind, o->state, o->round, o->other, o->msg_type, o->value,
                          o->detail);
}

static void
got_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  Collect *c = ud;
  g_string_append_printf (c->got, "F %" G_GINT64_FORMAT " %u %u %s [%s]\n", t, node, other, kind, detail);
}

static void
got_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  Collect *c = ud;
  g_string_append_printf (c->got, "M %" G_GINT64_FORMAT " %d %u %s %.17g\n", t, round, peer, name, v);
}

static void
got_traffic (gpointer ud, ProtoMsgType type, gsize bytes)
{
  Collect *c = ud;
  g_string_append_printf (c->got, "T %d %zu\n", (int) type, bytes);
}

START_TEST (test_records_both_ways)
{
  Collect c = { g_ptr_array_new_with_free_func (g_free), g_string_new (NULL) };
  TestbedRecordSink sink;
  testbed_record_sink_init (&sink, NULL);
  sink.line = collect_line;
  sink.line_ud = &c;
  SimRecorder out = testbed_record_sink_recorder (&sink);
  ProtoObservation o = { .kind = PROTO_OBS_SENT, .state = NULL, .round = 4, .other = 0,
                         .msg_type = PROTO_MSG_SYNC_MODEL, .value = -17 };
  g_strlcpy (o.detail, "a\ttab and\na newline", sizeof o.detail);
  out.observation (out.user_data, 1500, 2, &o);
  out.fact (out.user_data, 9, PROTO_NO_NODE, 3, "crash", NULL);
  out.metric (out.user_data, 2000, 1, 3, "accuracy", 0.1);
  out.traffic (out.user_data, PROTO_MSG_SYNC_MODEL, 4096);
  ck_assert_uint_eq (c.lines->len, 4);
  /* tabs and newlines inside a field become spaces: one record a line */
  g_autofree char *o_line = g_strdup_printf ("O\t1500\t2\t%d\t\t4\t0\t%d\t-17\ta tab and a newline", PROTO_OBS_SENT,
                                             PROTO_MSG_SYNC_MODEL);
  ck_assert_str_eq (c.lines->pdata[0], o_line);
  ck_assert_str_eq (c.lines->pdata[1], "F\t9\t4294967295\t3\tcrash\t");
  ck_assert_str_eq (c.lines->pdata[2], "M\t2000\t1\t3\taccuracy\t0.10000000000000001");
  g_autofree char *t_line = g_strdup_printf ("T\t%d\t4096", PROTO_MSG_SYNC_MODEL);
  ck_assert_str_eq (c.lines->pdata[3], t_line);
  SimRecorder in = { got_obs, got_fact, got_metric, got_traffic, &c };
  for (guint i = 0; i < c.lines->len; i++)
    ck_assert_msg (testbed_record_parse (c.lines->pdata[i], &in), "%s", (char *) c.lines->pdata[i]);
  g_autofree char *want = g_strdup_printf ("O 1500 2 %d [] 4 0 %d -17 [a tab and a newline]\n"
                                           "F 9 4294967295 3 crash []\n"
                                           "M 2000 1 3 accuracy 0.10000000000000001\n"
                                           "T %d 4096\n", PROTO_OBS_SENT, PROTO_MSG_SYNC_MODEL, PROTO_MSG_SYNC_MODEL);
  ck_assert_str_eq (c.got->str, want);
  /* malformed: refused, nothing recorded */
  g_string_truncate (c.got, 0);
  static const char *const bad[] = {
    "O\t1\t2\t3",                                      /* too few fields */
    "O\t-1\t2\t0\t\t0\t0\t0\t0\t",                     /* a time before the start */
    "O\t1\t2\t9999\t\t0\t0\t0\t0\t",                   /* no such observation kind */
    "O\t1\t2\t0\t\t0\t0\t255\t0\t",                    /* no such message type */
    "M\t1\t0\t1\taccuracy\t0.5x",                      /* not a number */
    "T\t15\t-4",                                       /* negative bytes (15: SharedModel) */
    "X\t1",
    "",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    ck_assert_msg (!testbed_record_parse (bad[i], &in), "accepted: %s", bad[i]);
  ck_assert_str_eq (c.got->str, "");
  g_ptr_array_unref (c.lines);
  g_string_free (c.got, TRUE);
}
END_TEST

START_TEST (test_rule_lines)
{
  SimAction drop = { .kind = SIM_ACT_DROP, .msg_type = PROTO_MSG_SYNC_MODEL, .a = 2, .value = 1, .count = 3 };
  g_autofree char *l = testbed_rule_line (&drop);
  g_autofree char *want = g_strdup_printf ("rule drop %d 2 1 3 0", PROTO_MSG_SYNC_MODEL);
  ck_assert_str_eq (l, want);
  SimAction back;
  ck_assert (testbed_rule_parse (l, &back));
  ck_assert_int_eq (back.kind, SIM_ACT_DROP);
  ck_assert_int_eq (back.msg_type, PROTO_MSG_SYNC_MODEL);
  ck_assert_uint_eq (back.a, 2);
  ck_assert (back.value == 1);
  ck_assert_uint_eq (back.count, 3);
  SimAction delay = { .kind = SIM_ACT_DELAY, .msg_type = PROTO_MSG_SYNC_MODEL, .a = 1, .count = 1, .delay = 250 * DL_MS };
  g_autofree char *ld = testbed_rule_line (&delay);
  ck_assert (testbed_rule_parse (ld, &back));
  ck_assert_int_eq (back.kind, SIM_ACT_DELAY);
  ck_assert_int_eq (back.delay, 250 * DL_MS);
  ck_assert (back.value == 0);
  SimAction slow = { .kind = SIM_ACT_SLOW, .a = 3, .value = 2.5 };
  g_autofree char *ls = testbed_rule_line (&slow);
  ck_assert_str_eq (ls, "rule slow 3 2.5");
  ck_assert (testbed_rule_parse (ls, &back));
  ck_assert_int_eq (back.kind, SIM_ACT_SLOW);
  ck_assert (back.value == 2.5);
  SimAction lf = { .kind = SIM_ACT_LINK_FAIL, .a = 1, .b = 3 };
  g_autofree char *llf = testbed_rule_line (&lf);
  ck_assert_str_eq (llf, "rule link-fail 1 3");
  ck_assert (testbed_rule_parse (llf, &back));
  ck_assert_uint_eq (back.b, 3);
  static const char *const bad[] = { "rule slow 3 0", "rule slow 0 2", "rule slow 3 inf", "rule link-fail 0 1",
                                     "rule drop 255 1 0 1 0", "rule drop 16 1 2 1 0", "rule drop 16 1 0 1",
                                     "rule teleport 16 1 0 1 0", "leave", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    ck_assert_msg (!testbed_rule_parse (bad[i], &back), "accepted: %s", bad[i]);
}
END_TEST

/* ---------------------------------------------------------------- the tally */

static char *
obs_line (DlTime t, ProtoNodeId node, ProtoObsKind kind, const char *state, int round, ProtoNodeId other,
          int msg_type, const char *detail)
{
  return g_strdup_printf ("O\t%" G_GINT64_FORMAT "\t%u\t%d\t%s\t%d\t%u\t%d\t0\t%s", t, node, (int) kind, state, round,
                          other, msg_type, detail);
}

/* the first registered message type of `role`, -1 if no family has one */
static int
type_of_role (ProtoMsgRole role)
{
  for (guint i = 0; i < proto_msg_n_types (); i++)
    if (proto_msg_type_role (proto_msg_type_at (i)) == role)
      return (int) proto_msg_type_at (i);
  return -1;
}

START_TEST (test_tally)
{
  g_autoptr (SimScenario) s = load_neutral (NULL);
  SimBuilt built;
  ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, &built, NULL));
  TestbedRun tb;
  _testbed_run_init (&tb, s, s->points->pdata[0], 1, NULL, &built.cfg, NULL);
  tb.replaying = TRUE;
  const ProtoFamily *f = proto_family_of (&built.cfg.proto);
  TestbedPeer *p1 = _testbed_run_peer (&tb, 1, TRUE);
  p1->status = TESTBED_PEER_ONLINE;
  g_autofree char *train = obs_line (10, 1, PROTO_OBS_PHASE, "state", 0, 0, -1, "training");
  _testbed_run_ingest (&tb, 1, train);
  ck_assert_str_eq (p1->state, "training");
  ck_assert (!_testbed_peer_settled (p1, f));
  g_autofree char *end = obs_line (20, 1, PROTO_OBS_ROUND_END, "", 0, 0, -1, "");
  _testbed_run_ingest (&tb, 1, end);
  /* a barrier's retry: any family's type of that role (none, no count) */
  int rt = type_of_role (PROTO_MSG_ROLE_BARRIER_RETRY);
  g_autofree char *retry = obs_line (21, 1, PROTO_OBS_RECEIVED, "", 0, 0, rt, "");
  _testbed_run_ingest (&tb, 1, retry);
  g_autofree char *done = obs_line (30, 1, PROTO_OBS_PHASE, "state", 0, 0, -1, "done");
  _testbed_run_ingest (&tb, 1, done);
  ck_assert_uint_eq (p1->rounds, 1);
  ck_assert_int_eq (p1->last_round_end, 0);
  ck_assert_uint_eq (p1->retries_received, rt >= 0);
  ck_assert_str_eq (p1->state, "done");
  ck_assert_int_eq (p1->progress, 30);
  ck_assert (_testbed_peer_settled (p1, f));
  _testbed_run_ingest (&tb, 1, "M\t31\t0\t1\taccuracy\t0.75");
  ck_assert (p1->accuracy == 0.75);
  ck_assert (isnan (p1->loss));
  /* a model: only a process's own is taken */
  float w[] = { 1.0f, -2.0f, 0.5f };
  g_autofree char *b64 = g_base64_encode ((const guchar *) w, sizeof w);
  g_autofree char *wline = g_strdup_printf ("W\t1\t%s", b64);
  _testbed_run_ingest (&tb, 2, wline);
  ck_assert_ptr_null (p1->model);
  _testbed_run_ingest (&tb, 1, wline);
  ck_assert_ptr_nonnull (p1->model);
  ck_assert_uint_eq (learn_weights_len (p1->model), 3);
  ck_assert (learn_weights_data (p1->model)[1] == -2.0f);
  ck_assert_uint_eq (tb.bad_lines, 0);
  _testbed_run_ingest (&tb, 1, "O\tjunk");
  _testbed_run_ingest (&tb, 1, "W\t1\tAAA=");   /* 2 bytes: not float32s */
  ck_assert_uint_eq (tb.bad_lines, 2);
  /* the traffic lines add up */
  g_autofree char *t100 = g_strdup_printf ("T\t%d\t100", PROTO_MSG_SYNC_MODEL);
  g_autofree char *t50 = g_strdup_printf ("T\t%d\t50", PROTO_MSG_SYNC_MODEL);
  _testbed_run_ingest (&tb, 1, t100);
  _testbed_run_ingest (&tb, 1, t50);
  ck_assert_uint_eq (tb.messages, 2);
  ck_assert_uint_eq (tb.bytes, 150);
  /* a peer that exited is settled whatever its state */
  TestbedPeer *p2 = _testbed_run_peer (&tb, 2, TRUE);
  p2->status = TESTBED_PEER_ONLINE;
  p2->state = "training";
  ck_assert (!_testbed_peer_settled (p2, f));
  p2->exited = TRUE;
  ck_assert (_testbed_peer_settled (p2, f));
  _testbed_run_clear (&tb);
  sim_built_clear (&built);
}
END_TEST

/* ---------------------------------------------------------------- merge */

static TestbedNode *
node (const char *name, gint64 t0_unix_us)
{
  TestbedNode *n = testbed_node_new ("x.db", 1, g_strdup (name));
  ck_assert_ptr_nonnull (n);
  n->t0_unix_us = t0_unix_us;
  n->scenario = g_strdup ("s");
  n->seed = 1;
  return n;
}

static void
add_obs (TestbedNode *n, DlTime t, ProtoNodeId at, ProtoObsKind kind, ProtoNodeId other, int msg_type)
{
  g_autofree char *l = obs_line (t, at, kind, "", -1, other, msg_type, "");
  testbed_node_add_line (n, l);
}

START_TEST (test_node_names)
{
  ProtoNodeId id = 99;
  ck_assert (testbed_node_id_of ("coordinator", &id));
  ck_assert_uint_eq (id, PROTO_SERVER);
  ck_assert (testbed_node_id_of ("p12", &id));
  ck_assert_uint_eq (id, 12);
  static const char *const bad[] = { "p0", "p", "p1x", "q1", "coordinator2", "", "p-1" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    ck_assert_msg (!testbed_node_id_of (bad[i], &id), "accepted %s", bad[i]);
  ck_assert (!testbed_node_id_of (NULL, &id));
  ck_assert_ptr_null (testbed_node_new ("x.db", 1, g_strdup ("server")));
}
END_TEST

START_TEST (test_merge_clock)
{
  /* p1's clock is 0.5 ms behind the coordinator's, their starts on the
   * wall clock equal; 1 us each way.  p1 sends ClientConnected at its 0
   * (the coordinator's 500 us), which arrives at 501 us; NewNodeInfo
   * leaves at 503 us and arrives at 504 us (p1's 4 us). */
  g_autoptr (TestbedNode) coord = node ("coordinator", 1000000);
  g_autoptr (TestbedNode) p1 = node ("p1", 1000000);
  add_obs (coord, 501000, 0, PROTO_OBS_RECEIVED, 1, PROTO_MSG_HELLO);
  add_obs (coord, 503000, 0, PROTO_OBS_SENT, 1, PROTO_MSG_WELCOME);
  add_obs (p1, 0, 1, PROTO_OBS_SENT, 0, PROTO_MSG_HELLO);
  add_obs (p1, 4000, 1, PROTO_OBS_RECEIVED, 0, PROTO_MSG_WELCOME);
  g_autofree char *said = testbed_merge_clock (coord, p1);
  ck_assert_int_eq (p1->shift, 500000);
  /* the round trip's network time is 4 - 2 = 2 us: +- 1 us */
  ck_assert_str_eq (said, "wall-clock start +0.000 ms; ClientConnected/NewNodeInfo offset +0.500 ms +- 0.001 ms");
  /* no round trip (p2 never connected): the wall clocks' starts alone */
  g_autoptr (TestbedNode) p2 = node ("p2", 1002000);
  add_obs (p2, 100, 2, PROTO_OBS_SENT, 0, PROTO_MSG_HELLO);
  g_autofree char *said2 = testbed_merge_clock (coord, p2);
  ck_assert_int_eq (p2->shift, 2000000);
  ck_assert_str_eq (said2, "wall-clock start +2.000 ms; no ClientConnected/NewNodeInfo round trip: "
                           "the wall clocks' skew is not removed");
}
END_TEST

START_TEST (test_merge_order)
{
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) testbed_node_free);
  TestbedNode *coord = node ("coordinator", 0), *p1 = node ("p1", 0);
  g_ptr_array_add (nodes, coord);
  g_ptr_array_add (nodes, p1);
  testbed_node_add_line (coord, "F\t100\t0\t0\ta\t");
  testbed_node_add_line (coord, "F\t300\t0\t0\tb\t");
  testbed_node_add_line (p1, "F\t50\t1\t0\tc\t");
  testbed_node_add_line (p1, "T\t16\t10");   /* takes the time before it: 50 */
  testbed_node_add_line (p1, "F\t250\t1\t0\td\t");
  ck_assert_int_eq (g_array_index (p1->times, DlTime, 1), 50);
  p1->shift = 50;   /* p1's 50 is the coordinator's 100: after its line at 100 (node order) */
  g_autoptr (GArray) order = testbed_merge_order (nodes);
  ck_assert_uint_eq (order->len, 5);
  GString *got = g_string_new (NULL);
  for (guint i = 0; i < order->len; i++)
    {
      const TestbedMergeEntry *e = &g_array_index (order, TestbedMergeEntry, i);
      const TestbedNode *n = nodes->pdata[e->node];
      g_autofree char *l = testbed_merge_retime (n->lines->pdata[e->index], e->t);
      g_string_append_printf (got, "%s|", l);
    }
  ck_assert_str_eq (got->str, "F\t100\t0\t0\ta\t|F\t100\t1\t0\tc\t|T\t16\t10|F\t300\t0\t0\tb\t|F\t300\t1\t0\td\t|");
  g_string_free (got, TRUE);
  g_autofree char *r = testbed_merge_retime ("M\t5\t0\t1\tloss\t0.5", 7000000000);
  ck_assert_str_eq (r, "M\t7000000000\t0\t1\tloss\t0.5");
}
END_TEST

/* Why testbed_merge_nodes refuses nodes (transfer full). */
static char *
merge_refusal (GPtrArray *nodes)
{
  TestbedReport rep;
  testbed_report_init (&rep);
  gint64 merged_as = 0;
  g_autoptr (GError) error = NULL;
  /* out NULL: the refusal comes before the database is asked anything */
  ck_assert_int_eq (testbed_merge_nodes (NULL, nodes, NULL, &rep, &merged_as, &error), TESTBED_RUN_ERROR);
  ck_assert_int_eq (merged_as, 0);
  testbed_report_clear (&rep);
  return g_strdup (error->message);
}

START_TEST (test_merge_refusals)
{
  /* peers without their coordinator */
  g_autoptr (GPtrArray) a = g_ptr_array_new_with_free_func ((GDestroyNotify) testbed_node_free);
  g_ptr_array_add (a, node ("p1", 0));
  g_ptr_array_add (a, node ("p2", 0));
  g_autofree char *e1 = merge_refusal (a);
  ck_assert_str_eq (e1, "node databases without the coordinator's: add the database of "
                        "`dlsim node coordinator -o DB`");
  /* two p1s: two deployments mixed */
  g_ptr_array_add (a, node ("coordinator", 0));
  g_ptr_array_add (a, node ("p1", 0));
  g_autofree char *e2 = merge_refusal (a);
  ck_assert_str_eq (e2, "x.db: a second node named p1: merge one deployment's node databases at a time");
  /* another seed */
  g_ptr_array_set_size (a, 3);
  ((TestbedNode *) a->pdata[1])->seed = 2;
  g_autofree char *e3 = merge_refusal (a);
  ck_assert_str_eq (e3, "x.db: node p2 ran scenario s seed 2, the coordinator s seed 1: not one deployment");
}
END_TEST

/* A node's database as `dlsim node -o` begins it and `dlsim merge` reads
 * it back: its name, host, wall-clock start, overrides, scenario path,
 * run identity and record lines, in the order written.  A node run
 * without its name is refused, by file and run. */
START_TEST (test_node_record_read_back)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-tb-noderec-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autofree char *path = g_build_filename (dir, "p3.db", NULL);
  g_autoptr (SimScenario) s = load_neutral (NULL);
  g_autoptr (GError) error = NULL;
  char *sets[] = { (char *) "peers.count=4", (char *) "training.rounds=2", NULL };
  gint64 before = g_get_real_time ();
  gint64 t0_us = g_get_monotonic_time () - 5000000;   /* started 5 s ago */
  ResDb *db = res_db_open (path, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  ResNode *rn = testbed_node_record_begin (db, s, s->points->pdata[0], 42, "p3", t0_us, sets, "x/demo.ini", &error);
  ck_assert_msg (rn != NULL, "%s", error ? error->message : "?");
  res_node_add_line (rn, "F\t100\t3\t0\ta\t");
  res_node_add_line (rn, "T\t16\t10");
  res_node_add_line (rn, "F\t250\t3\t0\tb\t");
  res_node_finish (rn, "recorded");
  res_db_close (db);

  struct sqlite3 *rd = res_db_open_read (path, &error);
  ck_assert_msg (rd != NULL, "%s", error ? error->message : "?");
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) testbed_node_free);
  ck_assert_msg (testbed_merge_read_nodes (rd, path, nodes, &error), "%s", error ? error->message : "?");
  res_db_close_read (rd);
  ck_assert_uint_eq (nodes->len, 1);
  TestbedNode *n = nodes->pdata[0];
  ck_assert_str_eq (n->name, "p3");
  ck_assert_uint_eq (n->id, 3);
  ck_assert_str_eq (n->path, path);
  ck_assert_str_eq (n->host, g_get_host_name ());
  ck_assert_str_eq (n->sets, "peers.count=4\ntraining.rounds=2");
  ck_assert_str_eq (n->scenario_path, "x/demo.ini");
  ck_assert_str_eq (n->scenario, s->name);
  ck_assert_int_eq (n->point, 0);
  ck_assert_int_eq (n->seed, 42);
  ck_assert (n->finished);
  /* its start on the wall clock: 5 s before this test began, to the ms */
  ck_assert_msg (llabs ((n->t0_unix_us - (before - 5000000))) < 100000, "t0 %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT,
                 n->t0_unix_us, before - 5000000);
  ck_assert_uint_eq (n->lines->len, 3);
  ck_assert_str_eq (n->lines->pdata[1], "T\t16\t10");
  ck_assert_int_eq (g_array_index (n->times, DlTime, 1), 100);
  ck_assert_int_eq (g_array_index (n->times, DlTime, 2), 250);
  res_db_remove_files (path);

  /* a node run whose name is no node's: refused, naming the file and run */
  db = res_db_open (path, &error);
  ck_assert_ptr_nonnull (db);
  rn = testbed_node_record_begin (db, s, s->points->pdata[0], 42, "server", t0_us, NULL, "x/demo.ini", &error);
  ck_assert_ptr_nonnull (rn);
  gint64 run = res_node_run_id (rn);
  res_node_finish (rn, "recorded");
  res_db_close (db);
  rd = res_db_open_read (path, &error);
  ck_assert_ptr_nonnull (rd);
  g_autoptr (GPtrArray) none = g_ptr_array_new_with_free_func ((GDestroyNotify) testbed_node_free);
  ck_assert (!testbed_merge_read_nodes (rd, path, none, &error));
  res_db_close_read (rd);
  ck_assert_uint_eq (none->len, 0);
  g_autofree char *want = g_strdup_printf ("%s: run %" G_GINT64_FORMAT ": a node run without node.name or "
                                           "node.t0_unix_us", path, run);
  ck_assert_str_eq (error->message, want);
  res_db_remove_files (path);
  g_rmdir (dir);
}
END_TEST

/* ---------------------------------------------------------------- dlsim check --testbed */

static void
note_skip (const char *why, gpointer data)
{
  g_ptr_array_add (data, g_strdup (why));
}

/* Of the files check --testbed is given, the ones with an [expect] the
 * testbed can express are kept, in order; one it cannot express is
 * skipped with the file and key named; one without [expect] is left out
 * silently; a file that does not load stops the choice. */
START_TEST (test_select_checked)
{
  g_autofree char *cm3 = write_neutral ("checked.ini", "[expect]\noutcome = completed\n");
  g_autofree char *s15 = write_neutral ("link-down.ini", "[timeline]\nround 1 + 1s = link-down p1 p2\n"
                                                         "[expect]\noutcome = stalled\n");
  g_autofree char *demo = write_neutral ("unchecked.ini", "");
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  g_ptr_array_add (paths, s15);
  g_ptr_array_add (paths, cm3);
  g_ptr_array_add (paths, demo);   /* no [expect] */
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_scenario_free);
  g_autoptr (GPtrArray) said = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  guint skipped = 0;
  ck_assert_msg (testbed_select_checked (paths, NULL, FALSE, out, &skipped, note_skip, said, &error), "%s",
                 error ? error->message : "?");
  ck_assert_uint_eq (out->len, 1);
  ck_assert_str_eq (((SimScenario *) out->pdata[0])->path, cm3);
  ck_assert_uint_eq (skipped, 1);
  ck_assert_uint_eq (said->len, 1);
  g_autofree char *want = g_strdup_printf ("%s: [timeline] link-down: not supported in the testbed", s15);
  ck_assert_msg (g_str_has_prefix (said->pdata[0], want), "%s", (char *) said->pdata[0]);
  /* the overrides apply to every file: a loss the testbed refuses skips cm3 too */
  char *lossy[] = { (char *) "network.loss=0.1", NULL };
  g_ptr_array_set_size (out, 0);
  skipped = 0;
  ck_assert (testbed_select_checked (paths, lossy, FALSE, out, &skipped, NULL, NULL, &error));
  ck_assert_uint_eq (out->len, 0);
  ck_assert_uint_eq (skipped, 2);
  /* a file that does not load */
  g_autofree char *missing = scenario_path ("scenarios/no-such-file.ini");
  g_ptr_array_insert (paths, 1, missing);
  g_ptr_array_set_size (out, 0);
  ck_assert (!testbed_select_checked (paths, NULL, FALSE, out, &skipped, NULL, NULL, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_uint_eq (out->len, 0);   /* s15 was skipped before it; nothing after it was loaded */
  remove_neutral (cm3);
  remove_neutral (s15);
  remove_neutral (demo);
}
END_TEST

/* Repeat k runs with the given seed + k, or the scenario's own + k. */
START_TEST (test_repeat_seed)
{
  ck_assert_uint_eq (testbed_repeat_seed (-1, 7, 0), 7);
  ck_assert_uint_eq (testbed_repeat_seed (-1, 7, 2), 9);
  ck_assert_uint_eq (testbed_repeat_seed (0, 7, 0), 0);
  ck_assert_uint_eq (testbed_repeat_seed (100, 7, 3), 103);
}
END_TEST

static Suite *
testbed_suite (void)
{
  Suite *s = suite_create ("testbed");
  TCase *pr = tcase_create ("procs");
  tcase_add_test (pr, test_peer_argv);
  suite_add_tcase (s, pr);
  TCase *rf = tcase_create ("refusals");
  tcase_add_test (rf, test_refusals);
  tcase_add_test (rf, test_family_refused_before_anything);
  suite_add_tcase (s, rf);
  TCase *rc = tcase_create ("records");
  tcase_add_test (rc, test_records_both_ways);
  tcase_add_test (rc, test_rule_lines);
  tcase_add_test (rc, test_tally);
  suite_add_tcase (s, rc);
  TCase *mg = tcase_create ("merge");
  tcase_add_test (mg, test_node_names);
  tcase_add_test (mg, test_merge_clock);
  tcase_add_test (mg, test_merge_order);
  tcase_add_test (mg, test_merge_refusals);
  tcase_add_test (mg, test_node_record_read_back);
  tcase_add_test (mg, test_select_checked);
  tcase_add_test (mg, test_repeat_seed);
  suite_add_tcase (s, mg);
  return s;
}

int
main (void)
{
  res_init ();
  SRunner *sr = srunner_create (testbed_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
