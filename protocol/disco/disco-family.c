/* disco-family.c — the DISCO family: its coordinator (disco-coord.c,
 * server/src/controllers/) and peer (disco-peer.c,
 * discojs/src/client/decentralized/) behind the machine interface
 * (protocol/proto-machine.h).  Every version (disco-1110, -draft, -775,
 * -pre775, robust) is this family, told apart by its ProtoConfig. */
#include "config.h"

#include "protocol/disco/disco-config.h"
#include "protocol/disco/disco-coord.h"
#include "protocol/disco/disco-peer.h"

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return disco_peer_new (cfg, env->initial, env->rng);
}

/* A peer may wait out every connection retry, then a model sync and a
 * payload timeout, without any progress. */
static DlTime
stall_window (const ProtoConfig *p)
{
  DlTime t = dl_time_mul (disco_connection_timer (p), (guint64) disco_config (p)->max_connection_retry + 2);
  return dl_time_add (dl_time_add (t, p->model_sync_timeout), p->payload_timeout);
}

static ProtoObsKind
round_begins_with (const ProtoConfig *cfg)
{
  return disco_config (cfg)->connect_barrier ? PROTO_OBS_ROUND_START : PROTO_OBS_ROUND_LIST;
}

/* disco-1110's controller: behind the connection barrier, a peer is
 * excluded after max_connection_retry Retries (decentralized_controller.ts,
 * handleTimeout; disco-coord.c) */
static gboolean
excludes_after_retries (const ProtoConfig *cfg, guint *retries)
{
  *retries = disco_config (cfg)->max_connection_retry;
  return disco_config (cfg)->connect_barrier;
}

static const char *
peer_state_name_at (guint i)
{
  return disco_peer_state_name ((DiscoPeerState) i);
}

/* DISCO's counters (the summary's keys, docs/user-guide.md): a model
 * served stale, a SharedModel sent between PeersForRound and Start (the
 * peer's sync-served, value 1: S13); a StartWeightSharing with no round
 * peers, a spurious round (S31); the fewest peers one PeersForRound batch
 * named (S1) */
static const ProtoCounter counters[] = {
  { "stale_model_syncs", PROTO_OBS_SYNC_SERVED, FALSE, PROTO_COUNT_MATCHES, 1 },
  { "empty_rounds_started", PROTO_OBS_ROUND_START, TRUE, PROTO_COUNT_MATCHES, 0 },
  { "smallest_round_list", PROTO_OBS_ROUND_LIST, TRUE, PROTO_COUNT_MIN_POSITIVE, 0 },
  { NULL, 0, FALSE, 0, 0 },
};

extern const ProtoMsgFamily proto_msgs_disco;   /* disco-msgs.c */
extern const ProtoFamilyKeys disco_keys;   /* disco-keys.c */

const ProtoFamily proto_family_disco = {
  .name = "disco",
  .new_coordinator = disco_coord_new,
  .new_peer = new_peer,
  .stall_window = stall_window,
  .round_begins_with = round_begins_with,
  .excludes_after_retries = excludes_after_retries,
  /* every member of a round aggregates the same contributions
   * (aggregator/mean.ts, secure.ts) */
  .agreement = TRUE,
  /* DISCO promises a late joiner the latest model (model sync:
   * SignalModelProvider, SharedModel); disco-775 and pre-775 break it
   * (S3), which the property shows */
  .model_sync = TRUE,
  .n_peer_states = DISCO_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &disco_keys,
  .config_init = disco_config_defaults,
  .msgs = &proto_msgs_disco,
  .counters = counters,
};
