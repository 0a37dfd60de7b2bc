/* cmd-testbed.c — `dlsim testbed FILE`: the scenario on real sockets and
 * real processes, on this machine.  The coordinator runs in this process
 * (sim/sim-testbed.c on loopback TCP); each peer is a `dlsim node peer`
 * child that reports its records on stdout (cli/tb-records.c).  Joins
 * spawn a child, leaves ask it to leave (it closes its links and stream),
 * crashes SIGKILL it.  The run is recorded in the same results schema with
 * runs.mode = 'testbed', so report, trace, plot and [expect] work on it.
 *
 * The run ends when every peer has finished, failed or left and nothing is
 * pending (completed), when no peer made progress for the stall window
 * (stalled: the same formula as the simulator's), at the scenario's
 * time_limit of wall time, or on Ctrl-C.  Every child is then asked to
 * leave, killed after 3 s if it has not, and reaped: no orphan, no zombie.
 *
 * Supported: the protocol, training, model, data, peers (count, speed,
 * stragglers) and compute sections; timeline join, leave, crash, drop,
 * delay, slow and link-fail (at a time or at `round N`), and with --netem
 * partition and heal; [churn] traces.  Refused with an error naming the
 * key: churn arrivals, NAT, connect_failure, loss, bandwidth_trace,
 * link-down, link-slow.  Network
 * conditions: by default loopback, with the scenario's latency and link
 * setup added by the sending process, so that the run has the file's
 * network (bandwidth is not shaped); with --no-latency, loopback at its own
 * speed (where DISCO's F1 race shows, docs/found.md); with --netem (root), a
 * network namespace per peer (cli/tb-netns.c) with the bandwidth shaped by
 * tc tbf, and the latency and link setup added by the sending process,
 * since this kernel has no sch_netem.  The run's params (testbed.network)
 * say which. */
#include "config.h"

#include "cli/cli.h"
#include "cli/tb-records.h"
#include "results/res-db.h"
#include "sim/sim-host.h"
#include "sim/sim-scenario.h"
#include "sim/sim-testbed.h"
#include "protocol/disco/disco-msgs.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/tb-run.h"
#include "sim/sim-props.h"

DlTime
tb_now (Tb *tb)
{
  if (tb->replaying)
    return tb->replay_now;
  return (g_get_monotonic_time () - tb->t0_us) * 1000;
}

TbPeer *
tb_peer_at (Tb *tb, ProtoNodeId id, gboolean create)
{
  while (tb->peers->len <= id)
    g_ptr_array_add (tb->peers, NULL);
  TbPeer *p = g_ptr_array_index (tb->peers, id);
  if (!p && create)
    {
      p = g_new0 (TbPeer, 1);
      p->tb = tb;
      p->id = id;
      p->state = "";
      p->joined = p->left = DL_TIME_NEVER;
      p->accuracy = p->loss = NAN;
      g_ptr_array_index (tb->peers, id) = p;
    }
  return p;
}

/* ---------------------------------------------------------------- records */


static void
track_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  Tb *tb = ud;
  sim_tally_observe (&tb->tally, node, o);
  sim_props_observe (tb->props, t, node, o);
  if (node == PROTO_SERVER)
    {
      if (o->kind == proto_family_of (&tb->cfg->proto)->round_begins_with (&tb->cfg->proto))
        tb_schedule_round_actions (tb, (guint) o->round + 1);
    }
  else
    {
      TbPeer *p = tb_peer_at (tb, node, TRUE);
      switch (o->kind)
        {
        case PROTO_OBS_PHASE:
          p->state = o->state ? g_intern_string (o->detail) : "";
          p->progress = t;
          tb->progress = MAX (tb->progress, t);
          break;
        case PROTO_OBS_ROUND_END:
          p->rounds++;
          p->last_round_end = o->round;
          break;
        case PROTO_OBS_SYNC_DONE:
          p->synced = TRUE;
          break;
        case PROTO_OBS_RECEIVED:
        case PROTO_OBS_DROPPED:
          /* as proto_machine_received_count, which the simulator reads: every
           * delivered message, listened for or dropped */
          p->retries_received += o->msg_type == PROTO_MSG_RETRY_PEER_CONNECTIONS;
          p->fails_received += o->msg_type == PROTO_MSG_CONNECTION_FAIL;
          break;
        case PROTO_OBS_ERROR:
          if (strstr (o->detail, "ConnectionFail"))
            p->excluded = TRUE;
          break;
        default:
          break;
        }
    }
  if (tb->db_rec.observation)
    tb->db_rec.observation (tb->db_rec.user_data, t, node, o);
}

void
tb_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  Tb *tb = ud;
  if (tb->db_rec.fact)
    tb->db_rec.fact (tb->db_rec.user_data, t, node, other, kind, detail);
}

static void
track_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  Tb *tb = ud;
  TbPeer *p = tb_peer_at (tb, peer, TRUE);
  if (strcmp (name, "accuracy") == 0)
    p->accuracy = v;
  else if (strcmp (name, "loss") == 0)
    p->loss = v;
  if (tb->db_rec.metric)
    tb->db_rec.metric (tb->db_rec.user_data, t, round, peer, name, v);
}

static void
track_traffic (gpointer ud, ProtoMsgType type, gsize bytes)
{
  Tb *tb = ud;
  tb->messages++;
  tb->bytes += bytes;
  if (tb->db_rec.traffic)
    tb->db_rec.traffic (tb->db_rec.user_data, type, bytes);
}

/* ---------------------------------------------------------------- the watch */

gboolean
tb_settled (const TbPeer *p, const ProtoFamily *f)
{
  if (p->status != TB_ONLINE || p->exited)
    return TRUE;
  return strcmp (p->state, "done") == 0 || strcmp (p->state, "failed") == 0 || strcmp (p->state, "left") == 0
         || proto_family_serving_state (f, p->state);
}

static gboolean
on_watch (gpointer data)
{
  Tb *tb = data;
  DlTime now = tb_now (tb);
  if (tb->interrupted)
    tb->outcome = SIM_OUTCOME_INTERRUPTED;
  else if (now >= tb->cfg->time_limit)
    tb->outcome = SIM_OUTCOME_TIME_LIMIT;
  else
    {
      gboolean all = TRUE;
      for (guint i = 1; i < tb->peers->len; i++)
        {
          TbPeer *p = g_ptr_array_index (tb->peers, i);
          all &= !p || tb_settled (p, proto_family_of (&tb->cfg->proto));
          /* as the simulator's stall detector, which waits while anyone trains */
          if (p && p->status == TB_ONLINE && !p->exited && strcmp (p->state, "training") == 0)
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
  Tb *tb = data;
  tb->interrupted = TRUE;
  on_watch (tb);
  return G_SOURCE_CONTINUE;
}

/* Asks every live child to leave, kills it after `grace`, and reaps all. */
/* ---------------------------------------------------------------- results */

void
tb_finish (Tb *tb, SimResult *r, GArray *results)
{
  DlTime now = tb_now (tb);
  memset (r, 0, sizeof *r);
  r->outcome = tb->outcome;
  r->end = now;
  sim_tally_fill (&tb->tally, r);
  r->messages = tb->messages;
  r->bytes = tb->bytes;
  g_autoptr (GPtrArray) models = g_ptr_array_new ();
  g_array_set_size (results, tb->peers->len);
  double acc = 0, loss = 0;
  guint evaluated = 0;
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb->peers, i);
      SimPeerResult *pr = &g_array_index (results, SimPeerResult, i);
      pr->outcome = SIM_PEER_ABSENT;
      pr->accuracy = pr->loss = NAN;
      if (!p || p->status == TB_ABSENT)
        continue;
      pr->joined = p->joined;
      pr->left = p->left;
      pr->rounds = p->rounds;
      SimPeerAttrs attrs;
      sim_peer_attributes (tb->cfg, p->id, &attrs);
      pr->speed = attrs.speed / (attrs.straggler ? tb->cfg->straggler_slowdown : 1.0);
      pr->uplink_bps = attrs.uplink_bps;
      pr->downlink_bps = attrs.downlink_bps;
      pr->synced = p->synced;
      pr->retries_received = p->retries_received;
      pr->fails_received = p->fails_received;
      pr->state = p->state;
      pr->accuracy = p->accuracy;
      pr->loss = p->loss;
      SimPeerEnd end = {
        .rounds = p->rounds,
        .serves_only = proto_family_serving_state (proto_family_of (&tb->cfg->proto), p->state),
        .failed = strcmp (p->state, "failed") == 0,
        .excluded = p->excluded,
        .crashed = p->status == TB_CRASHED,
        .left = p->status == TB_LEFT || p->leave_asked || strcmp (p->state, "left") == 0,
        .stalled = r->outcome == SIM_OUTCOME_STALLED || now - p->progress >= sim_stall_window (tb->cfg),
      };
      pr->outcome = sim_peer_outcome_of (tb->cfg, &end);
      r->peers_finished += pr->outcome == SIM_PEER_FINISHED;
      r->peers_failed += pr->outcome == SIM_PEER_FAILED || pr->outcome == SIM_PEER_EXCLUDED;
      r->peers_hung += pr->outcome == SIM_PEER_HUNG;
      gboolean present = pr->outcome == SIM_PEER_FINISHED || pr->outcome == SIM_PEER_HUNG
                         || pr->outcome == SIM_PEER_RUNNING;
      if (present && p->model)
        g_ptr_array_add (models, p->model);
      if (!isnan (p->accuracy) && present)
        {
          acc += p->accuracy;
          loss += p->loss;
          evaluated++;
        }
    }
  if (r->outcome == SIM_OUTCOME_COMPLETED && r->peers_hung > 0)
    r->outcome = SIM_OUTCOME_STALLED;
  r->final_accuracy = evaluated ? acc / evaluated : NAN;
  r->final_loss = evaluated ? loss / evaluated : NAN;
  /* as the simulator: the models of the peers that finished or are still there */
  sim_props_end (tb->props, now, (const SimPeerResult *) (const void *) results->data, results->len - 1);
  static const char *const prop_names[] = { SIM_PROP_NAMES };
  for (guint i = 0; i < SIM_N_PROPS; i++)
    r->violations[i] = sim_props_count (tb->props, prop_names[i]);
  r->props_checked = TRUE;
  r->consensus_distance = models->len > 0 ? learn_weights_consensus_distance ((LearnWeights **) models->pdata,
                                                                             models->len)
                                          : NAN;
}

/* ---------------------------------------------------------------- the command */

void
tb_setup (Tb *tb, const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, const SimWorldConfig *cfg,
          ResRun *run)
{
  memset (tb, 0, sizeof *tb);
  tb->scenario = s;
  tb->point = pt;
  tb->seed = seed;
  tb->sets = sets;
  tb->cfg = cfg;
  tb->db_rec = res_run_recorder (run);
  tb->rec = (SimRecorder) { track_observation, tb_fact, track_metric, track_traffic, tb };
  tb->props = sim_props_new (&tb->db_rec, cfg->proto.min_participants);
  sim_props_set_agreement (tb->props, proto_family_of (&cfg->proto)->promises_agreement (&cfg->proto));
  sim_props_set_model_sync (tb->props, proto_family_of (&cfg->proto)->syncs_late_joiners (&cfg->proto));
  guint retries = 0;
  if (proto_family_of (&cfg->proto)->excludes_after_retries (&cfg->proto, &retries))
    sim_props_set_max_connection_retry (tb->props, retries);
  sim_tally_init (&tb->tally);
  const char *const *metric_names = proto_family_of (&cfg->proto)->metric_names;
  for (guint i = 0; metric_names && metric_names[i]; i++)
    sim_tally_declare_metric (&tb->tally, metric_names[i]);
  tb->peers = g_ptr_array_new ();
  g_ptr_array_add (tb->peers, NULL);
  tb->rules = g_array_new (FALSE, FALSE, sizeof (SimAction));
  tb->timers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_source_unref);
}

void
tb_teardown (Tb *tb)
{
  /* actions still pending point at tb: destroy them */
  for (guint i = 0; i < tb->timers->len; i++)
    g_source_destroy (tb->timers->pdata[i]);
  g_ptr_array_unref (tb->timers);
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb->peers, i);
      if (!p)
        continue;
      g_clear_object (&p->proc);
      g_clear_object (&p->control);
      g_clear_object (&p->records);
      g_clear_pointer (&p->model, learn_weights_unref);
      g_free (p);
    }
  g_ptr_array_unref (tb->peers);
  g_array_unref (tb->rules);
  g_free (tb->secret);
  sim_tally_clear (&tb->tally);
  sim_props_free (tb->props);
}

void
tb_ingest (Tb *tb, ProtoNodeId from, const char *line)
{
  ProtoNodeId node;
  LearnWeights *w = NULL;
  if (line[0] == 'W' && tb_record_parse_model (line, &node, &w))
    {
      /* a process sends only its own model */
      TbPeer *q = node == from && node != PROTO_SERVER ? tb_peer_at (tb, node, TRUE) : NULL;
      if (q)
        {
          g_clear_pointer (&q->model, learn_weights_unref);
          q->model = w;
          /* a process sends its model right after its round-end */
          sim_props_round_model (tb->props, tb_now (tb), node, (guint) q->last_round_end, w);
        }
      else
        learn_weights_unref (w);
    }
  else if (!tb_record_parse (line, &tb->rec))
    tb->bad_lines++;
}

static int
run_one (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db, const char *self_exe,
         CliTbNetwork network_kind, guint *passed, guint *failed_runs)
{
  g_autoptr (GError) error = NULL;
  gboolean netem = network_kind == CLI_TB_NETEM;
  SimBuilt built;
  if (!sim_scenario_build (s, pt, seed, &built, &error))
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!tb_supported (&built, s->path, netem, &error))
    {
      cli_error ("testbed", "%s", error->message);
      sim_built_clear (&built);
      return CLI_EXIT_USAGE;
    }
  /* a family whose machines cannot run on sockets says so before anything
   * is started (sim_tb_node_new refuses it too, for dlsim node) */
  const ProtoFamily *fam = proto_family_of (&built.cfg.proto);
  if (fam->no_testbed)
    {
      cli_error ("testbed", "[protocol] family = %s: %s", fam->name, fam->no_testbed);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  ResRun *run = res_run_begin (db, 0, s, pt, seed, &error);
  if (!run || !res_run_set_mode (run, "testbed", &error))
    {
      cli_error ("testbed", "%s", error->message);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  Tb tb;
  tb_setup (&tb, s, pt, seed, sets, &built.cfg, run);
  tb.self_exe = (char *) self_exe;
  tb.emulate_latency = network_kind != CLI_TB_LOOPBACK_RAW;
  if (netem)
    {
      /* every peer that may join gets its namespace before the clock starts */
      tb.net = tb_netns_new (&error);
      for (guint id = 1; tb.net && id <= MAX (built.cfg.max_peers, built.cfg.n_peers); id++)
        {
          /* each at its own rates (drawn per peer, as in the simulator) */
          SimPeerAttrs attrs;
          sim_peer_attributes (&built.cfg, id, &attrs);
          if (!tb_netns_add_peer (tb.net, id, attrs.uplink_bps, attrs.downlink_bps, &error))
            g_clear_pointer (&tb.net, tb_netns_free);
        }
      if (!tb.net)
        {
          cli_error ("testbed", "%s", error->message);
          res_run_abort (run, "error");
          sim_built_clear (&built);
          return CLI_EXIT_FAILURE;
        }
    }
  const char *network = NULL, *network_name = NULL;
  switch (network_kind)
    {
    case CLI_TB_LOOPBACK:
      network_name = "loopback";
      network = "loopback: latency and link setup of [network] added by the sender; bandwidth not applied";
      break;
    case CLI_TB_LOOPBACK_RAW:
      network_name = "loopback-raw";
      network = "loopback at its own speed (--no-latency): latency, bandwidth and link setup of [network] "
                "not applied";
      break;
    case CLI_TB_NETEM:
      network_name = "netem";
      network = "netem: a network namespace per peer; bandwidth by tc tbf; latency and link setup "
                "added by the sender (this kernel has no sch_netem)";
      break;
    }
  res_run_add_param (run, "testbed.network", network_name, NULL);
  res_run_add_param (run, "testbed.network_detail", network, NULL);
  tb.secret = sim_tb_secret_new (&error);
  if (!tb.secret)
    {
      cli_error ("testbed", "%s", error->message);
      res_run_abort (run, "error");
      tb_teardown (&tb);
      tb_netns_free (tb.net);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  tb.t0_us = g_get_monotonic_time ();
  tb.loop = g_main_loop_new (NULL, FALSE);
  tb_fact (&tb, 0, PROTO_NO_NODE, PROTO_NO_NODE, "testbed", network);
  SimTbParams cp = { .cfg = &built.cfg, .id = PROTO_SERVER,
                     .listen_host = tb.net ? tb_netns_coordinator_host (tb.net) : "127.0.0.1", .listen_port = 0,
                     .t0_us = tb.t0_us, .rec = tb.rec, .emulate_latency = tb.emulate_latency,
                     .secret = tb.secret };
  tb.coord = sim_tb_node_new (&cp, &error);
  if (!tb.coord)
    {
      cli_error ("testbed", "%s", error->message);
      res_run_abort (run, "error");
      tb_netns_free (tb.net);
      g_main_loop_unref (tb.loop);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  /* timed actions first (those at time 0 precede the initial joins), then the initial peers */
  for (guint i = 0; i < built.cfg.actions->len; i++)
    {
      const SimAction *a = &g_array_index (built.cfg.actions, SimAction, i);
      if (a->round == 0)
        tb_schedule (&tb, a, a->at);
    }
  SimAction *joins = g_new0 (SimAction, built.cfg.n_peers + 1);
  for (guint id = 1; id <= built.cfg.n_peers; id++)
    {
      joins[id].kind = SIM_ACT_JOIN;
      joins[id].a = id;
      tb_schedule (&tb, &joins[id], 0);
    }
  /* an availability trace ([churn] trace): its joins and graceful leaves at
   * their times, as sim-churn.c schedules them */
  guint n_trace = built.cfg.trace ? built.cfg.trace->len : 0;
  SimAction *trace = g_new0 (SimAction, 2 * n_trace + 1);
  for (guint i = 0; i < n_trace; i++)
    {
      const SimTraceEntry *t = &g_array_index (built.cfg.trace, SimTraceEntry, i);
      trace[2 * i] = (SimAction) { .kind = SIM_ACT_JOIN, .a = t->peer };
      tb_schedule (&tb, &trace[2 * i], t->join);
      if (t->leave != DL_TIME_NEVER)
        {
          trace[2 * i + 1] = (SimAction) { .kind = SIM_ACT_LEAVE, .a = t->peer };
          tb_schedule (&tb, &trace[2 * i + 1], t->leave);
        }
    }
  guint w = g_timeout_add (100, on_watch, &tb);
  guint sig = g_unix_signal_add (SIGINT, on_sigint, &tb);
  guint sig2 = g_unix_signal_add (SIGTERM, on_sigint, &tb);
  g_main_loop_run (tb.loop);
  if (!tb.done)
    g_source_remove (w);
  g_source_remove (sig);
  g_source_remove (sig2);
  SimResult res;
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  tb_finish (&tb, &res, results);   /* before the children are stopped: their state at the end */
  tb_stop_children (&tb, 3 * G_USEC_PER_SEC);
  double wall = (double) (g_get_monotonic_time () - tb.t0_us) / 1e6;
  int rc = CLI_EXIT_OK;
  g_autoptr (GPtrArray) failed = g_ptr_array_new_with_free_func (g_free);
  guint checked = 0;
  res_run_set_peers (run, (const SimPeerResult *) (const void *) results->data, results->len - 1);
  if (tb.outcome == SIM_OUTCOME_INTERRUPTED)
    {
      res_run_abort (run, "interrupted");
      rc = 130;
    }
  else if (!res_run_finish (run, &res, wall, failed, &checked, &error))
    {
      cli_error ("testbed", "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  else
    {
      printf ("%s %s seed %" G_GUINT64_FORMAT ": %s, %u rounds, %u expectations%s\n",
              failed->len ? "FAIL" : "PASS", s->path, seed, sim_outcome_name (res.outcome), res.rounds_completed,
              checked, tb.bad_lines ? " (malformed record lines refused)" : "");
      for (guint i = 0; i < failed->len; i++)
        printf ("    %s\n", (char *) failed->pdata[i]);
      if (failed->len > 0)
        (*failed_runs)++;
      else
        (*passed)++;
    }
  tb_teardown (&tb);
  sim_tb_node_free (tb.coord);
  tb_netns_free (tb.net);
  g_main_loop_unref (tb.loop);
  g_free (joins);
  g_free (trace);
  sim_built_clear (&built);
  return rc;
}

gboolean
cli_testbed_supported (const SimScenario *s, gboolean netem, GError **error)
{
  for (guint pi = 0; pi < s->points->len; pi++)
    {
      SimBuilt built;
      if (!sim_scenario_build (s, s->points->pdata[pi], s->seed, &built, error))
        return FALSE;
      gboolean ok = tb_supported (&built, s->path, netem, error);
      sim_built_clear (&built);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

int
cli_testbed_scenario (const SimScenario *s, char **sets, gint64 seed, CliTbNetwork network, ResDb *db, guint *passed,
                      guint *failed)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!self_exe)
    self_exe = g_strdup ("dlsim");
  signal (SIGPIPE, SIG_IGN);
  if (network == CLI_TB_NETEM)
    {
      g_autofree char *swept = NULL;
      if (tb_netns_sweep_stale (&swept))
        fprintf (stderr, "dlsim testbed: removed what a dlsim that no longer runs left: %s\n", swept);
    }
  for (guint pi = 0; pi < s->points->len; pi++)
    for (guint k = 0; k < s->repeat; k++)
      {
        guint64 sd = (seed >= 0 ? (guint64) seed : s->seed) + k;
        int rc = run_one (s, s->points->pdata[pi], sd, sets, db, self_exe, network, passed, failed);
        if (rc != CLI_EXIT_OK)
          return rc;
      }
  return CLI_EXIT_OK;
}

int
cli_cmd_testbed (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_auto (GStrv) sets = NULL;
  gint64 seed = -1;
  gboolean netem = FALSE, no_latency = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "results database (default NAME.db)", "DB" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario value", "section.key=value" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the first run (default: the scenario's)", "N" },
    { "netem", 0, 0, G_OPTION_ARG_NONE, &netem,
      "a network namespace per peer with the scenario's bandwidth (tc tbf) and latency (root)", NULL },
    { "no-latency", 0, 0, G_OPTION_ARG_NONE, &no_latency,
      "loopback at its own speed: the scenario's latency and link setup not added", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - run a scenario on real sockets and processes");
  g_option_context_set_summary (ctx,
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
    "Compare with the simulator: dlsim compare SIM.db TESTBED.db.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (netem && no_latency)
    {
      cli_error ("testbed", "--no-latency is a loopback option: --netem always adds the scenario's latency");
      return CLI_EXIT_USAGE;
    }
  if (argc != 2)
    {
      cli_error ("testbed", "expected one scenario FILE (dlsim testbed --help)");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (SimScenario) s = sim_scenario_load (argv[1], (const char *const *) sets, &error);
  if (!s)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!cli_testbed_supported (s, netem, &error))
    {
      /* before the database is created: bad input leaves no file behind */
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  g_autofree char *db_path = out ? g_strdup (out) : g_strdup_printf ("%s.db", s->name);
  g_autoptr (ResDb) db = cli_db_open (db_path, &error);
  if (!db)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  guint passed = 0, failed = 0;
  int rc = cli_testbed_scenario (s, sets, seed,
                                 netem ? CLI_TB_NETEM : no_latency ? CLI_TB_LOOPBACK_RAW : CLI_TB_LOOPBACK, db,
                                 &passed, &failed);
  if (rc == CLI_EXIT_OK && failed > 0)
    rc = CLI_EXIT_FAILURE;   /* an expectation failed */
  return rc;
}
