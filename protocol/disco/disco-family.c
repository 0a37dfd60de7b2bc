/* disco-family.c — DISCO's coordinator and peer behind the machine
 * interface (protocol/proto-machine.h): every version (disco-1110, -draft,
 * -775, -pre775, robust) is this family, told apart by its ProtoConfig. */
#include "config.h"

#include "protocol/disco/disco-config.h"
#include "protocol/disco/proto-coord.h"
#include "protocol/disco/proto-peer.h"
#include "protocol/proto-machine.h"

#include <string.h>

/* ---- the peer (discojs/src/client/decentralized/, proto-peer.h) ---- */

static void
peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  proto_peer_handle (impl, now, in, out);
}

static DlTime
peer_next_deadline (const void *impl)
{
  return proto_peer_next_deadline (impl);
}

static const char *
peer_state_name (const void *impl)
{
  return proto_peer_state_name (proto_peer_state (impl));
}

static gboolean
peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  return proto_peer_listens (impl, type, from);
}

static gboolean
peer_waiting_on_peer (const void *impl)
{
  ProtoPeerState s = proto_peer_state (impl);
  return (s == PROTO_PEER_SYNC_WAIT_PROVIDER || s == PROTO_PEER_SYNC_WAIT_MODEL) && proto_peer_connected (impl);
}

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const ProtoPeer *p = impl;
  ProtoPeerState s = proto_peer_state (p);
  v->connected = proto_peer_connected (p);
  v->settled = s == PROTO_PEER_DONE || s == PROTO_PEER_FAILED || s == PROTO_PEER_LEFT;
  v->failed = s == PROTO_PEER_FAILED;
  v->error = proto_peer_error (p);
  /* DISCO's client throws this when the coordinator excludes it */
  v->excluded = strstr (v->error, "ConnectionFail") != NULL;
  v->waiting_on_peer = peer_waiting_on_peer (p);
  v->synced = proto_peer_synced (p);
  v->rounds_done = proto_peer_rounds_done (p);
}

static LearnWeights *
peer_model (const void *impl)
{
  return proto_peer_model (impl);
}

static guint
peer_received_count (const void *impl, ProtoMsgType type)
{
  return proto_peer_received_count (impl, type);
}

static void
peer_free (void *impl)
{
  proto_peer_free (impl);
}

static const ProtoMachineClass peer_class = {
  .handle = peer_handle,
  .next_deadline = peer_next_deadline,
  .state_name = peer_state_name,
  .listens = peer_listens,
  .view = peer_view,
  .waiting_on_peer = peer_waiting_on_peer,
  .model = peer_model,
  .received_count = peer_received_count,
  .free = peer_free,
};

/* ---- the coordinator (server/src/controllers/, proto-coord.h) ---- */

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  proto_coord_handle (impl, now, in, out);
}

static DlTime
coord_next_deadline (const void *impl)
{
  return proto_coord_next_deadline (impl);
}

static const char *
coord_state_name (const void *impl)
{
  return proto_coord_phase (impl);
}

static gboolean
coord_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  /* the coordinator's controller takes every message type it knows and
   * drops the rest itself (observed as `dropped`): nothing is refused on
   * the way in */
  (void) impl, (void) type, (void) from;
  return TRUE;
}

static void
coord_free (void *impl)
{
  proto_coord_free (impl);
}

static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .next_deadline = coord_next_deadline,
  .state_name = coord_state_name,
  .listens = coord_listens,
  .free = coord_free,
};

/* ---- the family ---- */

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return proto_machine_wrap (&coord_class, proto_coord_new (cfg));
}

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return proto_machine_wrap (&peer_class, proto_peer_new (cfg, env->initial, env->rng));
}

/* A peer may wait out every connection retry, then a model sync and a
 * payload timeout, without any progress. */
static DlTime
stall_window (const ProtoConfig *p)
{
  DlTime t = dl_time_mul (proto_disco_connection_timer (p), (guint64) disco_config (p)->max_connection_retry + 2);
  return dl_time_add (dl_time_add (t, p->model_sync_timeout), p->payload_timeout);
}

static ProtoObsKind
round_begins_with (const ProtoConfig *cfg)
{
  return disco_config (cfg)->connect_barrier ? PROTO_OBS_ROUND_START : PROTO_OBS_ROUND_LIST;
}

/* disco-1110's controller: behind the connection barrier, a peer is
 * excluded after max_connection_retry Retries (decentralized_controller.ts,
 * handleTimeout; proto-coord.c) */
static gboolean
excludes_after_retries (const ProtoConfig *cfg, guint *retries)
{
  *retries = disco_config (cfg)->max_connection_retry;
  return disco_config (cfg)->connect_barrier;
}

/* every member of a round aggregates the same contributions
 * (aggregator/mean.ts, secure.ts) */
static gboolean
promises_agreement (const ProtoConfig *cfg)
{
  (void) cfg;
  return TRUE;
}

/* DISCO promises a late joiner the latest model (model sync: SignalModelProvider,
 * SharedModel); disco-775 and pre-775 break it (S3), which the property shows */
static gboolean
syncs_late_joiners (const ProtoConfig *cfg)
{
  (void) cfg;
  return TRUE;
}

static const char *
peer_state_name_at (guint i)
{
  return proto_peer_state_name ((ProtoPeerState) i);
}

extern const ProtoMsgFamily proto_msgs_disco;   /* disco-msgs.c */
extern const ProtoFamilyKeys proto_disco_keys;   /* disco-keys.c */

const ProtoFamily proto_family_disco = {
  .name = "disco",
  .new_coordinator = new_coordinator,
  .new_peer = new_peer,
  .stall_window = stall_window,
  .round_begins_with = round_begins_with,
  .excludes_after_retries = excludes_after_retries,
  .promises_agreement = promises_agreement,
  .syncs_late_joiners = syncs_late_joiners,
  .n_peer_states = PROTO_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_disco_keys,
  .config_init = proto_disco_config_defaults,
  .msgs = &proto_msgs_disco,
};
