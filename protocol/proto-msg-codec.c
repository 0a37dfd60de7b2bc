/* proto-msg-codec.c — the pieces every family's codec arms share (weights
 * as bytes, id lists, the malformed error) and the common size functions
 * (proto-msg-class.h).  A leaf: it calls nothing else of protocol/ but a
 * message's own setters. */
#include "config.h"

#include "protocol/proto-msg-class.h"

#include <string.h>

gboolean
proto_msg_malformed (GError **error, const char *what)
{
  g_set_error_literal (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, what);
  return FALSE;
}

/* With copy = FALSE the variant references the weights' memory (kept
 * alive by a reference) instead of copying it. */
GVariant *
proto_msg_weights_variant (const ProtoMsg *msg, gboolean copy)
{
  if (msg->weights == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  gsize len = learn_weights_byte_size (msg->weights);
  const void *data = learn_weights_data (msg->weights);
  if (copy)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, data, len, 1);
  g_autoptr (GBytes) bytes = g_bytes_new_with_free_func (data, len, (GDestroyNotify) learn_weights_unref,
                                                         learn_weights_ref (msg->weights));
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

GVariant *
proto_msg_u32_variant (const uint32_t *v, uint32_t n)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, v, n, sizeof (uint32_t));
}

gboolean
proto_msg_weights_from_variant (ProtoMsg *m, GVariant *ay, GError **error)
{
  gsize len = 0;
  const guchar *data = g_variant_get_fixed_array (ay, &len, 1);
  if (len % sizeof (float) != 0)
    return proto_msg_malformed (error, "weights are not a whole number of float32 values");
  LearnWeights *w = learn_weights_new (len / sizeof (float));
  if (len)
    memcpy (learn_weights_data_mut (w), data, len);
  learn_weights_unref (m->weights);
  m->weights = w;
  return TRUE;
}

void
proto_msg_peers_from_variant (ProtoMsg *m, GVariant *au)
{
  gsize n = 0;
  const uint32_t *p = g_variant_get_fixed_array (au, &n, sizeof (uint32_t));
  proto_msg_set_peers (m, p, (uint32_t) n);
}

void
proto_msg_indices_from_variant (ProtoMsg *m, GVariant *au)
{
  gsize n = 0;
  const uint32_t *p = g_variant_get_fixed_array (au, &n, sizeof (uint32_t));
  if (n)
    proto_msg_take_indices (m, g_memdup2 (p, n * sizeof *p), (uint32_t) n);
}

guint64
proto_msg_size_fixed (const ProtoMsg *msg)
{
  (void) msg;
  return 0;
}

guint64
proto_msg_size_unkeyed (const ProtoMsg *msg)
{
  (void) msg;
  return PROTO_MSG_WIRE_KEY_NONE;
}

guint64
proto_msg_size_weights (const ProtoMsg *msg)
{
  guint64 len = msg->weights ? learn_weights_byte_size (msg->weights) : 0;
  return len < (G_GUINT64_CONSTANT (1) << 56) ? len : PROTO_MSG_WIRE_KEY_NONE;
}

guint64
proto_msg_size_peers (const ProtoMsg *msg)
{
  return msg->n_peers;
}

guint64
proto_msg_size_peers_indices (const ProtoMsg *msg)
{
  return proto_msg_size_key_pair (msg->n_peers, msg->n_indices);
}

guint64
proto_msg_size_string (const ProtoMsg *msg)
{
  return msg->signal_data ? strlen (msg->signal_data) : 0;
}

guint64
proto_msg_size_key_pair (guint64 a, guint64 b)
{
  const guint64 lim = G_GUINT64_CONSTANT (1) << 28;
  return a < lim && b < lim ? (a << 28) | b : PROTO_MSG_WIRE_KEY_NONE;
}

/* ---- arms of shapes several families use ---- */

GVariant *
proto_msg_enc_bare (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(y)", (guchar) msg->type);
}

gboolean
proto_msg_dec_bare (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) body, (void) m, (void) depth, (void) error;
  return TRUE;
}

GVariant *
proto_msg_enc_round (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu)", (guchar) msg->type, msg->round);
}

gboolean
proto_msg_dec_round (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  g_variant_get (body, "(yu)", &ty, &m->round);
  return TRUE;
}

GVariant *
proto_msg_enc_key (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yt)", (guchar) msg->type, (guint64) msg->key);
}

gboolean
proto_msg_dec_key (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  g_variant_get (body, "(yt)", &ty, &k);
  m->key = k;
  return TRUE;
}

GVariant *
proto_msg_enc_peers_round (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(y@auu)", (guchar) msg->type, proto_msg_u32_variant (msg->peers, msg->n_peers),
                        msg->round);
}

gboolean
proto_msg_dec_peers_round (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  g_autoptr (GVariant) arr = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) rv = g_variant_get_child_value (body, 2);
  proto_msg_peers_from_variant (m, arr);
  m->round = g_variant_get_uint32 (rv);
  return TRUE;
}

GVariant *
proto_msg_enc_round_peers_indices (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu@au@au)", (guchar) msg->type, msg->round,
                        proto_msg_u32_variant (msg->peers, msg->n_peers),
                        proto_msg_u32_variant (msg->indices, msg->n_indices));
}

gboolean
proto_msg_dec_round_peers_indices (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) ids = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) info = g_variant_get_child_value (body, 3);
  m->round = g_variant_get_uint32 (a);
  proto_msg_peers_from_variant (m, ids);
  proto_msg_indices_from_variant (m, info);
  return TRUE;
}
