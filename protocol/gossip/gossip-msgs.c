/* gossip-msgs.c — the gossip family's message types: names, the codec arms
 * of their bodies and their size keys (gossip-msgs.h; the table's
 * contract: protocol/proto-msg-class.h). */
#include "config.h"

#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"
#include "protocol/proto-msg-class.h"

static GVariant *
enc_payload (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(yuuu@au@ay)", (guchar) msg->type, msg->round, msg->degree, msg->comm_round,
                        proto_msg_u32_variant (msg->indices, msg->n_indices), proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_payload (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) b = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) kv = g_variant_get_child_value (body, 3);
  g_autoptr (GVariant) ix = g_variant_get_child_value (body, 4);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 5);
  m->round = g_variant_get_uint32 (a);
  m->degree = g_variant_get_uint32 (b);
  m->comm_round = g_variant_get_uint32 (kv);
  if (m->comm_round > PROTO_GOSSIP_REPORT)
    return proto_msg_malformed (error, "GossipPayload of an unknown kind");
  gsize n = 0;
  const uint32_t *idx = g_variant_get_fixed_array (ix, &n, sizeof (uint32_t));
  for (gsize i = 1; i < n; i++)
    if (idx[i] <= idx[i - 1])
      return proto_msg_malformed (error, "GossipPayload indices are not strictly ascending");
  if (!proto_msg_weights_from_variant (m, ay, error))
    return FALSE;
  if (n && learn_weights_len (m->weights) != n)
    return proto_msg_malformed (error, "GossipPayload has a different number of indices and values");
  proto_msg_indices_from_variant (m, ix);
  return TRUE;
}

/* the values' bytes, and whether it is sparse (as many indices as values);
 * any other count of indices is not cached */
static guint64
size_payload (const ProtoMsg *msg)
{
  guint64 bytes = proto_msg_size_weights (msg);
  if (bytes >= (G_GUINT64_CONSTANT (1) << 55))
    return PROTO_MSG_WIRE_KEY_NONE;
  if (msg->n_indices == 0)
    return bytes;
  if ((guint64) msg->n_indices * sizeof (float) == bytes)
    return (G_GUINT64_CONSTANT (1) << 55) | bytes;
  return PROTO_MSG_WIRE_KEY_NONE;
}

static GVariant *
enc_find_node (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yut)", (guchar) msg->type, msg->round, (guint64) msg->key);
}

static gboolean
dec_find_node (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  g_variant_get (body, "(yut)", &ty, &m->round, &k);
  m->key = k;
  return TRUE;
}

static GVariant *
enc_nodes (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu@au)", (guchar) msg->type, msg->round, proto_msg_u32_variant (msg->peers, msg->n_peers));
}

static gboolean
dec_nodes (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) arr = g_variant_get_child_value (body, 2);
  m->round = g_variant_get_uint32 (a);
  proto_msg_peers_from_variant (m, arr);
  return TRUE;
}

/* examples (ProtoMsgClass.example): every field the type carries set */
static const ProtoNodeId example_peers[] = { 4, 9, 2 };
static const float example_w[] = { 1.5f, -2.25f, 3.0f, 0.0f, 1e-3f };

static void
example_peers_round (ProtoMsg *m)
{
  proto_msg_set_peers (m, example_peers, 3);
  m->round = 12;
}

static void
example_find_node (ProtoMsg *m)
{
  m->round = 9;
  m->key = G_GUINT64_CONSTANT (0xfedcba9876543210);
}

static void
example_nodes (ProtoMsg *m)
{
  proto_msg_set_peers (m, example_peers, 3);
  m->round = 9;
}

static void
example_payload (ProtoMsg *m)
{
  m->round = 4;
  m->degree = 3;
  m->comm_round = PROTO_GOSSIP_REPLY;
  g_autoptr (LearnWeights) lw = learn_weights_new_from (example_w, 2);
  proto_msg_set_weights (m, lw);
  guint32 *idx = g_new (guint32, 2);
  idx[0] = 1, idx[1] = 40;
  proto_msg_take_indices (m, idx, 2);
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_GOSSIP_TARGETS, "GossipTargets", "(yauu)", NULL, proto_msg_enc_peers_round,
    proto_msg_dec_peers_round, proto_msg_size_peers,
    .example = example_peers_round },
  { PROTO_MSG_NEIGHBORS, "Neighbors", "(yauu)", NULL, proto_msg_enc_peers_round, proto_msg_dec_peers_round,
    proto_msg_size_peers,
    .example = example_peers_round },
  { PROTO_MSG_GOSSIP_PAYLOAD, "GossipPayload", "(yuuuauay)", NULL, enc_payload, dec_payload, size_payload,
    .example = example_payload },
  { PROTO_MSG_GOSSIP_SAMPLE, "GossipSample", "(yauu)", NULL, proto_msg_enc_peers_round,
    proto_msg_dec_peers_round, proto_msg_size_peers,
    .example = example_peers_round },
  { PROTO_MSG_DHT_FIND_NODE, "DhtFindNode", "(yut)", NULL, enc_find_node, dec_find_node, proto_msg_size_fixed,
    .example = example_find_node },
  { PROTO_MSG_DHT_NODES, "DhtNodes", "(yuau)", NULL, enc_nodes, dec_nodes, proto_msg_size_peers,
    .example = example_nodes },
};

/* what explore's drop and delay faults pick from: the DISCO admission and
 * signalling messages it speaks, as DISCO's list has them (a lost
 * PeersForRound found protocol/gossip/scenarios/gossip-lost-list.ini), then its
 * own: the coordinator's one way, the peers' both ways (README.md) */
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_ROUND_PEERS, "to" },   { PROTO_MSG_READY, "from" }, { PROTO_MSG_SIGNAL, "to" },
  { PROTO_MSG_WELCOME, "to" },     { PROTO_MSG_SYNC_MODEL, "to" },    { PROTO_MSG_SYNC_PROVIDER, "to" },
  { PROTO_MSG_GOSSIP_TARGETS, "from" },  { PROTO_MSG_NEIGHBORS, "to" },       { PROTO_MSG_GOSSIP_PAYLOAD, "to" },
  { PROTO_MSG_GOSSIP_PAYLOAD, "from" },  { PROTO_MSG_GOSSIP_SAMPLE, "to" },   { PROTO_MSG_DHT_FIND_NODE, "to" },
  { PROTO_MSG_DHT_FIND_NODE, "from" },   { PROTO_MSG_DHT_NODES, "to" },       { PROTO_MSG_DHT_NODES, "from" },
};

const ProtoMsgFamily proto_msgs_gossip = { "gossip", types, G_N_ELEMENTS (types), fault_targets,
                                           G_N_ELEMENTS (fault_targets) };
