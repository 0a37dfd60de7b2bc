/* testbed-frame.c — length-prefixed frames for the testbed's streams. */
#include "config.h"

#include "testbed/testbed-frame.h"

#include <string.h>

G_DEFINE_QUARK (testbed-frame-error-quark, testbed_frame_error)

struct TestbedFrameReader {
  GByteArray *buf;
  gsize start;      /* consumed prefix of buf */
  gsize max_body;   /* larger frames are refused */
  char *why;        /* what the limit is, for the error (NULL: the default's words) */
};

/* what the HELLO's HMAC covers first: a HELLO proves nothing elsewhere */
static const char hello_label[] = "dlsim testbed HELLO v1";

static GBytes *
frame (TestbedFrameKind kind, const guint8 *data, gsize len)
{
  gsize body = len + 1;
  g_return_val_if_fail (body <= TESTBED_FRAME_MAX_BODY, NULL);
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
testbed_frame_encode_msg (const ProtoMsg *msg)
{
  g_autoptr (GBytes) wire = proto_msg_encode (msg);
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  return frame (TESTBED_FRAME_MSG, data, len);
}

static void
put_id (guint8 *b, ProtoNodeId id)
{
  b[0] = (guint8) (id >> 24);
  b[1] = (guint8) (id >> 16);
  b[2] = (guint8) (id >> 8);
  b[3] = (guint8) id;
}

GBytes *
testbed_frame_encode_challenge (const guint8 nonce[TESTBED_FRAME_NONCE_BYTES])
{
  return frame (TESTBED_FRAME_CHALLENGE, nonce, TESTBED_FRAME_NONCE_BYTES);
}

void
testbed_frame_hello_mac (const guint8 *key, gsize key_len, const guint8 nonce[TESTBED_FRAME_NONCE_BYTES], ProtoNodeId id,
                     ProtoNodeId to, guint8 out[TESTBED_FRAME_MAC_BYTES])
{
  guint8 ids[8];
  put_id (ids, id);
  put_id (ids + 4, to);
  GHmac *h = g_hmac_new (G_CHECKSUM_SHA256, key, key_len);
  g_hmac_update (h, (const guchar *) hello_label, sizeof hello_label);
  g_hmac_update (h, nonce, TESTBED_FRAME_NONCE_BYTES);
  g_hmac_update (h, ids, sizeof ids);
  gsize len = TESTBED_FRAME_MAC_BYTES;
  g_hmac_get_digest (h, out, &len);
  g_assert (len == TESTBED_FRAME_MAC_BYTES);
  g_hmac_unref (h);
}

gboolean
testbed_frame_hello_verify (const TestbedFrameAuth *hello, const guint8 *key, gsize key_len,
                        const guint8 nonce[TESTBED_FRAME_NONCE_BYTES], ProtoNodeId to)
{
  guint8 want[TESTBED_FRAME_MAC_BYTES];
  testbed_frame_hello_mac (key, key_len, nonce, hello->id, to, want);
  guint8 diff = 0;
  for (gsize i = 0; i < TESTBED_FRAME_MAC_BYTES; i++)
    diff |= (guint8) (want[i] ^ hello->mac[i]);
  return diff == 0;
}

GBytes *
testbed_frame_encode_hello (const guint8 *key, gsize key_len, const guint8 nonce[TESTBED_FRAME_NONCE_BYTES], ProtoNodeId id,
                        ProtoNodeId to)
{
  guint8 b[4 + TESTBED_FRAME_MAC_BYTES];
  put_id (b, id);
  testbed_frame_hello_mac (key, key_len, nonce, id, to, b + 4);
  return frame (TESTBED_FRAME_HELLO, b, sizeof b);
}

TestbedFrameReader *
testbed_frame_reader_new (void)
{
  TestbedFrameReader *r = g_new0 (TestbedFrameReader, 1);
  r->buf = g_byte_array_new ();
  r->max_body = TESTBED_FRAME_MAX_BODY;
  return r;
}

void
testbed_frame_reader_free (TestbedFrameReader *r)
{
  if (!r)
    return;
  g_byte_array_unref (r->buf);
  g_free (r->why);
  g_free (r);
}

void
testbed_frame_reader_set_max_body (TestbedFrameReader *r, gsize max_body)
{
  r->max_body = MIN (max_body, TESTBED_FRAME_MAX_BODY);
  g_clear_pointer (&r->why, g_free);
}

void
testbed_frame_reader_set_limit (TestbedFrameReader *r, gsize max_body, const char *why)
{
  testbed_frame_reader_set_max_body (r, max_body);
  r->why = g_strdup (why);
}

void
testbed_frame_reader_push (TestbedFrameReader *r, const guint8 *data, gsize len)
{
  /* drop the consumed prefix before it grows large */
  if (r->start > 0 && r->start >= r->buf->len / 2)
    {
      g_byte_array_remove_range (r->buf, 0, (guint) r->start);
      r->start = 0;
    }
  g_byte_array_append (r->buf, data, (guint) len);
}

static TestbedFrameResult
bad (GError **error, const char *what, gsize v)
{
  g_set_error (error, TESTBED_FRAME_ERROR, TESTBED_FRAME_ERROR_MALFORMED, "%s (%" G_GUINT64_FORMAT ")", what, (guint64) v);
  return TESTBED_FRAME_BAD;
}

TestbedFrameResult
testbed_frame_reader_next (TestbedFrameReader *r, TestbedFrameKind *out_kind, ProtoMsg *out_msg, TestbedFrameAuth *out_auth,
                       GError **error)
{
  gsize avail = r->buf->len - r->start;
  const guint8 *p = r->buf->data + r->start;
  if (avail < 4)
    return TESTBED_FRAME_NEED_MORE;
  gsize body = ((gsize) p[0] << 24) | ((gsize) p[1] << 16) | ((gsize) p[2] << 8) | p[3];
  if (body == 0)
    return bad (error, "empty frame", body);
  if (body > r->max_body)
    {
      g_set_error (error, TESTBED_FRAME_ERROR, TESTBED_FRAME_ERROR_MALFORMED,
                   "frame over the size limit (%" G_GUINT64_FORMAT " bytes, at most %" G_GUINT64_FORMAT "%s%s)",
                   (guint64) body, (guint64) r->max_body, r->why ? ": " : "",
                   r->why ? r->why : r->max_body < TESTBED_FRAME_MAX_BODY ? " before an authenticated HELLO" : "");
      return TESTBED_FRAME_BAD;
    }
  if (avail < 4 + body)
    {
      /* an unknown kind is refused as soon as its byte is here */
      if (avail >= 5 && p[4] != TESTBED_FRAME_MSG && p[4] != TESTBED_FRAME_HELLO && p[4] != TESTBED_FRAME_CHALLENGE)
        return bad (error, "unknown frame kind", p[4]);
      return TESTBED_FRAME_NEED_MORE;
    }
  const guint8 *data = p + 5;
  gsize len = body - 1;
  switch (p[4])
    {
    case TESTBED_FRAME_MSG:
      {
        g_autoptr (GBytes) b = g_bytes_new (data, len);
        if (!proto_msg_decode (b, out_msg, error))
          return TESTBED_FRAME_BAD;
        break;
      }
    case TESTBED_FRAME_HELLO:
      if (body != TESTBED_FRAME_HELLO_BODY)
        return bad (error, "HELLO frame of the wrong size (expected 36 data bytes)", len);
      memset (out_auth, 0, sizeof *out_auth);
      out_auth->id = ((ProtoNodeId) data[0] << 24) | ((ProtoNodeId) data[1] << 16)
                     | ((ProtoNodeId) data[2] << 8) | data[3];
      memcpy (out_auth->mac, data + 4, TESTBED_FRAME_MAC_BYTES);
      break;
    case TESTBED_FRAME_CHALLENGE:
      if (body != TESTBED_FRAME_CHALLENGE_BODY)
        return bad (error, "CHALLENGE frame of the wrong size (expected 32 data bytes)", len);
      memset (out_auth, 0, sizeof *out_auth);
      memcpy (out_auth->nonce, data, TESTBED_FRAME_NONCE_BYTES);
      break;
    default:
      return bad (error, "unknown frame kind", p[4]);
    }
  *out_kind = (TestbedFrameKind) p[4];
  r->start += 4 + body;
  return TESTBED_FRAME_OK;
}
