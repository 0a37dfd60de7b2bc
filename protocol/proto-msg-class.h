/* proto-msg-class.h — what a family declares about each of its message
 * types, and the codec pieces protocol/ lends it.
 *
 * A family's folder holds its message types: their byte values in its
 * header (protocol/<family>/<family>-msgs.h) and, in its -msgs.c, one
 * `static const` ProtoMsgClass per type (its name, its body's encoder and
 * decoder, its size key) gathered in a ProtoMsgFamily, which its
 * ProtoFamily's `msgs` points to.  The registry (proto-msg-registry.c)
 * takes the tables from the family registry (proto-machine.c), and
 * checks them when first asked: every type has a name, a wire type, both
 * codec arms and a size function; no byte and no name is claimed twice.
 * protocol/ keeps the envelope (the outer variant, the type byte, the
 * session numbers) and dispatches through the tables; nothing else
 * switches on a message's type.
 *
 * Shape: the tables are static data; the helpers below work on caller
 * memory like the rest of proto-message.h. */
#pragma once

#include "base/dl-random.h"
#include "protocol/proto-message.h"

G_BEGIN_DECLS

typedef struct {
  ProtoMsgType type;         /* its type byte (the family's header names it) */
  const char *name;          /* "PeersForRound": traces, results, fault rules */
  const char *wire_type;     /* its body's GVariant type, the type byte first: "(yauu)" */
  const char *alt_wire_type; /* a second shape it may have (an optional field), or NULL */
  /* its body (floating), the type byte first; with copy = FALSE the weights
   * are referenced, not copied (proto_msg_weights_variant) */
  GVariant *(*encode) (const ProtoMsg *msg, gboolean copy);
  /* fills m (proto_msg_init'd to the type) from a body of wire_type or
   * alt_wire_type; depth: inside a RaftAppend.  On FALSE the caller clears m. */
  gboolean (*decode) (GVariant *body, ProtoMsg *m, guint depth, GError **error);
  /* what its wire size depends on besides its type, below 2^56 (0 for a
   * fixed size: proto_msg_size_fixed), or PROTO_MSG_WIRE_KEY_NONE: not
   * cached.  Two messages of the type with one key must encode to the same
   * length (tests/test-message checks it for every type). */
  guint64 (*size_key) (const ProtoMsg *msg);
  /* optional: the bytes it costs on a simulated network when that is not
   * its wire size (proto_msg_charged_size), keyed by size_key like it */
  gsize (*charged_size) (const ProtoMsg *msg);
  /* optional: the kind of message this one is within its type, as a
   * timeline rule names it after a colon (`drop Guest:Payload to p2`):
   * the first *len bytes of what it returns; NULL where the type has no
   * kinds (a guest's message: the TYPE word the guest gave it) */
  const char *(*label) (const ProtoMsg *msg, gsize *len);
  /* optional: what the type is to the world and the testbed, which ask
   * proto_msg_type_role and name no type (proto-message.h's ProtoMsgRole);
   * PROTO_MSG_ROLE_NONE (0) where it is nothing to them */
  ProtoMsgRole role;
  /* optional, for the frame fuzzer (bench/fuzz-frames.c): once a random
   * message of the type has its common fields drawn (node, round,
   * nb_participants, ...), draws from r the parts the type carries beyond
   * them (a peer list, its ids from id; weights) and sets what its decoder
   * requires of the common ones (a pipeline step's tokens and blocks);
   * NULL: the common fields alone */
  void (*fuzz) (ProtoMsg *msg, DlRandom *r, ProtoNodeId (*id) (DlRandom *r));
  /* optional: an example of the type (msg is initialised to it): sets
   * every field it carries to a value other than its default, so that the
   * tests' round trips and size checks (tests/msg-fill.c, fill_msg) see
   * each field; a family's types need no file of its own under tests/ */
  void (*example) (ProtoMsg *msg);
} ProtoMsgClass;

/* A message a fault may target (`dlsim explore`'s drop and delay): its
 * type and the timeline rule's direction, "to" (delivered to the peer) or
 * "from" (sent by it). */
typedef struct {
  ProtoMsgType type;
  const char *dir;
} ProtoMsgFaultTarget;

typedef struct {
  const char *name;              /* the family's folder: "disco" */
  const ProtoMsgClass *types;
  guint n_types;
  /* the messages explore's drop and delay faults pick from, in the order
   * it draws them: its types, or another family's it speaks (NULL: every
   * one of types, "to" then "from") */
  const ProtoMsgFaultTarget *fault_targets;
  guint n_fault_targets;
  /* TRUE: the session layer's types (protocol/session/session-msgs.h)
   * count among the family's own, merged into `types` by type byte where
   * explore lists a family's types.  DISCO's: they were its own first. */
  gboolean session_types;
  /* the family's types (its own, or the session's it counts as its own)
   * that no fault target names, on purpose: explore never drops or
   * delays them, and its coverage still lists them (tests/test-explore.c:
   * with nothing dropped, the list is the targets' types and these).
   * Empty for a family whose targets cover its types; DISCO's are the
   * four its pinned list of fifteen left out (the same seed draws the
   * same plans as before families listed their own) */
  const ProtoMsgType *untargeted;
  guint n_untargeted;
} ProtoMsgFamily;

/* The registered families' tables, NULL-ended (proto-msg-registry.c). */
const ProtoMsgFamily *const *proto_msg_families (void);
/* The table of the family named name (a ProtoFamily's name), NULL if none. */
const ProtoMsgFamily *proto_msg_family_named (const char *name);
/* The messages f's faults may target: how many, and the i-th (its type's
 * name and its direction), with the default of every type both ways. */
guint proto_msg_family_n_fault_targets (const ProtoMsgFamily *f);
void proto_msg_family_fault_target (const ProtoMsgFamily *f, guint i, const char **type, const char **dir);
/* The class of a type byte, NULL if no family declares it. */
const ProtoMsgClass *proto_msg_class_of (ProtoMsgType type);
/* Checks one family's table on its own (complete entries, bytes below
 * PROTO_MSG_TYPE_LIMIT, no byte or name twice, fault targets with a
 * direction "to" or "from"; the registry checks that their types exist); the registry runs it on
 * every family, and across them, when first asked. */
gboolean proto_msg_family_check (const ProtoMsgFamily *f, GError **error);

/* ---- codec pieces for the families' arms ---- */

/* An error for a malformed body; returns FALSE. */
gboolean proto_msg_malformed (GError **error, const char *what);
/* msg's weights as an "ay" (empty if none), floating. */
GVariant *proto_msg_weights_variant (const ProtoMsg *msg, gboolean copy);
/* n uint32 as an "au", floating. */
GVariant *proto_msg_u32_variant (const uint32_t *v, uint32_t n);
/* Sets m->weights from an "ay"; FALSE (and an error) if it is not a whole
 * number of float32 values. */
gboolean proto_msg_weights_from_variant (ProtoMsg *m, GVariant *ay, GError **error);
/* m's peers, or its indices, from an "au". */
void proto_msg_peers_from_variant (ProtoMsg *m, GVariant *au);
void proto_msg_indices_from_variant (ProtoMsg *m, GVariant *au);
/* A whole message's body, with its session envelope if it has one (for a
 * message inside another: a RaftAppend's entry), floating. */
GVariant *proto_msg_body (const ProtoMsg *msg, gboolean copy);
/* A message inside another from its body (envelope allowed). */
gboolean proto_msg_decode_nested (GVariant *body, ProtoMsg *out, guint depth, GError **error);

/* Arms of shapes several families use: the type byte alone "(y)"; a
 * `round` "(yu)"; a `key` "(yt)"; `peers` and a `round` "(yauu)"; a `round`, `peers` and
 * `indices` "(yuauau)" (no check of their lengths: the family's own
 * decoder adds it). */
GVariant *proto_msg_enc_bare (const ProtoMsg *msg, gboolean copy);
gboolean proto_msg_dec_bare (GVariant *body, ProtoMsg *m, guint depth, GError **error);
GVariant *proto_msg_enc_round (const ProtoMsg *msg, gboolean copy);
gboolean proto_msg_dec_round (GVariant *body, ProtoMsg *m, guint depth, GError **error);
GVariant *proto_msg_enc_key (const ProtoMsg *msg, gboolean copy);
gboolean proto_msg_dec_key (GVariant *body, ProtoMsg *m, guint depth, GError **error);
GVariant *proto_msg_enc_peers_round (const ProtoMsg *msg, gboolean copy);
gboolean proto_msg_dec_peers_round (GVariant *body, ProtoMsg *m, guint depth, GError **error);
GVariant *proto_msg_enc_round_peers_indices (const ProtoMsg *msg, gboolean copy);
gboolean proto_msg_dec_round_peers_indices (GVariant *body, ProtoMsg *m, guint depth, GError **error);
/* a class of the type byte alone */
#define PROTO_MSG_CLASS_BARE(type, name) \
  { type, name, "(y)", NULL, proto_msg_enc_bare, proto_msg_dec_bare, proto_msg_size_fixed, NULL }
/* one that plays a role (ProtoMsgRole) */
#define PROTO_MSG_CLASS_BARE_ROLE(type, name, role_) \
  { type, name, "(y)", NULL, proto_msg_enc_bare, proto_msg_dec_bare, proto_msg_size_fixed, .role = role_ }

/* ---- size functions ---- */

/* The size is fixed by the type: key 0. */
guint64 proto_msg_size_fixed (const ProtoMsg *msg);
/* Never cached. */
guint64 proto_msg_size_unkeyed (const ProtoMsg *msg);
/* The weights' bytes are the one variable part. */
guint64 proto_msg_size_weights (const ProtoMsg *msg);
/* The peer list is the one variable part. */
guint64 proto_msg_size_peers (const ProtoMsg *msg);
/* The peer list and the indices are the variable parts. */
guint64 proto_msg_size_peers_indices (const ProtoMsg *msg);
/* signal_data's length (NULL or "" alike: an empty string on the wire). */
guint64 proto_msg_size_string (const ProtoMsg *msg);
/* Two lengths in one key, or PROTO_MSG_WIRE_KEY_NONE if either does not
 * fit its 28 bits. */
guint64 proto_msg_size_key_pair (guint64 a, guint64 b);

G_END_DECLS
