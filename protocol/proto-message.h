/* proto-message.h — the messages every protocol family speaks, and their
 * wire form: DISCO's decentralized protocol (#1110) first, then the gossip
 * family's three (protocol/gossip/README.md).
 *
 * Wire form: a GVariant of type "v" whose inner tuple type depends on the
 * message type (its first member is the type byte).  Weights travel as "ay"
 * of little-endian float32, so a Payload costs its real size.  Decoding
 * accepts untrusted bytes: anything truncated, oversized, not in normal form,
 * or of the wrong inner type is rejected with a PROTO_ERROR.
 *
 * Shape: ProtoMsg is a value type: proto_msg_init_* on caller memory,
 * proto_msg_clear to release what it owns (the peer list, the indices, a
 * weights ref). */
#pragma once

#include "learn/learn-weights.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef uint32_t ProtoNodeId;
/* The coordinator's id; peers are 1, 2, ... Of two peers the larger id
 * initiates their link (DISCO: the lexicographically larger UUID). */
#define PROTO_SERVER ((ProtoNodeId) 0)
#define PROTO_NO_NODE ((ProtoNodeId) UINT32_MAX)

typedef enum {
  PROTO_MSG_CLIENT_CONNECTED,
  PROTO_MSG_NEW_NODE_INFO,
  PROTO_MSG_JOIN_ROUND,
  PROTO_MSG_PEER_IS_READY,
  PROTO_MSG_PEERS_FOR_ROUND,
  PROTO_MSG_CONNECTIONS_READY,
  PROTO_MSG_START_WEIGHT_SHARING,
  PROTO_MSG_RETRY_PEER_CONNECTIONS,
  PROTO_MSG_CONNECTION_FAIL,
  PROTO_MSG_WAITING_FOR_MORE,
  PROTO_MSG_ENOUGH_PARTICIPANTS,
  PROTO_MSG_SIGNAL_FOR_PEER,
  PROTO_MSG_MODEL_SYNC_REQUEST,
  PROTO_MSG_SIGNAL_MODEL_PROVIDER,
  PROTO_MSG_SIGNAL_NEW_PEER,
  PROTO_MSG_SHARED_MODEL,
  PROTO_MSG_PAYLOAD,
  /* gossip (protocol/gossip/) */
  PROTO_MSG_GOSSIP_TARGETS,   /* peer -> S: the peers it drew for step `round` */
  PROTO_MSG_NEIGHBORS,        /* S -> peer: its neighbours in step `round`'s contact graph */
  PROTO_MSG_GOSSIP_PAYLOAD,   /* peer -> peer: its model (or `indices` of it), `degree`, and its kind
                                 in `comm_round` (ProtoGossipKind) */
  PROTO_MSG_GOSSIP_SAMPLE,    /* S -> peer: candidates for an asynchronous step of its own */
  /* hierarchical (protocol/hierarchical/) */
  PROTO_MSG_HIER_HELLO,       /* peer -> S: `degree` its score, `signal_data` its region, `helper` NAT */
  PROTO_MSG_HIER_CLUSTER,     /* S -> peer: its cluster's `peers`, election epoch `round`, head `node`
                                 (PROTO_NO_NODE: an election is on) */
  PROTO_MSG_HIER_CANDIDACY,   /* peer -> S: for epoch `round`, score `degree`, `helper` eligible */
  PROTO_MSG_HIER_HEADS,       /* S -> heads: the heads tree, version `round`, of `degree` heads:
                                 this head's parent `node` (PROTO_NO_NODE: the top), the top
                                 heads it exchanges with (`peers`, at the top), its children
                                 (`indices`), and `key` a head to sync from (any other, finished
                                 clusters included; PROTO_NO_NODE if none) */
  PROTO_MSG_HIER_UPDATE,      /* member -> head: its model, `degree` 1, `round` the head's round */
  PROTO_MSG_HIER_AGG,         /* head -> heads: its cluster's mean of `degree` updates, `round` */
  PROTO_MSG_HIER_RESULT,      /* head -> member: the round's global model */
  /* gossip's Kademlia discovery (protocol/gossip/gossip-dht.c) */
  PROTO_MSG_DHT_FIND_NODE,    /* peer -> peer: the contacts closest to `key`, call `round` */
  PROTO_MSG_DHT_NODES,        /* the answer: contacts (`peers`) for call `round`; from S, call 0:
                                 the bootstrap contacts */
  /* pipeline (protocol/pipeline/): Petals' inference chain */
  PROTO_MSG_PIPE_HELLO,       /* peer -> S: `degree` its speed x 1000, `signal_data` its region */
  PROTO_MSG_PIPE_ROLE,        /* S -> peer: its id `node`; `helper` TRUE: a server of blocks
                                 [`round`, `comm_round`); FALSE: a client */
  PROTO_MSG_PIPE_LOOKUP,      /* client -> S: which servers are there now */
  PROTO_MSG_PIPE_SERVERS,     /* S -> client: the live servers (`peers`) and for each four numbers in
                                 `indices`: first block, end block, speed x 1000, family code */
  PROTO_MSG_PIPE_PING,        /* client -> server: `round` a sequence number */
  PROTO_MSG_PIPE_PONG,        /* the answer, same `round` */
  PROTO_MSG_PIPE_STEP,        /* client -> server: session `key`, step `round`, input hash `comm_round`,
                                 `nb_participants` tokens of hidden states (`weights`) through blocks
                                 [`degree`, `node`), and the servers after this one (`peers`, with
                                 their blocks as [start, end) pairs in `indices`: next-peer forwarding
                                 as Petals' next_servers; empty: none); `helper`: the hash alone, no
                                 hidden states (client_copy = hash) */
  PROTO_MSG_PIPE_PUSH,        /* server -> server: the same for the next server of the chain (Petals'
                                 rpc_push), fire-and-forget; `peers` the rest of the chain */
  PROTO_MSG_PIPE_RESULT,      /* server -> client: session `key`, step `round`, output hash `comm_round`
                                 computed from input hash `degree`, `nb_participants` tokens */
  PROTO_MSG_PIPE_CLOSE,       /* client -> server: session `key` is over */
  PROTO_MSG_PIPE_NEED,        /* server -> client: the full copy of step `round` of session `key`, please
                                 (client_copy = hash: its hash alone came, and no push matched it) */
  /* the replicated coordinator (protocol/replica/): the session layer and Raft */
  PROTO_MSG_SESSION_RESUME,   /* peer -> S (a new stream): resume my session; `sess_ack` the last
                                 message of the coordinator's I hold */
  PROTO_MSG_SESSION_RESUMED,  /* S -> peer: resumed; `sess_ack` the last of yours applied, `round`
                                 the last number it gave a message to you; `helper`: no, your
                                 session was closed (you are gone for the coordinator) */
  PROTO_MSG_RAFT_VOTE,        /* replica -> replica: RequestVote, term `round`, last log index `key`
                                 and term `comm_round` */
  PROTO_MSG_RAFT_VOTE_REPLY,  /* term `round`, `helper` granted */
  PROTO_MSG_RAFT_APPEND,      /* AppendEntries: term `round`, prev index `key` and term `comm_round`,
                                 leader commit `degree`; one entry or none (a heartbeat): its
                                 fields in `indices` (proto-replica.h) and its message `inner` */
  PROTO_MSG_RAFT_APPEND_REPLY,/* term `round`, `helper` success, match index `key` */
  /* the hierarchical family's clustering by measured latency (hier-coord.c) */
  PROTO_MSG_HIER_PROBE,       /* S -> peer: measure the round trip to each landmark in `peers` (probe
                                 `round` + i for the i-th), and open links to the peers in `indices`
                                 (they will probe you: you are their landmark) */
  PROTO_MSG_HIER_PING,        /* peer -> landmark, over a link: probe `round` */
  PROTO_MSG_HIER_PONG,        /* the answer, same `round` */
  PROTO_MSG_HIER_RTT,         /* peer -> S: probe `round` to landmark `node` took `key` ns
                                 (G_MAXUINT64: no link to it) */
  /* DISCO's family, robust with straggler_policy = async or mixed */
  PROTO_MSG_ROUND_STALENESS,  /* S -> listed peer, after PeersForRound: for round `round`, every listed
                                 peer (`peers`, itself included) and its staleness (`indices`: rounds
                                 since the list it was last in) */
  /* a guest's message (protocol/guest/, docs/guest.md): `signal_data` its type name and its
     data as the guest wrote them ("NAME DATA"), `key` the wire bytes it says it costs (0: its
     length) */
  PROTO_MSG_GUEST,
} ProtoMsgType;
#define PROTO_MSG_N_TYPES (PROTO_MSG_GUEST + 1)

/* A GossipPayload's kind (its comm_round field). */
typedef enum {
  PROTO_GOSSIP_STEP,    /* a step's exchange with a neighbour (`round`: the step) */
  PROTO_GOSSIP_PUSH,    /* asynchronous: mixed in by staleness, answered with a REPLY (`round`: the
                           sender's rounds done) */
  PROTO_GOSSIP_REPLY,   /* the answer to a push: mixed in by staleness, not answered */
} ProtoGossipKind;

/* How a message travels. */
typedef enum {
  PROTO_VIA_SERVER,   /* the peer<->coordinator stream */
  PROTO_VIA_LINK,     /* a peer<->peer link */
} ProtoVia;

/* The link-setup signal a SignalForPeer carries. */
typedef enum {
  PROTO_SIGNAL_OFFER,
  PROTO_SIGNAL_ANSWER,
} ProtoSignal;

typedef struct ProtoMsg_ {
  /* (pointer and 64-bit fields first, then the 32-bit ones, the flags
   * bytes: 96 bytes, and the world's record of a message in flight 128,
   * two cache lines; 1 000 peers put a million in flight) */
  char *signal_data;             /* SignalForPeer: what the signal carries (DISCO: the SDP;
                                    the testbed: the sender's link address), owned; NULL in
                                    the simulator, where it costs no wire bytes */
  ProtoNodeId *peers;            /* PeersForRound (owned) */
  LearnWeights *weights;         /* SharedModel, Payload, GossipPayload (a reference; with
                                    indices: the values at those indices) */
  uint32_t *indices;             /* GossipPayload: the coordinates sent, ascending (owned);
                                    none: the whole model */
  struct ProtoMsg_ *inner;       /* RaftAppend: the entry's message (owned), NULL if none */
  uint64_t key;                  /* DhtFindNode: the key looked up; HierHeads: a head to sync from;
                                    Pipe*: the session */
  ProtoMsgType type;
  /* NewNodeInfo: the recipient's id.  SignalForPeer: destination (to S) or
   * source (from S).  SignalModelProvider: the provider.  SignalNewPeer: the
   * newcomer.  Payload: the recipient.  Otherwise PROTO_NO_NODE. */
  ProtoNodeId node;
  uint32_t nb_participants;      /* NewNodeInfo, Waiting, Enough */
  uint32_t round;                /* PeersForRound, Payload: aggregation round */
  uint32_t comm_round;           /* Payload; GossipPayload: its ProtoGossipKind */
  ProtoSignal signal;            /* SignalForPeer */
  uint32_t n_peers;
  uint32_t degree;               /* GossipPayload: the sender's degree in the contact graph */
  uint32_t n_indices;
  /* the session layer of a replicated coordinator (protocol/replica/): on
   * the peer<->coordinator stream, a message's number in its direction and
   * the last number received from the other side; 0 and 0 (the default) put
   * no envelope on the wire */
  uint32_t sess_seq;
  uint32_t sess_ack;
  guint8 wait_for_more;          /* NewNodeInfo */
  guint8 joined_mid_training;    /* NewNodeInfo */
  guint8 helper;                 /* PeerIsReady (robust only): the sender finished its rounds and
                                    stays to help others' rounds; on the wire only when set.
                                    PipeStep: the copy is its hash alone */
} ProtoMsg;

const char *proto_msg_type_name (ProtoMsgType type);
/* Looks a type up by its name ("PeersForRound"); FALSE if unknown. */
gboolean proto_msg_type_from_name (const char *name, ProtoMsgType *out);

/* Any message type with no fields, or fields filled in after. */
void proto_msg_init (ProtoMsg *msg, ProtoMsgType type);
/* (transfer none) for weights: the message takes its own reference. */
void proto_msg_set_weights (ProtoMsg *msg, LearnWeights *weights);
void proto_msg_set_peers (ProtoMsg *msg, const ProtoNodeId *peers, uint32_t n);
/* Takes ownership of indices (g_malloc'd). */
void proto_msg_take_indices (ProtoMsg *msg, uint32_t *indices, uint32_t n);
void proto_msg_copy (ProtoMsg *dst, const ProtoMsg *src);
void proto_msg_clear (ProtoMsg *msg);

#define PROTO_ERROR (proto_error_quark ())
GQuark proto_error_quark (void);
typedef enum {
  PROTO_ERROR_MALFORMED,
} ProtoErrorCode;

/* Upper bound on an encoded message (a 256 Mi-float model and framing). */
#define PROTO_MAX_WIRE_BYTES ((gsize) 1 << 30)

/* (transfer full) the wire bytes of msg. */
GBytes *proto_msg_encode (const ProtoMsg *msg);
/* Exact length of proto_msg_encode(msg), without copying the weights. */
gsize proto_msg_wire_size (const ProtoMsg *msg);
/* The bytes msg costs on a simulated network: its wire size, or for a
 * Guest message that says what it costs (`key`), that. */
gsize proto_msg_charged_size (const ProtoMsg *msg);
gboolean proto_msg_decode (GBytes *bytes, ProtoMsg *out, GError **error);

G_END_DECLS
