/* sim-tb-conn.h — one TCP stream of a testbed process (sim-testbed.c):
 * length-prefixed frames (sim-frame.c) in, a queue of frames out.
 *
 * - Reading: every byte is untrusted; the frames are decoded as they come
 *   and handed to the `frame` callback.  A malformed frame, or one over the
 *   stream's limit (sim_tb_conn_set_max_frame: the owner keeps it at a
 *   HELLO's size until the stream is authenticated), ends the stream (the
 *   `ended` callback with protocol_error set).
 * - Writing: frames go out in order; a frame may be held until a time
 *   (not_before_us, the monotonic clock): the head of the queue holds the
 *   ones behind it, as a TCP stream would.  A dialled stream holds
 *   everything until its HELLO can be written (sim_tb_conn_hold, then
 *   sim_tb_conn_send_first once the listener's CHALLENGE came).
 * - The end: EOF, a read or write error, a bad frame, or a graceful close
 *   once the queue is empty all call `ended` once (why NULL for our own
 *   graceful close).
 *
 * The owner keeps a reference while it uses the stream; pending reads and
 * writes hold their own. */
#pragma once

#include "sim/sim-frame.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct SimTbConn SimTbConn;

typedef struct {
  /* a decoded frame (msg is cleared by the caller after the callback) */
  void (*frame) (SimTbConn *c, SimFrameKind kind, ProtoMsg *msg, const SimFrameAuth *auth, gpointer ud);
  void (*ended) (SimTbConn *c, const char *why, gboolean protocol_error, gpointer ud);
} SimTbConnEvents;

struct SimTbConn {
  /* the owner's, read and written by it */
  ProtoNodeId other;      /* PROTO_NO_NODE until its HELLO (accepted streams) */
  gboolean is_link;       /* a peer link (else a coordinator stream) */
  gboolean dialed;        /* we connected: our HELLO answers the listener's CHALLENGE */
  guint8 nonce[SIM_FRAME_NONCE_BYTES];   /* accepted: the CHALLENGE we sent */
  GSource *hello_timer;   /* accepted: closes the stream if no HELLO comes in time */
  /* the stream's state, read-only for the owner */
  gboolean closing, closed;
  /* private */
  gint ref;
  const SimTbConnEvents *ev;
  gpointer ud;
  GSocketConnection *sc;
  GInputStream *in;
  GOutputStream *out;
  SimFrameReader *reader;
  GQueue queue;           /* pending frames */
  gboolean writing;
  gboolean held;          /* nothing is written until sim_tb_conn_send_first */
  GSource *wait;          /* a held write */
  guint8 buf[64 * 1024];
};

/* A stream over sc (the reference count starts at 1).  Reading starts
 * with sim_tb_conn_read. */
SimTbConn *sim_tb_conn_new (GSocketConnection *sc, ProtoNodeId other, gboolean is_link,
                            const SimTbConnEvents *ev, gpointer ud);
SimTbConn *sim_tb_conn_ref (SimTbConn *c);
void sim_tb_conn_unref (SimTbConn *c);
void sim_tb_conn_read (SimTbConn *c);
/* Frames over max_body bytes end the stream from now on. */
void sim_tb_conn_set_max_frame (SimTbConn *c, gsize max_body);
/* Holds what is queued until sim_tb_conn_send_first. */
void sim_tb_conn_hold (SimTbConn *c);
/* Puts frame at the head of the queue and ends the hold. */
void sim_tb_conn_send_first (SimTbConn *c, GBytes *frame);
/* Queues a frame; it leaves no earlier than not_before_us (0: at once). */
void sim_tb_conn_send (SimTbConn *c, GBytes *frame, gint64 not_before_us);
/* Closes after what is queued has gone out (at once if the stream is held:
 * what it holds is dropped). */
void sim_tb_conn_close_gracefully (SimTbConn *c);
/* Closes now (idempotent); `ended` is not called. */
void sim_tb_conn_close_now (SimTbConn *c);

G_END_DECLS
