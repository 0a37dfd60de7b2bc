/* gossip-family.c — the gossip family's coordinator and peer behind the
 * machine interface (protocol/proto-machine.h; README.md beside it). */
#include "config.h"

#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"
#include "protocol/proto-machine.h"

/* ---- the peer ---- */

static void
peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  gossip_peer_handle (impl, now, in, out);
}

static DlTime
peer_next_deadline (const void *impl)
{
  return gossip_peer_next_deadline (impl);
}

static const char *
peer_state_name (const void *impl)
{
  return gossip_peer_state_name (gossip_peer_state (impl));
}

static gboolean
peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  return gossip_peer_listens (impl, type, from);
}

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const GossipPeer *p = impl;
  GossipPeerState s = gossip_peer_state (p);
  v->connected = gossip_peer_connected (p);
  /* a helper owes nothing, whichever step it is helping with */
  v->settled = gossip_peer_helper (p) || s == GOSSIP_PEER_DONE || s == GOSSIP_PEER_FAILED || s == GOSSIP_PEER_LEFT;
  v->failed = s == GOSSIP_PEER_FAILED;
  v->error = gossip_peer_error (p);
  v->rounds_done = gossip_peer_rounds_done (p);
  v->synced = gossip_peer_synced (p);
  v->waiting_on_peer = s == GOSSIP_PEER_SYNCING;
}

static LearnWeights *
peer_model (const void *impl)
{
  return gossip_peer_model (impl);
}

static guint
peer_received_count (const void *impl, ProtoMsgType type)
{
  return gossip_peer_received_count (impl, type);
}

static void
peer_free (void *impl)
{
  gossip_peer_free (impl);
}

static const ProtoMachineClass peer_class = {
  .handle = peer_handle,
  .next_deadline = peer_next_deadline,
  .state_name = peer_state_name,
  .listens = peer_listens,
  .view = peer_view,
  .model = peer_model,
  .received_count = peer_received_count,
  .free = peer_free,
};

/* ---- the coordinator ---- */

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  gossip_coord_handle (impl, now, in, out);
}

static DlTime
coord_next_deadline (const void *impl)
{
  return gossip_coord_next_deadline (impl);
}

static const char *
coord_state_name (const void *impl)
{
  return gossip_coord_phase (impl);
}

static gboolean
coord_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  return gossip_coord_listens (impl, type, from);
}

static void
coord_free (void *impl)
{
  gossip_coord_free (impl);
}

static void
coord_reseed (void *impl, guint64 salt)
{
  gossip_coord_reseed (impl, salt);
}

static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .next_deadline = coord_next_deadline,
  .state_name = coord_state_name,
  .listens = coord_listens,
  .free = coord_free,
  .reseed = coord_reseed,
};

/* ---- the family ---- */

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return proto_machine_wrap (&coord_class, gossip_coord_new (cfg));
}

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return proto_machine_wrap (&peer_class, gossip_peer_new (cfg, env->initial, env->rng));
}

/* A peer waits at most payload_timeout for its neighbours; everything else
 * it waits for is the others' training, which is progress of theirs. */
static DlTime
stall_window (const ProtoConfig *p)
{
  return dl_time_add (dl_time_mul (p->payload_timeout, 2), p->peer_connection_timeout);
}

static ProtoObsKind
round_begins_with (const ProtoConfig *cfg)
{
  (void) cfg;
  return PROTO_OBS_ROUND_LIST;
}

static gboolean
excludes_after_retries (const ProtoConfig *cfg, guint *retries)
{
  (void) cfg;
  *retries = 0;
  return FALSE;   /* it never excludes anyone */
}

static gboolean
promises_agreement (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;   /* peers mix with their neighbours only: models differ within a step */
}

/* a late joiner syncs (gossip-peer-sync.c), but from a peer's latest
 * model, not a completed round's: gossip has no round-global model to
 * check it against */
static gboolean
syncs_late_joiners (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;
}

static const char *
peer_state_name_at (guint i)
{
  return gossip_peer_state_name ((GossipPeerState) i);
}

extern const ProtoMsgFamily proto_msgs_gossip;   /* gossip-msgs.c */
extern const ProtoFamilyKeys proto_gossip_keys;   /* gossip-keys.c */

const ProtoFamily proto_family_gossip = {
  .name = "gossip",
  .new_coordinator = new_coordinator,
  .new_peer = new_peer,
  .stall_window = stall_window,
  .round_begins_with = round_begins_with,
  .excludes_after_retries = excludes_after_retries,
  .promises_agreement = promises_agreement,
  .syncs_late_joiners = syncs_late_joiners,
  .n_peer_states = GOSSIP_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_gossip_keys,
  .msgs = &proto_msgs_gossip,
};
