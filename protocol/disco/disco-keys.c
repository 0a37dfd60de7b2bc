/* disco-keys.c — DISCO's scenario keys (README.md beside it, PROTOCOL.md
 * §6) and how DISCO's family configures itself from them: the version and
 * its fixes, the coordinator's limits and timeouts, the aggregation, and
 * robust's straggler handling.  Exported through proto_family_disco's
 * `keys` (disco-family.c); the loader (scenario/sim-keys.c) merges the table. */
#include "config.h"

#include "protocol/disco/disco-config.h"
#include "protocol/proto-keys.h"
#include "protocol/proto-message.h"

#include <string.h>

static gboolean
check_version (const char *v, GError **error)
{
  DiscoVersion pv;
  return disco_version_from_name (v, &pv, error);
}

static gboolean
check_aggregation (const char *v, GError **error)
{
  if (strcmp (v, "mean") == 0 || strcmp (v, "secure") == 0)
    return TRUE;
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s' is not an aggregation (expected mean or secure)", v);
  return FALSE;
}

static const ProtoKey rows[] = {
  { "protocol", "version", "disco-1110", PROTO_KEY_OWN, "disco-1110 | disco-1110-draft | disco-775 | disco-pre775 | robust",
    .check = check_version },
  PROTO_KEY_GROUP_HERE (proto_keys_quorum),
  { "protocol", "max_connection_retry", "3", PROTO_KEY_UINT, "maxConnectionRetry (M)", 0, 1000 },
  { "protocol", "peer_connection_timeout", "60s", PROTO_KEY_DUR, "maxPeerConnectionTime (T)" },
  PROTO_KEY_GROUP_HERE (proto_keys_model_sync),
  { "protocol", "aggregation", "mean", PROTO_KEY_OWN, "mean | secure", .check = check_aggregation },
  { "protocol", "max_share_value", "100", PROTO_KEY_NUM, "secure aggregation share range" },
  { "protocol", "aggregation_wait", "15s", PROTO_KEY_DUR, "race per communication round; on expiry the loop breaks and that round's result (secure round 0: the partial sum) ends the round, awaited with no limit" },
  PROTO_KEY_GROUP_HERE (proto_keys_payload),
  { "protocol", "straggler_timeout", "", PROTO_KEY_OPT_DUR, "robust only (default 60s): with min ready, the list goes out without the others after this" },
};

/* robust's straggler handling (README.md "robust"): the policy and the
 * knobs it has, of proto-keys.c's group (proto_keys_stragglers) */
static const char *const shared[] = {
  "protocol.straggler_policy", "protocol.drop_factor", "protocol.drop_rounds", "protocol.staleness_exponent", NULL,
};

/* the quorum and the waits (proto-keys.c's groups, which other families
 * read too), listed among DISCO's own rows where they stand above */
static const ProtoKeyGroup *const groups[] = { &proto_keys_quorum, &proto_keys_model_sync, &proto_keys_payload, NULL };

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

static gboolean
configure (ProtoConfig *pc, ProtoKeyLookup *l, GError **error)
{
  DiscoVersion ver;
  g_autoptr (GError) e = NULL;
  if (!disco_version_from_name (proto_keys_value (l, "protocol", "version"), &ver, &e))
    return proto_keys_fail_with (l, error, "protocol", "version", e);
  disco_set_version (pc, ver);
  DiscoConfig *dc = disco_config_mut (pc);
  pc->min_participants = proto_keys_uint (l, "protocol", "min_participants");
  if (pc->min_participants == 0)
    return FAIL ("min_participants", "must be at least 1");
  dc->max_connection_retry = proto_keys_uint (l, "protocol", "max_connection_retry");
  pc->peer_connection_timeout = proto_keys_duration (l, "protocol", "peer_connection_timeout");
  pc->model_sync_timeout = proto_keys_duration (l, "protocol", "model_sync_timeout");
  dc->aggregation_wait = proto_keys_duration (l, "protocol", "aggregation_wait");
  pc->payload_timeout = proto_keys_duration (l, "protocol", "payload_timeout");
  if (pc->peer_connection_timeout <= 0)
    return FAIL ("peer_connection_timeout", "must be more than 0");
  const char *strag_to = proto_keys_value (l, "protocol", "straggler_timeout");
  if (*strag_to && ver != DISCO_VERSION_ROBUST)
    return FAIL ("straggler_timeout", "applies to version = robust only (DISCO has no straggler timeout: S20)");
  if (*strag_to)
    {
      dc->straggler_timeout = proto_keys_duration (l, "protocol", "straggler_timeout");
      if (dc->straggler_timeout <= 0)
        return FAIL ("straggler_timeout", "must be more than 0");
    }
  /* every version waits (S20); robust's wait has its straggler_timeout
   * (deadline is the same: that timeout), and drop-slowest adds the drop.
   * `wait`, the key's default, is what every run's export writes: it
   * changes nothing */
  if (!proto_straggler_policy_from_name (proto_keys_value (l, "protocol", "straggler_policy"), &pc->straggler_policy,
                                         &e))
    return proto_keys_fail_with (l, error, "protocol", "straggler_policy", e);
  if (pc->straggler_policy != PROTO_STRAGGLER_WAIT && ver != DISCO_VERSION_ROBUST)
    return FAIL ("straggler_policy", "'%s' applies to version = robust only among DISCO's (DISCO waits "
                 "for every peer: S20)", proto_straggler_policy_name (pc->straggler_policy));
  if ((pc->straggler_policy == PROTO_STRAGGLER_ASYNC || pc->straggler_policy == PROTO_STRAGGLER_MIXED)
      && proto_keys_is (l, "protocol", "aggregation", "secure"))
    return FAIL ("straggler_policy", "'%s' weighs contributions by staleness: it needs aggregation "
                 "= mean", proto_straggler_policy_name (pc->straggler_policy));
  /* its knobs (async_mix and round_deadline are not DISCO's keys: the
   * config holds their defaults, proto_config_init's) */
  if (!proto_keys_configure_drop_knobs (pc, l, error))
    return FALSE;
  dc->aggregation = proto_keys_is (l, "protocol", "aggregation", "secure") ? DISCO_AGG_SECURE : DISCO_AGG_MEAN;
  dc->max_share_value = proto_keys_number (l, "protocol", "max_share_value");
  if (!(dc->max_share_value > 0))
    return FAIL ("max_share_value", "must be more than 0");
  /* the clients' runtime ([peers] runtime, a common key: the world sets
   * leave_after_training for webapp) */
  dc->node_runtime = proto_keys_is (l, "peers", "runtime", "node");
  /* webapp/src/components/training/Trainer.vue: cleanupTrainingSession in
   * the finally of the training call closes the session (D3) */
  dc->webapp_runtime = proto_keys_is (l, "peers", "runtime", "webapp");
  return TRUE;
}

const ProtoFamilyKeys disco_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .shared = shared,
  .groups = groups,
  .configure = configure,
};
