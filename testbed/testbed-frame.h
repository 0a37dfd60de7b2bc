/* testbed-frame.h — the testbed's framing on a byte stream (TCP): each frame is
 * a 4-byte big-endian body length, then the body: one kind byte and its
 * data.  MSG frames carry one protocol message in its wire form
 * (proto_msg_encode).  A stream opens with a challenge and its answer:
 * the listener sends CHALLENGE (a fresh random nonce), the connecting side
 * answers HELLO: its node id (4 bytes, big endian) and an HMAC-SHA256,
 * keyed by the deployment's shared secret, over a label, the nonce, its id
 * and the id it meant to reach (testbed_frame_hello_mac).
 *
 * Every byte from a socket is untrusted: the reader refuses an empty body,
 * a body over its limit (TESTBED_FRAME_MAX_BODY, or less with
 * testbed_frame_reader_set_max_body: an unauthenticated stream may send a
 * HELLO and nothing larger), an unknown kind and a HELLO or CHALLENGE of the
 * wrong size, with a TESTBED_FRAME_ERROR; the connection is then closed by its
 * owner.  MSG data is checked by proto_msg_decode.
 *
 * Shape: TestbedFrameReader is testbed_frame_reader_new / _free. */
#pragma once

#include "protocol/proto-message.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TESTBED_FRAME_MSG = 1,
  TESTBED_FRAME_HELLO = 2,
  TESTBED_FRAME_CHALLENGE = 3,
} TestbedFrameKind;

#define TESTBED_FRAME_MAX_BODY (PROTO_MAX_WIRE_BYTES + 1)
#define TESTBED_FRAME_NONCE_BYTES 32
#define TESTBED_FRAME_MAC_BYTES 32   /* HMAC-SHA256 */
/* the bodies of a HELLO and a CHALLENGE: all an unauthenticated stream may send */
#define TESTBED_FRAME_HELLO_BODY (1 + 4 + TESTBED_FRAME_MAC_BYTES)
#define TESTBED_FRAME_CHALLENGE_BODY (1 + TESTBED_FRAME_NONCE_BYTES)

/* What a HELLO or a CHALLENGE frame carries. */
typedef struct {
  ProtoNodeId id;                        /* HELLO: the sender's node id */
  guint8 mac[TESTBED_FRAME_MAC_BYTES];       /* HELLO: its proof */
  guint8 nonce[TESTBED_FRAME_NONCE_BYTES];   /* CHALLENGE */
} TestbedFrameAuth;

#define TESTBED_FRAME_ERROR (testbed_frame_error_quark ())
GQuark testbed_frame_error_quark (void);
typedef enum { TESTBED_FRAME_ERROR_MALFORMED } TestbedFrameErrorCode;

/* (transfer full) the frame bytes of a message, a CHALLENGE, or a HELLO
 * from `id` to `to` answering `nonce` with the secret `key`. */
GBytes *testbed_frame_encode_msg (const ProtoMsg *msg);
GBytes *testbed_frame_encode_challenge (const guint8 nonce[TESTBED_FRAME_NONCE_BYTES]);
GBytes *testbed_frame_encode_hello (const guint8 *key, gsize key_len, const guint8 nonce[TESTBED_FRAME_NONCE_BYTES],
                                ProtoNodeId id, ProtoNodeId to);

/* The HELLO's proof: HMAC-SHA256 (key, label || nonce || id || to). */
void testbed_frame_hello_mac (const guint8 *key, gsize key_len, const guint8 nonce[TESTBED_FRAME_NONCE_BYTES],
                          ProtoNodeId id, ProtoNodeId to, guint8 out[TESTBED_FRAME_MAC_BYTES]);
/* TRUE if hello proves the secret for the challenge `nonce` sent by `to`
 * (compared in constant time). */
gboolean testbed_frame_hello_verify (const TestbedFrameAuth *hello, const guint8 *key, gsize key_len,
                                 const guint8 nonce[TESTBED_FRAME_NONCE_BYTES], ProtoNodeId to);

typedef struct TestbedFrameReader TestbedFrameReader;

TestbedFrameReader *testbed_frame_reader_new (void);
void testbed_frame_reader_free (TestbedFrameReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestbedFrameReader, testbed_frame_reader_free)

/* Frames whose body is over max_body bytes are refused from now on (at most
 * TESTBED_FRAME_MAX_BODY, the default). */
void testbed_frame_reader_set_max_body (TestbedFrameReader *r, gsize max_body);
/* The same, and the error over it names the limit as `why` (copied). */
void testbed_frame_reader_set_limit (TestbedFrameReader *r, gsize max_body, const char *why);
/* Appends bytes read from the stream. */
void testbed_frame_reader_push (TestbedFrameReader *r, const guint8 *data, gsize len);

typedef enum {
  TESTBED_FRAME_NEED_MORE,   /* no complete frame buffered */
  TESTBED_FRAME_OK,          /* *out_kind and *out_msg (MSG) or *out_auth (HELLO, CHALLENGE) are set */
  TESTBED_FRAME_BAD,         /* malformed: the stream cannot be trusted any more */
} TestbedFrameResult;

/* The next frame.  On TESTBED_FRAME_OK with a MSG frame, *out_msg is the
 * decoded message (clear it with proto_msg_clear). */
TestbedFrameResult testbed_frame_reader_next (TestbedFrameReader *r, TestbedFrameKind *out_kind, ProtoMsg *out_msg,
                                      TestbedFrameAuth *out_auth, GError **error);

G_END_DECLS
