/* testbed-tally.c — the state of one testbed run and what it has tallied
 * (testbed-private.h): its peers as the records say (state, rounds,
 * retries, the last model), the same tally and properties as the
 * simulator's, and from them the run's result and each peer's.  The
 * records come as lines (testbed-records.h) from the peers' processes
 * during a live run (testbed-procs.c) or from the nodes' databases in the
 * replay of `dlsim merge` (testbed-merge.c).  It calls neither. */
#include "config.h"

#include "testbed/testbed-private.h"
#include "testbed/testbed-records.h"
#include "host/sim-props.h"

#include <math.h>
#include <string.h>

DlTime
_testbed_run_now (TestbedRun *tb)
{
  if (tb->replaying)
    return tb->replay_now;
  return (g_get_monotonic_time () - tb->t0_us) * 1000;
}

TestbedPeer *
_testbed_run_peer (TestbedRun *tb, ProtoNodeId id, gboolean create)
{
  while (tb->peers->len <= id)
    g_ptr_array_add (tb->peers, NULL);
  TestbedPeer *p = g_ptr_array_index (tb->peers, id);
  if (!p && create)
    {
      p = g_new0 (TestbedPeer, 1);
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
  TestbedRun *tb = ud;
  sim_tally_observe (&tb->tally, node, o);
  sim_props_observe (tb->props, t, node, o);
  if (node != PROTO_SERVER)
    {
      TestbedPeer *p = _testbed_run_peer (tb, node, TRUE);
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
          /* as proto_machine_received_role_count, which the simulator
           * reads: every delivered message, listened for or dropped */
          p->retries_received += proto_msg_type_role ((ProtoMsgType) o->msg_type) == PROTO_MSG_ROLE_BARRIER_RETRY;
          p->fails_received += proto_msg_type_role ((ProtoMsgType) o->msg_type) == PROTO_MSG_ROLE_CONNECTION_FAIL;
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
_testbed_run_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  TestbedRun *tb = ud;
  if (tb->db_rec.fact)
    tb->db_rec.fact (tb->db_rec.user_data, t, node, other, kind, detail);
}

static void
track_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  TestbedRun *tb = ud;
  TestbedPeer *p = _testbed_run_peer (tb, peer, TRUE);
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
  TestbedRun *tb = ud;
  tb->messages++;
  tb->bytes += bytes;
  if (tb->db_rec.traffic)
    tb->db_rec.traffic (tb->db_rec.user_data, type, bytes);
}

gboolean
_testbed_peer_settled (const TestbedPeer *p, const ProtoFamily *f)
{
  if (p->status != TESTBED_PEER_ONLINE || p->exited)
    return TRUE;
  return strcmp (p->state, "done") == 0 || strcmp (p->state, "failed") == 0 || strcmp (p->state, "left") == 0
         || proto_family_serving_state (f, p->state);
}
/* ---------------------------------------------------------------- results */

void
_testbed_run_finish (TestbedRun *tb, SimResult *r, GArray *results)
{
  DlTime now = _testbed_run_now (tb);
  memset (r, 0, sizeof *r);
  r->outcome = tb->outcome;
  r->end = now;
  sim_tally_fill (&tb->tally, r);
  r->messages = tb->messages;
  r->bytes = tb->bytes;
  g_autoptr (GPtrArray) models = g_ptr_array_new ();
  g_array_set_size (results, tb->peers->len);
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TestbedPeer *p = g_ptr_array_index (tb->peers, i);
      SimPeerResult *pr = &g_array_index (results, SimPeerResult, i);
      pr->outcome = SIM_PEER_ABSENT;
      pr->accuracy = pr->loss = NAN;
      if (!p || p->status == TESTBED_PEER_ABSENT)
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
        .crashed = p->status == TESTBED_PEER_CRASHED,
        .left = p->status == TESTBED_PEER_LEFT || p->leave_asked || strcmp (p->state, "left") == 0,
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
    }
  if (r->outcome == SIM_OUTCOME_COMPLETED && r->peers_hung > 0)
    r->outcome = SIM_OUTCOME_STALLED;
  sim_final_means ((const SimPeerResult *) (const void *) results->data, results->len - 1, &r->final_accuracy,
                   &r->final_loss);
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

void
_testbed_run_init (TestbedRun *tb, const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, const SimWorldConfig *cfg,
          ResRun *run)
{
  memset (tb, 0, sizeof *tb);
  tb->scenario = s;
  tb->point = pt;
  tb->seed = seed;
  tb->sets = sets;
  tb->cfg = cfg;
  if (run)
    tb->db_rec = res_run_recorder (run);
  tb->track = (SimRecorder) { track_observation, _testbed_run_fact, track_metric, track_traffic, tb };
  tb->rec = tb->track;
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
_testbed_run_clear (TestbedRun *tb)
{
  /* actions still pending point at tb: destroy them */
  for (guint i = 0; i < tb->timers->len; i++)
    g_source_destroy (tb->timers->pdata[i]);
  g_ptr_array_unref (tb->timers);
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TestbedPeer *p = g_ptr_array_index (tb->peers, i);
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
_testbed_run_ingest (TestbedRun *tb, ProtoNodeId from, const char *line)
{
  ProtoNodeId node;
  LearnWeights *w = NULL;
  if (line[0] == 'W' && testbed_record_parse_model (line, &node, &w))
    {
      /* a process sends only its own model */
      TestbedPeer *q = node == from && node != PROTO_SERVER ? _testbed_run_peer (tb, node, TRUE) : NULL;
      if (q)
        {
          g_clear_pointer (&q->model, learn_weights_unref);
          q->model = w;
          /* a process sends its model right after its round-end */
          sim_props_round_model (tb->props, _testbed_run_now (tb), node, (guint) q->last_round_end, w);
        }
      else
        learn_weights_unref (w);
    }
  else if (!testbed_record_parse (line, &tb->rec))
    tb->bad_lines++;
}
