/* hier-family.c — the hierarchical family's coordinator and peer behind the
 * machine interface (protocol/proto-machine.h; README.md beside it). */
#include "config.h"

#include "protocol/hierarchical/hier.h"

static void
peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  hier_peer_handle (impl, now, in, out);
}

static DlTime
peer_next_deadline (const void *impl)
{
  return hier_peer_next_deadline (impl);
}

static const char *
peer_state_name (const void *impl)
{
  return hier_peer_state_name (hier_peer_state (impl));
}

static gboolean
peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  return hier_peer_listens (impl, type, from);
}

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const HierPeer *p = impl;
  HierPeerState s = hier_peer_state (p);
  v->connected = hier_peer_connected (p);
  v->settled = s == HIER_PEER_DONE || s == HIER_PEER_LEFT;
  v->rounds_done = hier_peer_rounds_done (p);
  v->synced = hier_peer_synced (p);
  /* a member waiting for its head's election or result waits on a peer */
  v->waiting_on_peer = s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT
                      || s == HIER_PEER_SYNCING;
}

static gboolean
peer_waiting_on_peer (const void *impl)
{
  HierPeerState s = hier_peer_state (impl);
  return s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT || s == HIER_PEER_SYNCING;
}

static LearnWeights *
peer_model (const void *impl)
{
  return hier_peer_model (impl);
}

static guint
peer_received_count (const void *impl, ProtoMsgType type)
{
  return hier_peer_received_count (impl, type);
}

static void
peer_free (void *impl)
{
  hier_peer_free (impl);
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

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  hier_coord_handle (impl, now, in, out);
}

static DlTime
coord_next_deadline (const void *impl)
{
  return hier_coord_next_deadline (impl);
}

static const char *
coord_state_name (const void *impl)
{
  return hier_coord_phase (impl);
}

static gboolean
coord_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  (void) impl, (void) type, (void) from;
  return TRUE;   /* it takes every message and drops what it has no use for itself */
}

static void
coord_free (void *impl)
{
  hier_coord_free (impl);
}

static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .next_deadline = coord_next_deadline,
  .state_name = coord_state_name,
  .listens = coord_listens,
  .free = coord_free,
};

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return proto_machine_wrap (&coord_class, hier_coord_new (cfg));
}

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return proto_machine_wrap (&peer_class, hier_peer_new (cfg, env));
}

/* a member may wait out a head, an election and a new head */
static DlTime
stall_window (const ProtoConfig *p)
{
  const HierConfig *h = hier_config (p);
  DlTime waits = dl_time_add (dl_time_mul (h->head_timeout, 3), dl_time_mul (h->election_timeout, 2));
  return dl_time_add (waits, 60 * DL_S);
}

/* every head computes the same global model from the same aggregates, in
 * head id order: without faults, every peer ends a round with it */
static gboolean
promises_agreement (const ProtoConfig *cfg)
{
  /* async: each member mixes into its head's model at its own time;
   * mixed: a slow member ends its round with the previous global
   * (hier-async.c) */
  return cfg->straggler_policy != PROTO_STRAGGLER_ASYNC && cfg->straggler_policy != PROTO_STRAGGLER_MIXED;
}

/* a peer that joins after the clusters formed takes its head's latest
 * global model before it trains (hier-peer.c, HIER_PEER_SYNCING) */
static gboolean
syncs_late_joiners (const ProtoConfig *cfg)
{
  /* async: a head's model is no completed round's */
  return cfg->straggler_policy != PROTO_STRAGGLER_ASYNC;
}

static const char *
peer_state_name_at (guint i)
{
  return hier_peer_state_name ((HierPeerState) i);
}

extern const ProtoMsgFamily proto_msgs_hierarchical;   /* hier-msgs.c */
extern const ProtoFamilyKeys proto_hierarchical_keys;   /* hier-keys.c */

const ProtoFamily proto_family_hierarchical = {
  .name = "hierarchical",
  .new_coordinator = new_coordinator,
  .new_peer = new_peer,
  .stall_window = stall_window,
  /* the coordinator sees no rounds (heads run them): `round N` timeline
   * times and round-list rows do not exist for this family (round_begins
   * stays the default); it excludes nobody */
  .promises_agreement = promises_agreement,
  .syncs_late_joiners = syncs_late_joiners,
  .n_peer_states = HIER_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_hierarchical_keys,
  .msgs = &proto_msgs_hierarchical,
};
