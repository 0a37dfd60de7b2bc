/* pipe-peer.c — the pipeline peer's machine: its hello and role, its
 * links, a client's session and a server's work (sections below), and
 * what a run records of it.  Every transition of the peer is here, in
 * static handlers; what moved out are leaves that it calls and that never
 * call it back (pipe-peer-private.h): pipe-peer-effects.c (records and
 * sends, the messages it encodes), pipe-peer-records.c (hops, a server's
 * blocks and jobs, clearing, deadlines, the drop rule, construction, the
 * accessors), pipe-peer-route.c (a client's routing over its table) and
 * pipe-peer-sessions.c (a server's sessions as a data structure).  It is
 * longer than 800 lines because one machine with two roles (ten states,
 * thirteen message types) is: the roles share the hello, the links, the
 * state and the records, as ngtcp2_conn.c keeps a client's and a server's
 * transitions in one file.
 *
 * A peer says hello to the registry with what a node knows of its host
 * (its speed, Petals' announced throughput; its region, the family) and
 * is told its role.  Links are the session layer's signalling through the coordinator
 * (protocol/session/session-links.h), as for the other families; a Petals node
 * reaches another over libp2p, possibly through a relay, and that setup
 * is what link_setup stands for. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <math.h>
#include <string.h>

/* ---- the client ----
 *
 * A pipeline client: one inference session of `steps` tokens through a
 * chain of servers (Petals' client/inference_session.py,
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


/* Asks the registry for the servers; with no answer in step_timeout (a
 * message lost across a partition) it asks again. */
static void
lookup (PipePeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_LOOKUP);
  _pipe_peer_send_server (p, out, &m);
  p->lookup_at = dl_time_add (p->now, pipe_config (&p->cfg)->step_timeout);
  _pipe_peer_set_state (p, out, PIPE_PEER_LOOKUP);
}

static void
client_begin (PipePeer *p, ProtoOutbox *out)
{
  lookup (p, out);
}

static void validate (PipePeer *p, ProtoOutbox *out, guint i);


static void
send_input (PipePeer *p, ProtoOutbox *out, guint i)
{
  Hop *h = _pipe_peer_hop_at (p, i);
  guint32 in;
  if (h->sent || h->failed || !_pipe_peer_expected_input (p, i, &in))
    return;
  /* a hop that holds the session was in the chain of the hop before it,
   * so a push is on its way to it */
  const PipeConfig *pc = pipe_config (&p->cfg);
  gboolean hash_only = pc->next_peer && pc->hash_copy && i > 0 && h->stepped;
  h->sent = TRUE;
  _pipe_peer_send_step (p, out, i, in, hash_only);
  /* a result from a pushed copy may be here already */
  h = _pipe_peer_hop_at (p, i);
  if (h->have_result && h->res_in == in)
    validate (p, out, i);
}

/* A server got the hash alone and no push that matches it: the full copy. */
static void
on_need (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  int i = _pipe_peer_hop_of (p, from);
  guint32 in;
  if (msg->key != p->id || msg->round != p->step || i < 0 || !_pipe_peer_running (p) || _pipe_peer_hop_at (p, (guint) i)->failed
      || _pipe_peer_hop_at (p, (guint) i)->validated || !_pipe_peer_expected_input (p, (guint) i, &in))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                          "a request for a copy of another step or server, or taken already");
      return;
    }
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, "sends the full copy");
  _pipe_peer_metric (p, out, "full_copies_asked", (int32_t) p->step, 1);
  _pipe_peer_send_step (p, out, (guint) i, in, FALSE);
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
      Hop *h = _pipe_peer_hop_at (p, i);
      h->sent = h->validated = h->have_result = FALSE;
      h->deadline = DL_TIME_NEVER;
    }
  /* during a repair the state stays the repair's (lookup, pings): the step
   * goes as far as the failed hop and waits there */
  if (!p->repair)
    _pipe_peer_set_state (p, out, PIPE_PEER_STEPPING);
  send_input (p, out, 0);
}

/* Sends every input that can go now (after a repair). */
static void
kick (PipePeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->hops->len; i++)
    send_input (p, out, i);
}

static void
finish (PipePeer *p, ProtoOutbox *out)
{
  guint steps = pipe_config (&p->cfg)->steps;
  int32_t last = (int32_t) steps - 1;
  _pipe_peer_metric (p, out, "client_egress_bytes", last, (int64_t) p->egress_bytes);
  _pipe_peer_metric (p, out, "client_ingress_bytes", last, (int64_t) p->ingress_bytes);
  _pipe_peer_metric (p, out, "session_s", last, p->now - p->session_started);
  /* Petals' benchmarks/benchmark_inference.py: the steps after the first
   * (warm-up) one over the time they took, in steps per 1000 s (not a
   * name ending in _s, which would read as nanoseconds) */
  if (steps > 1 && p->now > p->warmed_up)
    _pipe_peer_metric (p, out, "steps_per_ks", last,
                       (int64_t) llround ((double) (steps - 1) * 1e12 / (double) (p->now - p->warmed_up)));
  for (guint i = 0; i < p->hops->len; i++)
    {
      Hop *h = _pipe_peer_hop_at (p, i);
      if (!proto_links_is_up (&p->links, h->server))
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_CLOSE);
      m.key = p->id;
      _pipe_peer_send_link (p, out, h->server, &m);
    }
  _pipe_peer_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, pipe_config (&p->cfg)->steps, "the session generated every step");
  _pipe_peer_set_state (p, out, PIPE_PEER_DONE);
}

static void
step_done (PipePeer *p, ProtoOutbox *out)
{
  DlTime took = p->now - p->step_started;
  _pipe_peer_metric (p, out, "step_latency_s", (int32_t) p->step, took);
  if (p->step_failed)
    _pipe_peer_metric (p, out, "failure_step_latency_s", (int32_t) p->step, took);
  _pipe_peer_observe (p, out, PROTO_OBS_ROUND_END, PROTO_NO_NODE, -1, p->hops->len, "step generated");
  p->base.rounds_done++;
  if (p->step == 0)
    p->warmed_up = p->now;
  p->step++;
  if (p->step >= pipe_config (&p->cfg)->steps)
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
  Hop *h = _pipe_peer_hop_at (p, i);
  h->validated = TRUE;
  h->stepped = TRUE;
  h->deadline = DL_TIME_NEVER;
  if (i + 1 == p->hops->len)
    {
      step_done (p, out);
      return;
    }
  Hop *next = _pipe_peer_hop_at (p, i + 1);
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

static void
wait_servers (PipePeer *p, ProtoOutbox *out)
{
  _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_PIPE_SERVERS, p->backoff / DL_MS,
                     "no server for some block: looks up again after the backoff (ms)");
  p->lookup_at = dl_time_add (p->now, p->backoff);
  p->backoff = MIN (2 * p->backoff, PIPE_BACKOFF_MAX_NS);
  _pipe_peer_set_state (p, out, PIPE_PEER_WAIT_SERVERS);
}

/* With the table and the round trips known: the first chain, or the
 * replacement of a failed hop. */
static void
proceed (PipePeer *p, ProtoOutbox *out)
{
  g_autoptr (GArray) hops = g_array_new (FALSE, TRUE, sizeof (Hop));
  if (!p->repair)
    {
      if (!_pipe_peer_route (p, 0, pipe_config (&p->cfg)->blocks, hops))
        {
          wait_servers (p, out);
          return;
        }
      p->backoff = PIPE_BACKOFF_MIN_NS;
      g_array_set_size (p->hops, 0);
      g_array_append_vals (p->hops, hops->data, hops->len);
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->hops->len, "route: servers in the chain");
      begin_step (p, out);
      return;
    }
  /* every failed hop, first to last, over the table just read */
  for (int at = _pipe_peer_first_failed (p); at >= 0; at = _pipe_peer_first_failed (p))
    {
      Hop lost = *_pipe_peer_hop_at (p, (guint) at);
      if (!_pipe_peer_route (p, lost.start, lost.end, hops))
        {
          wait_servers (p, out);
          return;
        }
      g_array_remove_index (p->hops, (guint) at);
      g_array_insert_vals (p->hops, (guint) at, hops->data, hops->len);
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, _pipe_peer_hop_at (p, (guint) at)->server, -1, hops->len,
                          "the lost server's blocks are routed again");
    }
  p->backoff = PIPE_BACKOFF_MIN_NS;
  p->repair = FALSE;
  _pipe_peer_set_state (p, out, PIPE_PEER_STEPPING);
  kick (p, out);
}

static void
fail_hop (PipePeer *p, ProtoOutbox *out, guint i, const char *why)
{
  Hop *h = _pipe_peer_hop_at (p, i);
  ProtoNodeId id = h->server;
  g_hash_table_insert (p->banned, GUINT_TO_POINTER (id + 1), GSIZE_TO_POINTER (dl_time_add (p->now, PIPE_BAN_NS) + 1));
  _pipe_peer_observe (p, out, PROTO_OBS_NOTE, id, PROTO_MSG_PIPE_RESULT, (int64_t) i, why);
  _pipe_peer_metric (p, out, "replays", (int32_t) p->step, 1);
  p->step_failed = TRUE;
  h->deadline = DL_TIME_NEVER;
  h->failed = TRUE;   /* nothing more goes to it */
  if (proto_links_is_up (&p->links, id))
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_CLOSE);
      m.key = p->id;
      _pipe_peer_send_link (p, out, id, &m);
    }
  else if (proto_links_get (&p->links, id, NULL))
    {
      /* a link that never came up (its offer or answer was lost, or the
       * server dropped it before it knew its role): the next route to the
       * server opens a new one instead of queueing behind it for good */
      _pipe_peer_observe (p, out, PROTO_OBS_LINK, id, -1, -1, "never came up: dropped");
      proto_links_lost (&p->links, out, id);
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
on_servers (PipePeer *p, ProtoOutbox *out, const ProtoMsg *msg)
{
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, PROTO_SERVER, (int32_t) msg->type, msg->n_peers, NULL);
  if (p->base.state != PIPE_PEER_LOOKUP)
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
      if (_pipe_peer_banned (p, id) || g_hash_table_contains (p->rtt, GUINT_TO_POINTER (id + 1)))
        continue;
      /* 0 until it leaves (it may wait for its link): _pipe_peer_send */
      g_hash_table_insert (p->ping_sent, GUINT_TO_POINTER (id + 1), GSIZE_TO_POINTER (0));
      p->pings_out++;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_PING);
      m.round = i;
      _pipe_peer_send_link (p, out, id, &m);
    }
  if (p->pings_out == 0)
    {
      proceed (p, out);
      return;
    }
  p->ping_deadline = dl_time_add (p->now, PIPE_PING_NS);
  _pipe_peer_set_state (p, out, PIPE_PEER_PINGING);
}

static void
ping_settled (PipePeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (!g_hash_table_remove (p->ping_sent, GUINT_TO_POINTER (id + 1)) || p->pings_out == 0)
    return;
  if (--p->pings_out == 0 && p->base.state == PIPE_PEER_PINGING)
    {
      p->ping_deadline = DL_TIME_NEVER;
      proceed (p, out);
    }
}

static void
on_pong (PipePeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  gpointer v = g_hash_table_lookup (p->ping_sent, GUINT_TO_POINTER (from + 1));
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, PROTO_MSG_PIPE_PONG, -1, NULL);
  if (v)
    {
      /* the ping's time is when it left, not when it was queued for the link */
      DlTime rtt = p->now - ((DlTime) GPOINTER_TO_SIZE (v) - 1);
      g_hash_table_insert (p->rtt, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER (rtt + 1));
    }
  ping_settled (p, out, from);
}

static void
on_result (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  int i = _pipe_peer_hop_of (p, from);
  if (msg->key != p->id || msg->round != p->step || i < 0 || _pipe_peer_hop_at (p, (guint) i)->failed || !_pipe_peer_running (p))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                         "a result of another step or server: ignored");
      return;
    }
  Hop *h = _pipe_peer_hop_at (p, (guint) i);
  if (h->validated)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "a result already taken");
      return;
    }
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, NULL);
  h->have_result = TRUE;
  h->res_in = msg->degree;
  h->res_out = msg->comm_round;
  guint32 in;
  if (!_pipe_peer_expected_input (p, (guint) i, &in))
    return;   /* taken when the hop before it is */
  if (h->res_in == in)
    validate (p, out, (guint) i);
  else
    _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                       "a result computed from a wrong pushed copy: waits for the recomputed one");
}

static void
client_message (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_SERVERS:
      on_servers (p, out, msg);
      return;
    case PROTO_MSG_PIPE_PONG:
      on_pong (p, out, from);
      return;
    case PROTO_MSG_PIPE_RESULT:
      on_result (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_NEED:
      on_need (p, out, from, msg);
      return;
    default:
      _pipe_peer_observe (p, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
      return;
    }
}

static void
client_deadline (PipePeer *p, ProtoOutbox *out)
{
  if (p->base.state == PIPE_PEER_PINGING && p->now >= p->ping_deadline)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_PIPE_PONG, p->pings_out,
                         "pings unanswered: their round trips stay unknown");
      g_hash_table_remove_all (p->ping_sent);
      p->pings_out = 0;
      p->ping_deadline = DL_TIME_NEVER;
      proceed (p, out);
      return;
    }
  if (p->base.state == PIPE_PEER_WAIT_SERVERS && p->now >= p->lookup_at)
    {
      lookup (p, out);
      return;
    }
  if (p->base.state == PIPE_PEER_LOOKUP && p->now >= p->lookup_at)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_PIPE_SERVERS, -1,
                          "the registry did not answer within step_timeout: looks up again");
      lookup (p, out);
      return;
    }
  if (!_pipe_peer_running (p))
    return;
  for (guint i = 0; i < p->hops->len; i++)
    {
      Hop *h = _pipe_peer_hop_at (p, i);
      if (h->sent && !h->validated && !h->failed && p->now >= h->deadline)
        {
          fail_hop (p, out, i, "no result within step_timeout: the server is taken as failed");
          return;
        }
    }
}

static void
client_link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  if (g_hash_table_contains (p->ping_sent, GUINT_TO_POINTER (other + 1)))
    ping_settled (p, out, other);
  int i = _pipe_peer_hop_of (p, other);
  if (i < 0 || !_pipe_peer_running (p) || _pipe_peer_hop_at (p, (guint) i)->failed)
    return;
  g_autofree char *detail = g_strdup_printf ("its link %s: the server is gone", why);
  fail_hop (p, out, (guint) i, detail);
}

/* ---- the server ----
 *
 * A pipeline server: the sessions it holds, its compute queue, and the
 * next-peer proposal's push and check (README.md).
 *
 * A session opens with the client's first PipeStep (Petals' rpc_inference
 * stream) and closes with PipeClose or the client's link.  Requests run
 * one at a time in arrival order (one GPU); a request of n tokens on
 * blocks [start, end) takes n x (end - start) x a draw of
 * compute_per_block / speed, the draw from the peer's own stream.
 *
 * Next-peer (Petals' rpc_push, server/handler.py _push_outputs): a
 * finished step also goes, fire-and-forget, to the first server of the
 * chain the request named, with the rest of the chain.  The next server
 * starts on whichever copy comes first, the pushed or the client's, as
 * Petals' _iterate_inference_steps does; a push for a session it does not
 * hold is ignored (_put_into_session_queue), and so is a push for a step
 * it already has.  The proposal adds the check Petals does not make: when
 * the client's copy comes after an early start, its hash is compared with
 * the pushed one's; if they differ the early work is thrown away and the
 * step is computed again from the client's copy, and both are recorded.
 * The result goes to the client as soon as it is computed, tagged with
 * the hash of the input it came from, so the client can tell a result of
 * a wrong push from the right one.
 *
 * A faulty server (faulty_share) pushes a wrong result and returns the
 * right one to the client: what the check can catch.  Not modelled:
 * batching several sessions' requests together, a server's memory for
 * session caches, and the `slow` timeline action (it changes the world's
 * training speed, not a server's; use [peers] speed and stragglers). */


static void
start_next (PipePeer *p, ProtoOutbox *out)
{
  while (!p->running && !g_queue_is_empty (&p->jobs))
    {
      Job *j = g_queue_pop_head (&p->jobs);
      if (!_pipe_peer_job_wanted (p, j))
        {
          _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_PIPE_STEP, j->step,
                             "a queued computation no longer wanted: dropped");
          g_free (j);
          continue;
        }
      double per_block = (double) dl_dist_sample_time (&pipe_config (&p->cfg)->compute_per_block, p->rng);
      double ns = per_block * (double) (j->end - j->start) * (double) j->tokens / p->speed;
      p->running = j;
      p->compute_done = dl_time_add (p->now, (DlTime) llround (ns));
      _pipe_peer_set_state (p, out, PIPE_PEER_COMPUTING);
    }
  if (!p->running)
    _pipe_peer_set_state (p, out, PIPE_PEER_SERVING);
}

static void
queue_job (PipePeer *p, ProtoOutbox *out, guint64 key, const StepWork *w)
{
  Job *j = g_new0 (Job, 1);
  *j = (Job) { .key = key, .step = w->step, .in = w->job_in, .tokens = w->tokens, .start = w->start, .end = w->end };
  g_queue_push_tail (&p->jobs, j);
  start_next (p, out);
}

/* PipeStep: the client's copy of a step's input (or its hash alone): it
 * computes, unless it did from an early push */
static void
on_step (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!_pipe_peer_serves (p, msg))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "blocks it does not serve");
      return;
    }
  Session *s = _pipe_peer_session_of (p, out, from, msg);
  StepWork *w = _pipe_peer_work_for (s, msg->round, TRUE);
  gboolean hash_only = msg->helper;
  /* a full copy after the hash alone (asked for) is the step's data */
  gboolean full_after_hash = w->have_copy && w->copy_hash_only && !hash_only;
  if (w->have_copy && !full_after_hash)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "a second copy of a step: ignored");
      return;
    }
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, hash_only ? "its hash alone" : NULL);
  s->copies_upto = MAX (s->copies_upto, msg->round + 1);
  if (!w->have_copy)
    {
      w->have_copy = TRUE;
      w->copy_in = msg->comm_round;
      w->tokens = msg->nb_participants;
      _pipe_peer_work_set_chain (w, msg);
    }
  w->copy_hash_only = hash_only;
  if (w->job && w->job_early)
    {
      if (w->job_in == w->copy_in)
        {
          _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                              "the pushed copy was the client's: early start used");
          _pipe_peer_metric (p, out, "early_starts_used", (int32_t) msg->round, 1);
          w->job_early = FALSE;
          return;
        }
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                          "the pushed copy differs from the client's: early work thrown away, computed again");
      _pipe_peer_metric (p, out, "early_starts_wasted", (int32_t) msg->round, 1);
      _pipe_peer_metric (p, out, "recomputations", (int32_t) msg->round, 1);
      w->job = FALSE;   /* the running or queued early work is thrown away */
      w->done = FALSE;
    }
  else if (w->job)
    return;   /* computed or computing from the client's copy, or a push its hash vouched for */
  if (w->copy_hash_only)
    {
      /* the hash alone, and no push with that hash: the hidden states, please */
      ProtoMsg r;
      proto_msg_init (&r, PROTO_MSG_PIPE_NEED);
      r.key = s->key;
      r.round = msg->round;
      _pipe_peer_send_link (p, out, s->client, &r);
      return;
    }
  w->job = TRUE;
  w->job_early = FALSE;
  w->done = FALSE;
  w->job_in = w->copy_in;
  queue_job (p, out, s->key, w);
}

static void
on_push (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!_pipe_peer_serves (p, msg))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "blocks it does not serve");
      return;
    }
  Session *s = _pipe_peer_session_find (p, msg->key, NULL);
  if (!s)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                         "a push for a session it does not hold: ignored");
      _pipe_peer_metric (p, out, "pushes_ignored", (int32_t) msg->round, 1);
      return;
    }
  StepWork *w = _pipe_peer_work_for (s, msg->round, FALSE);
  if (!w && msg->round < s->copies_upto)
    {
      /* the step was done from the client's copy (and forgotten) */
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                          "the push came after the client's copy: ignored");
      _pipe_peer_metric (p, out, "late_pushes", (int32_t) msg->round, 1);
      return;
    }
  if (!w)
    w = _pipe_peer_work_for (s, msg->round, TRUE);
  if (!w->job && w->have_copy && w->copy_hash_only && msg->comm_round == w->copy_in)
    {
      /* the client's hash came first and vouches for this push: its data */
      _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round,
                          "the push matches the client's hash: computed from it");
      _pipe_peer_metric (p, out, "early_starts_used", (int32_t) msg->round, 1);
      w->job = TRUE;
      w->job_early = FALSE;
      w->done = FALSE;
      w->job_in = msg->comm_round;
      queue_job (p, out, s->key, w);
      return;
    }
  if (w->job || w->have_copy)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                         "the push came after the client's copy: ignored");
      _pipe_peer_metric (p, out, "late_pushes", (int32_t) msg->round, 1);
      return;
    }
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, "early start");
  w->job = TRUE;
  w->job_early = TRUE;
  w->job_in = msg->comm_round;
  w->tokens = msg->nb_participants;
  _pipe_peer_work_set_chain (w, msg);
  queue_job (p, out, s->key, w);
}

/* PipePing: answered with a PipePong of its round */
static void
on_ping (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_PIPE_PONG);
  r.round = msg->round;
  _pipe_peer_send_link (p, out, from, &r);
}

/* PipeClose: the client's session ends */
static void
on_close (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  guint at;
  if (!_pipe_peer_session_find (p, msg->key, &at))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1, "close of no session");
      return;
    }
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, "session closed");
  _pipe_peer_session_remove (p, at);
}

static void
server_message (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_PING:
      on_ping (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_STEP:
      on_step (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_PUSH:
      on_push (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_CLOSE:
      on_close (p, out, from, msg);
      return;
    default:
      _pipe_peer_observe (p, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
      return;
    }
}

/* The running computation is over. */
static void
server_deadline (PipePeer *p, ProtoOutbox *out)
{
  if (!p->running || p->now < p->compute_done)
    return;
  g_autofree Job *j = g_steal_pointer (&p->running);
  p->compute_done = DL_TIME_NEVER;
  StepWork *w = _pipe_peer_job_wanted (p, j);
  if (!w)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_PIPE_STEP, j->step,
                         "its input proved wrong or its session closed: result thrown away");
      start_next (p, out);
      return;
    }
  Session *s = _pipe_peer_session_find (p, j->key, NULL);
  w->done = TRUE;
  w->job_out = pipe_blocks_hash (j->in, j->start, j->end);
  p->base.rounds_done++;
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_PIPE_RESULT);
  r.key = j->key;
  r.round = j->step;
  r.comm_round = w->job_out;
  r.degree = j->in;
  r.nb_participants = j->tokens;
  r.weights = _pipe_peer_hidden (p, j->tokens);
  _pipe_peer_send_link (p, out, s->client, &r);
  if (w->chain && w->chain->len > 0 && !w->pushed)
    {
      w->pushed = TRUE;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PIPE_PUSH);
      m.key = j->key;
      m.round = j->step;
      m.comm_round = p->faulty ? w->job_out ^ 0xa5a5a5a5u : w->job_out;
      /* the next server holds the session (a chain names only servers that
       * stepped): it needs the new token only, even after a replay here */
      m.nb_participants = 1;
      const ChainHop *next = &g_array_index (w->chain, ChainHop, 0);
      m.degree = next->start;
      m.node = next->end;
      guint rest = w->chain->len - 1;
      g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, MAX (rest, 1));
      guint32 *spans = g_new (guint32, MAX (2 * rest, 1));
      for (guint k = 0; k < rest; k++)
        {
          const ChainHop *h = &g_array_index (w->chain, ChainHop, k + 1);
          ids[k] = h->id;
          spans[2 * k] = h->start;
          spans[2 * k + 1] = h->end;
        }
      proto_msg_set_peers (&m, ids, rest);
      proto_msg_take_indices (&m, spans, 2 * rest);
      m.weights = _pipe_peer_hidden (p, 1);
      _pipe_peer_metric (p, out, "server_to_server_bytes", (int32_t) j->step, (int64_t) proto_msg_wire_size (&m));
      _pipe_peer_send_link (p, out, next->id, &m);
    }
  start_next (p, out);
}

static void
server_link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  for (guint i = 0; i < p->sessions->len;)
    if (g_array_index (p->sessions, Session, i).client == other)
      {
        _pipe_peer_observe (p, out, PROTO_OBS_NOTE, other, -1, -1, "the client's link is gone: session closed");
        _pipe_peer_session_remove (p, i);
      }
    else
      i++;
}

/* ---- the peer: hello, role, dispatch ---- */

/* ---- messages ---- */

static void
on_role (PipePeer *p, ProtoOutbox *out, const ProtoMsg *msg)
{
  if (p->role_known || p->base.state != PIPE_PEER_CONNECTING)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_REJECTED, PROTO_SERVER, (int32_t) msg->type, -1, "a second role: ignored");
      return;
    }
  p->role_known = TRUE;
  p->id = msg->node;
  p->links.self = msg->node;
  p->is_server = msg->helper;
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, PROTO_SERVER, (int32_t) msg->type, -1, p->is_server ? "server" : "client");
  if (p->is_server)
    {
      p->start = msg->round;
      p->end = msg->comm_round;
      /* a faulty server is a property of the node, drawn once from its stream */
      double faulty_share = pipe_config (&p->cfg)->faulty_share;
      p->faulty = faulty_share > 0 && dl_random_bernoulli (p->rng, faulty_share);
      if (p->faulty)
        _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, "faulty: its pushes are wrong");
      _pipe_peer_set_state (p, out, PIPE_PEER_SERVING);
    }
  else
    client_begin (p, out);
}

/* a link's signalling, relayed by the coordinator */
static void
on_signal (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  _pipe_peer_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  proto_links_signal (&p->links, out, msg);
}

static void
handle_message (PipePeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES || !_pipe_peer_listens (p, msg->type))
    {
      _pipe_peer_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  p->base.received[msg->type]++;
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_ROLE:
      on_role (p, out, msg);
      return;
    case PROTO_MSG_SIGNAL:
      on_signal (p, out, in->from, msg);
      return;
    default:
      break;
    }
  if (p->is_server)
    server_message (p, out, in->from, msg);
  else
    {
      if (in->via == PROTO_VIA_LINK)
        p->ingress_bytes += proto_msg_wire_size (msg);
      client_message (p, out, in->from, msg);
    }
}

static void
link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  if (!proto_links_get (&p->links, other, NULL))
    return;
  _pipe_peer_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  if (p->is_server)
    server_link_lost (p, out, other);
  else
    client_link_lost (p, out, other, why);
}

static void
on_start (PipePeer *p, ProtoOutbox *out)
{
  if (p->base.state != PIPE_PEER_IDLE)
    return;
  p->base.connected = TRUE;
  _pipe_peer_hello (p, out);
  _pipe_peer_set_state (p, out, PIPE_PEER_CONNECTING);
}

/* no role yet: hello again; else the server's or the client's timers */
static void
on_deadline (PipePeer *p, DlTime now, ProtoOutbox *out)
{
  if (!p->base.connected)
    return;
  if (!p->role_known && now >= p->hello_again)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_PIPE_ROLE, -1,
                          "no role within step_timeout: hello again");
      _pipe_peer_hello (p, out);
    }
  else if (p->is_server)
    server_deadline (p, out);
  else if (p->role_known)
    client_deadline (p, out);
}

/* it leaves, or the coordinator's stream closed */
static void
on_leave (PipePeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  if (!p->base.connected)
    return;
  proto_links_close_all (&p->links, out);
  if (in->kind == PROTO_IN_LEAVE)
    proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
  p->base.connected = FALSE;
  _pipe_peer_server_clear (p);
  _pipe_peer_client_clear (p);
  _pipe_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
                     in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
  _pipe_peer_set_state (p, out, PIPE_PEER_LEFT);
}

static void
pipe_peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  PipePeer *p = impl;
  p->now = now;
  DlTime before = _pipe_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (p, out);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, in, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (p, now, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      break;   /* a pipeline peer never trains */
    case PROTO_IN_LINK_UP:
      if (proto_links_get (&p->links, in->from, NULL))
        proto_links_up (&p->links, out, in->from);
      break;
    case PROTO_IN_LINK_FAILED:
      link_lost (p, out, in->from, "failed");
      break;
    case PROTO_IN_LINK_CLOSED:
      link_lost (p, out, in->from, "closed");
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      on_leave (p, in, out);
      break;
    }
  DlTime after = _pipe_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

/* ---- the machine (proto-machine.h) ---- */

/* no model: hidden states are sizes and hashes (README.md) */
static const ProtoMachineClass peer_class = {
  .handle = pipe_peer_handle,
  .next_deadline = _pipe_peer_next_deadline,
  .listens = _pipe_peer_class_listens,
  .view = _pipe_peer_view,
  .free = _pipe_peer_free,
};

ProtoMachine *
pipe_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  PipePeer *p = g_new0 (PipePeer, 1);
  proto_machine_base_init (&p->base, _pipe_peer_state_names, PIPE_PEER_IDLE);
  _pipe_peer_init (p, cfg, env);
  _pipe_peer_links_init (p);
  return proto_machine_new (&peer_class, &p->base);
}
