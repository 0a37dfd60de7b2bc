/* sim-world.c — the simulated world: its hosts (the simulated network as
 * the host layer's transport, host/sim-host.c), compute, the hang detector, and
 * the run's results.  The network and links are in sim-net.c; membership,
 * the timeline and churn in sim-churn.c; the coordinator's servers (one, or
 * replicas) in sim-servers.c; a peer's attributes in host/sim-peers.c; the
 * shared state in sim-world-private.h.  This file calls them and they never
 * call it: where they feed a machine, they call through the callbacks it
 * sets (world_callbacks, SimWorldCallbacks).
 *
 * Compute: samples x epochs x sample_cost / speed; stragglers are slower by
 * their factor; `slow` divides the speed.  The model really trains; the wall
 * time it takes is not simulated time.
 *
 * Departures: a graceful close reaches the coordinator as a close frame
 * behind what the peer already sent (same stream, its latency); a crash
 * loses what had not fully left the uplink, and the coordinator sees it
 * after a sampled crash_detection, or never.  docs/world.md has the table.
 *
 * Hang detector: the world is quiet when no message is in flight, nobody
 * trains, no link is being set up, no timed action or churn event is
 * pending and no peer waits on a sync timeout.  Coordinator timers may
 * still cycle; that is not progress.  A world quiet with no peer progress for
 * (M + 2) x T + model_sync_timeout + payload_timeout has stalled.
 *
 * Not modelled: packet loss or TCP dynamics (streams are reliable with a
 * rate), coordinator bandwidth, trickled ICE, a partition closing a stream
 * (messages across a partition are lost; streams stay open). */
#include "config.h"

#include "sim/sim-world-private.h"
#include "host/sim-props.h"
#include "protocol/replica/proto-replica.h"

#include <math.h>
#include <string.h>

void
sim_world_set_interrupt (SimWorld *w, const volatile int *flag)
{
  w->interrupt = flag;
}

void
sim_world_set_wall_limit (SimWorld *w, gint64 limit_us)
{
  w->wall_limit_us = MAX (limit_us, 0);
}

/* The engine's poll (sim_engine_set_poll): the interrupt and the wall
 * clock, read every SIM_WORLD_POLL_EVENTS events whatever the simulated
 * time does.  A cheap look at the flag, and one monotonic clock read. */
static gboolean
world_poll (void *ctx)
{
  SimWorld *w = ctx;
  gboolean interrupted = w->interrupt && *w->interrupt;
  if (!interrupted && w->wall_limit_us > 0 && g_get_monotonic_time () >= w->wall_end_us)
    {
      g_snprintf (w->result.error, sizeof w->result.error,
                  "the wall-clock limit of %.3f s was reached at simulated time %.9f s",
                  (double) w->wall_limit_us / 1e6, (double) sim_engine_now (w->engine) / 1e9);
      interrupted = TRUE;
    }
  if (!interrupted)
    return FALSE;
  w->result.outcome = SIM_OUTCOME_INTERRUPTED;
  w->finished = TRUE;
  return TRUE;
}

void
sim_world_set_progress (SimWorld *w, SimProgressFn fn, gpointer ud)
{
  w->progress_fn = fn;
  w->progress_ud = ud;
}

/* ---------------------------------------------------------------- compute */

static void
ev_train_done (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = sim_node_at (w, (ProtoNodeId) arg);
  w->training--;
  n->train_ev = SIM_EVENT_NONE;
  g_autoptr (LearnWeights) result = g_steal_pointer (&n->train_result);
  if (n->status != NODE_ONLINE)
    return;
  ProtoInput in = { .kind = PROTO_IN_TRAINING_DONE, .weights = result };
  sim_dispatch_peer (w, n, &in);
  (void) e;
}

static void
start_training (SimWorld *w, Node *n, LearnWeights *weights)
{
  gsize samples = w->cfg.model.kind == LEARN_MODEL_NONE ? w->cfg.none_samples
                                                          : (n->shard ? n->shard->n : 0);
  double speed = n->speed / n->slow / (n->straggler ? w->cfg.straggler_slowdown : 1.0);
  DlTime dur = sim_training_time (&w->cfg, samples, speed);
  sim_props_training_model (w->props, sim_engine_now (w->engine), n->id, weights);
  g_clear_pointer (&n->train_result, learn_weights_unref);
  n->train_result = learn_model_train (&w->cfg.model, weights, n->shard, w->cfg.epochs_per_round,
                                       n->rng_train);
  w->training++;
  n->train_ev = sim_engine_schedule_in (w->engine, dur, ev_train_done, w, n->id);
}

/* ---------------------------------------------------------------- hosts */


static void
evaluate (SimWorld *w, Node *n, int round)
{
  if (w->cfg.model.kind == LEARN_MODEL_NONE || !w->cfg.test)
    return;
  learn_model_evaluate_cached (&w->eval, &w->cfg.model, proto_machine_model (n->peer), w->cfg.test,
                               &n->accuracy, &n->loss);
  if (w->rec.metric)
    {
      DlTime t = sim_engine_now (w->engine);
      w->rec.metric (w->rec.user_data, t, round, n->id, "accuracy", n->accuracy);
      w->rec.metric (w->rec.user_data, t, round, n->id, "loss", n->loss);
    }
}

static void
note_observation (SimWorld *w, ProtoNodeId node, const ProtoObservation *o)
{
  DlTime now = sim_engine_now (w->engine);
  if (w->rec.observation)
    w->rec.observation (w->rec.user_data, now, node, o);
  sim_tally_observe (&w->tally, node, o);
  sim_props_observe (w->props, now, node, o);
  switch (o->kind)
    {
    case PROTO_OBS_ROUND_END:
      if (node != PROTO_SERVER)
        sim_props_round_model (w->props, now, node, (guint) o->round, sim_world_peer_model (w, node));
      break;
    case PROTO_OBS_SYNC_DONE:
      if (node != PROTO_SERVER)
        sim_props_synced_model (w->props, now, node, sim_world_peer_model (w, node));
      break;
    case PROTO_OBS_PHASE:
      if (node != PROTO_SERVER)
        {
          w->progress = now;
          sim_node_at (w, node)->progress = now;
        }
      break;
    case PROTO_OBS_ROUND_START:
    case PROTO_OBS_ROUND_LIST:
      if (node == PROTO_SERVER && o->kind == w->round_begins)
        sim_churn_round_started (w, (guint) o->round + 1);
      break;
    case PROTO_OBS_METRIC:
      if (w->rec.metric)
        w->rec.metric (w->rec.user_data, now, o->round, node, o->detail, proto_obs_metric_value (o));
      break;
    default:
      break;
    }
}

/* ---- the simulated network as the host layer's transport ---- */

static void ev_peer_deadline (SimEngine *e, void *ctx, uint64_t arg);

static void
tr_send (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  sim_net_send (ud, from, to, via, msg);
}

static void
tr_open_link (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator)
{
  SimWorld *w = ud;
  Link *l = sim_link_get (w, self, other, TRUE);
  sim_link_set_obj (l, sim_link_side (self, other), TRUE);
  (void) initiator;
}

static void
tr_connect_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  sim_net_connect_link (ud, self, other);
}

static void
tr_close_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  sim_net_close_link (ud, self, other, TRUE);
}

static void
tr_start_training (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round)
{
  SimWorld *w = ud;
  start_training (w, sim_node_at (w, self), weights);
  (void) round;
}

static void
tr_disconnect (gpointer ud, ProtoNodeId self)
{
  SimWorld *w = ud;
  Node *n = sim_node_at (w, self);
  if (n->status != NODE_ONLINE)
    return;
  n->status = NODE_LEFT;
  n->left = sim_engine_now (w->engine);
  sim_fact (w, self, PROTO_NO_NODE, "disconnect", NULL);
  sim_net_close_stream (w, n);
}

static void
tr_observed (gpointer ud, ProtoNodeId self, const ProtoObservation *obs)
{
  SimWorld *w = ud;
  if (proto_node_is_replica (self))
    self = PROTO_SERVER;   /* the coordinator service speaks as one */
  note_observation (w, self, obs);
  if (obs->kind == PROTO_OBS_ROUND_END && self != PROTO_SERVER)
    evaluate (w, sim_node_at (w, self), obs->round);
}

static void
tr_arm (gpointer ud, ProtoNodeId self, DlTime deadline)
{
  SimWorld *w = ud;
  if (self == PROTO_SERVER || proto_node_is_replica (self))
    {
      guint k = self == PROTO_SERVER ? 0 : proto_replica_index (self);
      sim_rearm (w, &w->servers[k].deadline, deadline, sim_ev_coord_deadline, k);
    }
  else
    sim_rearm (w, &sim_node_at (w, self)->deadline, deadline, ev_peer_deadline, self);
}

static void
tr_reconnect (gpointer ud, ProtoNodeId self)
{
  sim_servers_reconnect (ud, self);
}

static void
tr_close_stream (gpointer ud, ProtoNodeId self, ProtoNodeId peer)
{
  sim_servers_close_stream (ud, self, peer);
}

static void
tr_prepare_send (gpointer ud, ProtoNodeId self, ProtoNodeId to, ProtoVia via, int stage)
{
  sim_net_prepare_send (ud, self, to, via, stage);
}

static void
tr_broken (gpointer ud, ProtoNodeId self, const char *why)
{
  SimWorld *w = ud;
  if (w->result.outcome == SIM_OUTCOME_ERROR)
    return;
  sim_fact (w, self, PROTO_NO_NODE, "error", why);
  w->result.outcome = SIM_OUTCOME_ERROR;
  g_strlcpy (w->result.error, why, sizeof w->result.error);
  w->finished = TRUE;
  sim_engine_stop (w->engine);
}

static const SimTransport sim_network = {
  .send = tr_send,
  .open_link = tr_open_link,
  .connect_link = tr_connect_link,
  .close_link = tr_close_link,
  .start_training = tr_start_training,
  .disconnect = tr_disconnect,
  .observed = tr_observed,
  .arm = tr_arm,
  .reconnect = tr_reconnect,
  .close_stream = tr_close_stream,
  .prepare_send = tr_prepare_send,
  .broken = tr_broken,
};

/* ---- what the world's parts ask of it (SimWorldCallbacks) ---- */

static void
dispatch_server (SimWorld *w, guint k, const ProtoInput *in)
{
  SimServer *sv = &w->servers[k];
  if (sv->crashed)
    return;
  ProtoNodeId self = w->n_servers > 1 ? proto_replica_id (k) : PROTO_SERVER;
  sim_host_feed (sv->m, self, sim_engine_now (w->engine), in, &sim_network, w);
}

static void
dispatch_peer (SimWorld *w, Node *n, const ProtoInput *in)
{
  sim_host_feed (n->peer, n->id, sim_engine_now (w->engine), in, &sim_network, w);
  n->in_sync_wait = proto_machine_waiting_on_peer (n->peer);
}

static const SimWorldCallbacks world_callbacks = {
  .dispatch_peer = dispatch_peer,
  .dispatch_server = dispatch_server,
};

static void
ev_peer_deadline (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = sim_node_at (w, (ProtoNodeId) arg);
  n->deadline.ev = SIM_EVENT_NONE;
  if (n->status != NODE_ONLINE)
    return;
  if (proto_machine_next_deadline (n->peer) > sim_engine_now (e))
    {
      sim_rearm (w, &n->deadline, proto_machine_next_deadline (n->peer), ev_peer_deadline, n->id);
      return;  /* stale wake-up */
    }
  ProtoInput in = { .kind = PROTO_IN_DEADLINE };
  sim_dispatch_peer (w, n, &in);
}

/* ---------------------------------------------------------------- watchdog */

static gboolean
peer_settled (const Node *n)
{
  if (n->status != NODE_ONLINE)
    return TRUE;
  ProtoPeerView v;
  proto_machine_view (n->peer, &v);
  return v.settled;
}

static gboolean
all_settled (SimWorld *w)
{
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (n && !peer_settled (n))
        return FALSE;
    }
  return TRUE;
}

static gboolean
any_sync_wait (SimWorld *w)
{
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (n && n->status == NODE_ONLINE && n->in_sync_wait)
        return TRUE;
    }
  return FALSE;
}

static void
ev_watch (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  DlTime now = sim_engine_now (e);
  if (w->progress_fn)
    w->progress_fn (w->progress_ud, now, sim_engine_events_run (e));
  if (w->interrupt && *w->interrupt)
    {
      w->result.outcome = SIM_OUTCOME_INTERRUPTED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  /* The scans of every peer come last, and stop at the first peer that
   * answers: once a simulated second, a full scan of 10 000 gossip peers
   * was 12 % of a push-pull run's profile (issue 44). */
  gboolean external = w->timed_pending > 0 || w->churn_pending > 0;
  if (!external && w->in_flight == 0 && w->training == 0 && all_settled (w))
    {
      /* the run ended with the last progress, not at this periodic check */
      w->completed_at = MAX (w->progress, w->last_arrival);
      w->result.outcome = SIM_OUTCOME_COMPLETED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  gboolean quiet = !external && w->in_flight == 0 && w->training == 0 && w->link_setups == 0;
  /* after `heal all` the liveness phase has its stall window in full */
  DlTime since = w->healed_all ? MAX (w->progress, w->healed_at) : w->progress;
  if (quiet && now - since >= sim_stall_window (&w->cfg) && !any_sync_wait (w))
    {
      w->result.outcome = SIM_OUTCOME_STALLED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  sim_engine_schedule_in (e, DL_S, ev_watch, w, 0);
  (void) arg;
}

/* ---------------------------------------------------------------- setup, run, results */

/* The checks sim_world_new makes before it builds anything. */
static gboolean
check_config (const SimWorldConfig *cfg, GError **error)
{
  const ProtoConfig *p = &cfg->proto;
  if (p->min_participants == 0 || p->rounds == 0 || cfg->epochs_per_round == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                   "min_participants, rounds and epochs_per_round must be at least 1");
      return FALSE;
    }
  if (cfg->model.kind != LEARN_MODEL_NONE && (cfg->train == NULL || cfg->train->n == 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "a trained model needs a training set");
      return FALSE;
    }
  if (cfg->n_peers > cfg->max_peers && cfg->max_peers > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "peers.count (%u) exceeds churn.max_peers (%u)",
                   cfg->n_peers, cfg->max_peers);
      return FALSE;
    }
  for (guint i = 0; cfg->actions && i < cfg->actions->len; i++)
    {
      const SimAction *a = &g_array_index (cfg->actions, SimAction, i);
      if ((a->a > cfg->max_peers || a->b > cfg->max_peers))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "timeline action %u names peer p%u beyond churn.max_peers (%u)", i + 1,
                       MAX (a->a, a->b), cfg->max_peers);
          return FALSE;
        }
    }
  return TRUE;
}

SimWorld *
sim_world_new (const SimWorldConfig *cfg, const SimRecorder *rec, GError **error)
{
  if (!check_config (cfg, error))
    return NULL;
  SimWorld *w = g_new0 (SimWorld, 1);
  w->cfg = *cfg;
  if (rec)
    w->rec = *rec;
  w->cb = &world_callbacks;
  w->engine = sim_engine_new ();
  sim_net_init (w);
  w->family = proto_family_of (&cfg->proto);
  w->round_begins = w->family->round_begins_with (&cfg->proto);
  w->cfg.proto.seed = cfg->seed;   /* the coordinator's own stream, if its family draws */
  w->n_servers = MAX (cfg->proto.coordinator_replicas, 1);
  w->servers = g_new0 (SimServer, w->n_servers);
  for (guint k = 0; k < w->n_servers; k++)
    if (w->n_servers == 1)
      w->servers[k].m = w->family->new_coordinator (&w->cfg.proto);
    else
      {
        w->servers[k].rng = dl_random_new (cfg->seed, "replica", k);
        w->servers[k].m = proto_replica_new (w->family, &w->cfg.proto, k, w->servers[k].rng);
      }
  w->nodes = g_ptr_array_new ();
  g_ptr_array_add (w->nodes, NULL);
  w->links = dl_word_map_new (NULL);
  w->close_waits = dl_word_map_new (NULL);
  w->channels = g_hash_table_new_full (sim_hash_word, NULL, NULL, g_free);
  w->wire_sizes = dl_word_map_new (NULL);
  w->rng_links = dl_random_new (cfg->seed, "links", DL_RANDOM_NO_NODE);
  w->rng_loss = dl_random_new (cfg->seed, "loss", DL_RANDOM_NO_NODE);
  w->rng_close = dl_random_new (cfg->seed, "link-close", DL_RANDOM_NO_NODE);
  w->close_notes = g_ptr_array_new_with_free_func (g_free);
  w->rng_churn = dl_random_new (cfg->seed, "churn", DL_RANDOM_NO_NODE);
  w->drop_rules = g_array_new (FALSE, FALSE, sizeof (Rule));
  w->delay_rules = g_array_new (FALSE, FALSE, sizeof (Rule));
  sim_tally_init (&w->tally);
  for (guint i = 0; w->family->metric_names && w->family->metric_names[i]; i++)
    sim_tally_declare_metric (&w->tally, w->family->metric_names[i]);
  for (guint i = 0; w->n_servers > 1 && proto_replica_metric_names[i]; i++)
    sim_tally_declare_metric (&w->tally, proto_replica_metric_names[i]);
  w->props = sim_props_new (&w->rec, cfg->proto.min_participants);
  sim_props_set_agreement (w->props, w->family->promises_agreement (&cfg->proto));
  sim_props_set_model_sync (w->props, w->family->syncs_late_joiners (&cfg->proto));
  sim_props_set_stall_window (w->props, sim_stall_window (cfg));
  sim_props_set_liveness (w->props, !cfg->safety_only);
  guint retries = 0;
  if (w->family->excludes_after_retries (&cfg->proto, &retries))
    sim_props_set_max_connection_retry (w->props, retries);
  if (w->family->kind_role)
    sim_props_set_kind_role (w->props, w->family->kind_role, &w->cfg.proto);
  w->peer_results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  if (cfg->model.kind != LEARN_MODEL_NONE)
    {
      g_autoptr (DlRandom) r = dl_random_new (cfg->seed, "partition", DL_RANDOM_NO_NODE);
      w->partition = learn_partition_new (cfg->train, &cfg->partition, MAX (cfg->max_peers, 1), r);
    }
  g_autoptr (DlRandom) init = dl_random_new (cfg->seed, "initial-model", DL_RANDOM_NO_NODE);
  w->initial = learn_model_initial_weights (&cfg->model, init);
  w->next_id = cfg->n_peers + 1;
  w->completed_at = DL_TIME_NEVER;
  return w;
}

void
sim_world_free (SimWorld *w)
{
  if (!w)
    return;
  g_clear_pointer (&w->cfg.session_origin, g_array_unref);
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (!n)
        continue;
      proto_machine_free (n->peer);
      dl_random_free (n->rng_net);
      dl_random_free (n->rng_train);
      dl_random_free (n->rng_shares);
      learn_weights_unref (n->train_result);
      learn_dataset_free (n->shard);
      dl_id_map_clear (&n->links);
      g_free (n);
    }
  g_ptr_array_unref (w->nodes);
  learn_eval_cache_clear (&w->eval);
  for (guint k = 0; k < w->n_servers; k++)
    {
      proto_machine_free (w->servers[k].m);
      dl_random_free (w->servers[k].rng);
    }
  g_free (w->servers);
  sim_engine_free (w->engine);
  sim_net_free (w);
  dl_word_map_free (w->links);
  dl_word_map_free (w->close_waits);
  g_hash_table_unref (w->channels);
  dl_word_map_free (w->wire_sizes);
  dl_random_free (w->rng_links);
  dl_random_free (w->rng_loss);
  dl_random_free (w->rng_close);
  g_ptr_array_unref (w->close_notes);
  dl_random_free (w->rng_churn);
  learn_partition_free (w->partition);
  learn_weights_unref (w->initial);
  g_array_unref (w->drop_rules);
  g_array_unref (w->delay_rules);
  g_clear_pointer (&w->groups, g_array_unref);
  sim_tally_clear (&w->tally);
  sim_props_free (w->props);
  g_array_unref (w->peer_results);
  g_free (w);
}

guint
sim_world_n_nodes (const SimWorld *w)
{
  return w->nodes->len - 1;
}

LearnWeights *
sim_world_peer_model (const SimWorld *w, guint i)
{
  Node *n = sim_node_at (w, i);
  return n && n->peer ? proto_machine_model (n->peer) : NULL;
}

const SimPeerResult *
sim_world_peer (const SimWorld *w, guint i)
{
  g_return_val_if_fail (i >= 1 && i < w->peer_results->len, NULL);
  return &g_array_index (w->peer_results, SimPeerResult, i);
}

/* Peer i's result at the run's end (now), counted into w's result; its
 * model joins models if it finished or is still online. */
static void
peer_result (SimWorld *w, guint i, DlTime now, GPtrArray *models)
{
  SimResult *r = &w->result;
  Node *n = sim_node_at (w, i);
  SimPeerResult *pr = &g_array_index (w->peer_results, SimPeerResult, i);
  pr->outcome = SIM_PEER_ABSENT;
  pr->accuracy = NAN;
  pr->loss = NAN;
  if (!n || n->status == NODE_ABSENT)
    return;
  pr->joined = n->joined;
  pr->left = n->left;
  pr->speed = n->speed / n->slow / (n->straggler ? w->cfg.straggler_slowdown : 1.0);
  pr->uplink_bps = n->up_bps0;   /* a bandwidth trace's changes are in the timeline */
  pr->downlink_bps = n->down_bps0;
  ProtoPeerView v;
  proto_machine_view (n->peer, &v);
  pr->starved = v.starved;
  /* its coordinator is gone for it (a crashed coordinator, a session the
   * replicas closed): it left then, as far as the session goes */
  if (pr->left == DL_TIME_NEVER && !v.connected && (n->stream_down || w->n_servers > 1))
    pr->left = n->progress;
  pr->rounds = v.rounds_done;
  pr->synced = v.synced;
  pr->retries_received = proto_machine_received_role_count (n->peer, PROTO_MSG_ROLE_BARRIER_RETRY)
                         + v.kind_received[PROTO_MSG_ROLE_BARRIER_RETRY];
  pr->fails_received = proto_machine_received_role_count (n->peer, PROTO_MSG_ROLE_CONNECTION_FAIL)
                       + v.kind_received[PROTO_MSG_ROLE_CONNECTION_FAIL];
  pr->state = proto_machine_state_name (n->peer);
  pr->accuracy = n->accuracy;
  pr->loss = n->loss;
  SimPeerEnd end = {
    .rounds = pr->rounds,
    .serves_only = v.serves_only,
    .failed = v.failed,
    .excluded = v.excluded,
    .crashed = n->status == NODE_CRASHED,
    /* a peer whose coordinator went away (its stream closed: a crashed
     * coordinator; with replicas also a session the coordinator closed)
     * and that gave up has left, though its process still runs */
    .left = n->status == NODE_LEFT
            || (v.settled && !v.connected && !v.failed && (n->stream_down || w->n_servers > 1)),
    /* a peer whose training is still running computes: it is not hung */
    .stalled = (r->outcome == SIM_OUTCOME_STALLED || now - n->progress >= sim_stall_window (&w->cfg))
               && n->train_ev == SIM_EVENT_NONE,
  };
  pr->outcome = sim_peer_outcome_of (&w->cfg, &end);
  r->peers_finished += pr->outcome == SIM_PEER_FINISHED;
  r->peers_failed += pr->outcome == SIM_PEER_FAILED || pr->outcome == SIM_PEER_EXCLUDED;
  r->peers_hung += pr->outcome == SIM_PEER_HUNG;
  if (pr->outcome == SIM_PEER_FINISHED || n->status == NODE_ONLINE)
    g_ptr_array_add (models, proto_machine_model (n->peer));
  r->busiest_uplink_bytes = MAX (r->busiest_uplink_bytes, n->bytes_sent);
}

static void
finish_results (SimWorld *w)
{
  DlTime now = sim_engine_now (w->engine);
  SimResult *r = &w->result;
  r->end = w->completed_at != DL_TIME_NEVER ? w->completed_at : now;
  r->events = sim_engine_events_run (w->engine);
  sim_tally_fill (&w->tally, r);
  r->timeline_unfired = sim_churn_unfired (w);
  g_array_set_size (w->peer_results, w->nodes->len);
  GPtrArray *models = g_ptr_array_new ();
  for (guint i = 1; i < w->nodes->len; i++)
    peer_result (w, i, now, models);
  if (r->outcome == SIM_OUTCOME_COMPLETED && r->peers_hung > 0)
    r->outcome = SIM_OUTCOME_STALLED;
  sim_final_means ((const SimPeerResult *) (const void *) w->peer_results->data, w->peer_results->len - 1,
                   &r->final_accuracy, &r->final_loss);
  r->consensus_distance = NAN;
  if (models->len > 0 && w->cfg.model.kind != LEARN_MODEL_NONE)
    {
      r->consensus_distance = learn_weights_consensus_distance ((LearnWeights **) models->pdata, models->len);
    }
  g_ptr_array_unref (models);
  for (guint i = 1; i < w->peer_results->len; i++)
    g_array_index (w->peer_results, SimPeerResult, i).cut_off = sim_partitioned (w, (ProtoNodeId) i, PROTO_SERVER);
  sim_props_end (w->props, r->end, (const SimPeerResult *) (const void *) w->peer_results->data,
                 w->peer_results->len - 1);
  static const char *const prop_names[] = { SIM_PROP_NAMES };
  for (guint i = 0; i < SIM_N_PROPS; i++)
    r->violations[i] = sim_props_count (w->props, prop_names[i]);
  r->props_checked = TRUE;
}

const SimResult *
sim_world_run (SimWorld *w)
{
  g_return_val_if_fail (!w->finished, &w->result);
  sim_net_schedule_rates (w);
  if (w->n_servers > 1)
    for (guint k = 0; k < w->n_servers; k++)
      {
        ProtoInput in = { .kind = PROTO_IN_START };
        sim_dispatch_server (w, k, &in);
      }
  sim_churn_start (w);
  sim_engine_schedule_in (w->engine, DL_S, ev_watch, w, 0);
  w->wall_end_us = g_get_monotonic_time () + w->wall_limit_us;
  sim_engine_set_poll (w->engine, SIM_WORLD_POLL_EVENTS, world_poll, w);
  SimRunResult rr = sim_engine_run_until (w->engine, w->cfg.time_limit);
  if (!w->finished)
    w->result.outcome = rr == SIM_RUN_EMPTY ? SIM_OUTCOME_COMPLETED : SIM_OUTCOME_TIME_LIMIT;
  w->finished = TRUE;
  finish_results (w);
  return &w->result;
}
