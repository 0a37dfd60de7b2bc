/* disco-config.c — DISCO's part of the config (disco-config.h): its
 * defaults, and its versions as a table of named fixes. */
#include "config.h"

#include "protocol/disco/disco-config.h"
#include "protocol/proto-message.h"

#include <stddef.h>
#include <string.h>

/* A fix's name and the DiscoConfig field the machines read it by
 * (DISCO_FIX_STRAGGLER_TIMEOUT has none: it sets straggler_timeout). */
#define FIELD(f) offsetof (DiscoConfig, f)
static const struct {
  const char *name;
  gssize field;
} fixes[DISCO_FIX_N] = {
  [DISCO_FIX_CONNECT_BARRIER] = { "connect_barrier", FIELD (connect_barrier) },
  [DISCO_FIX_EXCLUDE_WHEN_RETRY_GE] = { "exclude_when_retry_ge", FIELD (exclude_when_retry_ge) },
  [DISCO_FIX_PROVIDER_FIRST_ENTRY] = { "provider_first_entry", FIELD (provider_first_entry) },
  [DISCO_FIX_MODEL_SYNC] = { "model_sync", FIELD (model_sync) },
  [DISCO_FIX_COLLECT_OVER_JOINED] = { "collect_over_joined", FIELD (collect_over_joined) },
  [DISCO_FIX_PAUSE_BEFORE_TRAINING] = { "pause_before_training", FIELD (pause_before_training) },
  [DISCO_FIX_TIMER_FIXED_60S] = { "timer_fixed_60s", FIELD (timer_fixed_60s) },
  [DISCO_FIX_RESET_WHEN_EMPTY] = { "reset_when_empty", FIELD (reset_when_empty) },
  [DISCO_FIX_PARTICIPANT_COUNTS] = { "participant_counts", FIELD (participant_counts) },
  [DISCO_FIX_READY_AT_ROUND_START] = { "ready_at_round_start", FIELD (ready_at_round_start) },
  [DISCO_FIX_LIST_FIRST_MIN] = { "list_first_min", FIELD (list_first_min) },
  [DISCO_FIX_ROBUST_RETRY_PER_ROUND] = { "robust_retry_per_round", FIELD (robust_retry_per_round) },
  [DISCO_FIX_ROBUST_SINGLE_TIMER] = { "robust_single_timer", FIELD (robust_single_timer) },
  [DISCO_FIX_ROBUST_MEMBERS_ONLY] = { "robust_members_only", FIELD (robust_members_only) },
  [DISCO_FIX_ROBUST_CLOSE_RESTARTS] = { "robust_close_restarts", FIELD (robust_close_restarts) },
  [DISCO_FIX_STRAGGLER_TIMEOUT] = { "straggler_timeout", -1 },
  [DISCO_FIX_ROBUST_COUNT_SYNCED] = { "robust_count_synced", FIELD (robust_count_synced) },
  [DISCO_FIX_ROBUST_CHECKPOINT] = { "robust_checkpoint", FIELD (robust_checkpoint) },
  [DISCO_FIX_ROBUST_LISTEN] = { "robust_listen", FIELD (robust_listen) },
  [DISCO_FIX_ROBUST_LINKS] = { "robust_links", FIELD (robust_links) },
  [DISCO_FIX_ROBUST_EXCHANGE_DEADLINE] = { "robust_exchange_deadline", FIELD (robust_exchange_deadline) },
  [DISCO_FIX_ROBUST_SYNC_RETRY] = { "robust_sync_retry", FIELD (robust_sync_retry) },
  [DISCO_FIX_ROBUST_SERVE_AFTER_ROUND] = { "robust_serve_after_round", FIELD (robust_serve_after_round) },
  [DISCO_FIX_ROBUST_EXACT_ROUND] = { "robust_exact_round", FIELD (robust_exact_round) },
  [DISCO_FIX_ROBUST_SINGLE_ADD] = { "robust_single_add", FIELD (robust_single_add) },
  [DISCO_FIX_ROBUST_WAIT_TIMEOUT] = { "robust_wait_timeout", FIELD (robust_wait_timeout) },
};
#undef FIELD

#define F(f) DISCO_FIX_BIT (DISCO_FIX_##f)
#define DISCO_1110 (F (CONNECT_BARRIER) | F (MODEL_SYNC) | F (PAUSE_BEFORE_TRAINING) | F (RESET_WHEN_EMPTY) \
                    | F (PARTICIPANT_COUNTS))
#define DISCO_775 F (COLLECT_OVER_JOINED)

/* DISCO's versions, in the order their lists name them (PROTOCOL.md §6). */
static const struct {
  DiscoVersion version;
  const char *name;
  DiscoFixes fixes;
} versions[] = {
  { DISCO_VERSION_1110, "disco-1110", DISCO_1110 },
  /* decentralized_controller.ts at 3bfce91d: startTimeout(maxTime = 60_000)
   * is always called without an argument (timer_fixed_60s) */
  { DISCO_VERSION_1110_DRAFT, "disco-1110-draft",
    DISCO_1110 | F (EXCLUDE_WHEN_RETRY_GE) | F (PROVIDER_FIRST_ENTRY) | F (TIMER_FIXED_60S) },
  { DISCO_VERSION_775, "disco-775", DISCO_775 },
  { DISCO_VERSION_PRE775, "disco-pre775", DISCO_775 | F (READY_AT_ROUND_START) | F (LIST_FIRST_MIN) },
  { DISCO_VERSION_ROBUST, "robust",
    DISCO_1110 | F (ROBUST_RETRY_PER_ROUND) | F (ROBUST_SINGLE_TIMER) | F (ROBUST_MEMBERS_ONLY)
    | F (ROBUST_CLOSE_RESTARTS) | F (STRAGGLER_TIMEOUT) | F (ROBUST_COUNT_SYNCED) | F (ROBUST_CHECKPOINT)
    | F (ROBUST_LISTEN) | F (ROBUST_LINKS) | F (ROBUST_EXCHANGE_DEADLINE) | F (ROBUST_SYNC_RETRY)
    | F (ROBUST_SERVE_AFTER_ROUND) | F (ROBUST_EXACT_ROUND) | F (ROBUST_SINGLE_ADD) | F (ROBUST_WAIT_TIMEOUT) },
};
#undef F
#undef DISCO_1110
#undef DISCO_775

const char *
disco_version_name (DiscoVersion version)
{
  for (gsize i = 0; i < G_N_ELEMENTS (versions); i++)
    if (versions[i].version == version)
      return versions[i].name;
  return "?";
}

DiscoFixes
disco_version_fixes (DiscoVersion version)
{
  for (gsize i = 0; i < G_N_ELEMENTS (versions); i++)
    if (versions[i].version == version)
      return versions[i].fixes;
  return 0;
}

const char *
disco_fix_name (DiscoFix fix)
{
  return (unsigned) fix < DISCO_FIX_N ? fixes[fix].name : "?";
}

gboolean
disco_version_from_name (const char *name, DiscoVersion *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (versions); i++)
    if (g_strcmp0 (name, versions[i].name) == 0)
      {
        *out = versions[i].version;
        return TRUE;
      }
  /* "expected disco-1110, ..., disco-pre775 or robust" */
  g_autoptr (GString) expected = g_string_new (NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (versions); i++)
    g_string_append_printf (expected, "%s%s", i == 0 ? "" : i + 1 < G_N_ELEMENTS (versions) ? ", " : " or ",
                            versions[i].name);
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "unknown protocol version '%s' (expected %s)",
               name ? name : "", expected->str);
  return FALSE;
}

DlTime
disco_connection_timer (const ProtoConfig *c)
{
  return disco_config (c)->timer_fixed_60s ? 60 * DL_S : c->peer_connection_timeout;
}

DlTime
disco_wait_timeout (const ProtoConfig *c)
{
  return disco_config (c)->robust_wait_timeout ? dl_time_mul (disco_connection_timer (c), 2) : DL_TIME_NEVER;
}

void
disco_config_defaults (ProtoConfig *c)
{
  *disco_config_mut (c) = (DiscoConfig) {
    .max_connection_retry = 3,
    .aggregation_wait = 15 * DL_S,
    .aggregation = DISCO_AGG_MEAN,
    .max_share_value = 100,
  };
  disco_set_version (c, DISCO_VERSION_DEFAULT);
}

void
disco_config_init (ProtoConfig *c, DiscoVersion version)
{
  proto_config_init (c, "disco");
  disco_set_version (c, version);
}

void
disco_set_version (ProtoConfig *c, DiscoVersion version)
{
  /* set in a local copy, stored whole through the may-alias type */
  DiscoConfig d = *disco_config (c);
  d.version = version;
  d.fixes = disco_version_fixes (version);
  for (guint f = 0; f < DISCO_FIX_N; f++)
    if (fixes[f].field >= 0)
      G_STRUCT_MEMBER (gboolean, &d, fixes[f].field) = (d.fixes & DISCO_FIX_BIT (f)) != 0;
  d.straggler_timeout = (d.fixes & DISCO_FIX_BIT (DISCO_FIX_STRAGGLER_TIMEOUT)) ? 60 * DL_S : DL_TIME_NEVER;
  *disco_config_mut (c) = d;
}

gboolean
disco_has (const ProtoConfig *c, DiscoFix fix)
{
  return (disco_config (c)->fixes & DISCO_FIX_BIT (fix)) != 0;
}
