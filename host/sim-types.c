/* sim-types.c — the functions of sim-types.h: the names of the
 * outcomes, a world configuration's defaults and its clearing, and the
 * rules the simulator and the testbed share (the training time, the stall
 * window, a peer's outcome, the final means).  A leaf: it calls no other
 * file of its folder. */
#include "config.h"

#include "host/sim-types.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sim-error-quark, sim_error)

const char *
sim_outcome_name (SimOutcome o)
{
  switch (o)
    {
    case SIM_OUTCOME_COMPLETED: return "completed";
    case SIM_OUTCOME_STALLED: return "stalled";
    case SIM_OUTCOME_TIME_LIMIT: return "time_limit";
    case SIM_OUTCOME_INTERRUPTED: return "interrupted";
    case SIM_OUTCOME_ERROR: return "error";
    }
  return "?";
}

const char *
sim_peer_outcome_name (SimPeerOutcome o)
{
  switch (o)
    {
    case SIM_PEER_FINISHED: return "finished";
    case SIM_PEER_FAILED: return "failed";
    case SIM_PEER_EXCLUDED: return "excluded";
    case SIM_PEER_HUNG: return "hung";
    case SIM_PEER_LEFT: return "left";
    case SIM_PEER_CRASHED: return "crashed";
    case SIM_PEER_RUNNING: return "running";
    case SIM_PEER_ABSENT: return "absent";
    }
  return "?";
}

void
sim_world_config_init (SimWorldConfig *c)
{
  memset (c, 0, sizeof *c);
  c->seed = 1;
  c->time_limit = 2 * DL_H;
  proto_config_init (&c->proto, NULL);   /* the default family */
  c->proto.min_participants = 2;
  c->n_peers = 3;
  c->speed = dl_dist_constant (DL_UNIT_NUMBER, 1);
  c->straggler_slowdown = 1;
  c->sample_cost = DL_MS;
  c->epochs_per_round = 1;
  c->latency = dl_dist_constant (DL_UNIT_DURATION, 40e6);
  c->server_latency = dl_dist_constant (DL_UNIT_DURATION, 20e6);
  c->uplink_bps = 20000000;
  c->downlink_bps = 100000000;
  c->sharing_fifo = FALSE;
  c->slow_start_after_idle = TRUE;
  c->hystart = TRUE;
  c->min_rto = 0;
  c->queue_bdp = 4;
  c->mss_bytes = 1448;
  c->header_bytes = 66;
  c->link_setup = 200 * DL_MS;
  c->crash_detection = dl_dist_constant (DL_UNIT_DURATION, 30.0 * DL_S);
  c->replica_latency = dl_dist_constant (DL_UNIT_DURATION, 1e6);
  c->replica_uplink_bps = 1000000000;
  c->replica_crash_detection = dl_dist_constant (DL_UNIT_DURATION, 1e9);
  c->session = dl_dist_constant (DL_UNIT_DURATION, 30 * 60e9);
  c->crash_fraction = 0.5;
  c->max_peers = 100;
  c->model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = 1000, .learning_rate = 0.1f, .batch_size = 32 };
  c->partition.kind = LEARN_PARTITION_IID;
  c->none_samples = 100;
  c->actions = g_array_new (FALSE, TRUE, sizeof (SimAction));
}

void
sim_world_config_clear (SimWorldConfig *c)
{
  if (c->actions)
    {
      for (guint i = 0; i < c->actions->len; i++)
        g_clear_pointer (&g_array_index (c->actions, SimAction, i).groups, g_array_unref);
      g_clear_pointer (&c->actions, g_array_unref);
    }
  g_clear_pointer (&c->trace, g_array_unref);
  g_clear_pointer (&c->capacity, g_array_unref);
  g_clear_pointer (&c->rates, g_array_unref);
  g_clear_pointer (&c->region_names, g_strfreev);
  g_clear_pointer (&c->region_counts, g_free);
  c->n_regions = 0;
}

DlTime
sim_training_time (const SimWorldConfig *cfg, gsize samples, double speed)
{
  double work = (double) samples * cfg->epochs_per_round * (double) cfg->sample_cost;
  return speed > 0 ? (DlTime) llround (work / speed) : DL_TIME_NEVER - 1;
}

DlTime
sim_stall_window (const SimWorldConfig *cfg)
{
  return proto_family_of (&cfg->proto)->stall_window (&cfg->proto);
}

SimPeerOutcome
sim_peer_outcome_of (const SimWorldConfig *cfg, const SimPeerEnd *e)
{
  if (e->rounds >= cfg->proto.rounds && !e->serves_only)
    return SIM_PEER_FINISHED;
  if (e->failed)
    return e->excluded ? SIM_PEER_EXCLUDED : SIM_PEER_FAILED;
  if (e->crashed)
    return SIM_PEER_CRASHED;
  if (e->left)
    return SIM_PEER_LEFT;
  if (e->serves_only)
    return SIM_PEER_FINISHED;   /* it served while it stayed */
  return e->stalled ? SIM_PEER_HUNG : SIM_PEER_RUNNING;
}

void
sim_final_means (const SimPeerResult *peers, guint n, double *out_accuracy, double *out_loss)
{
  double acc[2] = { 0, 0 }, loss[2] = { 0, 0 };
  guint count[2] = { 0, 0 };   /* [0]: the peers still there or finished, [1]: every peer */
  for (guint i = 1; i <= n; i++)
    {
      const SimPeerResult *p = &peers[i];
      if (p->outcome == SIM_PEER_ABSENT || isnan (p->accuracy))
        continue;
      gboolean there = p->outcome == SIM_PEER_FINISHED
                       || (p->left == DL_TIME_NEVER && p->outcome != SIM_PEER_LEFT && p->outcome != SIM_PEER_CRASHED);
      for (guint k = there ? 0 : 1; k < 2; k++)
        {
          acc[k] += p->accuracy;
          loss[k] += p->loss;
          count[k]++;
        }
    }
  guint k = count[0] ? 0 : 1;
  *out_accuracy = count[k] ? acc[k] / count[k] : NAN;
  *out_loss = count[k] ? loss[k] / count[k] : NAN;
}
