/* proto-message.c — a message's value operations (init, copy, clear) and
 * the generic part of its wire form: the outer variant and the session
 * envelope around the body its family's class encodes, the size, and the
 * size key (decoding: proto-message-decode.c; the classes:
 * proto-msg-registry.c). */
#include "config.h"

#include "protocol/proto-message.h"
#include "protocol/proto-msg-class.h"

#include <string.h>

void
proto_msg_init (ProtoMsg *msg, ProtoMsgType type)
{
  memset (msg, 0, sizeof *msg);
  msg->type = type;
  msg->node = PROTO_NO_NODE;
}

void
proto_msg_set_weights (ProtoMsg *msg, LearnWeights *weights)
{
  if (weights)
    learn_weights_ref (weights);
  learn_weights_unref (msg->weights);
  msg->weights = weights;
}

void
proto_msg_set_peers (ProtoMsg *msg, const ProtoNodeId *peers, uint32_t n)
{
  g_free (msg->peers);
  msg->peers = n ? g_memdup2 (peers, n * sizeof *peers) : NULL;
  msg->n_peers = n;
}

void
proto_msg_take_indices (ProtoMsg *msg, uint32_t *indices, uint32_t n)
{
  g_free (msg->indices);
  msg->indices = n ? indices : (g_free (indices), NULL);
  msg->n_indices = n;
}

void
proto_msg_copy (ProtoMsg *dst, const ProtoMsg *src)
{
  *dst = *src;
  dst->peers = src->n_peers ? g_memdup2 (src->peers, src->n_peers * sizeof *src->peers) : NULL;
  dst->indices = src->n_indices ? g_memdup2 (src->indices, src->n_indices * sizeof *src->indices) : NULL;
  dst->signal_data = g_strdup (src->signal_data);
  if (dst->weights)
    learn_weights_ref (dst->weights);
  if (src->inner)
    {
      dst->inner = g_new (ProtoMsg, 1);
      proto_msg_copy (dst->inner, src->inner);
    }
}

void
proto_msg_clear (ProtoMsg *msg)
{
  g_clear_pointer (&msg->peers, g_free);
  g_clear_pointer (&msg->signal_data, g_free);
  msg->n_peers = 0;
  g_clear_pointer (&msg->indices, g_free);
  msg->n_indices = 0;
  g_clear_pointer (&msg->weights, learn_weights_unref);
  if (msg->inner)
    {
      proto_msg_clear (msg->inner);
      g_clear_pointer (&msg->inner, g_free);
    }
}

GVariant *
proto_msg_body (const ProtoMsg *msg, gboolean copy)
{
  const ProtoMsgClass *c = proto_msg_class_of (msg->type);
  g_assert (c != NULL);
  GVariant *inner = c->encode (msg, copy);
  g_assert (inner != NULL);
  /* the session envelope (protocol/replica/): only where it has numbers */
  if (msg->sess_seq || msg->sess_ack)
    inner = g_variant_new ("(uuv)", msg->sess_seq, msg->sess_ack, inner);
  return inner;
}

static GVariant *
build (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_ref_sink (g_variant_new_variant (proto_msg_body (msg, copy)));
}

GBytes *
proto_msg_encode (const ProtoMsg *msg)
{
  g_return_val_if_fail (proto_msg_class_of (msg->type) != NULL, NULL);
  g_autoptr (GVariant) v = build (msg, TRUE);
  return g_variant_get_data_as_bytes (v);
}

gsize
proto_msg_wire_size (const ProtoMsg *msg)
{
  g_return_val_if_fail (proto_msg_class_of (msg->type) != NULL, 0);
  g_autoptr (GVariant) v = build (msg, FALSE);
  return g_variant_get_size (v);
}

gsize
proto_msg_charged_size (const ProtoMsg *msg)
{
  const ProtoMsgClass *c = proto_msg_class_of (msg->type);
  g_return_val_if_fail (c != NULL, 0);
  return c->charged_size ? c->charged_size (msg) : proto_msg_wire_size (msg);
}

guint64
proto_msg_wire_key (const ProtoMsg *msg)
{
  const ProtoMsgClass *c = proto_msg_class_of (msg->type);
  g_return_val_if_fail (c != NULL, PROTO_MSG_WIRE_KEY_NONE);
  /* the envelope and an entry inside are not in the family's key */
  if (msg->sess_seq || msg->sess_ack || msg->inner)
    return PROTO_MSG_WIRE_KEY_NONE;
  guint64 k = c->size_key (msg);
  if (k == PROTO_MSG_WIRE_KEY_NONE)
    return k;
  g_assert (k < (G_GUINT64_CONSTANT (1) << 56));
  return ((guint64) msg->type << 56) | k;
}
