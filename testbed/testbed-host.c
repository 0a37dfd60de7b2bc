/* testbed-host.c — the testbed's transport: one node (the coordinator or a
 * peer) on GIO sockets and the wall clock, under the host layer.  See
 * testbed-host.h for what it does and does not do.
 *
 * The wall clock rules here, and only here: now = monotonic time since the
 * run's t0.  Writes are asynchronous and ordered per stream (a queue per
 * connection); a graceful close waits for the queue, as a WebSocket's close
 * frame follows the data.
 *
 * Every transition of the node is here: what a frame, a stream's end, a
 * dial, a timer does to it and to its machine, and the transport the host
 * layer calls.  The leaves it calls own a part of its state and never call
 * it back (testbed-host-private.h): the limits (testbed-host-limits.c),
 * the rules (testbed-host-rules.c), a peer's training
 * (testbed-host-learn.c). */
#include "config.h"

#include "testbed/testbed-host.h"
#include "testbed/testbed-host-private.h"
#include "testbed/testbed-frame.h"
#include "host/sim-host.h"
#include "testbed/testbed-conn.h"
#include "testbed/testbed-secret.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

typedef TestbedConn Conn;

struct TestbedHost {
  TestbedHostParams p;
  const SimWorldConfig *cfg;
  ProtoMachine *coord;    /* through the machine interface (proto-machine.h) */
  ProtoMachine *peer;
  GSocketService *service;
  guint16 port;
  GHashTable *conns;      /* id -> Conn*: the coordinator's peer streams, or a peer's links */
  Conn *server;           /* a peer's stream to the coordinator */
  GHashTable *addrs;      /* a peer: id -> link address from its signals */
  char *my_addr;          /* a peer: its link address */
  GSocketClient *client;
  GCancellable *cancel;
  GSource *deadline;
  TestbedHostRules rules; /* drop, delay, slow, link-fail */
  GPtrArray *dials;       /* Dial*: dials held for link_setup */
  gboolean gone;
  gboolean admitted;      /* a peer: a message came from the coordinator */
  char *refused;          /* a peer: why the coordinator never admitted it, or NULL */
  gsize max_frame;        /* an authenticated stream's largest frame body (testbed_host_max_frame) */
  char *max_frame_why;    /* ... and what it is, for the error */
  GQueue unauth;          /* Conn* (refs), oldest first: accepted streams waiting for their HELLO */
  TestbedHostErrors errors; /* the protocol-error facts' rate limit */
  TestbedHostLearn learn; /* a peer's training */
  DlRandom *rng_latency;  /* emulate_latency: the sender's "latency" stream */
  GSource *train_src;
  LearnWeights *train_result;
};

static gboolean
peer_connected (const ProtoMachine *peer)
{
  ProtoPeerView v;
  proto_machine_view (peer, &v);
  return v.connected;
}

static const SimTransport tb_transport;

DlTime
testbed_host_now (const TestbedHost *n)
{
  return (g_get_monotonic_time () - n->p.t0_us) * 1000;
}

static void
fact (TestbedHost *n, ProtoNodeId other, const char *kind, const char *detail)
{
  if (n->p.rec.fact)
    n->p.rec.fact (n->p.rec.user_data, testbed_host_now (n), n->p.id, other, kind, detail ? detail : "");
}

/* A protocol error, recorded within its rate limit
 * (_testbed_host_errors_admit). */
static void
protocol_error (TestbedHost *n, ProtoNodeId other, const char *detail)
{
  g_autofree char *d = _testbed_host_errors_admit (&n->errors, g_get_monotonic_time (), detail);
  if (d)
    fact (n, other, "protocol-error", d);
}

static void
feed (TestbedHost *n, const ProtoInput *in)
{
  if (n->coord)
    sim_host_feed (n->coord, PROTO_SERVER, testbed_host_now (n), in, &tb_transport, n);
  else
    sim_host_feed (n->peer, n->p.id, testbed_host_now (n), in, &tb_transport, n);
}

static void
feed_simple (TestbedHost *n, ProtoInputKind kind, ProtoNodeId from)
{
  ProtoInput in = { .kind = kind, .from = from };
  feed (n, &in);
}

/* ---------------------------------------------------------------- streams */

/* Takes an accepted stream off the list of those waiting for their HELLO
 * (it sent one, or it ended), and closes it if asked. */
static void
unauth_drop (TestbedHost *n, Conn *c, gboolean close)
{
  GList *l = g_queue_find (&n->unauth, c);
  if (!l)
    return;
  g_queue_delete_link (&n->unauth, l);
  if (c->hello_timer)
    {
      g_source_destroy (c->hello_timer);
      g_clear_pointer (&c->hello_timer, g_source_unref);
    }
  if (close)
    testbed_conn_close_now (c);
  testbed_conn_unref (c);
}

/* (transfer full) why a peer's stream to the coordinator ended before
 * any message came on it: the coordinator closes a stream it refuses and
 * says nothing (a stranger learns nothing), so the peer can only say what
 * the coordinator refuses. */
static char *
refusal (const TestbedHost *n, const Conn *c, const char *why)
{
  if (c->held)
    return g_strdup_printf ("the coordinator at %s closed the stream before its CHALLENGE (%s): it is not a dlsim "
                            "coordinator, or too many streams were waiting for their HELLO", n->p.coordinator, why);
  return g_strdup_printf ("the coordinator at %s closed the stream after p%u's HELLO, before any message (%s): it "
                          "refused p%u (its secret file is not this one, or its scenario has no p%u; its "
                          "protocol-error records say which), or it went away", n->p.coordinator, n->p.id, why,
                          n->p.id, n->p.id);
}

/* The stream ended (EOF, an error, a bad frame, or we closed it). */
static void
conn_ended (Conn *c, const char *why)
{
  TestbedHost *n = c->ud;
  gboolean was_open = !c->closed;
  unauth_drop (n, c, FALSE);
  testbed_conn_close_now (c);
  if (!was_open && !why)
    return;
  if (c->is_link)
    {
      if (c->other != PROTO_NO_NODE && g_hash_table_lookup (n->conns, GUINT_TO_POINTER (c->other)) == c)
        {
          g_hash_table_remove (n->conns, GUINT_TO_POINTER (c->other));
          fact (n, c->other, "link-closed", why);
          if (n->peer && peer_connected (n->peer))
            feed_simple (n, PROTO_IN_LINK_CLOSED, c->other);
        }
    }
  else if (n->coord)
    {
      if (c->other != PROTO_NO_NODE && g_hash_table_lookup (n->conns, GUINT_TO_POINTER (c->other)) == c)
        {
          g_hash_table_remove (n->conns, GUINT_TO_POINTER (c->other));
          fact (n, c->other, "stream-closed", why);
          feed_simple (n, PROTO_IN_STREAM_CLOSED, c->other);
        }
    }
  else if (c == n->server)
    {
      n->server = NULL;
      n->gone = TRUE;
      if (why && !n->admitted)
        n->refused = refusal (n, c, why);
      fact (n, PROTO_SERVER, "stream-closed", why);
      if (peer_connected (n->peer))
        feed_simple (n, PROTO_IN_STREAM_CLOSED, PROTO_SERVER);
      testbed_conn_unref (c);
    }
}

/* ---------------------------------------------------------------- frames in */

static gboolean
known_id (const TestbedHost *n, ProtoNodeId id)
{
  return id != PROTO_SERVER && id <= testbed_host_max_peer (n->cfg);
}

/* A HELLO on a stream we accepted: the proof, then the id. */
static void
on_hello (TestbedHost *n, Conn *c, const TestbedFrameAuth *hello)
{
  const char *refused = NULL;
  g_autofree char *why = NULL;
  if (c->dialed || c->other != PROTO_NO_NODE)
    refused = "unexpected HELLO";
  else if (!testbed_frame_hello_verify (hello, (const guint8 *) n->p.secret, strlen (n->p.secret), c->nonce, n->p.id))
    refused = "HELLO without the deployment's secret (its HMAC does not match)";
  else if (hello->id == n->p.id)
    refused = "HELLO with this node's own id";
  else if (!known_id (n, hello->id))
    refused = why = g_strdup_printf ("HELLO from an id the scenario does not have (peers are p1..p%u)",
                                     testbed_host_max_peer (n->cfg));
  else if (g_hash_table_contains (n->conns, GUINT_TO_POINTER (hello->id)))
    refused = "HELLO from an id already connected";
  if (refused)
    {
      /* the id is the other end's claim: it goes in the detail, not in the
       * record's node column */
      g_autofree char *d = g_strdup_printf ("%s (it claims p%u): stream closed", refused, hello->id);
      protocol_error (n, PROTO_NO_NODE, d);
      conn_ended (c, NULL);
      return;
    }
  unauth_drop (n, c, FALSE);
  testbed_conn_set_max_frame (c, n->max_frame, n->max_frame_why);
  c->other = hello->id;
  g_hash_table_insert (n->conns, GUINT_TO_POINTER (hello->id), testbed_conn_ref (c));
  if (c->is_link)
    {
      fact (n, hello->id, "link-up", "accepted");
      feed_simple (n, PROTO_IN_LINK_UP, hello->id);
    }
}

static void
on_frame (Conn *c, TestbedFrameKind kind, ProtoMsg *msg, const TestbedFrameAuth *auth, gpointer ud)
{
  TestbedHost *n = ud;
  switch (kind)
    {
    case TESTBED_FRAME_HELLO:
      on_hello (n, c, auth);
      return;
    case TESTBED_FRAME_CHALLENGE:
      if (!c->dialed || !c->held)
        {
          protocol_error (n, c->other, "unexpected CHALLENGE: stream closed");
          conn_ended (c, NULL);
          return;
        }
      {
        g_autoptr (GBytes) hello = testbed_frame_encode_hello ((const guint8 *) n->p.secret, strlen (n->p.secret),
                                                           auth->nonce, n->p.id, c->other);
        testbed_conn_set_max_frame (c, n->max_frame, n->max_frame_why);
        testbed_conn_send_first (c, hello);
      }
      return;
    case TESTBED_FRAME_MSG:
      break;
    }
  ProtoNodeId from = c->is_link || n->coord ? c->other : PROTO_SERVER;
  if (c == n->server && !c->held)
    n->admitted = TRUE;
  if (c->dialed ? c->held : c->other == PROTO_NO_NODE)
    {
      protocol_error (n, c->dialed ? c->other : PROTO_NO_NODE,
                      c->dialed ? "message before CHALLENGE: stream closed" : "message before HELLO: stream closed");
      conn_ended (c, NULL);
      return;
    }
  if (n->peer && !c->is_link && proto_msg_type_role (msg->type) == PROTO_MSG_ROLE_SIGNAL && msg->signal_data)
    g_hash_table_insert (n->addrs, GUINT_TO_POINTER (msg->node), g_strdup (msg->signal_data));
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = from,
                    .via = c->is_link ? PROTO_VIA_LINK : PROTO_VIA_SERVER, .msg = msg };
  feed (n, &in);
}

static void
on_ended (Conn *c, const char *why, gboolean is_protocol_error, gpointer ud)
{
  if (is_protocol_error)
    protocol_error (ud, c->other, why);
  conn_ended (c, why);
}

static const TestbedConnEvents conn_events = { on_frame, on_ended };

static Conn *
conn_new (TestbedHost *n, GSocketConnection *sc, ProtoNodeId other, gboolean is_link)
{
  return testbed_conn_new (sc, other, is_link, &conn_events, n);
}

static gboolean
hello_timeout (gpointer data)
{
  Conn *c = data;
  TestbedHost *n = c->ud;
  g_clear_pointer (&c->hello_timer, g_source_unref);   /* the source lives until we return */
  protocol_error (n, PROTO_NO_NODE, "no HELLO within " G_STRINGIFY (TESTBED_HOST_HELLO_TIMEOUT_MS) " ms: stream closed");
  conn_ended (c, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
on_incoming (GSocketService *service, GSocketConnection *sc, GObject *source, gpointer data)
{
  TestbedHost *n = data;
  g_autoptr (GError) e = NULL;
  guint8 nonce[TESTBED_FRAME_NONCE_BYTES];
  if (!testbed_random_bytes (nonce, sizeof nonce, &e))
    {
      fact (n, PROTO_NO_NODE, "error", e->message);
      return FALSE;   /* the connection is closed */
    }
  g_autofree char *from = _testbed_host_source_of (sc);
  if (n->unauth.length >= TESTBED_HOST_MAX_UNAUTHENTICATED)
    {
      Conn *old = _testbed_host_unauth_victim (&n->unauth, from);
      g_autofree char *d = g_strdup_printf ("too many streams waiting for their HELLO: the oldest from %s closed "
                                            "(the source with the most)", old->source);
      protocol_error (n, PROTO_NO_NODE, d);
      unauth_drop (n, old, TRUE);
    }
  Conn *c = conn_new (n, sc, PROTO_NO_NODE, n->peer != NULL);
  c->source = g_steal_pointer (&from);
  memcpy (c->nonce, nonce, sizeof nonce);
  testbed_conn_set_max_frame (c, TESTBED_FRAME_HELLO_BODY, NULL);
  g_queue_push_tail (&n->unauth, c);   /* the list's reference; the map's once HELLO came */
  c->hello_timer = g_timeout_source_new (TESTBED_HOST_HELLO_TIMEOUT_MS);
  g_source_set_callback (c->hello_timer, hello_timeout, c, NULL);
  g_source_attach (c->hello_timer, NULL);
  g_autoptr (GBytes) challenge = testbed_frame_encode_challenge (nonce);
  testbed_conn_send (c, challenge, 0);
  testbed_conn_read (c);
  (void) service;
  (void) source;
  return TRUE;
}

/* ---------------------------------------------------------------- the transport */

typedef struct {
  TestbedHost *node;
  ProtoNodeId other;
  char *addr;      /* a dial held for link_setup ... */
  GSource *held;   /* ... by this timeout */
} Dial;

static gboolean
link_failed_later (gpointer data)
{
  Dial *d = data;
  if (peer_connected (d->node->peer))
    feed_simple (d->node, PROTO_IN_LINK_FAILED, d->other);
  g_free (d);
  return G_SOURCE_REMOVE;
}

static void
tr_send (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  TestbedHost *n = ud;
  if (proto_msg_type_role (msg->type) == PROTO_MSG_ROLE_SIGNAL && n->peer && !msg->signal_data)
    msg->signal_data = g_strdup (n->my_addr);   /* the offer/answer carries our link address */
  if (_testbed_host_rules_take (&n->rules, from, to, msg, TRUE, NULL))
    {
      fact (n, to, "drop", proto_msg_type_name (msg->type));
      proto_msg_clear (msg);
      return;
    }
  DlTime delay = 0;
  _testbed_host_rules_take (&n->rules, from, to, msg, FALSE, &delay);
  if (n->p.emulate_latency)
    delay = dl_time_add (delay, dl_dist_sample_time (via == PROTO_VIA_LINK ? &n->cfg->latency
                                                                          : &n->cfg->server_latency,
                                                     n->rng_latency));
  Conn *c = n->coord || via == PROTO_VIA_LINK ? g_hash_table_lookup (n->conns, GUINT_TO_POINTER (to))
                                             : n->server;
  if (!c || c->closed || c->closing)
    {
      fact (n, to, "lost", via == PROTO_VIA_LINK ? "link not open" : "stream not open");
      proto_msg_clear (msg);
      return;
    }
  if (n->peer && proto_msg_type_role (msg->type) == PROTO_MSG_ROLE_SIGNAL && msg->node > n->p.id
      && _testbed_host_rules_never (&n->rules, msg->node))
    {
      /* the answerer of a link-fail'd pair: the simulator fails both ends
       * when the initiator dials, which follows this answer; here the
       * answerer fails once its answer is out (a server round trip early) */
      Dial *d = g_new0 (Dial, 1);
      d->node = n;
      d->other = msg->node;
      fact (n, msg->node, "link-failed", "link-fail action");
      g_idle_add (link_failed_later, d);
    }
  g_autoptr (GBytes) f = testbed_frame_encode_msg (msg);
  if (n->p.rec.traffic)
    n->p.rec.traffic (n->p.rec.user_data, msg->type, g_bytes_get_size (f));
  testbed_conn_send (c, f, g_get_monotonic_time () + delay / 1000);
  proto_msg_clear (msg);
}

static void
tr_open_link (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator)
{
  (void) ud;
  (void) self;
  (void) other;
  (void) initiator;   /* the socket comes with CONNECT_LINK or an incoming HELLO */
}

static void on_link_connected (GObject *src, GAsyncResult *res, gpointer data);

/* A stream we dialled: what we send waits for our HELLO, which answers the
 * listener's CHALLENGE; until then it may send nothing larger. */
static void
dialed (Conn *c)
{
  c->dialed = TRUE;
  testbed_conn_hold (c);
  testbed_conn_set_max_frame (c, TESTBED_FRAME_CHALLENGE_BODY, NULL);
}

static gboolean
dial_later (gpointer data)
{
  Dial *d = data;
  TestbedHost *n = d->node;
  g_ptr_array_remove_fast (n->dials, d);
  g_clear_pointer (&d->held, g_source_unref);   /* the source lives until we return */
  char *addr = g_steal_pointer (&d->addr);
  if (peer_connected (n->peer))
    g_socket_client_connect_to_host_async (n->client, addr, 0, n->cancel, on_link_connected, d);
  else
    g_free (d);
  g_free (addr);
  return G_SOURCE_REMOVE;
}

static void
on_link_connected (GObject *src, GAsyncResult *res, gpointer data)
{
  Dial *d = data;
  TestbedHost *n = d->node;
  ProtoNodeId other = d->other;
  g_free (d);
  g_autoptr (GError) e = NULL;
  g_autoptr (GSocketConnection) sc = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (src), res, &e);
  if (g_error_matches (e, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (!sc)
    {
      fact (n, other, "link-failed", e->message);
      if (peer_connected (n->peer))
        feed_simple (n, PROTO_IN_LINK_FAILED, other);
      return;
    }
  if (!peer_connected (n->peer) || g_hash_table_contains (n->conns, GUINT_TO_POINTER (other)))
    {
      g_io_stream_close (G_IO_STREAM (sc), NULL, NULL);
      return;
    }
  Conn *c = conn_new (n, sc, other, TRUE);
  g_hash_table_insert (n->conns, GUINT_TO_POINTER (other), testbed_conn_ref (c));
  dialed (c);
  testbed_conn_read (c);
  testbed_conn_unref (c);
  fact (n, other, "link-up", "connected");
  feed_simple (n, PROTO_IN_LINK_UP, other);
}


static void
tr_connect_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  TestbedHost *n = ud;
  const char *addr = g_hash_table_lookup (n->addrs, GUINT_TO_POINTER (other));
  Dial *d = g_new0 (Dial, 1);
  d->node = n;
  d->other = other;
  if (_testbed_host_rules_never (&n->rules, other))
    {
      /* as sim-net-links.c's sim_net_connect_link: a link-fail'd pair fails at the dial */
      fact (n, other, "link-failed", "link-fail action");
      g_idle_add (link_failed_later, d);
      return;
    }
  if (!addr)
    {
      fact (n, other, "link-failed", "no address in the answer");
      g_idle_add (link_failed_later, d);
      return;
    }
  if (n->p.emulate_latency && n->cfg->link_setup > 0)
    {
      /* the scenario's link setup (WebRTC's ICE and DTLS in DISCO) before the dial */
      d->addr = g_strdup (addr);
      d->held = g_timeout_source_new ((guint) (n->cfg->link_setup / DL_MS));
      g_source_set_callback (d->held, dial_later, d, NULL);
      g_source_attach (d->held, NULL);
      g_ptr_array_add (n->dials, d);
      return;
    }
  g_socket_client_connect_to_host_async (n->client, addr, 0, n->cancel, on_link_connected, d);
  (void) self;
}

static void
tr_close_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  TestbedHost *n = ud;
  Conn *c = g_hash_table_lookup (n->conns, GUINT_TO_POINTER (other));
  if (c)
    {
      g_hash_table_steal (n->conns, GUINT_TO_POINTER (other));
      testbed_conn_close_gracefully (c);
      testbed_conn_unref (c);   /* the map's reference; pending writes hold their own */
    }
  (void) self;
}

static gboolean
on_trained (gpointer data)
{
  TestbedHost *n = data;
  g_source_unref (n->train_src);
  n->train_src = NULL;
  g_autoptr (LearnWeights) w = g_steal_pointer (&n->train_result);
  ProtoInput in = { .kind = PROTO_IN_TRAINING_DONE, .weights = w };
  if (peer_connected (n->peer))
    feed (n, &in);
  return G_SOURCE_REMOVE;
}

static void
tr_start_training (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round)
{
  TestbedHost *n = ud;
  gint64 left_us;
  g_clear_pointer (&n->train_result, learn_weights_unref);
  n->train_result = _testbed_host_learn_train (&n->learn, n->cfg, weights, n->rules.slow, &left_us);
  if (n->train_src)
    {
      g_source_destroy (n->train_src);
      g_source_unref (n->train_src);
    }
  n->train_src = g_timeout_source_new ((guint) MAX (left_us / 1000, 0));
  g_source_set_callback (n->train_src, on_trained, n, NULL);
  g_source_attach (n->train_src, NULL);
  (void) self;
  (void) round;
}

static void
tr_disconnect (gpointer ud, ProtoNodeId self)
{
  TestbedHost *n = ud;
  fact (n, PROTO_NO_NODE, "disconnect", NULL);
  if (n->server)
    testbed_conn_close_gracefully (n->server);
  (void) self;
}

static void
tr_observed (gpointer ud, ProtoNodeId self, const ProtoObservation *obs)
{
  TestbedHost *n = ud;
  DlTime now = testbed_host_now (n);
  if (n->p.rec.observation)
    n->p.rec.observation (n->p.rec.user_data, now, self, obs);
  if (obs->kind == PROTO_OBS_ROUND_END && n->peer && n->cfg->model.kind != LEARN_MODEL_NONE && n->cfg->test
      && n->p.rec.metric)
    {
      double acc, loss;
      learn_model_evaluate (&n->cfg->model, proto_machine_model (n->peer), n->cfg->test, &acc, &loss);
      n->p.rec.metric (n->p.rec.user_data, now, obs->round, self, "accuracy", acc);
      n->p.rec.metric (n->p.rec.user_data, now, obs->round, self, "loss", loss);
    }
}

static gboolean
on_deadline (gpointer data)
{
  TestbedHost *n = data;
  g_source_unref (n->deadline);
  n->deadline = NULL;
  feed_simple (n, PROTO_IN_DEADLINE, PROTO_NO_NODE);
  return G_SOURCE_REMOVE;
}

static void
tr_arm (gpointer ud, ProtoNodeId self, DlTime deadline)
{
  TestbedHost *n = ud;
  if (n->deadline)
    {
      g_source_destroy (n->deadline);
      g_source_unref (n->deadline);
      n->deadline = NULL;
    }
  if (deadline == DL_TIME_NEVER)
    return;
  DlTime in_ns = deadline - testbed_host_now (n);
  n->deadline = g_timeout_source_new ((guint) MAX ((in_ns + 999999) / 1000000, 0));
  g_source_set_callback (n->deadline, on_deadline, n, NULL);
  g_source_attach (n->deadline, NULL);
  (void) self;
}

static const SimTransport tb_transport = {
  .send = tr_send,
  .open_link = tr_open_link,
  .connect_link = tr_connect_link,
  .close_link = tr_close_link,
  .start_training = tr_start_training,
  .disconnect = tr_disconnect,
  .observed = tr_observed,
  .arm = tr_arm,
};

/* ---------------------------------------------------------------- the node */

static void
conn_value_free (gpointer data)
{
  Conn *c = data;
  testbed_conn_close_now (c);
  testbed_conn_unref (c);
}

TestbedHost *
testbed_host_new (const TestbedHostParams *p, GError **error)
{
  g_return_val_if_fail (p->secret != NULL && strlen (p->secret) >= TESTBED_SECRET_MIN_BYTES, NULL);
  const ProtoFamily *fam = proto_family_of (&p->cfg->proto);
  if (fam->no_testbed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "[protocol] family = %s: %s", fam->name, fam->no_testbed);
      return NULL;
    }
  TestbedHost *n = g_new0 (TestbedHost, 1);
  n->p = *p;
  n->cfg = p->cfg;
  g_queue_init (&n->unauth);
  n->max_frame = testbed_host_max_frame (p->cfg);
  n->max_frame_why = _testbed_host_max_frame_why (p->cfg);
  _testbed_host_errors_init (&n->errors, g_get_monotonic_time ());
  n->conns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, conn_value_free);
  n->addrs = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  _testbed_host_rules_init (&n->rules);
  n->dials = g_ptr_array_new ();
  n->client = g_socket_client_new ();
  g_socket_client_set_timeout (n->client, 10);
  n->cancel = g_cancellable_new ();
  const SimWorldConfig *cfg = p->cfg;
  n->rng_latency = dl_random_new (cfg->seed, "latency", p->id);
  if (p->id == PROTO_SERVER)
    n->coord = proto_family_of (&cfg->proto)->new_coordinator (&cfg->proto);
  else
    {
      _testbed_host_learn_init (&n->learn, cfg, p->id);
      ProtoPeerEnv env = _testbed_host_learn_env (&n->learn, cfg, p->id);
      n->peer = proto_family_of (&cfg->proto)->new_peer (&cfg->proto, &env);
    }
  n->service = _testbed_host_listen (p->listen_host ? p->listen_host : "127.0.0.1", n->coord ? p->listen_port : 0,
                                     &n->port, error);
  if (!n->service)
    {
      testbed_host_free (n);
      return NULL;
    }
  if (n->peer)
    n->my_addr = g_strdup_printf ("%s:%u", p->listen_host ? p->listen_host : "127.0.0.1", n->port);
  g_signal_connect (n->service, "incoming", G_CALLBACK (on_incoming), n);
  g_socket_service_start (n->service);
  return n;
}

guint16
testbed_host_port (const TestbedHost *n)
{
  return n->port;
}

gboolean
testbed_host_start (TestbedHost *n, GError **error)
{
  g_return_val_if_fail (n->peer != NULL, FALSE);
  g_autoptr (GSocketConnection) sc = g_socket_client_connect_to_host (n->client, n->p.coordinator, 0, NULL, error);
  if (!sc)
    {
      g_prefix_error (error, "cannot reach the coordinator at %s: ", n->p.coordinator);
      return FALSE;
    }
  n->server = conn_new (n, sc, PROTO_SERVER, FALSE);
  dialed (n->server);
  testbed_conn_read (n->server);
  fact (n, PROTO_SERVER, "join", n->p.coordinator);
  feed_simple (n, PROTO_IN_START, PROTO_NO_NODE);
  return TRUE;
}

void
testbed_host_leave (TestbedHost *n)
{
  if (!n->peer || !peer_connected (n->peer))
    return;
  fact (n, PROTO_NO_NODE, "leave", NULL);
  feed_simple (n, PROTO_IN_LEAVE, PROTO_NO_NODE);
}

void
testbed_host_add_rule (TestbedHost *n, const SimAction *a)
{
  _testbed_host_rules_add (&n->rules, n->p.id, n->peer != NULL, a);
}

gboolean
testbed_host_gone (const TestbedHost *n)
{
  return n->gone || (n->peer && !peer_connected (n->peer) && (!n->server || n->server->closed));
}

const char *
testbed_host_refused (const TestbedHost *n)
{
  return n->refused;
}

ProtoMachine *testbed_host_coord (TestbedHost *n) { return n->coord; }
ProtoMachine *testbed_host_peer (TestbedHost *n) { return n->peer; }

void
testbed_host_free (TestbedHost *n)
{
  if (!n)
    return;
  g_cancellable_cancel (n->cancel);
  if (n->service)
    {
      g_socket_service_stop (n->service);
      g_socket_listener_close (G_SOCKET_LISTENER (n->service));
      g_object_unref (n->service);
    }
  while (n->unauth.length > 0)
    unauth_drop (n, g_queue_peek_head (&n->unauth), TRUE);
  g_hash_table_unref (n->conns);
  if (n->server)
    {
      testbed_conn_close_now (n->server);
      testbed_conn_unref (n->server);
    }
  g_hash_table_unref (n->addrs);
  for (guint i = 0; i < n->dials->len; i++)
    {
      Dial *d = n->dials->pdata[i];
      g_source_destroy (d->held);
      g_source_unref (d->held);
      g_free (d->addr);
      g_free (d);
    }
  g_ptr_array_unref (n->dials);
  _testbed_host_rules_clear (&n->rules);
  if (n->deadline)
    {
      g_source_destroy (n->deadline);
      g_source_unref (n->deadline);
    }
  if (n->train_src)
    {
      g_source_destroy (n->train_src);
      g_source_unref (n->train_src);
    }
  g_clear_pointer (&n->train_result, learn_weights_unref);
  proto_machine_free (n->coord);
  proto_machine_free (n->peer);
  _testbed_host_learn_clear (&n->learn);
  dl_random_free (n->rng_latency);
  g_object_unref (n->client);
  g_object_unref (n->cancel);
  g_free (n->my_addr);
  g_free (n->refused);
  g_free (n->max_frame_why);
  g_free (n);
}
