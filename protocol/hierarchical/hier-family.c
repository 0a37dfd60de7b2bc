/* hier-family.c — the hierarchical family (README.md beside it): its
 * coordinator (hier-coord.c) and peer (hier-peer.c) behind the machine
 * interface (protocol/proto-machine.h). */
#include "config.h"

#include "protocol/hierarchical/hier.h"

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
  .new_coordinator = hier_coord_new,
  .new_peer = hier_peer_new,
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
