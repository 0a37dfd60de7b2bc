/* sim-frame.c — length-prefixed frames for the testbed's streams. */
#include "config.h"

#include "sim/sim-frame.h"

#include <string.h>

G_DEFINE_QUARK (sim-frame-error-quark, sim_frame_error)

struct SimFrameReader {
  GByteArray *buf;
  gsize start;   /* consumed prefix of buf */
};

static GBytes *
frame (SimFrameKind kind, const guint8 *data, gsize len)
{
  gsize body = len + 1;
  g_return_val_if_fail (body <= SIM_FRAME_MAX_BODY, NULL);
  guint8 *out = g_malloc (4 + body);
  out[0] = (guint8) (body >> 24);
  out[1] = (guint8) (body >> 16);
  out[2] = (guint8) (body >> 8);
  out[3] = (guint8) body;
  out[4] = (guint8) kind;
  if (len)
    memcpy (out + 5, data, len);
  return g_bytes_new_take (out, 4 + body);
}

GBytes *
sim_frame_encode_msg (const ProtoMsg *msg)
{
  g_autoptr (GBytes) wire = proto_msg_encode (msg);
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  return frame (SIM_FRAME_MSG, data, len);
}

GBytes *
sim_frame_encode_hello (ProtoNodeId id)
{
  guint8 b[4] = { (guint8) (id >> 24), (guint8) (id >> 16), (guint8) (id >> 8), (guint8) id };
  return frame (SIM_FRAME_HELLO, b, sizeof b);
}

SimFrameReader *
sim_frame_reader_new (void)
{
  SimFrameReader *r = g_new0 (SimFrameReader, 1);
  r->buf = g_byte_array_new ();
  return r;
}

void
sim_frame_reader_free (SimFrameReader *r)
{
  if (!r)
    return;
  g_byte_array_unref (r->buf);
  g_free (r);
}

void
sim_frame_reader_push (SimFrameReader *r, const guint8 *data, gsize len)
{
  /* drop the consumed prefix before it grows large */
  if (r->start > 0 && r->start >= r->buf->len / 2)
    {
      g_byte_array_remove_range (r->buf, 0, (guint) r->start);
      r->start = 0;
    }
  g_byte_array_append (r->buf, data, (guint) len);
}

static SimFrameResult
bad (GError **error, const char *what, gsize v)
{
  g_set_error (error, SIM_FRAME_ERROR, SIM_FRAME_ERROR_MALFORMED, "%s (%" G_GUINT64_FORMAT ")", what, (guint64) v);
  return SIM_FRAME_BAD;
}

SimFrameResult
sim_frame_reader_next (SimFrameReader *r, SimFrameKind *out_kind, ProtoMsg *out_msg, ProtoNodeId *out_hello,
                       GError **error)
{
  gsize avail = r->buf->len - r->start;
  const guint8 *p = r->buf->data + r->start;
  if (avail < 4)
    return SIM_FRAME_NEED_MORE;
  gsize body = ((gsize) p[0] << 24) | ((gsize) p[1] << 16) | ((gsize) p[2] << 8) | p[3];
  if (body == 0)
    return bad (error, "empty frame", body);
  if (body > SIM_FRAME_MAX_BODY)
    return bad (error, "frame over the size limit, bytes", body);
  if (avail < 4 + body)
    {
      /* an unknown kind is refused as soon as its byte is here */
      if (avail >= 5 && p[4] != SIM_FRAME_MSG && p[4] != SIM_FRAME_HELLO)
        return bad (error, "unknown frame kind", p[4]);
      return SIM_FRAME_NEED_MORE;
    }
  const guint8 *data = p + 5;
  gsize len = body - 1;
  switch (p[4])
    {
    case SIM_FRAME_MSG:
      {
        g_autoptr (GBytes) b = g_bytes_new (data, len);
        if (!proto_msg_decode (b, out_msg, error))
          return SIM_FRAME_BAD;
        break;
      }
    case SIM_FRAME_HELLO:
      if (len != 4)
        return bad (error, "HELLO frame of the wrong size (expected 4 data bytes)", len);
      *out_hello = ((ProtoNodeId) data[0] << 24) | ((ProtoNodeId) data[1] << 16)
                   | ((ProtoNodeId) data[2] << 8) | data[3];
      break;
    default:
      return bad (error, "unknown frame kind", p[4]);
    }
  *out_kind = (SimFrameKind) p[4];
  r->start += 4 + body;
  return SIM_FRAME_OK;
}
