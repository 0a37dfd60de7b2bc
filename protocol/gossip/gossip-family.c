/* gossip-family.c — the gossip family (README.md beside it): its
 * coordinator (gossip-coord.c) and peer (gossip-peer.c) behind the
 * machine interface (protocol/proto-machine.h). */
#include "config.h"

#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return gossip_peer_new (cfg, env->initial, env->rng);
}

/* A peer waits at most payload_timeout for its neighbours; everything else
 * it waits for is the others' training, which is progress of theirs. */
static DlTime
stall_window (const ProtoConfig *p)
{
  return dl_time_add (dl_time_mul (p->payload_timeout, 2), p->peer_connection_timeout);
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
  .new_coordinator = gossip_coord_new,
  .new_peer = new_peer,
  .stall_window = stall_window,
  /* a round begins with the coordinator's list (the default); it never
   * excludes anyone; peers mix with their neighbours only, so models
   * differ within a step: no agreement; a late joiner syncs
   * (gossip-peer.c), but from a peer's latest model, not a completed
   * round's: gossip has no round-global model to check it against, so no
   * model sync either */
  .n_peer_states = GOSSIP_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_gossip_keys,
  .msgs = &proto_msgs_gossip,
};
