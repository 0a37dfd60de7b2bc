/* replica-msgs.c — the replicated coordinator's message types: names, the
 * codec arms of their bodies and their size keys (replica-msgs.h; the
 * table's contract: protocol/proto-msg-class.h).  A RaftAppend carries a
 * whole message (its entry) inside: that one is encoded and decoded by its
 * own family's class, through proto_msg_body / proto_msg_decode_nested. */
#include "config.h"

#include "protocol/session/session-msgs.h"
#include "protocol/replica/replica-msgs.h"
#include "protocol/proto-msg-class.h"

static GVariant *
enc_resumed (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(ybu)", (guchar) msg->type, msg->helper, msg->round);
}

static gboolean
dec_resumed (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  gboolean b = FALSE;
  g_variant_get (body, "(ybu)", &ty, &b, &m->round);
  m->helper = (guint8) b;
  return TRUE;
}

static GVariant *
enc_vote (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yutu)", (guchar) msg->type, msg->round, (guint64) msg->key, msg->comm_round);
}

static gboolean
dec_vote (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  g_variant_get (body, "(yutu)", &ty, &m->round, &k, &m->comm_round);
  m->key = k;
  return TRUE;
}

static GVariant *
enc_vote_reply (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yub)", (guchar) msg->type, msg->round, msg->helper);
}

static gboolean
dec_vote_reply (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  gboolean b = FALSE;
  g_variant_get (body, "(yub)", &ty, &m->round, &b);
  m->helper = (guint8) b;
  return TRUE;
}

static GVariant *
enc_append (const ProtoMsg *msg, gboolean copy)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("av"));
  if (msg->inner)
    g_variant_builder_add_value (&b, g_variant_new_variant (proto_msg_body (msg->inner, copy)));
  return g_variant_new ("(yutuu@au@av)", (guchar) msg->type, msg->round, (guint64) msg->key, msg->comm_round,
                        msg->degree, proto_msg_u32_variant (msg->indices, msg->n_indices), g_variant_builder_end (&b));
}

static gboolean
dec_append (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  guint64 k;
  g_autoptr (GVariant) ix = g_variant_get_child_value (body, 5);
  g_autoptr (GVariant) entries = g_variant_get_child_value (body, 6);
  g_variant_get_child (body, 1, "u", &m->round);
  g_variant_get_child (body, 2, "t", &k);
  g_variant_get_child (body, 3, "u", &m->comm_round);
  g_variant_get_child (body, 4, "u", &m->degree);
  m->key = k;
  proto_msg_indices_from_variant (m, ix);
  gsize ne = g_variant_n_children (entries);
  if (ne > 1 || depth > 0)
    return proto_msg_malformed (error, "RaftAppend carries one entry at most, and no RaftAppend");
  if (ne == 1)
    {
      g_autoptr (GVariant) ev = g_variant_get_child_value (entries, 0);
      g_autoptr (GVariant) inner = g_variant_get_variant (ev);
      ProtoMsg *e = g_new0 (ProtoMsg, 1);
      if (!proto_msg_decode_nested (inner, e, depth + 1, error))
        {
          g_free (e);
          return FALSE;
        }
      m->inner = e;
    }
  return TRUE;
}

static GVariant *
enc_append_reply (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yubt)", (guchar) msg->type, msg->round, msg->helper, (guint64) msg->key);
}

static gboolean
dec_append_reply (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  gboolean b = FALSE;
  g_variant_get (body, "(yubt)", &ty, &m->round, &b, &k);
  m->helper = (guint8) b;
  m->key = k;
  return TRUE;
}

/* the entry's fields; with an entry (msg->inner) nothing is cached */
static guint64
size_append (const ProtoMsg *msg)
{
  return msg->n_indices;
}

/* examples (ProtoMsgClass.example): every field the type carries set */

static void
example_resume (ProtoMsg *m)
{
  m->sess_ack = 41;
}

static void
example_resumed (ProtoMsg *m)
{
  m->helper = TRUE;
  m->round = 17;
  m->sess_ack = 5;
}

static void
example_vote (ProtoMsg *m)
{
  m->round = 3;
  m->key = 12;
  m->comm_round = 2;
}

static void
example_vote_reply (ProtoMsg *m)
{
  m->round = 3;
  m->helper = TRUE;
}

static void
example_append_reply (ProtoMsg *m)
{
  m->round = 4;
  m->helper = TRUE;
  m->key = 33;
}

/* the entry: a numbered message with weights, the session layer's
 * SharedModel (a replica names no family's type) */
static void
example_append (ProtoMsg *m)
{
  m->round = 4;
  m->key = 32;
  m->comm_round = 3;
  m->degree = 30;
  guint32 *f = g_new (guint32, 5);
  f[0] = 4, f[1] = 1, f[2] = 7, f[3] = 0, f[4] = 123456789;
  proto_msg_take_indices (m, f, 5);
  m->inner = g_new (ProtoMsg, 1);
  proto_msg_init (m->inner, PROTO_MSG_SYNC_MODEL);
  proto_msg_class_of (PROTO_MSG_SYNC_MODEL)->example (m->inner);
  m->inner->sess_seq = 9;
  m->inner->sess_ack = 2;
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_SESSION_RESUME, "SessionResume", "(y)", NULL, proto_msg_enc_bare, proto_msg_dec_bare,
    proto_msg_size_fixed, .example = example_resume },
  { PROTO_MSG_SESSION_RESUMED, "SessionResumed", "(ybu)", NULL, enc_resumed, dec_resumed, proto_msg_size_fixed,
    .example = example_resumed },
  { PROTO_MSG_RAFT_VOTE, "RaftVote", "(yutu)", NULL, enc_vote, dec_vote, proto_msg_size_fixed,
    .example = example_vote },
  { PROTO_MSG_RAFT_VOTE_REPLY, "RaftVoteReply", "(yub)", NULL, enc_vote_reply, dec_vote_reply, proto_msg_size_fixed,
    .example = example_vote_reply },
  { PROTO_MSG_RAFT_APPEND, "RaftAppend", "(yutuuauav)", NULL, enc_append, dec_append, size_append,
    .example = example_append },
  { PROTO_MSG_RAFT_APPEND_REPLY, "RaftAppendReply", "(yubt)", NULL, enc_append_reply, dec_append_reply,
    proto_msg_size_fixed,
    .example = example_append_reply },
};

const ProtoMsgFamily proto_msgs_replica = { "replica", types, G_N_ELEMENTS (types) };
