/* testbed-conn.h — one TCP stream of a testbed process (testbed-host.c):
 * length-prefixed frames (testbed-frame.c) in, a queue of frames out.
 *
 * - Reading: every byte is untrusted; the frames are decoded as they come
 *   and handed to the `frame` callback.  A malformed frame, or one over the
 *   stream's limit (testbed_conn_set_max_frame: the owner keeps it at a
 *   HELLO's size until the stream is authenticated), ends the stream (the
 *   `ended` callback with protocol_error set).
 * - Writing: frames go out in order; a frame may be held until a time
 *   (not_before_us, the monotonic clock): the head of the queue holds the
 *   ones behind it, as a TCP stream would.  A dialled stream holds
 *   everything until its HELLO can be written (testbed_conn_hold, then
 *   testbed_conn_send_first once the listener's CHALLENGE came).
 * - The end: EOF, a read or write error, a bad frame, or a graceful close
 *   once the queue is empty all call `ended` once (why NULL for our own
 *   graceful close).
 *
 * The owner keeps a reference while it uses the stream; pending reads and
 * writes hold their own. */
#pragma once

#include "testbed/testbed-frame.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct TestbedConn TestbedConn;

typedef struct {
  /* a decoded frame (msg is cleared by the caller after the callback) */
  void (*frame) (TestbedConn *c, TestbedFrameKind kind, ProtoMsg *msg, const TestbedFrameAuth *auth, gpointer ud);
  void (*ended) (TestbedConn *c, const char *why, gboolean protocol_error, gpointer ud);
} TestbedConnEvents;

struct TestbedConn {
  /* the owner's, read and written by it */
  ProtoNodeId other;      /* PROTO_NO_NODE until its HELLO (accepted streams) */
  gboolean is_link;       /* a peer link (else a coordinator stream) */
  gboolean dialed;        /* we connected: our HELLO answers the listener's CHALLENGE */
  guint8 nonce[TESTBED_FRAME_NONCE_BYTES];   /* accepted: the CHALLENGE we sent */
  GSource *hello_timer;   /* accepted: closes the stream if no HELLO comes in time */
  char *source;           /* accepted: the other end's address (an IPv6 one's /64), freed with the stream */
  /* the stream's state, read-only for the owner */
  gboolean closing, closed;
  /* private */
  gint ref;
  const TestbedConnEvents *ev;
  gpointer ud;
  GSocketConnection *sc;
  GInputStream *in;
  GOutputStream *out;
  TestbedFrameReader *reader;
  GQueue queue;           /* pending frames */
  gboolean writing;
  gboolean held;          /* nothing is written until testbed_conn_send_first */
  GSource *wait;          /* a held write */
  guint8 buf[64 * 1024];
};

/* A stream over sc (the reference count starts at 1).  Reading starts
 * with testbed_conn_read. */
TestbedConn *testbed_conn_new (GSocketConnection *sc, ProtoNodeId other, gboolean is_link,
                            const TestbedConnEvents *ev, gpointer ud);
TestbedConn *testbed_conn_ref (TestbedConn *c);
void testbed_conn_unref (TestbedConn *c);
void testbed_conn_read (TestbedConn *c);
/* Frames over max_body bytes end the stream from now on; why (NULL: none)
 * names the limit in the error. */
void testbed_conn_set_max_frame (TestbedConn *c, gsize max_body, const char *why);
/* Holds what is queued until testbed_conn_send_first. */
void testbed_conn_hold (TestbedConn *c);
/* Puts frame at the head of the queue and ends the hold. */
void testbed_conn_send_first (TestbedConn *c, GBytes *frame);
/* Queues a frame; it leaves no earlier than not_before_us (0: at once). */
void testbed_conn_send (TestbedConn *c, GBytes *frame, gint64 not_before_us);
/* Closes after what is queued has gone out (at once if the stream is held:
 * what it holds is dropped). */
void testbed_conn_close_gracefully (TestbedConn *c);
/* Closes now (idempotent); `ended` is not called. */
void testbed_conn_close_now (TestbedConn *c);

G_END_DECLS
