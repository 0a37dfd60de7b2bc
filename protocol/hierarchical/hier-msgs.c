/* hier-msgs.c — the hierarchical family's message types: names, the codec
 * arms of their bodies and their size keys (hier-msgs.h; the table's
 * contract: protocol/proto-msg-class.h). */
#include "config.h"

#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"
#include "protocol/proto-msg-class.h"

static GVariant *
enc_hello (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yusb)", (guchar) msg->type, msg->degree, msg->signal_data ? msg->signal_data : "",
                        msg->helper);
}

static gboolean
dec_hello (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  gboolean b = FALSE;
  g_variant_get (body, "(yusb)", &ty, &m->degree, &m->signal_data, &b);
  m->helper = (guint8) b;
  return TRUE;
}

static GVariant *
enc_cluster (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yuu@au)", (guchar) msg->type, msg->round, msg->node,
                        proto_msg_u32_variant (msg->peers, msg->n_peers));
}

static gboolean
dec_cluster (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) b = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) arr = g_variant_get_child_value (body, 3);
  m->round = g_variant_get_uint32 (a);
  m->node = g_variant_get_uint32 (b);
  proto_msg_peers_from_variant (m, arr);
  return TRUE;
}

static GVariant *
enc_candidacy (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yuub)", (guchar) msg->type, msg->round, msg->degree, msg->helper);
}

static gboolean
dec_candidacy (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  gboolean b = FALSE;
  g_variant_get (body, "(yuub)", &ty, &m->round, &m->degree, &b);
  m->helper = (guint8) b;
  return TRUE;
}

static GVariant *
enc_heads (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yuuu@au@aut)", (guchar) msg->type, msg->round, msg->degree, msg->node,
                        proto_msg_u32_variant (msg->peers, msg->n_peers),
                        proto_msg_u32_variant (msg->indices, msg->n_indices), (guint64) msg->key);
}

static gboolean
dec_heads (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) b = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) c = g_variant_get_child_value (body, 3);
  g_autoptr (GVariant) top = g_variant_get_child_value (body, 4);
  g_autoptr (GVariant) kids = g_variant_get_child_value (body, 5);
  g_autoptr (GVariant) src = g_variant_get_child_value (body, 6);
  m->key = g_variant_get_uint64 (src);
  m->round = g_variant_get_uint32 (a);
  m->degree = g_variant_get_uint32 (b);
  m->node = g_variant_get_uint32 (c);
  proto_msg_peers_from_variant (m, top);
  proto_msg_indices_from_variant (m, kids);
  return TRUE;
}

/* HierUpdate, HierAgg, HierResult */
static GVariant *
enc_model (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(yuu@ay)", (guchar) msg->type, msg->round, msg->degree, proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_model (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) b = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 3);
  m->round = g_variant_get_uint32 (a);
  m->degree = g_variant_get_uint32 (b);
  return proto_msg_weights_from_variant (m, ay, error);
}

static GVariant *
enc_rtt (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yuut)", (guchar) msg->type, msg->round, msg->node, (guint64) msg->key);
}

static gboolean
dec_rtt (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  g_variant_get (body, "(yuut)", &ty, &m->round, &m->node, &k);
  m->key = k;
  return TRUE;
}

/* examples (ProtoMsgClass.example): every field the type carries set */
static const ProtoNodeId example_peers[] = { 4, 9, 2 };

static void
example_hello (ProtoMsg *m)
{
  m->degree = 12;
  m->helper = TRUE;
}

static void
example_cluster (ProtoMsg *m)
{
  proto_msg_set_peers (m, example_peers, 3);
  m->round = 2;
  m->node = 9;
}

static void
example_candidacy (ProtoMsg *m)
{
  m->round = 3;
  m->degree = 7000;
  m->helper = TRUE;
}

static void
example_heads (ProtoMsg *m)
{
  proto_msg_set_peers (m, example_peers, 3);
  m->round = 5;
  m->degree = 4;
  m->node = 8;
  m->key = 3;
  guint32 *kids = g_new (guint32, 2);
  kids[0] = 11, kids[1] = 12;
  proto_msg_take_indices (m, kids, 2);
}

static void
example_model (ProtoMsg *m)
{
  static const float w[] = { 1.5f, -2.25f, 3.0f };
  m->round = 6;
  m->degree = 4;
  g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
  proto_msg_set_weights (m, lw);
}

static void
example_probe (ProtoMsg *m)
{
  m->round = 3;
  proto_msg_set_peers (m, example_peers, 2);
  guint32 *q = g_new (guint32, 3);
  q[0] = 4, q[1] = 9, q[2] = 11;
  proto_msg_take_indices (m, q, 3);
}

static void
example_ping (ProtoMsg *m)
{
  m->round = 77;
}

static void
example_rtt (ProtoMsg *m)
{
  m->round = 2;
  m->node = 7;
  m->key = G_MAXUINT64;
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_HIER_HELLO, "HierHello", "(yusb)", NULL, enc_hello, dec_hello, proto_msg_size_string,
    .example = example_hello },
  { PROTO_MSG_HIER_CLUSTER, "HierCluster", "(yuuau)", NULL, enc_cluster, dec_cluster, proto_msg_size_peers,
    .example = example_cluster },
  { PROTO_MSG_HIER_CANDIDACY, "HierCandidacy", "(yuub)", NULL, enc_candidacy, dec_candidacy, proto_msg_size_fixed,
    .example = example_candidacy },
  { PROTO_MSG_HIER_HEADS, "HierHeads", "(yuuuauaut)", NULL, enc_heads, dec_heads, proto_msg_size_peers_indices,
    .example = example_heads },
  { PROTO_MSG_HIER_UPDATE, "HierUpdate", "(yuuay)", NULL, enc_model, dec_model, proto_msg_size_weights,
    .example = example_model },
  { PROTO_MSG_HIER_AGG, "HierAgg", "(yuuay)", NULL, enc_model, dec_model, proto_msg_size_weights,
    .example = example_model },
  { PROTO_MSG_HIER_RESULT, "HierResult", "(yuuay)", NULL, enc_model, dec_model, proto_msg_size_weights,
    .example = example_model },
  /* landmarks in peers, probers in indices */
  { PROTO_MSG_HIER_PROBE, "HierProbe", "(yuauau)", NULL, proto_msg_enc_round_peers_indices,
    proto_msg_dec_round_peers_indices, proto_msg_size_peers_indices,
    .example = example_probe },
  { PROTO_MSG_HIER_PING, "HierPing", "(yu)", NULL, proto_msg_enc_round, proto_msg_dec_round, proto_msg_size_fixed,
    .example = example_ping },
  { PROTO_MSG_HIER_PONG, "HierPong", "(yu)", NULL, proto_msg_enc_round, proto_msg_dec_round, proto_msg_size_fixed,
    .example = example_ping },
  { PROTO_MSG_HIER_RTT, "HierRtt", "(yuut)", NULL, enc_rtt, dec_rtt, proto_msg_size_fixed,
    .example = example_rtt },
};

/* what explore's drop and delay faults pick from: the DISCO admission and
 * signalling messages it speaks, as DISCO's list has them, then its own
 * both ways */
#define BOTH_WAYS(t) { t, "to" }, { t, "from" }
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_READY, "from" },        { PROTO_MSG_SIGNAL, "to" },
  { PROTO_MSG_WELCOME, "to" },          BOTH_WAYS (PROTO_MSG_HIER_HELLO),
  BOTH_WAYS (PROTO_MSG_HIER_CLUSTER),         BOTH_WAYS (PROTO_MSG_HIER_CANDIDACY),
  BOTH_WAYS (PROTO_MSG_HIER_HEADS),           BOTH_WAYS (PROTO_MSG_HIER_UPDATE),
  BOTH_WAYS (PROTO_MSG_HIER_AGG),             BOTH_WAYS (PROTO_MSG_HIER_RESULT),
  BOTH_WAYS (PROTO_MSG_HIER_PROBE),           BOTH_WAYS (PROTO_MSG_HIER_PING),
  BOTH_WAYS (PROTO_MSG_HIER_PONG),            BOTH_WAYS (PROTO_MSG_HIER_RTT),
};

const ProtoMsgFamily proto_msgs_hierarchical = { "hierarchical", types, G_N_ELEMENTS (types), fault_targets,
                                                 G_N_ELEMENTS (fault_targets) };
