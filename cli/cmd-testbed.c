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
 * stragglers) and compute sections; timeline join, leave, crash, drop and
 * delay (at a time or at `round N`).  Refused with an error naming the key:
 * churn arrivals, traces, NAT, link-fail, link-down, link-slow, partition,
 * heal, slow.  Network conditions are loopback only: latency, bandwidth and
 * link setup are not applied (--netem is not implemented yet), which the
 * run's params say. */
#include "config.h"

#include "cli/cli.h"
#include "cli/tb-records.h"
#include "results/res-db.h"
#include "sim/sim-host.h"
#include "sim/sim-scenario.h"
#include "sim/sim-testbed.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef enum { TB_ABSENT, TB_ONLINE, TB_LEFT, TB_CRASHED } TbStatus;

typedef struct Tb Tb;

typedef struct {
  Tb *tb;
  ProtoNodeId id;
  TbStatus status;
  GSubprocess *proc;
  GOutputStream *control;
  GDataInputStream *records;
  gboolean exited, eof, leave_asked;
  DlTime joined, left, progress;
  guint rounds, retries_received, fails_received;
  gboolean synced, excluded, failed_err;
  const char *state;
  double accuracy, loss;
  LearnWeights *model;      /* after its last round (W records) */
} TbPeer;

struct Tb {
  const SimScenario *scenario;
  const SimPoint *point;
  guint64 seed;
  char **sets;
  const SimWorldConfig *cfg;
  char *self_exe;
  SimRecorder db_rec;
  SimRecorder rec;          /* tracks, then forwards to db_rec */
  SimTally tally;
  SimTbNode *coord;
  gint64 t0_us;
  GPtrArray *peers;         /* TbPeer*, index = id */
  GArray *rules;            /* SimAction: drop/delay rules installed so far */
  guint pending_actions;
  GPtrArray *timers;        /* GSource* of scheduled actions (refs) */
  guint round_started;
  DlTime progress;
  guint64 messages, bytes;
  guint bad_lines;
  gboolean done, interrupted;
  SimOutcome outcome;
  GMainLoop *loop;
};

static DlTime
now_of (Tb *tb)
{
  return (g_get_monotonic_time () - tb->t0_us) * 1000;
}

static TbPeer *
peer_at (Tb *tb, ProtoNodeId id, gboolean create)
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

static void schedule_round_actions (Tb *tb, guint round);

static void
track_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  Tb *tb = ud;
  sim_tally_observe (&tb->tally, node, o);
  if (node == PROTO_SERVER)
    {
      if ((o->kind == PROTO_OBS_ROUND_START && tb->cfg->proto.connect_barrier)
          || (o->kind == PROTO_OBS_ROUND_LIST && !tb->cfg->proto.connect_barrier))
        schedule_round_actions (tb, (guint) o->round + 1);
    }
  else
    {
      TbPeer *p = peer_at (tb, node, TRUE);
      switch (o->kind)
        {
        case PROTO_OBS_PHASE:
          p->state = o->state ? g_intern_string (o->detail) : "";
          p->progress = t;
          tb->progress = MAX (tb->progress, t);
          break;
        case PROTO_OBS_ROUND_END:
          p->rounds++;
          break;
        case PROTO_OBS_SYNC_DONE:
          p->synced = TRUE;
          break;
        case PROTO_OBS_RECEIVED:
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

static void
track_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  Tb *tb = ud;
  if (tb->db_rec.fact)
    tb->db_rec.fact (tb->db_rec.user_data, t, node, other, kind, detail);
}

static void
track_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  Tb *tb = ud;
  TbPeer *p = peer_at (tb, peer, TRUE);
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

/* ---------------------------------------------------------------- children */

static void read_records (TbPeer *p);

static void
on_record (GObject *src, GAsyncResult *res, gpointer data)
{
  TbPeer *p = data;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (src), res, &len, NULL);
  if (!line)
    {
      p->eof = TRUE;
      return;
    }
  ProtoNodeId node;
  LearnWeights *w = NULL;
  if (line[0] == 'W' && tb_record_parse_model (line, &node, &w))
    {
      TbPeer *q = node == p->id ? p : NULL;
      if (q)
        {
          g_clear_pointer (&q->model, learn_weights_unref);
          q->model = w;
        }
      else
        learn_weights_unref (w);
    }
  else if (!tb_record_parse (line, &p->tb->rec))
    p->tb->bad_lines++;
  read_records (p);
}

static void
read_records (TbPeer *p)
{
  g_data_input_stream_read_line_async (p->records, G_PRIORITY_DEFAULT, NULL, on_record, p);
}

static void
on_exited (GObject *src, GAsyncResult *res, gpointer data)
{
  TbPeer *p = data;
  g_subprocess_wait_finish (G_SUBPROCESS (src), res, NULL);
  p->exited = TRUE;
  if (p->status == TB_ONLINE)
    {
      p->status = TB_LEFT;
      p->left = now_of (p->tb);
    }
}

static void
send_control (TbPeer *p, const char *line)
{
  if (!p->control || p->exited)
    return;
  g_autofree char *l = g_strdup_printf ("%s\n", line);
  g_output_stream_write_all (p->control, l, strlen (l), NULL, NULL, NULL);
}

static void
spawn (Tb *tb, ProtoNodeId id)
{
  TbPeer *p = peer_at (tb, id, TRUE);
  if (p->status != TB_ABSENT)
    {
      track_fact (tb, now_of (tb), id, PROTO_NO_NODE, "ignored", "join: the peer already joined once");
      return;
    }
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (tb->self_exe));
  g_ptr_array_add (argv, g_strdup ("node"));
  g_ptr_array_add (argv, g_strdup ("peer"));
  g_ptr_array_add (argv, g_strdup_printf ("--coordinator=127.0.0.1:%u", sim_tb_node_port (tb->coord)));
  g_ptr_array_add (argv, g_strdup_printf ("--name=p%u", id));
  g_ptr_array_add (argv, g_strdup_printf ("--scenario=%s", tb->scenario->path));
  g_ptr_array_add (argv, g_strdup_printf ("--seed=%" G_GUINT64_FORMAT, tb->seed));
  g_ptr_array_add (argv, g_strdup_printf ("--point=%u", tb->point->index));
  g_ptr_array_add (argv, g_strdup_printf ("--t0=%" G_GINT64_FORMAT, tb->t0_us));
  g_ptr_array_add (argv, g_strdup ("--report"));
  for (char **s = tb->sets; s && *s; s++)
    g_ptr_array_add (argv, g_strdup_printf ("--set=%s", *s));
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) e = NULL;
  p->proc = g_subprocess_newv ((const char *const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &e);
  p->joined = now_of (tb);
  p->progress = p->joined;
  tb->progress = MAX (tb->progress, p->joined);
  if (!p->proc)
    {
      track_fact (tb, now_of (tb), id, PROTO_NO_NODE, "spawn-failed", e->message);
      p->status = TB_LEFT;
      p->exited = p->eof = TRUE;
      return;
    }
  p->status = TB_ONLINE;
  p->control = g_object_ref (g_subprocess_get_stdin_pipe (p->proc));
  p->records = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p->proc));
  read_records (p);
  g_subprocess_wait_async (p->proc, NULL, on_exited, p);
  track_fact (tb, now_of (tb), id, PROTO_NO_NODE, "join", "process started");
  for (guint i = 0; i < tb->rules->len; i++)
    {
      g_autofree char *l = tb_rule_line (&g_array_index (tb->rules, SimAction, i));
      send_control (p, l);
    }
}

static void
depart (Tb *tb, ProtoNodeId id, gboolean crash)
{
  TbPeer *p = peer_at (tb, id, FALSE);
  if (!p || p->status != TB_ONLINE)
    {
      track_fact (tb, now_of (tb), id, PROTO_NO_NODE, "ignored", crash ? "crash: not online" : "leave: not online");
      return;
    }
  track_fact (tb, now_of (tb), id, PROTO_NO_NODE, crash ? "crash" : "leave",
              crash ? "SIGKILL" : "asked to leave");
  if (crash)
    {
      p->status = TB_CRASHED;
      p->left = now_of (tb);
      g_subprocess_force_exit (p->proc);
    }
  else
    {
      p->leave_asked = TRUE;
      send_control (p, "leave");
    }
}

/* ---------------------------------------------------------------- timeline */

typedef struct {
  Tb *tb;
  const SimAction *a;
} Due;

static void
run_action (Tb *tb, const SimAction *a)
{
  switch (a->kind)
    {
    case SIM_ACT_JOIN:
      spawn (tb, a->a);
      break;
    case SIM_ACT_LEAVE:
      depart (tb, a->a, FALSE);
      break;
    case SIM_ACT_CRASH:
      depart (tb, a->a, TRUE);
      break;
    case SIM_ACT_DROP:
    case SIM_ACT_DELAY:
      {
        g_array_append_val (tb->rules, *a);
        sim_tb_node_add_rule (tb->coord, a);
        g_autofree char *l = tb_rule_line (a);
        for (guint i = 1; i < tb->peers->len; i++)
          {
            TbPeer *p = g_ptr_array_index (tb->peers, i);
            if (p && p->status == TB_ONLINE)
              send_control (p, l);
          }
        track_fact (tb, now_of (tb), a->a, PROTO_NO_NODE, a->kind == SIM_ACT_DROP ? "drop-rule" : "delay-rule",
                    proto_msg_type_name ((ProtoMsgType) a->msg_type));
        break;
      }
    case SIM_ACT_LINK_FAIL:
    case SIM_ACT_LINK_DOWN:
    case SIM_ACT_PARTITION:
    case SIM_ACT_HEAL:
    case SIM_ACT_SLOW:
    case SIM_ACT_LINK_SLOW:
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
schedule (Tb *tb, const SimAction *a, DlTime in_ns)
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
schedule_round_actions (Tb *tb, guint round)
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

/* ---------------------------------------------------------------- the watch */

static gboolean
settled (const TbPeer *p)
{
  if (p->status != TB_ONLINE || p->exited)
    return TRUE;
  return strcmp (p->state, "done") == 0 || strcmp (p->state, "failed") == 0 || strcmp (p->state, "left") == 0;
}

static gboolean
on_watch (gpointer data)
{
  Tb *tb = data;
  DlTime now = now_of (tb);
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
          all &= !p || settled (p);
        }
      if (all && tb->pending_actions == 0)
        tb->outcome = SIM_OUTCOME_COMPLETED;
      else if (tb->pending_actions == 0 && now - tb->progress >= sim_stall_window (tb->cfg))
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
static void
stop_children (Tb *tb, gint64 grace_us)
{
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb->peers, i);
      if (p && p->proc && !p->exited)
        {
          send_control (p, "leave");
          g_clear_object (&p->control);   /* EOF on its stdin: leave and exit */
        }
    }
  gint64 until = g_get_monotonic_time () + grace_us;
  for (;;)
    {
      gboolean live = FALSE;
      for (guint i = 1; i < tb->peers->len; i++)
        {
          TbPeer *p = g_ptr_array_index (tb->peers, i);
          live |= p && p->proc && (!p->exited || !p->eof);
        }
      if (!live)
        break;
      if (g_get_monotonic_time () >= until)
        {
          for (guint i = 1; i < tb->peers->len; i++)
            {
              TbPeer *p = g_ptr_array_index (tb->peers, i);
              if (p && p->proc && !p->exited)
                g_subprocess_force_exit (p->proc);
            }
          until = G_MAXINT64;   /* now wait for the kills to be reaped */
        }
      g_main_context_iteration (NULL, TRUE);
    }
}

/* ---------------------------------------------------------------- results */

static void
finish (Tb *tb, SimResult *r, GArray *results)
{
  DlTime now = now_of (tb);
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
      pr->synced = p->synced;
      pr->retries_received = p->retries_received;
      pr->fails_received = p->fails_received;
      pr->state = p->state;
      pr->accuracy = p->accuracy;
      pr->loss = p->loss;
      SimPeerEnd end = {
        .rounds = p->rounds,
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
  r->consensus_distance = models->len > 0 ? learn_weights_consensus_distance ((LearnWeights **) models->pdata,
                                                                             models->len)
                                          : NAN;
}

/* ---------------------------------------------------------------- the command */

/* Refuses what the testbed cannot express, naming the key. */
static gboolean
supported (const SimBuilt *b, const char *path, GError **error)
{
  const SimWorldConfig *c = &b->cfg;
  const char *bad = NULL;
  if (c->arrival_rate_per_s > 0)
    bad = "[churn] arrival_rate";
  else if (c->trace)
    bad = "[churn] trace";
  else if (c->nat_symmetric_share > 0)
    bad = "[peers] nat";
  else if (c->connect_failure > 0)
    bad = "[network] connect_failure";
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
          break;
        case SIM_ACT_LINK_FAIL: bad = "[timeline] link-fail"; break;
        case SIM_ACT_LINK_DOWN: bad = "[timeline] link-down"; break;
        case SIM_ACT_PARTITION: bad = "[timeline] partition"; break;
        case SIM_ACT_HEAL: bad = "[timeline] heal"; break;
        case SIM_ACT_SLOW: bad = "[timeline] slow"; break;
        case SIM_ACT_LINK_SLOW: bad = "[timeline] link-slow"; break;
        }
    }
  if (bad)
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s: not supported in the testbed", path, bad);
  return bad == NULL;
}

static int
run_one (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db, const char *self_exe,
         gboolean *any_failed)
{
  g_autoptr (GError) error = NULL;
  SimBuilt built;
  if (!sim_scenario_build (s, pt, seed, &built, &error))
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!supported (&built, s->path, &error))
    {
      cli_error ("testbed", "%s", error->message);
      sim_built_clear (&built);
      return CLI_EXIT_USAGE;
    }
  ResRun *run = res_run_begin (db, 0, s, pt, seed, &error);
  if (!run || !res_run_set_mode (run, "testbed", &error))
    {
      cli_error ("testbed", "%s", error->message);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  Tb tb = { 0 };
  tb.scenario = s;
  tb.point = pt;
  tb.seed = seed;
  tb.sets = sets;
  tb.cfg = &built.cfg;
  tb.self_exe = (char *) self_exe;
  tb.db_rec = res_run_recorder (run);
  tb.rec = (SimRecorder) { track_observation, track_fact, track_metric, track_traffic, &tb };
  sim_tally_init (&tb.tally);
  tb.peers = g_ptr_array_new ();
  g_ptr_array_add (tb.peers, NULL);
  tb.rules = g_array_new (FALSE, FALSE, sizeof (SimAction));
  tb.timers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_source_unref);
  tb.t0_us = g_get_monotonic_time ();
  tb.loop = g_main_loop_new (NULL, FALSE);
  track_fact (&tb, 0, PROTO_NO_NODE, PROTO_NO_NODE, "testbed",
              "loopback TCP; latency, bandwidth and link setup of [network] not applied (no --netem)");
  SimTbParams cp = { .cfg = &built.cfg, .id = PROTO_SERVER, .listen_host = "127.0.0.1", .listen_port = 0,
                     .t0_us = tb.t0_us, .rec = tb.rec };
  tb.coord = sim_tb_node_new (&cp, &error);
  if (!tb.coord)
    {
      cli_error ("testbed", "%s", error->message);
      res_run_abort (run, "error");
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  /* timed actions first (those at time 0 precede the initial joins), then the initial peers */
  for (guint i = 0; i < built.cfg.actions->len; i++)
    {
      const SimAction *a = &g_array_index (built.cfg.actions, SimAction, i);
      if (a->round == 0)
        schedule (&tb, a, a->at);
    }
  SimAction *joins = g_new0 (SimAction, built.cfg.n_peers + 1);
  for (guint id = 1; id <= built.cfg.n_peers; id++)
    {
      joins[id].kind = SIM_ACT_JOIN;
      joins[id].a = id;
      schedule (&tb, &joins[id], 0);
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
  finish (&tb, &res, results);   /* before the children are stopped: their state at the end */
  stop_children (&tb, 3 * G_USEC_PER_SEC);
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
      *any_failed |= failed->len > 0;
    }
  /* actions still pending point at tb: destroy them */
  for (guint i = 0; i < tb.timers->len; i++)
    g_source_destroy (tb.timers->pdata[i]);
  g_ptr_array_unref (tb.timers);
  for (guint i = 1; i < tb.peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb.peers, i);
      if (!p)
        continue;
      g_clear_object (&p->proc);
      g_clear_object (&p->control);
      g_clear_object (&p->records);
      g_clear_pointer (&p->model, learn_weights_unref);
      g_free (p);
    }
  g_ptr_array_unref (tb.peers);
  g_array_unref (tb.rules);
  sim_tally_clear (&tb.tally);
  sim_tb_node_free (tb.coord);
  g_main_loop_unref (tb.loop);
  g_free (joins);
  sim_built_clear (&built);
  return rc;
}

int
cli_cmd_testbed (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_auto (GStrv) sets = NULL;
  gint64 seed = -1;
  gboolean netem = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "results database (default NAME.db)", "DB" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario value", "section.key=value" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the first run (default: the scenario's)", "N" },
    { "netem", 0, 0, G_OPTION_ARG_NONE, &netem, "network namespaces with tc netem/tbf (not implemented yet)", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - run a scenario on real sockets and processes");
  g_option_context_set_summary (ctx,
    "The coordinator runs in this process, each peer in a `dlsim node peer` process,\n"
    "over loopback TCP; the run is recorded with runs.mode = 'testbed'.\n"
    "Supported: join, leave (graceful), crash (SIGKILL), drop and delay rules, at a\n"
    "time or at `round N`.  Refused with an error: churn arrivals, traces, NAT,\n"
    "connect_failure, link-fail, link-down, link-slow, partition, heal, slow.\n"
    "Not applied (loopback only): [network] latency, bandwidth and link setup.\n"
    "Not implemented yet: --netem, multi-machine merge and compare.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (argc != 2)
    {
      cli_error ("testbed", "expected one scenario FILE (dlsim testbed --help)");
      return CLI_EXIT_USAGE;
    }
  if (netem)
    {
      cli_error ("testbed", "--netem is not implemented yet");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (SimScenario) s = sim_scenario_load (argv[1], (const char *const *) sets, &error);
  if (!s)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!self_exe)
    self_exe = g_strdup (argv[0]);
  g_autofree char *db_path = out ? g_strdup (out) : g_strdup_printf ("%s.db", s->name);
  g_autoptr (ResDb) db = res_db_open (db_path, &error);
  if (!db)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  signal (SIGPIPE, SIG_IGN);
  gboolean any_failed = FALSE;
  for (guint pi = 0; pi < s->points->len; pi++)
    for (guint k = 0; k < s->repeat; k++)
      {
        guint64 sd = (seed >= 0 ? (guint64) seed : s->seed) + k;
        int rc = run_one (s, s->points->pdata[pi], sd, sets, db, self_exe, &any_failed);
        if (rc != CLI_EXIT_OK)
          return rc;
      }
  (void) any_failed;
  return CLI_EXIT_OK;
}
