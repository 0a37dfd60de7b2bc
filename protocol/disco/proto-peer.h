/* proto-peer.h — a DISCO decentralized client (DecentralizedClient driven by
 * its Trainer) as a sans-IO state machine.
 *
 * A machine (proto-machine.h): proto_machine_handle (m, now, &input,
 * &outbox); proto_machine_next_deadline tells the driver when to feed
 * PROTO_IN_DEADLINE.  The drop rule is one table (proto-peer-listen.c): a
 * message reaches the peer only if its state listens for that type;
 * otherwise it is dropped and observed as such.
 *
 * Shape: proto_peer_new makes the machine; proto_machine_free frees it. */
#pragma once

#include "base/dl-random.h"
#include "protocol/disco/disco-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef enum {
  PROTO_PEER_IDLE,               /* not started */
  PROTO_PEER_CONNECTING,         /* ClientConnected sent, awaiting NewNodeInfo */
  PROTO_PEER_SYNC_WAIT_PROVIDER, /* ModelSyncRequest sent, awaiting SignalModelProvider */
  PROTO_PEER_SYNC_LINKING,       /* opening the link to the provider (no timeout) */
  PROTO_PEER_SYNC_WAIT_MODEL,    /* awaiting SharedModel */
  PROTO_PEER_PAUSED_BEGIN,       /* not enough participants, before local training */
  PROTO_PEER_TRAINING,           /* local training */
  PROTO_PEER_PAUSED_END,         /* not enough participants, before PeerIsReady */
  PROTO_PEER_WAIT_PEERS,         /* PeerIsReady sent, awaiting PeersForRound (no timeout) */
  PROTO_PEER_LINKING,            /* opening links to new round peers (no timeout) */
  PROTO_PEER_WAIT_DECISION,      /* ConnectionsReady sent: Start / Retry / Fail */
  PROTO_PEER_POOL_SHUTDOWN,      /* after Retry or ConnectionFail: PeerPool.shutdown (<= 1 s) */
  PROTO_PEER_EXCHANGING,         /* weight exchange and aggregation */
  PROTO_PEER_DONE,               /* all rounds trained, still connected */
  PROTO_PEER_FAILED,             /* training failed (an exception in DISCO) */
  PROTO_PEER_LEFT,               /* disconnected */
} ProtoPeerState;
#define PROTO_PEER_N_STATES (PROTO_PEER_LEFT + 1)

const char *proto_peer_state_name (ProtoPeerState state);

typedef enum {
  PROTO_LINK_WAIT_OFFER,   /* we answer: waiting for the initiator's offer */
  PROTO_LINK_WAIT_ANSWER,  /* we initiated: offer sent */
  PROTO_LINK_CONNECTING,   /* signalling done, transport not up yet */
  PROTO_LINK_UP,
  PROTO_LINK_FAILED,       /* will never come up; DISCO does not notice */
  PROTO_LINK_CLOSED,       /* was up, died; DISCO keeps it in the pool */
} ProtoLinkState;

typedef struct ProtoPeer ProtoPeer;

/* initial: the model every peer starts from (a reference is taken).
 * rng: the stream for secure-aggregation shares (borrowed; outlives peer).
 * The machine's state (proto_machine_state) is a ProtoPeerState; its
 * impl, a ProtoPeer, is what the accessors below read. */
ProtoMachine *proto_peer_new (const ProtoConfig *config, LearnWeights *initial, DlRandom *rng);

ProtoNodeId proto_peer_id (const ProtoPeer *peer);
uint32_t proto_peer_agg_round (const ProtoPeer *peer);
/* The aggregator's communication round (0 between rounds, unless a secure
 * exchange stopped after communication round 0). */
guint proto_peer_agg_comm_round (const ProtoPeer *peer);
/* (transfer none) #latestModel, NULL before a round finished or a sync */
LearnWeights *proto_peer_latest_model (const ProtoPeer *peer);
gboolean proto_peer_synced (const ProtoPeer *peer);
gboolean proto_peer_paused (const ProtoPeer *peer);
guint proto_peer_pool_size (const ProtoPeer *peer);
/* PROTO_LINK_* of the pool entry for `other`, or -1 if none. */
int proto_peer_link_state (const ProtoPeer *peer, ProtoNodeId other);

G_END_DECLS
