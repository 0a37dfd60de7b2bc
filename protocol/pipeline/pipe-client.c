/* pipe-client.c — a pipeline client: one inference session of `steps`
 * tokens through a chain of servers (Petals' client/inference_session.py,
 * InferenceSession.step and _update_sequence; README.md).
 *
 * The session: look up the servers (PipeLookup), ping each over its link
 * (Petals' PingAggregator) to learn the round trips, route (pipe-route.c),
 * then step.  A step sends the token's hidden states to the first server;
 * each result that comes back is relayed to the next server, as Petals'
 * client does, and the step ends when the last server's result is in.
 *
 * With next-peer, each request also names the servers after the
 * receiver that already hold the session (Petals' _collect_next_servers:
 * only those that stepped), so each server pushes its result onward as
 * well.  A result is the right one when it was computed from the right
 * input: every result carries the hash of its input, and the client holds
 * the right input of each hop (its own token for the first, the previous
 * hop's right output for the others).  So the client may take a result
 * that a pushed copy produced as soon as it comes, before its own copy
 * reaches that server; a result from a wrong push waits for the one the
 * server recomputes from the client's copy.
 *
 * A failure: no right result within step_timeout of sending the input (a
 * crash is silent), or the server's link closes (a leave).  The server is
 * banned for 15 s (Petals' ban_timeout), the table is read again from the
 * registry (servers gone since leave it), its blocks are routed again over
 * the others, and the new servers get the session's whole history (step +
 * 1 tokens): the replay, real time and real bytes.  With no server for
 * some block the client looks up again with Petals' backoff (1 s, doubling
 * to 60 s).
 *
 * Not modelled: a prompt (the first step is one token, as every other),
 * Petals' periodic table refresh (a client looks up at the start and after
 * a failure), and its max_retries (it retries for as long as the run). */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <math.h>

static gboolean
banned (const PipePeer *p, ProtoNodeId id)
{
  gpointer v = g_hash_table_lookup (p->banned, GUINT_TO_POINTER (id + 1));
  return v && (DlTime) (GPOINTER_TO_SIZE (v) - 1) > p->now;
}

static Hop *
hop_at (PipePeer *p, guint i)
{
  return &g_array_index (p->hops, Hop, i);
}

static int
hop_of (PipePeer *p, ProtoNodeId server)
{
  for (guint i = 0; i < p->hops->len; i++)
    if (hop_at (p, i)->server == server)
      return (int) i;
  return -1;
}

/* Asks the registry for the servers; with no answer in step_timeout (a
 * message lost across a partition) it asks again. */
static void
lookup (PipePeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_LOOKUP);
  pip_send_server (p, out, &m);
  p->lookup_at = dl_time_add (p->now, p->cfg.step_timeout);
  pip_set_state (p, out, PIPE_PEER_LOOKUP);
}

void
pcl_begin (PipePeer *p, ProtoOutbox *out)
{
  lookup (p, out);
}

/* the right input of hop i for this step, if the client knows it yet */
static gboolean
expected_input (PipePeer *p, guint i, guint32 *in)
{
  if (i == 0)
    {
      *in = pipe_input_hash (p->id, p->step);
      return TRUE;
    }
  Hop *prev = hop_at (p, i - 1);
  *in = prev->res_out;
  return prev->validated;
}

static void validate (PipePeer *p, ProtoOutbox *out, guint i);

/* a session under way: stepping, or repairing a hop */
static gboolean
running (const PipePeer *p)
{
  return p->hops->len > 0
         && (p->state == PIPE_PEER_STEPPING || p->state == PIPE_PEER_LOOKUP || p->state == PIPE_PEER_PINGING
             || p->state == PIPE_PEER_WAIT_SERVERS);
}


/* The input of hop i for this step (hash `in`): the hidden states, or with
 * hash_only the hash alone (client_copy = hash, to a server that gets a
 * push: the chain named it when the hop before it got its input). */
static void
send_step (PipePeer *p, ProtoOutbox *out, guint i, guint32 in, gboolean hash_only)
{
  Hop *h = hop_at (p, i);
  guint tokens = h->stepped ? 1 : p->step + 1;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_STEP);
  m.key = p->id;
  m.round = p->step;
  m.comm_round = in;
  m.nb_participants = tokens;
  m.helper = hash_only;
  if (!hash_only)
    m.weights = pip_hidden (p, tokens);
  m.degree = h->start;
  m.node = h->end;
  if (p->cfg.next_peer)
    {
      g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
      g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint k = i + 1; k < p->hops->len && hop_at (p, k)->stepped; k++)
        {
          Hop *n = hop_at (p, k);
          guint32 span[2] = { n->start, n->end };
          g_array_append_val (chain, n->server);
          g_array_append_vals (spans, span, 2);
        }
      proto_msg_set_peers (&m, (const ProtoNodeId *) (const void *) chain->data, chain->len);
      if (spans->len)
        proto_msg_take_indices (&m, g_memdup2 (spans->data, spans->len * sizeof (guint32)), spans->len);
    }
  if (tokens > 1)
    {
      pip_observe (p, out, PROTO_OBS_NOTE, h->server, PROTO_MSG_PIPE_STEP, tokens,
                   "replays the session's inputs to a new server");
      pip_metric (p, out, "replay_bytes", (int32_t) p->step, (int64_t) proto_msg_wire_size (&m));
    }
  h->deadline = dl_time_add (p->now, p->cfg.step_timeout);
  pip_send_link (p, out, h->server, &m);
}

static void
send_input (PipePeer *p, ProtoOutbox *out, guint i)
{
  Hop *h = hop_at (p, i);
  guint32 in;
  if (h->sent || h->failed || !expected_input (p, i, &in))
    return;
  /* a hop that holds the session was in the chain of the hop before it,
   * so a push is on its way to it */
  gboolean hash_only = p->cfg.next_peer && p->cfg.hash_copy && i > 0 && h->stepped;
  h->sent = TRUE;
  send_step (p, out, i, in, hash_only);
  /* a result from a pushed copy may be here already */
  h = hop_at (p, i);
  if (h->have_result && h->res_in == in)
    validate (p, out, i);
}

/* A server got the hash alone and no push that matches it: the full copy. */
static void
need (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  int i = hop_of (p, from);
  guint32 in;
  if (msg->key != p->id || msg->round != p->step || i < 0 || !running (p) || hop_at (p, (guint) i)->failed
      || hop_at (p, (guint) i)->validated || !expected_input (p, (guint) i, &in))
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                   "a request for a copy of another step or server, or taken already");
      return;
    }
  pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, "sends the full copy");
  pip_metric (p, out, "full_copies_asked", (int32_t) p->step, 1);
  send_step (p, out, (guint) i, in, FALSE);
}

static void
begin_step (PipePeer *p, ProtoOutbox *out)
{
  if (p->step == 0)
    p->session_started = p->now;
  p->step_started = p->now;
  p->step_failed = FALSE;
  for (guint i = 0; i < p->hops->len; i++)
    {
      Hop *h = hop_at (p, i);
      h->sent = h->validated = h->have_result = FALSE;
      h->deadline = DL_TIME_NEVER;
    }
  /* during a repair the state stays the repair's (lookup, pings): the step
   * goes as far as the failed hop and waits there */
  if (!p->repair)
    pip_set_state (p, out, PIPE_PEER_STEPPING);
  send_input (p, out, 0);
}

/* Sends every input that can go now (after a repair). */
static void
kick (PipePeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->hops->len; i++)
    send_input (p, out, i);
}

static int
first_failed (PipePeer *p)
{
  for (guint i = 0; i < p->hops->len; i++)
    if (hop_at (p, i)->failed)
      return (int) i;
  return -1;
}

static void
finish (PipePeer *p, ProtoOutbox *out)
{
  int32_t last = (int32_t) p->cfg.steps - 1;
  pip_metric (p, out, "client_egress_bytes", last, (int64_t) p->egress_bytes);
  pip_metric (p, out, "client_ingress_bytes", last, (int64_t) p->ingress_bytes);
  pip_metric (p, out, "session_s", last, p->now - p->session_started);
  /* Petals' benchmarks/benchmark_inference.py: the steps after the first
   * (warm-up) one over the time they took, in steps per 1000 s (not a
   * name ending in _s, which would read as nanoseconds) */
  if (p->cfg.steps > 1 && p->now > p->warmed_up)
    pip_metric (p, out, "steps_per_ks", last,
                (int64_t) llround ((double) (p->cfg.steps - 1) * 1e12 / (double) (p->now - p->warmed_up)));
  for (guint i = 0; i < p->hops->len; i++)
    {
      Hop *h = hop_at (p, i);
      if (!proto_links_is_up (&p->links, h->server))
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_CLOSE);
      m.key = p->id;
      pip_send_link (p, out, h->server, &m);
    }
  pip_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->cfg.steps, "the session generated every step");
  pip_set_state (p, out, PIPE_PEER_DONE);
}

static void
step_done (PipePeer *p, ProtoOutbox *out)
{
  DlTime took = p->now - p->step_started;
  pip_metric (p, out, "step_latency_s", (int32_t) p->step, took);
  if (p->step_failed)
    pip_metric (p, out, "failure_step_latency_s", (int32_t) p->step, took);
  pip_observe (p, out, PROTO_OBS_ROUND_END, PROTO_NO_NODE, -1, p->hops->len, "step generated");
  p->rounds_done++;
  if (p->step == 0)
    p->warmed_up = p->now;
  p->step++;
  if (p->step >= p->cfg.steps)
    {
      p->step--;   /* observations of the end keep the last step */
      finish (p, out);
      return;
    }
  begin_step (p, out);
}

static void
validate (PipePeer *p, ProtoOutbox *out, guint i)
{
  Hop *h = hop_at (p, i);
  h->validated = TRUE;
  h->stepped = TRUE;
  h->deadline = DL_TIME_NEVER;
  if (i + 1 == p->hops->len)
    {
      step_done (p, out);
      return;
    }
  Hop *next = hop_at (p, i + 1);
  if (!next->sent)
    {
      send_input (p, out, i + 1);
      return;
    }
  /* its input went already (this hop was replaced after it was taken):
   * the result it gave may be the right one */
  if (next->have_result && !next->validated && next->res_in == h->res_out)
    validate (p, out, i + 1);
}

/* ---- routing ---- */

static PipeRouteCost
route_cost (const PipePeer *p)
{
  return (PipeRouteCost) { .block_ns = pipe_block_ns_pessimistic (&p->cfg), .next_peer = p->cfg.next_peer,
                           .family_hint = p->cfg.family_hint };
}

/* Routes blocks [from, to); the hops in *out.  FALSE if a block has no
 * server that is not banned. */
static gboolean
route (PipePeer *p, guint from, guint to, GArray *out)
{
  guint n = p->servers->len;
  g_autofree gboolean *skip = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      PipeServerInfo *s = &g_array_index (p->servers, PipeServerInfo, i);
      skip[i] = banned (p, s->id);
      gpointer v = g_hash_table_lookup (p->rtt, GUINT_TO_POINTER (s->id + 1));
      s->rtt = v ? (DlTime) (GPOINTER_TO_SIZE (v) - 1) : DL_TIME_NEVER;
    }
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (PipeHop));
  PipeRouteCost cost = route_cost (p);
  if (!pipe_route ((const PipeServerInfo *) (const void *) p->servers->data, n, skip, from, to, &cost, path))
    return FALSE;
  g_array_set_size (out, 0);
  for (guint i = 0; i < path->len; i++)
    {
      const PipeHop *ph = &g_array_index (path, PipeHop, i);
      Hop h = { .server = g_array_index (p->servers, PipeServerInfo, ph->server).id, .start = ph->start,
                .end = ph->end, .deadline = DL_TIME_NEVER };
      g_array_append_val (out, h);
    }
  return TRUE;
}

static void
wait_servers (PipePeer *p, ProtoOutbox *out)
{
  pip_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_PIPE_SERVERS, p->backoff / DL_MS,
              "no server for some block: looks up again after the backoff (ms)");
  p->lookup_at = dl_time_add (p->now, p->backoff);
  p->backoff = MIN (2 * p->backoff, PIPE_BACKOFF_MAX_NS);
  pip_set_state (p, out, PIPE_PEER_WAIT_SERVERS);
}

/* With the table and the round trips known: the first chain, or the
 * replacement of a failed hop. */
static void
proceed (PipePeer *p, ProtoOutbox *out)
{
  g_autoptr (GArray) hops = g_array_new (FALSE, TRUE, sizeof (Hop));
  if (!p->repair)
    {
      if (!route (p, 0, p->cfg.pipe_blocks, hops))
        {
          wait_servers (p, out);
          return;
        }
      p->backoff = PIPE_BACKOFF_MIN_NS;
      g_array_set_size (p->hops, 0);
      g_array_append_vals (p->hops, hops->data, hops->len);
      pip_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->hops->len, "route: servers in the chain");
      begin_step (p, out);
      return;
    }
  /* every failed hop, first to last, over the table just read */
  for (int at = first_failed (p); at >= 0; at = first_failed (p))
    {
      Hop lost = *hop_at (p, (guint) at);
      if (!route (p, lost.start, lost.end, hops))
        {
          wait_servers (p, out);
          return;
        }
      g_array_remove_index (p->hops, (guint) at);
      g_array_insert_vals (p->hops, (guint) at, hops->data, hops->len);
      pip_observe (p, out, PROTO_OBS_NOTE, hop_at (p, (guint) at)->server, -1, hops->len,
                   "the lost server's blocks are routed again");
    }
  p->backoff = PIPE_BACKOFF_MIN_NS;
  p->repair = FALSE;
  pip_set_state (p, out, PIPE_PEER_STEPPING);
  kick (p, out);
}

static void
fail_hop (PipePeer *p, ProtoOutbox *out, guint i, const char *why)
{
  Hop *h = hop_at (p, i);
  ProtoNodeId id = h->server;
  g_hash_table_insert (p->banned, GUINT_TO_POINTER (id + 1), GSIZE_TO_POINTER (dl_time_add (p->now, PIPE_BAN_NS) + 1));
  pip_observe (p, out, PROTO_OBS_NOTE, id, PROTO_MSG_PIPE_RESULT, (int64_t) i, why);
  pip_metric (p, out, "replays", (int32_t) p->step, 1);
  p->step_failed = TRUE;
  h->deadline = DL_TIME_NEVER;
  h->failed = TRUE;   /* nothing more goes to it */
  if (proto_links_is_up (&p->links, id))
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_CLOSE);
      m.key = p->id;
      pip_send_link (p, out, id, &m);
    }
  if (p->repair)
    return;   /* the repair under way takes this hop too */
  p->repair = TRUE;
  /* the table it routed over may list servers gone since: read it again
   * (Petals keeps its table fresh from the DHT), then route */
  lookup (p, out);
}

/* ---- inputs ---- */

static void
table (PipePeer *p, ProtoOutbox *out, const ProtoMsg *msg)
{
  pip_observe (p, out, PROTO_OBS_RECEIVED, PROTO_SERVER, (int32_t) msg->type, msg->n_peers, NULL);
  if (p->state != PIPE_PEER_LOOKUP)
    return;
  p->lookup_at = DL_TIME_NEVER;
  g_array_set_size (p->servers, 0);
  for (guint i = 0; i < msg->n_peers && 4 * i + 3 < msg->n_indices; i++)
    {
      const guint32 *q = msg->indices + 4 * i;
      PipeServerInfo s = { .id = msg->peers[i], .start = q[0], .end = q[1], .speed = q[2] / 1000.0,
                           .family = q[3], .rtt = DL_TIME_NEVER };
      g_array_append_val (p->servers, s);
    }
  /* ping the servers whose round trip it does not know */
  p->pings_out = 0;
  for (guint i = 0; i < p->servers->len; i++)
    {
      ProtoNodeId id = g_array_index (p->servers, PipeServerInfo, i).id;
      if (banned (p, id) || g_hash_table_contains (p->rtt, GUINT_TO_POINTER (id + 1)))
        continue;
      /* 0 until it leaves (it may wait for its link): pcl_ping_left */
      g_hash_table_insert (p->ping_sent, GUINT_TO_POINTER (id + 1), GSIZE_TO_POINTER (0));
      p->pings_out++;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_PING);
      m.round = i;
      pip_send_link (p, out, id, &m);
    }
  if (p->pings_out == 0)
    {
      proceed (p, out);
      return;
    }
  p->ping_deadline = dl_time_add (p->now, PIPE_PING_NS);
  pip_set_state (p, out, PIPE_PEER_PINGING);
}

static void
ping_settled (PipePeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (!g_hash_table_remove (p->ping_sent, GUINT_TO_POINTER (id + 1)) || p->pings_out == 0)
    return;
  if (--p->pings_out == 0 && p->state == PIPE_PEER_PINGING)
    {
      p->ping_deadline = DL_TIME_NEVER;
      proceed (p, out);
    }
}

static void
pong (PipePeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  gpointer v = g_hash_table_lookup (p->ping_sent, GUINT_TO_POINTER (from + 1));
  pip_observe (p, out, PROTO_OBS_RECEIVED, from, PROTO_MSG_PIPE_PONG, -1, NULL);
  if (v)
    {
      /* the ping's time is when it left, not when it was queued for the link */
      DlTime rtt = p->now - ((DlTime) GPOINTER_TO_SIZE (v) - 1);
      g_hash_table_insert (p->rtt, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER (rtt + 1));
    }
  ping_settled (p, out, from);
}

static void
result (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  int i = hop_of (p, from);
  if (msg->key != p->id || msg->round != p->step || i < 0 || hop_at (p, (guint) i)->failed || !running (p))
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                  "a result of another step or server: ignored");
      return;
    }
  Hop *h = hop_at (p, (guint) i);
  if (h->validated)
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "a result already taken");
      return;
    }
  pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, NULL);
  h->have_result = TRUE;
  h->res_in = msg->degree;
  h->res_out = msg->comm_round;
  guint32 in;
  if (!expected_input (p, (guint) i, &in))
    return;   /* taken when the hop before it is */
  if (h->res_in == in)
    validate (p, out, (guint) i);
  else
    pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                "a result computed from a wrong pushed copy: waits for the recomputed one");
}

void
pcl_message (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_SERVERS:
      table (p, out, msg);
      return;
    case PROTO_MSG_PIPE_PONG:
      pong (p, out, from);
      return;
    case PROTO_MSG_PIPE_RESULT:
      result (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_NEED:
      need (p, out, from, msg);
      return;
    default:
      pip_observe (p, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
      return;
    }
}

/* the time a ping left: its host send (pipe-peer.c) records it */
void
pcl_ping_left (PipePeer *p, ProtoNodeId to)
{
  if (g_hash_table_contains (p->ping_sent, GUINT_TO_POINTER (to + 1)))
    g_hash_table_insert (p->ping_sent, GUINT_TO_POINTER (to + 1), GSIZE_TO_POINTER (p->now + 1));
}

void
pcl_deadline (PipePeer *p, ProtoOutbox *out)
{
  if (p->state == PIPE_PEER_PINGING && p->now >= p->ping_deadline)
    {
      pip_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_PIPE_PONG, p->pings_out,
                  "pings unanswered: their round trips stay unknown");
      g_hash_table_remove_all (p->ping_sent);
      p->pings_out = 0;
      p->ping_deadline = DL_TIME_NEVER;
      proceed (p, out);
      return;
    }
  if (p->state == PIPE_PEER_WAIT_SERVERS && p->now >= p->lookup_at)
    {
      lookup (p, out);
      return;
    }
  if (p->state == PIPE_PEER_LOOKUP && p->now >= p->lookup_at)
    {
      pip_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_PIPE_SERVERS, -1,
                   "the registry did not answer within step_timeout: looks up again");
      lookup (p, out);
      return;
    }
  if (!running (p))
    return;
  for (guint i = 0; i < p->hops->len; i++)
    {
      Hop *h = hop_at (p, i);
      if (h->sent && !h->validated && !h->failed && p->now >= h->deadline)
        {
          fail_hop (p, out, i, "no result within step_timeout: the server is taken as failed");
          return;
        }
    }
}

void
pcl_link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  if (g_hash_table_contains (p->ping_sent, GUINT_TO_POINTER (other + 1)))
    ping_settled (p, out, other);
  int i = hop_of (p, other);
  if (i < 0 || !running (p) || hop_at (p, (guint) i)->failed)
    return;
  g_autofree char *detail = g_strdup_printf ("its link %s: the server is gone", why);
  fail_hop (p, out, (guint) i, detail);
}

DlTime
pcl_next_deadline (const PipePeer *p)
{
  DlTime d = DL_TIME_NEVER;
  if (p->state == PIPE_PEER_PINGING)
    d = p->ping_deadline;
  if (p->state == PIPE_PEER_WAIT_SERVERS || p->state == PIPE_PEER_LOOKUP)
    d = p->lookup_at;
  if (!running (p))
    return d;
  for (guint i = 0; i < p->hops->len; i++)
    {
      const Hop *h = &g_array_index (p->hops, Hop, i);
      if (h->sent && !h->validated && !h->failed)
        d = MIN (d, h->deadline);
    }
  return d;
}

void
pcl_clear (PipePeer *p)
{
  g_hash_table_remove_all (p->ping_sent);
  p->pings_out = 0;
  p->ping_deadline = DL_TIME_NEVER;
  p->lookup_at = DL_TIME_NEVER;
  p->repair = FALSE;
}
