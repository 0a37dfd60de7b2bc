/* testbed-conn.c — one framed TCP stream of a testbed process
 * (testbed-conn.h). */
#include "config.h"

#include "testbed/testbed-conn.h"

typedef struct {
  GBytes *frame;
  gint64 not_before_us;   /* held until then (a delay rule, emulated latency) */
} Pending;

TestbedConn *
testbed_conn_ref (TestbedConn *c)
{
  c->ref++;
  return c;
}

void
testbed_conn_unref (TestbedConn *c)
{
  if (--c->ref > 0)
    return;
  Pending *pd;
  while ((pd = g_queue_pop_head (&c->queue)))
    {
      g_bytes_unref (pd->frame);
      g_free (pd);
    }
  if (c->wait)
    {
      g_source_destroy (c->wait);
      g_source_unref (c->wait);
    }
  if (c->hello_timer)
    {
      g_source_destroy (c->hello_timer);
      g_source_unref (c->hello_timer);
    }
  g_clear_object (&c->sc);
  g_free (c->source);
  testbed_frame_reader_free (c->reader);
  g_free (c);
}

TestbedConn *
testbed_conn_new (GSocketConnection *sc, ProtoNodeId other, gboolean is_link, const TestbedConnEvents *ev,
                 gpointer ud)
{
  /* the client's 10 s timeout is for connecting: an open stream may be
   * quiet for as long as the protocol likes */
  g_socket_set_timeout (g_socket_connection_get_socket (sc), 0);
  TestbedConn *c = g_new0 (TestbedConn, 1);
  c->ref = 1;
  c->ev = ev;
  c->ud = ud;
  c->sc = g_object_ref (sc);
  c->in = g_io_stream_get_input_stream (G_IO_STREAM (sc));
  c->out = g_io_stream_get_output_stream (G_IO_STREAM (sc));
  c->reader = testbed_frame_reader_new ();
  c->other = other;
  c->is_link = is_link;
  g_queue_init (&c->queue);
  return c;
}

void
testbed_conn_close_now (TestbedConn *c)
{
  if (c->closed)
    return;
  c->closed = TRUE;
  g_io_stream_close (G_IO_STREAM (c->sc), NULL, NULL);
}

static void
ended (TestbedConn *c, const char *why, gboolean protocol_error)
{
  c->ev->ended (c, why, protocol_error, c->ud);
}

/* ---------------------------------------------------------------- writing */

static gboolean write_next (gpointer data);

static void
on_written (GObject *src, GAsyncResult *res, gpointer data)
{
  TestbedConn *c = data;
  g_autoptr (GError) e = NULL;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (src), res, NULL, &e);
  Pending *pd = g_queue_pop_head (&c->queue);
  g_bytes_unref (pd->frame);
  g_free (pd);
  c->writing = FALSE;
  if (!ok)
    ended (c, e->message, FALSE);
  else
    write_next (c);
  testbed_conn_unref (c);
}

static gboolean
write_next (gpointer data)
{
  TestbedConn *c = data;
  if (c->wait)
    {
      g_source_unref (c->wait);
      c->wait = NULL;
    }
  if (c->closed || c->writing)
    return G_SOURCE_REMOVE;
  if (c->held)
    {
      if (c->closing)
        ended (c, NULL, FALSE);   /* never authenticated: what it holds cannot go */
      return G_SOURCE_REMOVE;
    }
  Pending *pd = g_queue_peek_head (&c->queue);
  if (!pd)
    {
      if (c->closing)
        ended (c, NULL, FALSE);
      return G_SOURCE_REMOVE;
    }
  gint64 now = g_get_monotonic_time ();
  if (pd->not_before_us > now)
    {
      c->wait = g_timeout_source_new ((guint) ((pd->not_before_us - now + 999) / 1000));
      g_source_set_callback (c->wait, write_next, c, NULL);
      g_source_attach (c->wait, NULL);
      return G_SOURCE_REMOVE;
    }
  c->writing = TRUE;
  gsize len;
  const void *d = g_bytes_get_data (pd->frame, &len);
  g_output_stream_write_all_async (c->out, d, len, G_PRIORITY_DEFAULT, NULL, on_written, testbed_conn_ref (c));
  return G_SOURCE_REMOVE;
}

void
testbed_conn_set_max_frame (TestbedConn *c, gsize max_body, const char *why)
{
  testbed_frame_reader_set_limit (c->reader, max_body, why);
}

void
testbed_conn_hold (TestbedConn *c)
{
  c->held = TRUE;
}

void
testbed_conn_send_first (TestbedConn *c, GBytes *frame)
{
  if (c->closed)
    return;
  Pending *pd = g_new0 (Pending, 1);
  pd->frame = g_bytes_ref (frame);
  g_queue_push_head (&c->queue, pd);
  c->held = FALSE;
  if (c->wait)
    {
      /* the head changed: what was waiting for a later time waits behind it */
      g_source_destroy (c->wait);
      g_source_unref (c->wait);
      c->wait = NULL;
    }
  write_next (c);
}

void
testbed_conn_send (TestbedConn *c, GBytes *frame, gint64 not_before_us)
{
  if (c->closed || c->closing)
    return;
  Pending *pd = g_new0 (Pending, 1);
  pd->frame = g_bytes_ref (frame);
  pd->not_before_us = not_before_us;
  g_queue_push_tail (&c->queue, pd);
  if (!c->wait)
    write_next (c);
}

void
testbed_conn_close_gracefully (TestbedConn *c)
{
  c->closing = TRUE;
  if (!c->writing && !c->wait)
    write_next (c);
}

/* ---------------------------------------------------------------- reading */

static void
on_read (GObject *src, GAsyncResult *res, gpointer data)
{
  TestbedConn *c = data;
  g_autoptr (GError) e = NULL;
  gssize got = g_input_stream_read_finish (G_INPUT_STREAM (src), res, &e);
  if (c->closed)
    {
      testbed_conn_unref (c);
      return;
    }
  if (got <= 0)
    {
      ended (c, got == 0 ? "end of stream" : e->message, FALSE);
      testbed_conn_unref (c);
      return;
    }
  testbed_frame_reader_push (c->reader, c->buf, (gsize) got);
  for (;;)
    {
      TestbedFrameKind kind;
      ProtoMsg msg;
      TestbedFrameAuth auth;
      g_autoptr (GError) fe = NULL;
      TestbedFrameResult r = testbed_frame_reader_next (c->reader, &kind, &msg, &auth, &fe);
      if (r == TESTBED_FRAME_NEED_MORE)
        break;
      if (r == TESTBED_FRAME_BAD)
        {
          g_autofree char *why = g_strdup_printf ("protocol error: %s: stream closed", fe->message);
          ended (c, why, TRUE);
          testbed_conn_unref (c);
          return;
        }
      c->ev->frame (c, kind, &msg, &auth, c->ud);
      if (kind == TESTBED_FRAME_MSG)
        proto_msg_clear (&msg);
      if (c->closed)
        {
          testbed_conn_unref (c);
          return;
        }
    }
  testbed_conn_read (c);
  testbed_conn_unref (c);
}

void
testbed_conn_read (TestbedConn *c)
{
  g_input_stream_read_async (c->in, c->buf, sizeof c->buf, G_PRIORITY_DEFAULT, NULL, on_read, testbed_conn_ref (c));
}
