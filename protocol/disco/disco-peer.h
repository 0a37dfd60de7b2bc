/* disco-peer.h — a DISCO decentralized client (DecentralizedClient driven by
 * its Trainer) as a sans-IO state machine.
 *
 * A machine (proto-machine.h): proto_machine_handle (m, now, &input,
 * &outbox); proto_machine_next_deadline tells the driver when to feed
 * PROTO_IN_DEADLINE.  The drop rule is one table (disco-peer-listen.c): a
 * message reaches the peer only if its state listens for that type;
 * otherwise it is dropped and observed as such.
 *
 * Shape: disco_peer_new makes the machine; proto_machine_free frees it. */
#pragma once

#include "base/dl-random.h"
#include "protocol/disco/disco-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef enum {
  DISCO_PEER_IDLE,               /* not started */
  DISCO_PEER_CONNECTING,         /* ClientConnected sent, awaiting NewNodeInfo */
  DISCO_PEER_SYNC_WAIT_PROVIDER, /* ModelSyncRequest sent, awaiting SignalModelProvider */
  DISCO_PEER_SYNC_LINKING,       /* opening the link to the provider (no timeout) */
  DISCO_PEER_SYNC_WAIT_MODEL,    /* awaiting SharedModel */
  DISCO_PEER_PAUSED_BEGIN,       /* not enough participants, before local training */
  DISCO_PEER_TRAINING,           /* local training */
  DISCO_PEER_PAUSED_END,         /* not enough participants, before PeerIsReady */
  DISCO_PEER_WAIT_PEERS,         /* PeerIsReady sent, awaiting PeersForRound (no timeout) */
  DISCO_PEER_LINKING,            /* opening links to new round peers (no timeout) */
  DISCO_PEER_WAIT_DECISION,      /* ConnectionsReady sent: Start / Retry / Fail */
  DISCO_PEER_POOL_SHUTDOWN,      /* after Retry or ConnectionFail: PeerPool.shutdown (<= 1 s) */
  DISCO_PEER_EXCHANGING,         /* weight exchange and aggregation */
  DISCO_PEER_DONE,               /* all rounds trained, still connected */
  DISCO_PEER_FAILED,             /* training failed (an exception in DISCO) */
  DISCO_PEER_LEFT,               /* disconnected */
} DiscoPeerState;
#define DISCO_PEER_N_STATES (DISCO_PEER_LEFT + 1)

const char *disco_peer_state_name (DiscoPeerState state);

typedef enum {
  DISCO_LINK_WAIT_OFFER,   /* we answer: waiting for the initiator's offer */
  DISCO_LINK_WAIT_ANSWER,  /* we initiated: offer sent */
  DISCO_LINK_CONNECTING,   /* signalling done, transport not up yet */
  DISCO_LINK_UP,
  DISCO_LINK_FAILED,       /* will never come up; DISCO does not notice */
  DISCO_LINK_CLOSED,       /* was up, died; DISCO keeps it in the pool */
} DiscoLinkState;

typedef struct DiscoPeer DiscoPeer;

/* initial: the model every peer starts from (a reference is taken).
 * rng: the stream for secure-aggregation shares (borrowed; outlives peer).
 * The machine's state (proto_machine_state) is a DiscoPeerState; its
 * impl, a DiscoPeer, is what the accessors below read. */
ProtoMachine *disco_peer_new (const ProtoConfig *config, LearnWeights *initial, DlRandom *rng);

ProtoNodeId disco_peer_id (const DiscoPeer *peer);
uint32_t disco_peer_agg_round (const DiscoPeer *peer);
/* The aggregator's communication round (0 between rounds, unless a secure
 * exchange stopped after communication round 0). */
guint disco_peer_agg_comm_round (const DiscoPeer *peer);
/* (transfer none) #latestModel, NULL before a round finished or a sync */
LearnWeights *disco_peer_latest_model (const DiscoPeer *peer);
gboolean disco_peer_synced (const DiscoPeer *peer);
gboolean disco_peer_paused (const DiscoPeer *peer);
guint disco_peer_pool_size (const DiscoPeer *peer);
/* DISCO_LINK_* of the pool entry for `other`, or -1 if none. */
int disco_peer_link_state (const DiscoPeer *peer, ProtoNodeId other);

G_END_DECLS
