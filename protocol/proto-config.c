/* proto-config.c — the common fields' defaults, and the names of the
 * shared enums (proto-config.h). */
#include "config.h"

#include "protocol/proto-config.h"
#include "protocol/proto-machine.h"
#include "protocol/proto-message.h"

#include <string.h>

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

void
proto_config_init (ProtoConfig *c, const char *family)
{
  *c = (ProtoConfig) {
    .min_participants = 3,
    .peer_connection_timeout = 60 * DL_S,
    .model_sync_timeout = 30 * DL_S,
    .payload_timeout = 60 * DL_S,
    .rounds = 1,
    .leave_after_training = FALSE,
    .coordinator_replicas = 1,
    .replication = PROTO_REPLICATION_RAFT,
    .replica_heartbeat = 50 * DL_MS,
    .replica_election_timeout = 150 * DL_MS,
    .resume_timeout = 10 * DL_S,
    .straggler_policy = PROTO_STRAGGLER_WAIT,
    .round_deadline = 30 * DL_S,
    .drop_factor = 2.0,
    .drop_rounds = 3,
    .async_mix = 0.5,
    .staleness_exponent = 0.5,
  };
  const ProtoFamily *f = family ? proto_family_lookup (family) : proto_family_at (0);
  g_strlcpy (c->family, family ? family : f->name, sizeof c->family);
  if (f && f->config_init)
    f->config_init (c);
}
