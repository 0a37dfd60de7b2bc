/* test-scenario.c — scenario/sim-scenario: sweep expansion, expectation
 * comparison, and robustness: 2000 seeded mutations of the shipped scenario
 * files must load or fail with an error, never crash (ASan in CI). */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "protocol/proto-machine.h"
#include "base/dl-random.h"
#include "tests/family-harness.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

/* text of len bytes, NULs included */
static char *
write_tmp_len (const char *text, gssize len)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-scn-XXXXXX", NULL);
  char *path = g_build_filename (dir, "s.ini", NULL);
  g_assert (g_file_set_contents (path, text, len, NULL));
  return path;
}

static char *
write_tmp (const char *text)
{
  return write_tmp_len (text, -1);
}

static void
remove_tmp (char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
}

START_TEST (test_sweep_product)
{
  char *path = write_tmp ("[scenario]\nrepeat = 3\n[network]\nuplink = ${1Mbps, 2Mbps}\n"
                          "latency = exponential(${10ms, 20ms, 30ms})\n[peers]\ncount = 2\n");
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (s->points->len, 6);
  ck_assert_uint_eq (s->repeat, 3);
  SimPoint *p = s->points->pdata[5];
  ck_assert_str_eq (p->label, "network.uplink=2Mbps, network.latency=exponential(30ms)");
  SimPoint *q = s->points->pdata[1];
  ck_assert_str_eq (q->label, "network.uplink=1Mbps, network.latency=exponential(20ms)");
  SimBuilt b;
  ck_assert (sim_scenario_build (s, p, 9, &b, NULL));
  ck_assert_uint_eq (b.cfg.uplink_bps, 2000000);
  ck_assert_double_eq (b.cfg.latency.a, 30e6);
  ck_assert_uint_eq (b.cfg.seed, 9);
  sim_built_clear (&b);
  /* --set overrides, sweeps included */
  const char *sets[] = { "peers.count=${2, 3}", NULL };
  g_autoptr (SimScenario) t = sim_scenario_load (path, sets, &e);
  ck_assert_uint_eq (t->points->len, 12);
  remove_tmp (path);
}
END_TEST

START_TEST (test_crash_detection_values)
{
  /* network.crash_detection: a duration, a distribution, or never; anything
   * else names the file, the section and the key */
  const char *good[] = { "45s", "uniform(1min, 15min)", "never" };
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *text = g_strdup_printf ("[peers]\ncount = 2\n[network]\ncrash_detection = %s\n", good[i]);
      char *path = write_tmp (text);
      g_autoptr (GError) e = NULL;
      g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
      ck_assert_msg (s != NULL, "%s", e ? e->message : "");
      SimBuilt b;
      ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, &b, NULL));
      ck_assert (b.cfg.crash_never_detected == (i == 2));
      if (i == 0)
        ck_assert_double_eq (b.cfg.crash_detection.a, 45e9);
      if (i == 1)
        ck_assert_int_eq (b.cfg.crash_detection.kind, DL_DIST_UNIFORM);
      sim_built_clear (&b);
      remove_tmp (path);
    }
  char *path = write_tmp ("[peers]\ncount = 2\n[network]\ncrash_detection = sometimes\n");
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert (s == NULL);
  ck_assert_msg (strstr (e->message, "s.ini") && strstr (e->message, "[network]")
                 && strstr (e->message, "crash_detection") && strstr (e->message, "never"),
                 "%s", e->message);
  /* "round" alone in the timeline is an error, not a crash */
  char *p2 = write_tmp ("[peers]\ncount = 2\n[timeline]\nround = leave p1\n");
  g_autoptr (GError) e2 = NULL;
  g_autoptr (SimScenario) s2 = sim_scenario_load (p2, NULL, &e2);
  ck_assert (s2 == NULL && strstr (e2->message, "round N"));
  remove_tmp (p2);
  remove_tmp (path);
}
END_TEST

START_TEST (test_expect_compare)
{
  SimExpect e = { .key = (char *) "x", .op = SIM_OP_GE, .value = (char *) "8" };
  ck_assert (sim_expect_check (&e, "8"));
  ck_assert (sim_expect_check (&e, "9.5"));
  ck_assert (!sim_expect_check (&e, "7"));
  ck_assert (!sim_expect_check (&e, ""));
  ck_assert (!sim_expect_check (&e, NULL));
  e.op = SIM_OP_EQ;
  e.value = (char *) "completed";
  ck_assert (sim_expect_check (&e, "completed"));
  ck_assert (!sim_expect_check (&e, "stalled"));
  e.op = SIM_OP_NE;
  ck_assert (sim_expect_check (&e, "stalled"));
  e.op = SIM_OP_LT;   /* order on words is never true */
  ck_assert (!sim_expect_check (&e, "a"));
  e.op = SIM_OP_EQ;
  e.value = (char *) "0.1";
  ck_assert (sim_expect_check (&e, "0.10000000001"));
}
END_TEST

/* Values that passed the loader and then overflowed a product (a livelock,
 * a run stalled after 1 s) or aborted in malloc: each is refused, naming
 * the file, the section and the key, and saying the range (DISCO's keys:
 * protocol/disco/tests/test-disco-shared.c). */
static const struct {
  const char *text, *where, *range;
} out_of_range[] = {
  { "[scenario]\ntime_limit = 100001h\n", "[scenario] time_limit", "from 0 to 100000h" },
  { "[protocol]\nmodel_sync_timeout = 99999999999h\n", "[protocol] model_sync_timeout", "from 0 to 1000h" },
  { "[network]\nserver_latency = 2000000h\n", "[network] server_latency", "durations from 0 to 1000h" },
  { "[network]\ncrash_detection = uniform(1s, 2000000h)\n", "[network] crash_detection",
    "durations from 0 to 1000h" },
  { "[churn]\nsession = gamma(2, 2000000h)\n", "[churn] session", "durations from 0 to 1000h" },
  { "[model]\nsize = 4294967295\n", "[model] size", "from 1 to 250000000" },
  { "[model]\nsize = 1e12\n", "[model] size", "out of range (a whole number from 1 to 250000000" },
  { "[model]\nsize = 4294967296\n", "[model] size", "out of range (a whole number from 1 to 250000000" },
  { "[model]\nkind = softmax\n[data]\nfeatures = 4294967295\n", "[data] features", "from 1 to 1000000" },
  { "[peers]\ncount = 10000000\n", "[peers] count", "from 0 to 1000000" },
  { "[peers]\ncount = 3\n[timeline]\n1s = join p1000001\n", "[timeline] 1s", "p1 to p1000000" },
  { "[model]\nkind = softmax\n[data]\nfeatures = 1000000\nsamples = 1000\n", "[data] samples",
    "more than 250000000 floats" },
  { "[model]\nkind = mlp\nhidden = 1000000\n[data]\nfeatures = 1000\n", "[model] hidden", "at most 250000000" },
};

START_TEST (test_out_of_range)
{
  fh_assert_refused (out_of_range[_i].text, out_of_range[_i].where, out_of_range[_i].range);
}
END_TEST

/* [peers] stragglers: exactly round(share x count) of the peers, for
 * every seed (it was a coin flip a peer: seeds 3..12 of 20 peers at 0.1
 * gave 0 to 3); a share as a percentage too */
START_TEST (test_stragglers_exact_count)
{
  char *path = write_tmp ("[peers]\ncount = 20\nstragglers = 10% x5\n");
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  for (guint64 seed = 1; seed <= 20; seed++)
    {
      SimBuilt b;
      ck_assert (sim_scenario_build (s, s->points->pdata[0], seed, &b, &e));
      ck_assert_double_eq (b.cfg.straggler_share, 0.1);
      ck_assert_double_eq (b.cfg.straggler_slowdown, 5);
      guint n = 0;
      for (ProtoNodeId id = 1; id <= 20; id++)
        {
          SimPeerAttrs a;
          sim_peer_attributes (&b.cfg, id, &a);
          n += a.straggler;
        }
      ck_assert_msg (n == 2, "seed %" G_GUINT64_FORMAT ": %u stragglers of 20, wanted 2", seed, n);
      /* the next 20 (arrivals) have their 2 too */
      n = 0;
      for (ProtoNodeId id = 21; id <= 40; id++)
        {
          SimPeerAttrs a;
          sim_peer_attributes (&b.cfg, id, &a);
          n += a.straggler;
        }
      ck_assert_uint_eq (n, 2);
      sim_built_clear (&b);
    }
  g_autoptr (SimScenario) bad = sim_scenario_load (path, (const char *const[]) { "peers.stragglers=110% x5", NULL }, &e);
  ck_assert (bad == NULL);
  ck_assert_msg (strstr (e->message, "[peers] stragglers: '110% x5': expected SHARE xFACTOR"), "%s", e->message);
  remove_tmp (path);
}
END_TEST

/* [network] transport, slow_start_after_idle, hystart, min_rto, queue_bdp
 * and server_uplink/server_downlink: what they build (default tcp, true,
 * true, 0 (no timeout where flows converge: docs/world.md), 4 and
 * unlimited; min_rto = 200ms builds Linux's 200 ms), and a bad transport,
 * switch or queue named by its key. */
START_TEST (test_transport_keys)
{
  char *path = write_tmp ("[scenario]\ntime_limit = 1min\n[peers]\ncount = 2\n");
  struct { const char *set; SimWireTransport tr; uint64_t up; gboolean idle_restart, hystart; DlTime min_rto; } cases[] = {
    { "network.mss=1448B", SIM_TRANSPORT_TCP, 0, TRUE, TRUE, 0 },   /* tcp: the default */
    { "network.transport=fluid", SIM_TRANSPORT_FLUID, 0, TRUE, TRUE, 0 },
    { "network.transport=sctp", SIM_TRANSPORT_SCTP, 0, TRUE, TRUE, 0 },
    { "network.server_uplink=100Mbps", SIM_TRANSPORT_TCP, 100000000, TRUE, TRUE, 0 },
    { "network.slow_start_after_idle=false", SIM_TRANSPORT_TCP, 0, FALSE, TRUE, 0 },
    { "network.hystart=false", SIM_TRANSPORT_TCP, 0, TRUE, FALSE, 0 },
    { "network.min_rto=200ms", SIM_TRANSPORT_TCP, 0, TRUE, TRUE, 200 * DL_MS },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *sets[] = { cases[i].set, NULL };
      g_autoptr (GError) e = NULL;
      g_autoptr (SimScenario) s = sim_scenario_load (path, sets, &e);
      ck_assert_msg (s != NULL, "%s", e ? e->message : "");
      SimBuilt b;
      ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, &b, &e));
      ck_assert_int_eq (b.cfg.transport, cases[i].tr);
      ck_assert_uint_eq (b.cfg.server_uplink_bps, cases[i].up);
      ck_assert_uint_eq (b.cfg.server_downlink_bps, 0);
      ck_assert_int_eq (b.cfg.slow_start_after_idle, cases[i].idle_restart);
      ck_assert_int_eq (b.cfg.hystart, cases[i].hystart);
      ck_assert_int_eq (b.cfg.min_rto, cases[i].min_rto);
      ck_assert (b.cfg.queue_bdp == 4);
      sim_built_clear (&b);
    }
  const char *sets[] = { "network.transport=quic", NULL };
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, sets, &e);
  ck_assert (s == NULL);
  ck_assert_msg (strstr (e->message, "[network] transport: 'quic': expected fluid, tcp or sctp"), "%s", e->message);
  const char *sets2[] = { "network.slow_start_after_idle=1", NULL };
  g_autoptr (GError) e2 = NULL;
  g_autoptr (SimScenario) s2 = sim_scenario_load (path, sets2, &e2);
  ck_assert (s2 == NULL);
  ck_assert_msg (strstr (e2->message, "[network] slow_start_after_idle: '1': expected true or false"), "%s", e2->message);
  const char *sets4[] = { "network.hystart=yes", NULL };
  g_autoptr (GError) e4 = NULL;
  g_autoptr (SimScenario) s4 = sim_scenario_load (path, sets4, &e4);
  ck_assert (s4 == NULL);
  ck_assert_msg (strstr (e4->message, "[network] hystart: 'yes': expected true or false"), "%s", e4->message);
  const char *sets3[] = { "network.queue_bdp=-1", NULL };
  g_autoptr (GError) e3 = NULL;
  g_autoptr (SimScenario) s3 = sim_scenario_load (path, sets3, &e3);
  SimBuilt b3;
  ck_assert (s3 == NULL || !sim_scenario_build (s3, s3->points->pdata[0], 1, &b3, &e3));
  ck_assert_msg (strstr (e3->message, "[network] queue_bdp: must be from 0 to 1000"), "%s", e3->message);
  remove_tmp (path);
}
END_TEST

/* FedScale's traces through the loader: paths relative to the scenario
 * file, the format key, and errors that name the scenario's key and the
 * trace's file and line. */
START_TEST (test_fedscale_keys)
{
  char *path = write_tmp ("[scenario]\ntime_limit = 20min\n[peers]\ncount = 0\ncapacity = cap.jsonl\n"
                          "[churn]\ntrace = b.jsonl\ntrace_format = fedscale\nreturn_model = initial\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *cap = g_build_filename (dir, "cap.jsonl", NULL);
  g_autofree char *beh = g_build_filename (dir, "b.jsonl", NULL);
  ck_assert (g_file_set_contents (cap, "{\"client_id\": 2, \"computation\": 4, \"communication\": 100}\n", -1, NULL));
  ck_assert (g_file_set_contents (beh, "{\"client_id\": 2, \"duration\": 600, \"active\": [0], \"inactive\": [300]}\n",
                                  -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  SimBuilt b;
  ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, &b, &e));
  ck_assert_uint_eq (b.cfg.capacity->len, 3);
  ck_assert_uint_eq (g_array_index (b.cfg.capacity, SimCapacity, 2).bps, 102400);
  ck_assert_uint_eq (b.cfg.trace->len, 2);   /* 0-300 s and 600-900 s of a 20 min run */
  ck_assert (b.cfg.return_initial);
  ck_assert_uint_eq (b.cfg.max_peers, 2);
  sim_built_clear (&b);

  struct { const char *set, *needle; } bad[] = {
    { "churn.trace_format=xml", "[churn] trace_format: 'xml': expected csv or fedscale" },
    { "churn.return_model=latest", "[churn] return_model: 'latest': expected own or initial" },
    { "peers.capacity=none.jsonl", "[peers] capacity: " },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *sets[] = { bad[i].set, NULL };
      g_autoptr (GError) be = NULL;
      g_autoptr (SimScenario) bs = sim_scenario_load (path, sets, &be);
      ck_assert_msg (bs == NULL, "%s loaded", bad[i].set);
      ck_assert_msg (strstr (be->message, bad[i].needle), "'%s' lacks '%s'", be->message, bad[i].needle);
    }
  ck_assert (g_file_set_contents (cap, "\n{\"client_id\": 2, \"computation\": -4, \"communication\": 100}\n", -1, NULL));
  g_autoptr (GError) ce = NULL;
  g_autoptr (SimScenario) cs = sim_scenario_load (path, NULL, &ce);
  ck_assert (cs == NULL);
  ck_assert_msg (strstr (ce->message, "s.ini: [peers] capacity: ") && strstr (ce->message, "cap.jsonl:2: computation must be"),
                 "%s", ce->message);
  g_unlink (cap);
  g_unlink (beh);
  remove_tmp (path);
}
END_TEST

/* [network] bandwidth_trace through the loader: the path relative to the
 * scenario file, times in seconds or as durations, rates as the scenario
 * writes them; and errors that name the scenario's key, the trace's file
 * and line, and the column at fault. */
START_TEST (test_bandwidth_trace)
{
  char *path = write_tmp ("[peers]\ncount = 3\n[network]\nbandwidth_trace = bw.csv\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *csv = g_build_filename (dir, "bw.csv", NULL);
  ck_assert (g_file_set_contents (csv, "# a comment\nPeer, Time, Uplink, Downlink\np2,1.5,1Mbps,10Mbps\n"
                                  "3,2min,500kbps,1Gbps\np2,2s,2Mbps,20Mbps\n", -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  SimBuilt b;
  ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, &b, &e));
  ck_assert_uint_eq (b.cfg.rates->len, 3);
  const SimRateChange *r = (const SimRateChange *) (const void *) b.cfg.rates->data;
  ck_assert_uint_eq (r[0].peer, 2);
  ck_assert_int_eq (r[0].at, 1500 * DL_MS);
  ck_assert_uint_eq (r[0].up_bps, 1000000);
  ck_assert_uint_eq (r[0].down_bps, 10000000);
  ck_assert_uint_eq (r[0].line, 3);
  ck_assert_uint_eq (r[1].peer, 3);
  ck_assert_int_eq (r[1].at, 120 * DL_S);
  ck_assert_uint_eq (r[1].up_bps, 500000);
  ck_assert_uint_eq (r[1].down_bps, 1000000000);
  ck_assert_int_eq (r[2].at, 2 * DL_S);   /* file order, not time order */
  sim_built_clear (&b);

  static const struct { const char *text, *needle; } bad[] = {
    { "", "bw.csv: no header line (expected peer,time,uplink,downlink)" },
    { "p1,1,1Mbps,1Mbps\n", "bw.csv:1: 'p1,1,1Mbps,1Mbps': expected the header peer,time,uplink,downlink first" },
    { "peer,time,uplink\np1,1,1Mbps\n", "bw.csv:1: 'peer,time,uplink': expected the header" },
    { "peer,time,uplink,downlink\np1,1,1Mbps\n", "bw.csv:2: 'p1,1,1Mbps': 3 fields: expected 4" },
    { "peer,time,uplink,downlink\nq1,1,1Mbps,1Mbps\n", "bw.csv:2: 'q1,1,1Mbps,1Mbps': column 1 (peer): 'q1' is not a peer" },
    { "peer,time,uplink,downlink\np0,1,1Mbps,1Mbps\n", "bw.csv:2: 'p0,1,1Mbps,1Mbps': column 1 (peer)" },
    { "peer,time,uplink,downlink\np1,1,1Mbps,1Mbps\np4,1,1Mbps,1Mbps\n",
      "bw.csv:3: column 1 (peer): p4 is not in the run (its peers are p1 to p3" },
    { "peer,time,uplink,downlink\np1,-1,1Mbps,1Mbps\n", "bw.csv:2: 'p1,-1,1Mbps,1Mbps': column 2 (time): '-1' is negative" },
    { "peer,time,uplink,downlink\np1,-2s,1Mbps,1Mbps\n", "bw.csv:2: 'p1,-2s,1Mbps,1Mbps': column 2 (time): '-2s' is negative" },
    { "peer,time,uplink,downlink\np1,soon,1Mbps,1Mbps\n", "bw.csv:2: 'p1,soon,1Mbps,1Mbps': column 2 (time): " },
    { "peer,time,uplink,downlink\np1,5,1Mbps,1Mbps\np2,1,1Mbps,1Mbps\np1,3,1Mbps,1Mbps\n",
      "bw.csv:4: 'p1,3,1Mbps,1Mbps': column 2 (time): 3 s is not after the 5 s of p1's row on line 2" },
    { "peer,time,uplink,downlink\np1,5,1Mbps,1Mbps\np1,5s,2Mbps,1Mbps\n",
      "bw.csv:3: 'p1,5s,2Mbps,1Mbps': column 2 (time): 5 s is not after" },
    { "peer,time,uplink,downlink\np1,1,10Mbs,1Mbps\n", "bw.csv:2: 'p1,1,10Mbs,1Mbps': column 3 (uplink): '10Mbs'" },
    { "peer,time,uplink,downlink\np1,1,1Mbps,10bps\n",
      "bw.csv:2: 'p1,1,1Mbps,10bps': column 4 (downlink): '10bps': a rate must be from 1kbps" },
    { "peer,time,uplink,downlink\np1,1,1Mbps,\n", "bw.csv:2: 'p1,1,1Mbps,': column 4 (downlink): empty value" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ck_assert (g_file_set_contents (csv, bad[i].text, -1, NULL));
      g_autoptr (GError) be = NULL;
      g_autoptr (SimScenario) bs = sim_scenario_load (path, NULL, &be);
      ck_assert_msg (bs == NULL, "'%s' loaded", bad[i].text);
      ck_assert_msg (strstr (be->message, "s.ini: [network] bandwidth_trace: ") && strstr (be->message, bad[i].needle),
                     "'%s' lacks '%s'", be->message, bad[i].needle);
    }
  g_unlink (csv);
  g_autoptr (GError) me = NULL;
  g_autoptr (SimScenario) ms = sim_scenario_load (path, NULL, &me);
  ck_assert (ms == NULL);
  ck_assert_msg (strstr (me->message, "s.ini: [network] bandwidth_trace: ") && strstr (me->message, "bw.csv: "), "%s",
                 me->message);
  remove_tmp (path);
}
END_TEST

/* A churn trace's peer ids are bounded as peers.count is. */
START_TEST (test_trace_peer_out_of_range)
{
  char *path = write_tmp ("[churn]\ntrace = t.csv\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *csv = g_build_filename (dir, "t.csv", NULL);
  ck_assert (g_file_set_contents (csv, "p1,0,\np2000000,10,\n", -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert (s == NULL);
  ck_assert_msg (strstr (e->message, "s.ini: [churn] trace: peer 2000000 is out of range (1 to 1000000)"), "%s",
                 e->message);
  g_unlink (csv);
  remove_tmp (path);
}
END_TEST

/* The error that loading or building path's first point gives (transfer
 * full), or NULL if both succeed. */
static char *
refusal (const char *path)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  if (!s)
    return g_strdup (e->message);
  SimBuilt b;
  if (!sim_scenario_build (s, s->points->pdata[0], 1, &b, &e))
    return g_strdup (e->message);
  sim_built_clear (&b);
  return NULL;
}

/* An IDX file of unsigned bytes: the header, then n bytes of value v. */
static void
write_idx (const char *dir, const char *name, guint ndim, const guint32 *dims, gsize n, guint8 v)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint8 head[4] = { 0, 0, 0x08, (guint8) ndim };
  g_byte_array_append (b, head, 4);
  for (guint i = 0; i < ndim; i++)
    {
      guint8 be[4] = { (guint8) (dims[i] >> 24), (guint8) (dims[i] >> 16), (guint8) (dims[i] >> 8), (guint8) dims[i] };
      g_byte_array_append (b, be, 4);
    }
  g_autofree guint8 *data = g_malloc (n);
  memset (data, v, n);
  g_byte_array_append (b, data, (guint) n);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  ck_assert (g_file_set_contents (path, (const char *) b->data, b->len, NULL));
}

/* Files within every bound of their own that make a model every peer
 * holds a copy of: refused before anything is allocated, naming the key,
 * the data and the run's bound (1 GB a copy once made 3 peers hold 6 GB
 * and 8 abort in malloc). */
START_TEST (test_model_copies_bounded)
{
  char *path = write_tmp ("[model]\nkind = softmax\n[data]\nsource = idx:d\n[peers]\ncount = 3\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *d = g_build_filename (dir, "d", NULL);
  ck_assert_int_eq (g_mkdir (d, 0700), 0);
  /* one image of 1000 x 975 bytes, label 255: 256 x 975 001 weights */
  const guint32 idim[3] = { 1, 1000, 975 }, ldim[1] = { 1 };
  write_idx (d, "train-images-idx3-ubyte", 3, idim, 975000, 7);
  write_idx (d, "t10k-images-idx3-ubyte", 3, idim, 975000, 7);
  write_idx (d, "train-labels-idx1-ubyte", 1, ldim, 1, 255);
  write_idx (d, "t10k-labels-idx1-ubyte", 1, ldim, 1, 255);
  g_autofree char *m = refusal (path);
  ck_assert_msg (m && strstr (m, "s.ini: [data] source: a softmax of 975000 features and 256 classes (data.source "
                                 "idx:d) has 249600256 weights")
                 && strstr (m, "3 peers + 1) = 998401024 floats, more than the run's bound of 500000000"),
                 "%s", m ? m : "loaded");
  const char *names[] = { "train-images-idx3-ubyte", "t10k-images-idx3-ubyte", "train-labels-idx1-ubyte",
                          "t10k-labels-idx1-ubyte" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *f = g_build_filename (d, names[i], NULL);
      g_unlink (f);
    }
  g_rmdir (d);

  /* a CSV of 4000 features and a label of 50 000: 200 million weights */
  g_autofree char *csv = g_build_filename (dir, "w.csv", NULL);
  GString *row = g_string_new (NULL);
  for (guint f = 0; f < 4000; f++)
    g_string_append (row, "0,");
  g_string_append (row, "0\n");
  g_autofree char *text = g_strdup_printf ("%s%.*s50000\n", row->str, (int) row->len - 2, row->str);
  g_string_free (row, TRUE);
  ck_assert (g_file_set_contents (csv, text, -1, NULL));
  ck_assert (g_file_set_contents (path, "[model]\nkind = softmax\n[data]\nsource = csv:w.csv\ntest_fraction = 0\n"
                                  "[peers]\ncount = 3\n", -1, NULL));
  g_autofree char *m2 = refusal (path);
  ck_assert_msg (m2 && strstr (m2, "s.ini: [data] source: a softmax of 4000 features and 50001 classes (data.source "
                                   "csv:w.csv) has 200054001 weights")
                 && strstr (m2, "the run's bound of 500000000"), "%s", m2 ? m2 : "loaded");
  /* an mlp names its hidden units; one peer fewer than the bound passes */
  ck_assert (g_file_set_contents (path, "[model]\nkind = mlp\nhidden = 10000\n[data]\nfeatures = 10000\nsamples = 10\n"
                                  "[peers]\ncount = 5\n", -1, NULL));
  g_autofree char *m3 = refusal (path);
  ck_assert_msg (m3 && strstr (m3, "s.ini: [model] hidden: an mlp of 10000 features, 10000 hidden units")
                 && strstr (m3, "(5 peers + 1) = 600"), "%s", m3 ? m3 : "loaded");
  ck_assert (g_file_set_contents (path, "[model]\nkind = mlp\nhidden = 10000\n[data]\nfeatures = 10000\nsamples = 10\n"
                                  "[peers]\ncount = 3\n", -1, NULL));
  g_autofree char *m4 = refusal (path);
  ck_assert_msg (m4 == NULL, "%s", m4);
  g_unlink (csv);
  remove_tmp (path);
}
END_TEST

/* A FedScale behaviour trace is bounded by the file, not by the line:
 * lines each under a line's bound once made 200 million intervals. */
START_TEST (test_fedscale_intervals_per_file)
{
  char *path = write_tmp ("[scenario]\ntime_limit = 600000s\n[peers]\ncount = 0\n"
                          "[churn]\ntrace = b.jsonl\ntrace_format = fedscale\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *beh = g_build_filename (dir, "b.jsonl", NULL);
  /* each line 600 000 intervals (online half of every second) */
#define LINE "{\"client_id\": %u, \"duration\": 1, \"active\": [0], \"inactive\": [0.5]}\n"
  g_autofree char *one = g_strdup_printf (LINE, 1u);
  g_autofree char *two = g_strdup_printf (LINE, 2u);
#undef LINE
  g_autofree char *both = g_strconcat (one, two, NULL);
  ck_assert (g_file_set_contents (beh, one, -1, NULL));
  g_autofree char *m1 = refusal (path);
  ck_assert_msg (m1 == NULL, "%s", m1);
  ck_assert (g_file_set_contents (beh, both, -1, NULL));
  g_autofree char *m2 = refusal (path);
  ck_assert_msg (m2 && strstr (m2, "s.ini: [churn] trace: ") && strstr (m2, "b.jsonl:2: the file's intervals up to the "
                                                                       "time limit pass 1 000 000 with this line"),
                 "%s", m2 ? m2 : "loaded");
  g_unlink (beh);
  remove_tmp (path);
}
END_TEST

/* A line of 100 000 nested [ overflowed the stack in json-glib's
 * recursive parser (SIGSEGV): the depth is scanned first, and the line
 * refused with the file and the line; brackets inside a string count
 * for nothing. */
START_TEST (test_fedscale_nesting)
{
  char *path = write_tmp ("[peers]\ncount = 0\n[churn]\ntrace = b.jsonl\ntrace_format = fedscale\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *beh = g_build_filename (dir, "b.jsonl", NULL);
  g_autofree char *deep = g_strnfill (100000, '[');
  g_autofree char *text = g_strdup_printf ("{\"client_id\": 1, \"duration\": 60, \"active\": [0], \"inactive\": [30], "
                                           "\"model\": \"[[[[[[[[[[[[[[[[[[[[{{{{\\\"\"}\n# a comment\n%s\n", deep);
  ck_assert (g_file_set_contents (beh, text, -1, NULL));
  g_autofree char *m = refusal (path);
  ck_assert_msg (m && strstr (m, "s.ini: [churn] trace: ") && strstr (m, "b.jsonl:3: [ and { nest more than 16 deep"),
                 "%s", m ? m : "loaded");
  /* 16 deep is not too deep: json-glib's own message */
  g_autofree char *sixteen = g_strnfill (15, '[');
  g_autofree char *text2 = g_strdup_printf ("{\"client_id\": %s\n", sixteen);
  ck_assert (g_file_set_contents (beh, text2, -1, NULL));
  g_autofree char *m2 = refusal (path);
  ck_assert_msg (m2 && strstr (m2, "b.jsonl:1: ") && !strstr (m2, "nest more"), "%s", m2 ? m2 : "loaded");
  g_unlink (beh);
  remove_tmp (path);
}
END_TEST

/* An empty churn trace once ran with no churn and no word: it loads (a
 * sweep's baseline may be one) with a warning naming the key and the
 * file, once however many points share it; a trace with rows has none. */
START_TEST (test_empty_trace_warns)
{
  char *path = write_tmp ("[peers]\ncount = 3\nspeed = ${1, 2}\n[churn]\ntrace = t.csv\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *csv = g_build_filename (dir, "t.csv", NULL);
  const char *texts[] = { "", "peer,join,leave\n# nothing\n", "p1,0,10\n" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      ck_assert (g_file_set_contents (csv, texts[i], -1, NULL));
      g_autoptr (GError) e = NULL;
      g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
      ck_assert_msg (s != NULL, "%s", e ? e->message : "");
      if (i == 2)
        {
          ck_assert_uint_eq (s->warnings->len, 0);
          continue;
        }
      ck_assert_uint_eq (s->warnings->len, 1);
      const char *w = s->warnings->pdata[0];
      ck_assert_msg (strstr (w, "s.ini: [churn] trace: ") && strstr (w, "t.csv: no peer is ever online in it")
                     && strstr (w, "the run has no trace churn"), "%s", w);
    }
  ck_assert (g_file_set_contents (path, "[churn]\ntrace = b.jsonl\ntrace_format = fedscale\n[peers]\ncount = 2\n"
                                  "[scenario]\ntime_limit = 1min\n", -1, NULL));
  g_autofree char *beh = g_build_filename (dir, "b.jsonl", NULL);
  ck_assert (g_file_set_contents (beh, "{\"client_id\": 1, \"duration\": 600, \"active\": [120], \"inactive\": [300]}\n",
                                  -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (s->warnings->len, 1);
  ck_assert_msg (strstr (s->warnings->pdata[0], "every interval after scenario.time_limit"), "%s",
                 (char *) s->warnings->pdata[0]);
  g_unlink (beh);
  g_unlink (csv);
  remove_tmp (path);
}
END_TEST

/* Messages that once misled: a duplicate key got a hint about timeline
 * actions and no line; the rate bound named a unit, Tbps, that does not
 * exist; an exponent in a duration was "unknown duration unit 'e'". */
static const struct { const char *text, *needle, *not; } unclear[] = {
  { "[peers]\ncount = 2\nspeed = 1\n\n[network]\nuplink = 1Mbps\n[peers]\ncount = 3\n",
    "s.ini: [peers] count: appears twice, on lines 2 and 8: a key is given once in a section", "timeline" },
  { "[timeline]\n5min = crash p1\n# a comment = x\n 5min=crash p2\n",
    "s.ini: [timeline] 5min: appears twice, on lines 2 and 4: a key is given once in a section (several timeline "
    "actions at one instant go on one line, separated by ;)", NULL },
  { "[network]\nuplink = uniform(0bps, 1bps)\n",
    "s.ini: [network] uplink: the distribution's mean must be from 1kbps to below 1000000Gbps (1e15 bit/s)", "Tbps" },
  { "[churn]\narrival_rate = 1/min\nsession = weibull(1e300s, 1)\n",
    "s.ini: [churn] session: 'weibull(1e300s, 1)': argument 1 of weibull(scale, shape): '1e300s': a duration takes "
    "no exponent (e or E)", "unit 'e'" },
  { "[scenario]\ntime_limit = 1e3s\n", "s.ini: [scenario] time_limit: '1e3s': a duration takes no exponent",
    "out of range" },
};

START_TEST (test_unclear_messages)
{
  char *path = write_tmp (unclear[_i].text);
  g_autofree char *m = refusal (path);
  ck_assert_msg (m && strstr (m, unclear[_i].needle) && !(unclear[_i].not && strstr (m, unclear[_i].not)), "%s",
                 m ? m : "loaded");
  remove_tmp (path);
}
END_TEST

/* A bandwidth trace's rate bound names real units. */
START_TEST (test_bwtrace_rate_bound)
{
  char *path = write_tmp ("[peers]\ncount = 2\n[network]\nbandwidth_trace = bw.csv\n");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *csv = g_build_filename (dir, "bw.csv", NULL);
  ck_assert (g_file_set_contents (csv, "peer,time,uplink,downlink\np1,1,2000000Gbps,1Mbps\n", -1, NULL));
  g_autofree char *m = refusal (path);
  ck_assert_msg (m && strstr (m, "bw.csv:2: ") && strstr (m, "a rate must be from 1kbps to below 1000000Gbps")
                 && !strstr (m, "Tbps"), "%s", m ? m : "loaded");
  g_unlink (csv);
  remove_tmp (path);
}
END_TEST

/* Every value at its largest: no registered family's stall window
 * overflows (UBSan traps a signed overflow); DISCO's robust waits:
 * protocol/disco/tests/test-disco-shared.c. */
START_TEST (test_largest_values)
{
  for (guint i = 0; proto_family_at (i); i++)
    {
      SimBuilt b;
      fh_build_largest (proto_family_at (i), NULL, &b);
      sim_built_clear (&b);
    }
}
END_TEST

/* A NUL byte cut the file where it stood (a NUL before [expect] checked
 * nothing, one at the start ran every default): it is refused, with the
 * file and the line. */
START_TEST (test_nul_byte)
{
  static const char text[] = "[peers]\ncount = 3\n\0[expect]\noutcome = completed\n";
  char *path = write_tmp_len (text, sizeof text - 1);
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert (s == NULL);
  ck_assert_msg (strstr (e->message, "s.ini:3: ") && strstr (e->message, "NUL"), "%s", e->message);
  remove_tmp (path);
  char *p2 = write_tmp_len ("\0[peers]\ncount = 3\n", 20);
  g_autoptr (GError) e2 = NULL;
  g_autoptr (SimScenario) s2 = sim_scenario_load (p2, NULL, &e2);
  ck_assert (s2 == NULL);
  ck_assert_msg (strstr (e2->message, "s.ini:1: ") && strstr (e2->message, "NUL"), "%s", e2->message);
  remove_tmp (p2);
}
END_TEST

/* Text that is not UTF-8 reached g_variant_new_string (a GLib-CRITICAL,
 * fatal here) and the results: refused with file, section and key. */
static const struct {
  const char *text, *where;
} bad_utf8[] = {
  { "[peers]\ncount = 4\n[network]\nregions = e\xffu:2, us:2\n", "s.ini: [network] regions: " },
  { "[scenario]\ndescription = caf\xe9\n", "s.ini: [scenario] description: " },
  { "[expect]\npeer.p\xc3.outcome = finished\n", "s.ini: [expect] peer.p" },
  { "[timeline]\n1s = crash p\xff" "1\n", "s.ini: [timeline] 1s: " },
};

START_TEST (test_invalid_utf8)
{
  char *path = write_tmp (bad_utf8[_i].text);
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert (s == NULL);
  ck_assert_msg (strstr (e->message, bad_utf8[_i].where) && strstr (e->message, "not valid UTF-8"), "%s", e->message);
  ck_assert (g_utf8_validate (e->message, -1, NULL));
  remove_tmp (path);
}
END_TEST

/* A scenario without a name is named after its file, whose name is bytes:
 * the name is text all the same. */
START_TEST (test_name_from_file_is_utf8)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-scn-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "caf\xe9.ini", NULL);
  ck_assert (g_file_set_contents (path, "[peers]\ncount = 3\n", -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  ck_assert (g_utf8_validate (s->name, -1, NULL));
  ck_assert (g_str_has_prefix (s->name, "caf"));
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

static gint
cmp_text (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* adds the text of every *.ini file right in dir to out */
static void
add_texts (GPtrArray *out, const char *dir)
{
  g_autoptr (GDir) gd = g_dir_open (dir, 0, NULL);
  const char *n;
  while (gd && (n = g_dir_read_name (gd)))
    if (g_str_has_suffix (n, ".ini"))
      {
        char *text = NULL;
        g_autofree char *p = g_build_filename (dir, n, NULL);
        if (g_file_get_contents (p, &text, NULL, NULL))
          g_ptr_array_add (out, text);
      }
}

/* adds the texts of a scenarios folder's small subfolders */
static void
add_small_folders (GPtrArray *out, const char *top)
{
  const char *small[] = { "regression", "failures", "edge" };
  for (gsize d = 0; d < G_N_ELEMENTS (small); d++)
    {
      g_autofree char *dir = g_build_filename (top, small[d], NULL);
      add_texts (out, dir);
    }
}

/* the shipped scenarios' texts: scenarios/'s and each family's own
 * (protocol/FAMILY/scenarios/), each with its small folders, and
 * scenarios/examples/ */
static GPtrArray *
shipped (void)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  const char *src = g_getenv ("DLSIM_SRCDIR");
  g_autofree char *scen = g_build_filename (src ? src : ".", "scenarios", NULL);
  g_autofree char *examples = g_build_filename (scen, "examples", NULL);
  add_texts (out, scen);
  add_small_folders (out, scen);
  add_texts (out, examples);
  g_autofree char *top = g_build_filename (src ? src : ".", "protocol", NULL);
  g_autoptr (GDir) families = g_dir_open (top, 0, NULL);
  const char *f;
  while (families && (f = g_dir_read_name (families)))
    {
      g_autofree char *dir = g_build_filename (top, f, "scenarios", NULL);
      add_texts (out, dir);
      add_small_folders (out, dir);
    }
  g_ptr_array_sort (out, cmp_text);
  return out;
}

static const char *const fragments[] = {
  "${", "}", "${1,", "(", ")", ",", "=", "[", "]", "#", ";", "|", "round", "+", "-1", "0",
  "1e308", "nan", "inf", "99999999999h", "p0", "p99999", "server", "by", "count", "\t",
  "uniform(", "exponential(0s)", "normal(1s, -1s)", "dirichlet(0)", "shards(0)", "1/ms",
  "0bps", "symmetric(2)", "1 x0", "join p3 speed=0", "link-slow p1 p2 by 1h",
  "partition p1 | server", "drop Payload to p1 count 3", "\xff\xfe", "=${}", "[expect]\nx = >=",
};

START_TEST (test_mutations_never_crash)
{
  g_autoptr (GPtrArray) files = shipped ();
  ck_assert_uint_ge (files->len, 20);
  g_autoptr (DlRandom) r = dl_random_new (2026, "scenario-fuzz", 0);
  guint loaded = 0, refused = 0;
  for (int it = 0; it < 2000; it++)
    {
      const char *base = files->pdata[dl_random_below (r, files->len)];
      GString *s = g_string_new (base);
      int edits = 1 + (int) dl_random_below (r, 4);
      for (int k = 0; k < edits && s->len > 0; k++)
        {
          gsize at = (gsize) dl_random_below (r, s->len);
          switch (dl_random_below (r, 3))
            {
            case 0:
              g_string_insert (s, (gssize) at, fragments[dl_random_below (r, G_N_ELEMENTS (fragments))]);
              break;
            case 1:
              {
                gsize n = 1 + (gsize) dl_random_below (r, 20);   /* drawn once: MIN evaluates twice */
                g_string_erase (s, (gssize) at, (gssize) MIN (s->len - at, n));
                break;
              }
            default:
              g_string_truncate (s, at);
              break;
            }
        }
      char *path = write_tmp (s->str);
      g_autoptr (GError) e = NULL;
      SimScenario *sc = sim_scenario_load (path, NULL, &e);
      if (sc)
        loaded++;
      else
        {
          ck_assert (e != NULL && e->message[0]);
          refused++;
        }
      sim_scenario_free (sc);
      remove_tmp (path);
      g_string_free (s, TRUE);
    }
  /* both outcomes happen: the mutations are neither all harmless nor all fatal */
  ck_assert_uint_gt (loaded, 100);
  ck_assert_uint_gt (refused, 100);
}
END_TEST


/* ---- the key table: the common keys merged with each family's ---- */

static const ProtoFamily *const *
families (void)
{
  static const ProtoFamily *f[16];
  for (guint i = 0; i + 1 < G_N_ELEMENTS (f); i++)
    f[i] = proto_family_at (i);
  return f;
}

static guint
table_count (const char *full)
{
  guint n = 0;
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    n += strcmp (t[i], full) == 0;
  return n;
}

/* Every key a family declares is listed once and is not in the common
 * table; the registry's tables pass the check. */
START_TEST (test_family_keys_declared_once)
{
  g_autoptr (GError) e = NULL;
  ck_assert_msg (sim_scenario_keys_check (families (), &e), "%s", e ? e->message : "");
  guint n_family_keys = 0;
  for (guint f = 0; proto_family_at (f); f++)
    {
      const ProtoFamily *fam = proto_family_at (f);
      ck_assert_ptr_nonnull (fam->keys);
      for (guint i = 0; i < fam->keys->n_rows; i++)
        {
          if (fam->keys->rows[i].group)
            continue;  /* a group's place (its keys: below) */
          n_family_keys++;
          g_autofree char *full = g_strdup_printf ("%s.%s", fam->keys->rows[i].section, fam->keys->rows[i].key);
          ck_assert_msg (!sim_scenario_key_is_common (full), "%s of %s is in the common table", full, fam->name);
          ck_assert_msg (table_count (full) == 1, "%s is listed %u times", full, table_count (full));
          ck_assert (sim_scenario_key_applies (full, fam->name));
        }
    }
  ck_assert_uint_gt (n_family_keys, 0);
  /* the keys every family takes are the common ones and every_family's */
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    ck_assert_msg (table_count (t[i]) == 1, "%s is listed %u times", t[i], table_count (t[i]));
}
END_TEST

/* the registry's families but those named in except (NULL: none),
 * joined by " or " */
static char *
families_but (const char *const *except)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; proto_family_at (i); i++)
    if (!except || !g_strv_contains (except, proto_family_at (i)->name))
      g_string_append_printf (s, "%s%s", s->len ? " or " : "", proto_family_at (i)->name);
  return g_string_free (s, FALSE);
}

/* the registry's families that do not refuse the common key full, joined
 * by " or " */
static char *
families_refusing_not (const char *full)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; proto_family_at (i); i++)
    {
      const ProtoFamilyKeys *k = proto_family_at (i)->keys;
      if (!(k && k->refused && g_strv_contains (k->refused, full)))
        g_string_append_printf (s, "%s%s", s->len ? " or " : "", proto_family_at (i)->name);
    }
  return g_string_free (s, FALSE);
}

/* The common table's [protocol] keys are the choice of a family and the
 * replicated coordinator's (protocol/replica/, every family): a family's
 * key moved into the common table fails here. */
START_TEST (test_common_protocol_keys)
{
  static const char *const common[] = {
    "protocol.family", "protocol.coordinator_replicas", "protocol.coordinator_replication",
    "protocol.replica_heartbeat", "protocol.replica_election_timeout", "protocol.resume_timeout", NULL,
  };
  const char *const *t = sim_scenario_key_table ();
  guint n = 0;
  for (guint i = 0; t[i]; i += 3)
    if (g_str_has_prefix (t[i], "protocol.") && sim_scenario_key_is_common (t[i]))
      {
        ck_assert_msg (g_strv_contains (common, t[i]), "%s is a family's key in the common table", t[i]);
        n++;
      }
  ck_assert_uint_eq (n, g_strv_length ((char **) common));
  /* the families that take a family's key or a group's: DISCO's
   * (protocol/disco/tests/test-disco-shared.c) and the others' in their
   * own tests (test-gossip.c) */
  /* a common key a family refuses: every family of the registry, in its
   * order, but the ones that refuse it (a family's own tests say which
   * it refuses: test-pipeline.c) */
  static const char *const refused[] = { "training.rounds", "model.kind", NULL };
  g_autofree char *all = families_but (NULL);
  for (guint k = 0; refused[k]; k++)
    {
      g_autofree char *but = families_refusing_not (refused[k]);
      if (strcmp (but, all) != 0)
        ck_assert_str_eq (sim_scenario_key_family (refused[k]), but);
      else
        ck_assert_ptr_null (sim_scenario_key_family (refused[k]));
    }
  ck_assert_ptr_null (sim_scenario_key_family ("protocol.payload_timeout"));
  ck_assert_ptr_null (sim_scenario_key_family ("network.latency"));
}
END_TEST

/* A family's keys stand without any other family's folder: the registry
 * without one family still passes the check (no family takes a key only
 * the removed one declares), as tools/family-diff's tree without it needs. */
START_TEST (test_keys_stand_without_a_family)
{
  const ProtoFamily *const *reg = families ();
  for (guint out = 0; reg[out]; out++)
    {
      const ProtoFamily *list[16] = { NULL };
      guint n = 0;
      for (guint i = 0; reg[i]; i++)
        if (i != out)
          list[n++] = reg[i];
      g_autoptr (GError) e = NULL;
      ck_assert_msg (sim_scenario_keys_check (list, &e), "without %s: %s", reg[out]->name, e ? e->message : "");
    }
}
END_TEST

static const ProtoKey leaked_rows[] = {
  { "protocol", "leaked_knob", "1", PROTO_KEY_NUM, "a key of its own" },
  { "network", "latency", "1ms", PROTO_KEY_DUR, "a common key declared again" },
};
static const ProtoFamilyKeys leaked_keys = { .rows = leaked_rows, .n_rows = G_N_ELEMENTS (leaked_rows) };
static const ProtoKey owned_rows[] = {
  { "protocol", "owned_knob", "3", PROTO_KEY_UINT, "a key of its own, or another family's declared again" },
};
static const ProtoFamilyKeys owned_keys = { .rows = owned_rows, .n_rows = G_N_ELEMENTS (owned_rows) };
static const char *const bad_shared[] = { "network.latency", NULL };
static const ProtoFamilyKeys takes_common_keys = { .shared = bad_shared };
static const char *const bad_refused[] = { "protocol.owned_knob", NULL };
static const ProtoFamilyKeys refuses_family_key = { .refused = bad_refused };
static const ProtoKey placer_rows[] = { PROTO_KEY_GROUP_HERE (proto_keys_stragglers) };
static const ProtoFamilyKeys places_untaken_group = { .rows = placer_rows, .n_rows = G_N_ELEMENTS (placer_rows) };

/* The check finds a key declared twice (a common key, another family's:
 * "owner" and "again" declare the same, registered after the registry),
 * a family taking a key no other family declares, and one refusing a key
 * that is not common (a registered family's: test-disco-shared.c). */
START_TEST (test_keys_check_finds_faults)
{
  const ProtoFamily leaked = { .name = "leaked", .keys = &leaked_keys };
  const ProtoFamily owner = { .name = "owner", .keys = &owned_keys };
  const ProtoFamily again = { .name = "again", .keys = &owned_keys };
  const ProtoFamily taker = { .name = "taker", .keys = &takes_common_keys };
  const ProtoFamily refuser = { .name = "refuser", .keys = &refuses_family_key };
  const ProtoFamily placer = { .name = "placer", .keys = &places_untaken_group };
  const ProtoFamily *const *reg = families ();
  guint n = 0;
  while (reg[n])
    n++;
  const ProtoFamily *fake[5] = { NULL };
  const ProtoFamily *list[21] = { NULL };
  fake[0] = &leaked, fake[1] = &again, fake[2] = &taker, fake[3] = &refuser, fake[4] = &placer;
  const char *want[] = { "network.latency is declared twice", "protocol.owned_knob is declared twice",
                         "taker takes network.latency", "refuser refuses protocol.owned_knob",
                         "placer places a group of protocol/" };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      memcpy (list, reg, n * sizeof *list);
      list[n] = &owner;
      list[n + 1] = fake[k];
      list[n + 2] = NULL;
      g_autoptr (GError) e = NULL;
      ck_assert (!sim_scenario_keys_check (list, &e));
      ck_assert_msg (strstr (e->message, want[k]) != NULL, "%s", e->message);
    }
}
END_TEST

static Suite *
scenario_suite (void)
{
  Suite *s = suite_create ("scenario");
  TCase *tc = tcase_create ("loader");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_sweep_product);
  tcase_add_test (tc, test_stragglers_exact_count);
  tcase_add_test (tc, test_family_keys_declared_once);
  tcase_add_test (tc, test_common_protocol_keys);
  tcase_add_test (tc, test_keys_check_finds_faults);
  tcase_add_test (tc, test_keys_stand_without_a_family);
  tcase_add_test (tc, test_expect_compare);
  tcase_add_test (tc, test_crash_detection_values);
  tcase_add_test (tc, test_mutations_never_crash);
  tcase_add_loop_test (tc, test_out_of_range, 0, G_N_ELEMENTS (out_of_range));
  tcase_add_test (tc, test_trace_peer_out_of_range);
  tcase_add_test (tc, test_model_copies_bounded);
  tcase_add_test (tc, test_fedscale_intervals_per_file);
  tcase_add_test (tc, test_fedscale_nesting);
  tcase_add_test (tc, test_empty_trace_warns);
  tcase_add_loop_test (tc, test_unclear_messages, 0, G_N_ELEMENTS (unclear));
  tcase_add_test (tc, test_bwtrace_rate_bound);
  tcase_add_test (tc, test_bandwidth_trace);
  tcase_add_test (tc, test_fedscale_keys);
  tcase_add_test (tc, test_transport_keys);
  tcase_add_test (tc, test_largest_values);
  tcase_add_test (tc, test_nul_byte);
  tcase_add_loop_test (tc, test_invalid_utf8, 0, G_N_ELEMENTS (bad_utf8));
  tcase_add_test (tc, test_name_from_file_is_utf8);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  /* a GLib warning or critical from the loader is a failure */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  SRunner *sr = srunner_create (scenario_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
