/* gossip-peer.h — the gossip family's peer: decentralized SGD with
 * sparsified gossip over a contact graph the peers draw themselves
 * (protocol/gossip/README.md).
 *
 * A step: train locally -> PeerIsReady -> PeersForRound(step, members) ->
 * draw `fanout` of the members from the peer's own stream -> GossipTargets
 * -> Neighbors(step, N) (the undirected graph the coordinator joined from
 * everybody's draws) -> a GossipPayload to and from every neighbour over a
 * peer link -> Metropolis–Hastings mixing -> the next step.  A neighbour
 * whose payload does not come within payload_timeout, or whose link fails
 * or closes, is mixed as absent (its weight stays on the peer's own value).
 *
 * Shape: gossip_peer_new makes the machine (proto-machine.h), which
 * proto_machine_free frees. */
#pragma once

#include "base/dl-random.h"
#include "protocol/gossip/gossip-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef enum {
  GOSSIP_PEER_IDLE,
  GOSSIP_PEER_CONNECTING,   /* ClientConnected sent, NewNodeInfo awaited */
  GOSSIP_PEER_SYNCING,      /* joined late: the model of a peer in the latest step first (gossip-peer.c) */
  GOSSIP_PEER_TRAINING,
  GOSSIP_PEER_WAIT_LIST,    /* PeerIsReady sent, PeersForRound awaited */
  GOSSIP_PEER_WAIT_GRAPH,   /* GossipTargets sent, Neighbors awaited */
  GOSSIP_PEER_EXCHANGING,   /* payloads to and from the neighbours */
  GOSSIP_PEER_DONE,         /* every round trained; stays as a helper (mixes when listed, no training) */
  GOSSIP_PEER_LEFT,
  GOSSIP_PEER_FAILED,
} GossipPeerState;
#define GOSSIP_PEER_N_STATES (GOSSIP_PEER_FAILED + 1)

/* initial: the model every peer starts from (a reference is taken); rng:
 * the peer's stream (borrowed), for its draws of targets and random-k.
 * Its state (proto_machine_state) is a GossipPeerState. */
ProtoMachine *gossip_peer_new (const ProtoConfig *cfg, LearnWeights *initial, DlRandom *rng);

const char *gossip_peer_state_name (GossipPeerState s);
/* finished its rounds, stays, and keeps mixing for the others */
gboolean gossip_peer_helper (const ProtoMachine *m);
/* push-pull: the value it drew when it joined (the sum of these is kept) */
float gossip_peer_pushpull_start (const ProtoMachine *m);

G_END_DECLS
