/* testbed.c — the testbed's orchestrator: one run of a scenario point on
 * real sockets and processes (testbed.h).  The coordinator runs in this
 * process (testbed/testbed-host.c on TCP); each peer is a `dlsim node peer`
 * child (testbed-procs.c) whose records come back on its stdout and are
 * tallied (testbed-tally.c).  Joins spawn a child, leaves ask it to leave
 * (it closes its links and stream), crashes SIGKILL it.  The timeline's
 * actions run at their wall-clock time or at `round N`; drop, delay, slow
 * and link-fail rules go to every live process and to those that join
 * later; with --netem, partition and heal are blackhole routes
 * (testbed-netns.c).
 *
 * Network conditions: by default loopback, with the scenario's latency and
 * link setup added by the sending process, so that the run has the file's
 * network (bandwidth is not shaped); with --no-latency, loopback at its own
 * speed (where DISCO's F1 race shows, docs/found.md); with --netem (root),
 * a network namespace per peer with the bandwidth shaped by tc tbf, and the
 * latency and link setup added by the sending process, since this kernel
 * has no sch_netem.  The run's params (testbed.network) say which. */
#include "config.h"

#include "testbed/testbed.h"
#include "testbed/testbed-private.h"
#include "testbed/testbed-records.h"
#include "testbed/testbed-secret.h"

#include <glib-unix.h>
#include <signal.h>
#include <string.h>

const char testbed_help[] =
  "The coordinator runs in this process, each peer in a `dlsim node peer` process,\n"
  "over TCP; the run is recorded with runs.mode = 'testbed'.\n"
  "Supported: join, leave (graceful), crash (SIGKILL), drop, delay, slow, link-fail,\n"
  "at a time or at `round N`, and [churn] traces.  Refused: churn arrivals, NAT,\n"
  "connect_failure, loss, bandwidth_trace, link-down, link-slow; partition and heal need --netem.\n"
  "Network: by default loopback, with [network] latency and link setup added by\n"
  "the sending process (bandwidth is not shaped), so that the run has the file's\n"
  "latencies.  --no-latency: loopback at its own speed, where a peer-to-peer path\n"
  "faster than the coordinator's shows DISCO's F1 race (docs/found.md).  With\n"
  "--netem (root): a network namespace per peer on a bridge, uplink and downlink\n"
  "shaped by tc tbf, latency and link setup added by the sending process (this\n"
  "kernel has no sch_netem).  Namespaces left by a dlsim that was killed are\n"
  "removed at the next --netem run.\n"
  "Compare with the simulator: dlsim compare SIM.db TESTBED.db.";

void
testbed_report_init (TestbedReport *r)
{
  memset (r, 0, sizeof *r);
  r->failed = g_ptr_array_new_with_free_func (g_free);
}

void
testbed_report_clear (TestbedReport *r)
{
  g_clear_pointer (&r->failed, g_ptr_array_unref);
}

/* ---------------------------------------------------------------- what it runs */

gboolean
testbed_supported (const SimBuilt *b, const char *path, gboolean netem, GError **error)
{
  const SimWorldConfig *c = &b->cfg;
  const char *bad = NULL;
  if (c->arrival_rate_per_s > 0)
    bad = "[churn] arrival_rate";
  else if (c->nat_symmetric_share > 0)
    bad = "[peers] nat";
  else if (c->connect_failure > 0)
    bad = "[network] connect_failure";
  else if (c->loss > 0)
    bad = "[network] loss";
  else if (c->rates)
    bad = "[network] bandwidth_trace";
  else if (c->proto.coordinator_replicas > 1)
    bad = "[protocol] coordinator_replicas > 1 (the testbed runs one coordinator)";
  for (guint i = 0; !bad && i < c->actions->len; i++)
    {
      const SimAction *a = &g_array_index (c->actions, SimAction, i);
      switch (a->kind)
        {
        case SIM_ACT_JOIN:
        case SIM_ACT_LEAVE:
        case SIM_ACT_CRASH:
        case SIM_ACT_DROP:
        case SIM_ACT_DELAY:
        case SIM_ACT_SLOW:
        case SIM_ACT_LINK_FAIL:
          break;
        case SIM_ACT_LINK_DOWN: bad = "[timeline] link-down"; break;
        case SIM_ACT_PARTITION:
        case SIM_ACT_HEAL:
          if (!netem)
            bad = a->kind == SIM_ACT_PARTITION ? "[timeline] partition (without --netem)"
                                               : "[timeline] heal (without --netem)";
          break;
        case SIM_ACT_LINK_SLOW: bad = "[timeline] link-slow"; break;
        case SIM_ACT_CRASH_COORD: bad = "[timeline] crash coordinator"; break;
        case SIM_ACT_HEAL_ALL: bad = "[timeline] heal all"; break;
        case SIM_ACT_RESEED: bad = "[timeline] reseed"; break;
        }
    }
  if (bad)
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s: not supported in the testbed", path, bad);
  return bad == NULL;
}

gboolean
testbed_scenario_supported (const SimScenario *s, gboolean netem, GError **error)
{
  for (guint pi = 0; pi < s->points->len; pi++)
    {
      SimBuilt built;
      if (!sim_scenario_build (s, s->points->pdata[pi], s->seed, &built, error))
        return FALSE;
      gboolean ok = testbed_supported (&built, s->path, netem, error);
      sim_built_clear (&built);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

gboolean
testbed_select_checked (GPtrArray *paths, char **sets, gboolean netem, GPtrArray *out, guint *n_skipped,
                        void (*skipped) (const char *why, gpointer data), gpointer data, GError **error)
{
  for (guint f = 0; f < paths->len; f++)
    {
      SimScenario *s = sim_scenario_load (paths->pdata[f], (const char *const *) sets, error);
      if (!s)
        return FALSE;
      gboolean has_expect = FALSE;
      for (guint p = 0; p < s->points->len; p++)
        has_expect |= ((SimPoint *) s->points->pdata[p])->expects->len > 0;
      g_autoptr (GError) why = NULL;
      if (has_expect && !testbed_scenario_supported (s, netem, &why))
        {
          if (skipped)
            skipped (why->message, data);
          (*n_skipped)++;
          has_expect = FALSE;
        }
      if (has_expect)
        g_ptr_array_add (out, s);
      else
        sim_scenario_free (s);
    }
  return TRUE;
}

guint64
testbed_repeat_seed (gint64 seed, guint64 scenario_seed, guint k)
{
  return (seed >= 0 ? (guint64) seed : scenario_seed) + k;
}

const char *
testbed_network_name (TestbedNetwork network)
{
  switch (network)
    {
    case TESTBED_LOOPBACK: return "loopback";
    case TESTBED_LOOPBACK_RAW: return "loopback-raw";
    case TESTBED_NETEM: return "netem";
    }
  g_return_val_if_reached (NULL);
}

const char *
testbed_network_detail (TestbedNetwork network)
{
  switch (network)
    {
    case TESTBED_LOOPBACK:
      return "loopback: latency and link setup of [network] added by the sender; bandwidth not applied";
    case TESTBED_LOOPBACK_RAW:
      return "loopback at its own speed (--no-latency): latency, bandwidth and link setup of [network] "
             "not applied";
    case TESTBED_NETEM:
      return "netem: a network namespace per peer; bandwidth by tc tbf; latency and link setup "
             "added by the sender (this kernel has no sch_netem)";
    }
  g_return_val_if_reached (NULL);
}

/* ---------------------------------------------------------------- timeline */
typedef struct {
  TestbedRun *tb;
  const SimAction *a;
} Due;

static void
run_action (TestbedRun *tb, const SimAction *a)
{
  switch (a->kind)
    {
    case SIM_ACT_JOIN:
      _testbed_procs_spawn (tb, a->a);
      break;
    case SIM_ACT_LEAVE:
      _testbed_procs_depart (tb, a->a, FALSE);
      break;
    case SIM_ACT_CRASH:
      _testbed_procs_depart (tb, a->a, TRUE);
      break;
    case SIM_ACT_DROP:
    case SIM_ACT_DELAY:
    case SIM_ACT_SLOW:
    case SIM_ACT_LINK_FAIL:
      {
        /* rules go to every process (each keeps what names it), and to
         * those that join later */
        g_array_append_val (tb->rules, *a);
        testbed_host_add_rule (tb->coord, a);
        g_autofree char *l = testbed_rule_line (a);
        for (guint i = 1; i < tb->peers->len; i++)
          {
            TestbedPeer *p = g_ptr_array_index (tb->peers, i);
            if (p && p->status == TESTBED_PEER_ONLINE)
              _testbed_procs_send_control (p, l);
          }
        if (a->kind == SIM_ACT_SLOW)
          _testbed_run_fact (tb, _testbed_run_now (tb), a->a, PROTO_NO_NODE, "slow", l);
        else if (a->kind == SIM_ACT_LINK_FAIL)
          _testbed_run_fact (tb, _testbed_run_now (tb), a->a, a->b, "link-fail", NULL);
        else
          _testbed_run_fact (tb, _testbed_run_now (tb), a->a, PROTO_NO_NODE, a->kind == SIM_ACT_DROP ? "drop-rule" : "delay-rule",
                   proto_msg_type_name ((ProtoMsgType) a->msg_type));
        break;
      }
    case SIM_ACT_PARTITION:
      {
        g_autoptr (GError) e = NULL;
        if (tb->net && testbed_netns_partition (tb->net, a->groups, MAX (tb->cfg->max_peers, tb->cfg->n_peers), &e))
          _testbed_run_fact (tb, _testbed_run_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "partition", "blackhole routes between the groups");
        else
          _testbed_run_fact (tb, _testbed_run_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "ignored", e ? e->message : "partition: no --netem");
        break;
      }
    case SIM_ACT_HEAL_ALL:
      break;   /* refused above (testbed_supported) */
    case SIM_ACT_HEAL:
      if (tb->net)
        testbed_netns_heal (tb->net);
      _testbed_run_fact (tb, _testbed_run_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "heal", NULL);
      break;
    case SIM_ACT_LINK_DOWN:
    case SIM_ACT_LINK_SLOW:
    case SIM_ACT_CRASH_COORD:
    case SIM_ACT_RESEED:
      g_assert_not_reached ();   /* refused before the run */
    }
}

static gboolean
on_due (gpointer data)
{
  Due *d = data;
  d->tb->pending_actions--;
  run_action (d->tb, d->a);
  return G_SOURCE_REMOVE;
}

static void
schedule (TestbedRun *tb, const SimAction *a, DlTime in_ns)
{
  Due *d = g_new0 (Due, 1);
  d->tb = tb;
  d->a = a;
  tb->pending_actions++;
  GSource *src = g_timeout_source_new ((guint) MAX ((in_ns + 999999) / 1000000, 0));
  g_source_set_callback (src, on_due, d, g_free);
  g_source_attach (src, NULL);
  g_ptr_array_add (tb->timers, src);
}

static void
schedule_round_actions (TestbedRun *tb, guint round)
{
  if (round <= tb->round_started)
    return;
  tb->round_started = round;
  for (guint i = 0; i < tb->cfg->actions->len; i++)
    {
      const SimAction *a = &g_array_index (tb->cfg->actions, SimAction, i);
      if (a->round == round)
        schedule (tb, a, a->after);
    }
}

/* The records of the coordinator (in this process) and of the peers go
 * through the tally; the round that begins brings its `round N` actions. */
static void
on_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  TestbedRun *tb = ud;
  tb->track.observation (tb->track.user_data, t, node, o);
  if (node == PROTO_SERVER && o->kind == proto_family_of (&tb->cfg->proto)->round_begins_with (&tb->cfg->proto))
    schedule_round_actions (tb, (guint) o->round + 1);
}

/* ---------------------------------------------------------------- the watch */

/* Once a second, the run so far to the caller (TestbedSay.tick). */
static void
say_tick (TestbedRun *tb, DlTime now)
{
  const TestbedSay *say = tb->say;
  if (say && say->tick && ++tb->watch_ticks % 10 == 0)
    say->tick (now, now - MIN (tb->progress, now), tb->round_started, tb->messages, say->data);
}

static gboolean
on_watch (gpointer data)
{
  TestbedRun *tb = data;
  DlTime now = _testbed_run_now (tb);
  say_tick (tb, now);
  if (tb->interrupted)
    tb->outcome = SIM_OUTCOME_INTERRUPTED;
  else if (now >= tb->cfg->time_limit)
    tb->outcome = SIM_OUTCOME_TIME_LIMIT;
  else
    {
      gboolean all = TRUE;
      for (guint i = 1; i < tb->peers->len; i++)
        {
          TestbedPeer *p = g_ptr_array_index (tb->peers, i);
          all &= !p || _testbed_peer_settled (p, proto_family_of (&tb->cfg->proto));
          /* as the simulator's stall detector, which waits while anyone trains */
          if (p && p->status == TESTBED_PEER_ONLINE && !p->exited && strcmp (p->state, "training") == 0)
            tb->progress = now;
        }
      if (all && tb->pending_actions == 0)
        tb->outcome = SIM_OUTCOME_COMPLETED;
      /* the simulator looks once a second, on whole seconds: stop where it
       * would, so that counts of an endless retry loop end at the same tick */
      else if (tb->pending_actions == 0
               && now >= (tb->progress + sim_stall_window (tb->cfg) + DL_S - 1) / DL_S * DL_S)
        tb->outcome = SIM_OUTCOME_STALLED;
      else
        return G_SOURCE_CONTINUE;
    }
  tb->done = TRUE;
  g_main_loop_quit (tb->loop);
  return G_SOURCE_REMOVE;
}

static gboolean
on_sigint (gpointer data)
{
  TestbedRun *tb = data;
  tb->interrupted = TRUE;
  on_watch (tb);
  return G_SOURCE_CONTINUE;
}

/* ---------------------------------------------------------------- a run */

/* Every peer that may join gets its namespace, at its own rates (drawn
 * per peer, as in the simulator), before the clock starts. */
static TestbedNetns *
make_network (const SimWorldConfig *cfg, const TestbedNetemOptions *o, GError **error)
{
  TestbedNetns *net = testbed_netns_new (error);
  if (net)
    testbed_netns_set_queue (net, o->queue);
  if (net && o->congestion && !testbed_netns_set_congestion (net, o->congestion, error))
    g_clear_pointer (&net, testbed_netns_free);
  for (guint id = 1; net && id <= MAX (cfg->max_peers, cfg->n_peers); id++)
    {
      SimPeerAttrs attrs;
      sim_peer_attributes (cfg, id, &attrs);
      if (!testbed_netns_add_peer (net, id, attrs.uplink_bps, attrs.downlink_bps, error))
        g_clear_pointer (&net, testbed_netns_free);
    }
  return net;
}

/* The run's timeline and main loop, from the start to the end of the run
 * and its result. */
static TestbedRunStatus
drive (TestbedRun *tb, const SimWorldConfig *cfg, ResRun *run, TestbedReport *report, GError **error)
{
  TestbedRunStatus status = TESTBED_RUN_ERROR;
  /* timed actions first (those at time 0 precede the initial joins), then the initial peers */
  for (guint i = 0; i < cfg->actions->len; i++)
    {
      const SimAction *a = &g_array_index (cfg->actions, SimAction, i);
      if (a->round == 0)
        schedule (tb, a, a->at);
    }
  g_autofree SimAction *joins = g_new0 (SimAction, cfg->n_peers + 1);
  for (guint id = 1; id <= cfg->n_peers; id++)
    {
      joins[id].kind = SIM_ACT_JOIN;
      joins[id].a = id;
      schedule (tb, &joins[id], 0);
    }
  /* an availability trace ([churn] trace): its joins and graceful leaves at
   * their times, as sim-churn.c schedules them */
  guint n_trace = cfg->trace ? cfg->trace->len : 0;
  g_autofree SimAction *trace = g_new0 (SimAction, 2 * n_trace + 1);
  for (guint i = 0; i < n_trace; i++)
    {
      const SimTraceEntry *t = &g_array_index (cfg->trace, SimTraceEntry, i);
      trace[2 * i] = (SimAction) { .kind = SIM_ACT_JOIN, .a = t->peer };
      schedule (tb, &trace[2 * i], t->join);
      if (t->leave != DL_TIME_NEVER)
        {
          trace[2 * i + 1] = (SimAction) { .kind = SIM_ACT_LEAVE, .a = t->peer };
          schedule (tb, &trace[2 * i + 1], t->leave);
        }
    }
  guint w = g_timeout_add (100, on_watch, tb);
  guint sig = g_unix_signal_add (SIGINT, on_sigint, tb);
  guint sig2 = g_unix_signal_add (SIGTERM, on_sigint, tb);
  g_main_loop_run (tb->loop);
  if (!tb->done)
    g_source_remove (w);
  g_source_remove (sig);
  g_source_remove (sig2);
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  _testbed_run_finish (tb, &report->result, results);   /* before the children are stopped: their state at the end */
  _testbed_procs_stop_children (tb, 3 * G_USEC_PER_SEC);
  double wall = (double) (g_get_monotonic_time () - tb->t0_us) / 1e6;
  res_run_set_peers (run, (const SimPeerResult *) (const void *) results->data, results->len - 1);
  report->run_id = res_run_id (run);
  report->bad_lines = tb->bad_lines;
  if (tb->outcome == SIM_OUTCOME_INTERRUPTED)
    {
      res_run_abort (run, "interrupted");
      status = TESTBED_RUN_INTERRUPTED;
    }
  else if (res_run_finish (run, &report->result, wall, report->failed, &report->checked, error))
    status = TESTBED_RUN_DONE;
  return status;
}

static TestbedRunStatus run_point (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db,
                                   const char *self_exe, TestbedNetwork network, const TestbedNetemOptions *o,
                                   const TestbedSay *say, guint k, TestbedReport *report, GError **error);

TestbedRunStatus
testbed_run_point (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db,
                   const char *self_exe, TestbedNetwork network, TestbedReport *report, GError **error)
{
  static const TestbedNetemOptions defaults = { 0 };
  return run_point (s, pt, seed, sets, db, self_exe, network, &defaults, NULL, 0, report, error);
}

static TestbedRunStatus
run_point (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db, const char *self_exe,
           TestbedNetwork network, const TestbedNetemOptions *o, const TestbedSay *say, guint k,
           TestbedReport *report, GError **error)
{
  gboolean netem = network == TESTBED_NETEM;
  SimBuilt built;
  if (!sim_scenario_build (s, pt, seed, &built, error))
    return TESTBED_RUN_REFUSED;
  if (!testbed_supported (&built, s->path, netem, error))
    {
      sim_built_clear (&built);
      return TESTBED_RUN_REFUSED;
    }
  /* a family whose machines cannot run on sockets says so before anything
   * is started (testbed_host_new refuses it too, for dlsim node) */
  const ProtoFamily *fam = proto_family_of (&built.cfg.proto);
  if (fam->no_testbed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "[protocol] family = %s: %s", fam->name, fam->no_testbed);
      sim_built_clear (&built);
      return TESTBED_RUN_ERROR;
    }
  ResRun *run = res_run_begin (db, 0, s, pt, seed, error);
  if (!run || !res_run_set_mode (run, "testbed", error))
    {
      sim_built_clear (&built);
      return TESTBED_RUN_ERROR;
    }
  TestbedRun tb;
  _testbed_run_init (&tb, s, pt, seed, sets, &built.cfg, run);
  tb.rec = (SimRecorder) { on_observation, tb.track.fact, tb.track.metric, tb.track.traffic, &tb };
  tb.self_exe = self_exe;
  tb.say = say;
  tb.emulate_latency = network != TESTBED_LOOPBACK_RAW;
  TestbedRunStatus status = TESTBED_RUN_ERROR;
  if (netem && !(tb.net = make_network (&built.cfg, o, error)))
    {
      res_run_abort (run, "error");
      goto out;
    }
  const char *detail = testbed_network_detail (network);
  res_run_add_param (run, "testbed.network", testbed_network_name (network), NULL);
  res_run_add_param (run, "testbed.network_detail", detail, NULL);
  if (netem && o->queue > 0)
    {
      g_autofree char *q = g_strdup_printf ("%" G_GINT64_FORMAT " ns", o->queue);
      res_run_add_param (run, "testbed.queue", q, NULL);
    }
  if (netem)
    res_run_add_param (run, "testbed.congestion_control", testbed_netns_congestion (tb.net), NULL);
  tb.secret = testbed_secret_new (error);
  if (!tb.secret)
    {
      res_run_abort (run, "error");
      goto out;
    }
  if (say && say->start)
    say->start (s, k, seed, sim_stall_window (&built.cfg), say->data);
  tb.t0_us = g_get_monotonic_time ();
  tb.loop = g_main_loop_new (NULL, FALSE);
  _testbed_run_fact (&tb, 0, PROTO_NO_NODE, PROTO_NO_NODE, "testbed", detail);
  TestbedHostParams cp = { .cfg = &built.cfg, .id = PROTO_SERVER,
                     .listen_host = tb.net ? testbed_netns_coordinator_host (tb.net) : "127.0.0.1", .listen_port = 0,
                     .t0_us = tb.t0_us, .rec = tb.rec, .emulate_latency = tb.emulate_latency,
                     .secret = tb.secret };
  tb.coord = testbed_host_new (&cp, error);
  if (!tb.coord)
    {
      res_run_abort (run, "error");
      goto out;
    }
  status = drive (&tb, &built.cfg, run, report, error);
out:
  _testbed_run_clear (&tb);
  g_clear_pointer (&tb.coord, testbed_host_free);
  g_clear_pointer (&tb.net, testbed_netns_free);
  g_clear_pointer (&tb.loop, g_main_loop_unref);
  sim_built_clear (&built);
  return status;
}

TestbedRunStatus
testbed_run_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network,
                      const TestbedNetemOptions *netem, ResDb *db, const TestbedSay *say, GError **error)
{
  static const TestbedNetemOptions defaults = { 0 };
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!self_exe)
    self_exe = g_strdup ("dlsim");
  signal (SIGPIPE, SIG_IGN);
  for (guint pi = 0; pi < s->points->len; pi++)
    for (guint k = 0; k < s->repeat; k++)
      {
        guint64 sd = testbed_repeat_seed (seed, s->seed, k);
        TestbedReport rep;
        testbed_report_init (&rep);
        TestbedRunStatus st = run_point (s, s->points->pdata[pi], sd, sets, db, self_exe, network, netem ? netem : &defaults, say,
                                         pi * s->repeat + k, &rep, error);
        if (st == TESTBED_RUN_DONE && say && say->done)
          say->done (s, sd, &rep, say->data);
        testbed_report_clear (&rep);
        if (st != TESTBED_RUN_DONE)
          return st;
      }
  return TESTBED_RUN_DONE;
}
