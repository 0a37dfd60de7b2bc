/* proto-message-decode.c — the GVariant wire form back into a message,
 * checked: what comes off a socket is untrusted (proto-message.c encodes).
 * The envelope, the type byte and the body's shape are checked here; the
 * body's fields by its family's decoder (ProtoMsgClass). */
#include "config.h"

#include "protocol/proto-message.h"
#include "protocol/proto-msg-class.h"
#include "protocol/proto-wire-normal.h"

#include <string.h>

static gboolean decode_body (GVariant *inner, ProtoMsg *out, guint depth, gboolean may_envelope, GError **error);

gboolean
proto_msg_decode (GBytes *bytes, ProtoMsg *out, GError **error)
{
  gsize size = g_bytes_get_size (bytes);
  if (size == 0)
    return proto_msg_malformed (error, "empty message");
  if (size > PROTO_MAX_WIRE_BYTES)
    return proto_msg_malformed (error, "message too large");
  g_autoptr (GVariant) outer = g_variant_ref_sink (
      g_variant_new_from_bytes (G_VARIANT_TYPE_VARIANT, bytes, FALSE));
  if (!proto_wire_is_normal (outer))
    return proto_msg_malformed (error, "message is not a well-formed GVariant");
  g_autoptr (GVariant) inner = g_variant_get_variant (outer);
  return decode_body (inner, out, 0, TRUE, error);
}

gboolean
proto_msg_decode_nested (GVariant *body, ProtoMsg *out, guint depth, GError **error)
{
  return decode_body (body, out, depth, TRUE, error);
}

/* One message's tuple (inner: a type byte first, or the session envelope
 * around one if may_envelope) into out; depth: inside a RaftAppend (which
 * holds no RaftAppend). */
static gboolean
decode_body (GVariant *inner, ProtoMsg *out, guint depth, gboolean may_envelope, GError **error)
{
  const char *tstr = g_variant_get_type_string (inner);
  if (strcmp (tstr, "(uuv)") == 0 && may_envelope)
    {
      guint32 seq, ack;
      g_autoptr (GVariant) body = NULL;
      g_variant_get (inner, "(uu@v)", &seq, &ack, &body);
      g_autoptr (GVariant) msg = g_variant_get_variant (body);
      if (!decode_body (msg, out, depth, FALSE, error))
        return FALSE;
      out->sess_seq = seq;
      out->sess_ack = ack;
      return TRUE;
    }
  if (!g_variant_is_of_type (inner, G_VARIANT_TYPE_TUPLE) || g_variant_n_children (inner) < 1)
    return proto_msg_malformed (error, "message is not a tuple starting with a type byte");
  g_autoptr (GVariant) tv = g_variant_get_child_value (inner, 0);
  if (!g_variant_is_of_type (tv, G_VARIANT_TYPE_BYTE))
    return proto_msg_malformed (error, "message is not a tuple starting with a type byte");
  guchar t = g_variant_get_byte (tv);
  const ProtoMsgClass *c = proto_msg_class_of (t);
  if (c == NULL)
    {
      g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "unknown message type %u", t);
      return FALSE;
    }
  if (strcmp (tstr, c->wire_type) != 0 && !(c->alt_wire_type && strcmp (tstr, c->alt_wire_type) == 0))
    {
      g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
                   "%s message has fields '%s', expected '%s'", c->name, tstr, c->wire_type);
      return FALSE;
    }
  ProtoMsg m;
  proto_msg_init (&m, (ProtoMsgType) t);
  if (!c->decode (inner, &m, depth, error))
    {
      proto_msg_clear (&m);
      return FALSE;
    }
  *out = m;
  return TRUE;
}
