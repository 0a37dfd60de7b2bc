/* proto-message.h — the message every protocol family speaks (one ProtoMsg
 * whose fields each type reads as it says in its family's header), the
 * generic part of its wire form (the type byte, the session envelope), and
 * the calls that dispatch through the families' message tables.
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
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef uint32_t ProtoNodeId;
/* The coordinator's id; peers are 1, 2, ... Of two peers the larger id
 * initiates their link (DISCO: the lexicographically larger UUID). */
#define PROTO_SERVER ((ProtoNodeId) 0)
#define PROTO_NO_NODE ((ProtoNodeId) UINT32_MAX)

/* A message's type: the one type byte its wire form starts with.  Each
 * family declares its own types, with their byte values, in its folder
 * (protocol/disco/disco-msgs.h, protocol/gossip/gossip-msgs.h, ...; the
 * session layer's shared ones: protocol/session/session-msgs.h), and
 * their names, codec and wire sizes in a table there (ProtoMsgClass,
 * protocol/proto-msg-class.h); the registry (proto-msg-registry.c) finds
 * a type's class by its byte.  Nothing here lists the types. */
typedef uint32_t ProtoMsgType;

/* The type byte's values: the wire form's one byte is the only bound on
 * the number of types (the registry checks that no two families claim one
 * byte).  Tables indexed by type (a machine's received counts, the drop
 * rule's flags) have this many entries. */
#define PROTO_MSG_TYPE_LIMIT 256
/* the older name, which the machines' received[] arrays still use */
#define PROTO_MSG_N_TYPES PROTO_MSG_TYPE_LIMIT

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
  /* (pointer and 64-bit fields first, then the 32-bit ones, the type in 16
   * bits and the flags in bits: 88 bytes; the world shares one among the
   * messages in flight that differ only by `node`, sim/sim-world-private.h:
   * 1 000 peers put a million in flight, 3 000 nine million) */
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
  /* NewNodeInfo: the recipient's id.  SignalForPeer: destination (to S) or
   * source (from S).  SignalModelProvider: the provider.  SignalNewPeer: the
   * newcomer.  Payload: the recipient.  Otherwise PROTO_NO_NODE. */
  ProtoNodeId node;
  uint32_t nb_participants;      /* NewNodeInfo, Waiting, Enough */
  uint32_t round;                /* PeersForRound, Payload: aggregation round */
  uint32_t comm_round;           /* Payload; GossipPayload: its ProtoGossipKind */
  uint32_t n_peers;
  uint32_t degree;               /* GossipPayload: the sender's degree in the contact graph */
  uint32_t n_indices;
  /* the session layer of a replicated coordinator (protocol/replica/): on
   * the peer<->coordinator stream, a message's number in its direction and
   * the last number received from the other side; 0 and 0 (the default) put
   * no envelope on the wire */
  uint32_t sess_seq;
  uint32_t sess_ack;
  guint16 type;                  /* a ProtoMsgType (below PROTO_MSG_TYPE_LIMIT: one byte on the
                                    wire; 16 bits hold what a caller may set beyond it) */
  guint8 signal;                 /* SignalForPeer: a ProtoSignal (a byte on the wire, kept whole) */
  /* flags: a bit each, read as TRUE or FALSE (any non-zero value set is TRUE) */
  bool wait_for_more : 1;        /* NewNodeInfo */
  bool joined_mid_training : 1;  /* NewNodeInfo */
  bool helper : 1;               /* PeerIsReady (robust only): the sender finished its rounds and
                                    stays to help others' rounds; on the wire only when set.
                                    PipeStep: the copy is its hash alone */
} ProtoMsg;

/* (the world keeps a million of them in flight: sim/sim-world-private.h
 * checks its own record's size) */
G_STATIC_ASSERT (sizeof (ProtoMsg) == 88);

/* "?" for a type no family declares. */
const char *proto_msg_type_name (ProtoMsgType type);
/* Looks a type up by its name ("PeersForRound"); FALSE if unknown. */
gboolean proto_msg_type_from_name (const char *name, ProtoMsgType *out);
/* TRUE if msg has kinds within its type (its class's `label`: a guest's
 * TYPE word) and its kind is `label`; a timeline rule `drop Guest:Push ...`
 * matches with it. */
gboolean proto_msg_label_is (const ProtoMsg *msg, const char *label);
/* msg's kind (the first *len bytes of what it returns), or NULL if its
 * type has none. */
const char *proto_msg_label (const ProtoMsg *msg, gsize *len);
/* TRUE if messages of the type have kinds (a class with `label`). */
gboolean proto_msg_type_has_labels (ProtoMsgType type);
/* TRUE if some family declares the type. */
gboolean proto_msg_type_known (ProtoMsgType type);

/* What a message is to the world and the testbed, which name no family's
 * types: a family declares it on its type's class (ProtoMsgClass's
 * `role`, in its -msgs.c), and they ask it here.  A family whose types
 * declare none runs too; the world then counts and aligns nothing by it. */
typedef enum {
  PROTO_MSG_ROLE_NONE = 0,
  PROTO_MSG_ROLE_HELLO,            /* a client's first message of a session, to the coordinator
                                      (a new session: the properties forget its rounds) */
  PROTO_MSG_ROLE_WELCOME,          /* the coordinator's answer to a hello (the testbed aligns
                                      a node's clock on the pair) */
  PROTO_MSG_ROLE_BARRIER_RETRY,    /* the coordinator tells a peer to retry the round's
                                      connection barrier (counted per peer; a property) */
  PROTO_MSG_ROLE_CONNECTION_FAIL,  /* the coordinator tells a peer it is excluded for failing to
                                      connect (counted per peer; a property) */
  PROTO_MSG_ROLE_SIGNAL,           /* a link's signalling relayed by the coordinator: `node` the
                                      other peer; on the testbed `signal_data` carries the
                                      sender's link address */
  PROTO_MSG_N_ROLES
} ProtoMsgRole;

/* The role its family declares for the type; PROTO_MSG_ROLE_NONE if none,
 * or if no family declares the type. */
ProtoMsgRole proto_msg_type_role (ProtoMsgType type);
/* How many types the families declare, and the i-th of them in byte order
 * (i < proto_msg_n_types ()). */
guint proto_msg_n_types (void);
ProtoMsgType proto_msg_type_at (guint i);

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
/* The bytes msg costs on a simulated network: its wire size, unless its
 * family says otherwise (a Guest message that says what it costs). */
gsize proto_msg_charged_size (const ProtoMsg *msg);
/* What msg's wire size depends on, as one word: two messages with the same
 * key have the same proto_msg_wire_size (the network caches sizes by it).
 * Its family's size function says what varies (the weights' bytes, a list's
 * length, a flag); PROTO_MSG_WIRE_KEY_NONE if the size is not cached (a
 * session envelope, a replicated coordinator's message, or a shape the
 * key cannot hold): then ask proto_msg_wire_size. */
#define PROTO_MSG_WIRE_KEY_NONE G_MAXUINT64
guint64 proto_msg_wire_key (const ProtoMsg *msg);
gboolean proto_msg_decode (GBytes *bytes, ProtoMsg *out, GError **error);

G_END_DECLS
