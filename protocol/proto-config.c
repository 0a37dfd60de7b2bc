/* proto-config.c — defaults and version switches. */
#include "config.h"

#include "protocol/proto-config.h"
#include "protocol/proto-message.h"

#include <string.h>

static const char *const version_names[] = {
  [PROTO_VERSION_DISCO_1110] = "disco-1110",
  [PROTO_VERSION_DISCO_1110_DRAFT] = "disco-1110-draft",
  [PROTO_VERSION_DISCO_775] = "disco-775",
  [PROTO_VERSION_ROBUST] = "robust",
  [PROTO_VERSION_DISCO_PRE775] = "disco-pre775",
};

const char *
proto_version_name (ProtoVersion version)
{
  return (unsigned) version < G_N_ELEMENTS (version_names) ? version_names[version] : "?";
}

gboolean
proto_version_from_name (const char *name, ProtoVersion *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (version_names); i++)
    if (g_strcmp0 (name, version_names[i]) == 0)
      {
        *out = (ProtoVersion) i;
        return TRUE;
      }
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
               "unknown protocol version '%s' (expected disco-1110, disco-1110-draft, disco-775, "
               "disco-pre775 or robust)", name ? name : "");
  return FALSE;
}

static const char *const sparsify_names[] = {
  [PROTO_SPARSIFY_NONE] = "none",
  [PROTO_SPARSIFY_RANDOM_K] = "random-k",
  [PROTO_SPARSIFY_TOP_K] = "top-k",
};

const char *
proto_sparsify_name (ProtoSparsify s)
{
  return (unsigned) s < G_N_ELEMENTS (sparsify_names) ? sparsify_names[s] : "?";
}

gboolean
proto_sparsify_from_name (const char *name, ProtoSparsify *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (sparsify_names); i++)
    if (g_strcmp0 (name, sparsify_names[i]) == 0)
      {
        *out = (ProtoSparsify) i;
        return TRUE;
      }
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s': expected none, random-k or top-k",
               name ? name : "");
  return FALSE;
}

static const char *const straggler_names[] = {
  [PROTO_STRAGGLER_WAIT] = "wait",
  [PROTO_STRAGGLER_DEADLINE] = "deadline",
  [PROTO_STRAGGLER_DROP_SLOWEST] = "drop-slowest",
  [PROTO_STRAGGLER_ASYNC] = "async",
  [PROTO_STRAGGLER_MIXED] = "mixed",
};

const char *
proto_straggler_policy_name (ProtoStragglerPolicy p)
{
  return (unsigned) p < G_N_ELEMENTS (straggler_names) ? straggler_names[p] : "?";
}

gboolean
proto_straggler_policy_from_name (const char *name, ProtoStragglerPolicy *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (straggler_names); i++)
    if (g_strcmp0 (name, straggler_names[i]) == 0)
      {
        *out = (ProtoStragglerPolicy) i;
        return TRUE;
      }
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
               "'%s': expected wait, deadline, drop-slowest, async or mixed", name ? name : "");
  return FALSE;
}

DlTime
proto_config_connection_timer (const ProtoConfig *c)
{
  return c->timer_fixed_60s ? 60 * DL_S : c->peer_connection_timeout;
}

DlTime
proto_config_wait_timeout (const ProtoConfig *c)
{
  return c->robust_wait_timeout ? dl_time_mul (proto_config_connection_timer (c), 2) : DL_TIME_NEVER;
}

void
proto_config_init (ProtoConfig *c, ProtoVersion version)
{
  *c = (ProtoConfig) {
    .version = version,
    .min_participants = 3,
    .max_connection_retry = 3,
    .peer_connection_timeout = 60 * DL_S,
    .model_sync_timeout = 30 * DL_S,
    .aggregation_wait = 15 * DL_S,
    .payload_timeout = 60 * DL_S,
    .aggregation = PROTO_AGG_MEAN,
    .max_share_value = 100,
    .rounds = 1,
    .leave_after_training = FALSE,
    .straggler_timeout = DL_TIME_NEVER,
    .family = "disco",
    .coordinator_replicas = 1,
    .replication = PROTO_REPLICATION_RAFT,
    .replica_heartbeat = 50 * DL_MS,
    .replica_election_timeout = 150 * DL_MS,
    .resume_timeout = 10 * DL_S,
    .fanout = 2,
    .sparsify = PROTO_SPARSIFY_NONE,
    .keep = 1.0,
    .discovery = PROTO_DISCOVERY_COORDINATOR,
    .dht_k = 8,
    .dht_alpha = 3,
    .dht_rpc_timeout = 2 * DL_S,
    .straggler_policy = PROTO_STRAGGLER_WAIT,
    .round_deadline = 30 * DL_S,
    .drop_factor = 2.0,
    .drop_rounds = 3,
    .async_mix = 0.5,
    .staleness_exponent = 0.5,
    .cluster_size = 10,
    .cluster_radius = 20 * DL_MS,
    .fanin = 32,
    .election_timeout = 5 * DL_S,
    .head_timeout = 60 * DL_S,
    .pipe_blocks = 80,
    .pipe_servers = 4,
    .pipe_replicas = 1,
    .compute_per_block = { .kind = DL_DIST_CONSTANT, .unit = DL_UNIT_DURATION, .a = 1e6 },
    .hidden_size = 16384,
    .steps = 32,
    .sessions = 1,
    .step_timeout = 30 * DL_S,
  };
  switch (version)
    {
    case PROTO_VERSION_DISCO_1110:
      c->connect_barrier = TRUE;
      c->model_sync = TRUE;
      c->pause_before_training = TRUE;
      c->reset_when_empty = TRUE;
      c->participant_counts = TRUE;
      break;
    case PROTO_VERSION_DISCO_1110_DRAFT:
      c->connect_barrier = TRUE;
      c->model_sync = TRUE;
      c->pause_before_training = TRUE;
      c->exclude_when_retry_ge = TRUE;
      c->provider_first_entry = TRUE;
      /* decentralized_controller.ts at 3bfce91d: startTimeout(maxTime =
       * 60_000) is always called without an argument */
      c->timer_fixed_60s = TRUE;
      c->reset_when_empty = TRUE;
      c->participant_counts = TRUE;
      break;
    case PROTO_VERSION_DISCO_775:
      c->collect_over_joined = TRUE;
      break;
    case PROTO_VERSION_DISCO_PRE775:
      c->collect_over_joined = TRUE;
      c->ready_at_round_start = TRUE;
      c->list_first_min = TRUE;
      break;
    case PROTO_VERSION_ROBUST:
      c->connect_barrier = TRUE;
      c->model_sync = TRUE;
      c->pause_before_training = TRUE;
      c->reset_when_empty = TRUE;
      c->participant_counts = TRUE;
      c->robust_retry_per_round = TRUE;
      c->robust_single_timer = TRUE;
      c->robust_members_only = TRUE;
      c->robust_close_restarts = TRUE;
      c->straggler_timeout = 60 * DL_S;
      c->robust_count_synced = TRUE;
      c->robust_checkpoint = TRUE;
      c->robust_listen = TRUE;
      c->robust_links = TRUE;
      c->robust_exchange_deadline = TRUE;
      c->robust_sync_retry = TRUE;
      c->robust_serve_after_round = TRUE;
      c->robust_exact_round = TRUE;
      c->robust_single_add = TRUE;
      c->robust_wait_timeout = TRUE;
      break;
    }
}

guint
proto_config_pipe_n_ranges (const ProtoConfig *c)
{
  if (c->pipe_n_ranges > 0)
    return c->pipe_n_ranges;
  return MAX (c->pipe_servers / MAX (c->pipe_replicas, 1), 1);
}

void
proto_config_pipe_range (const ProtoConfig *c, guint i, guint *start, guint *end)
{
  if (c->pipe_n_ranges > 0)
    {
      g_return_if_fail (i < c->pipe_n_ranges);
      *start = c->pipe_range_start[i];
      *end = c->pipe_range_end[i];
      return;
    }
  /* the even split: pipe_servers / pipe_replicas ranges, server i serving
   * range i / replicas; the first blocks % ranges ranges one block longer */
  guint replicas = MAX (c->pipe_replicas, 1);
  guint ranges = proto_config_pipe_n_ranges (c);
  guint r = (i / replicas) % ranges;
  guint base = c->pipe_blocks / ranges, extra = c->pipe_blocks % ranges;
  *start = r * base + MIN (r, extra);
  *end = *start + base + (r < extra ? 1 : 0);
}
