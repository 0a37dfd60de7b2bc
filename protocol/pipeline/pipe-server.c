/* pipe-server.c — a pipeline server: the sessions it holds, its compute
 * queue, and the next-peer proposal's push and check (README.md).
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
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <math.h>

static Session *
find_session (PipePeer *p, guint64 key, guint *at)
{
  for (guint i = 0; i < p->sessions->len; i++)
    {
      Session *s = &g_array_index (p->sessions, Session, i);
      if (s->key == key)
        {
          if (at)
            *at = i;
          return s;
        }
    }
  return NULL;
}

static void
work_clear (StepWork *w)
{
  g_clear_pointer (&w->chain, g_array_unref);
}

static void
session_remove (PipePeer *p, guint at)
{
  Session *s = &g_array_index (p->sessions, Session, at);
  for (guint i = 0; i < s->steps->len; i++)
    work_clear (&g_array_index (s->steps, StepWork, i));
  g_array_unref (s->steps);
  g_array_remove_index (p->sessions, at);
}

static StepWork *
work_for (Session *s, guint32 step, gboolean create)
{
  for (guint i = 0; i < s->steps->len; i++)
    if (g_array_index (s->steps, StepWork, i).step == step)
      return &g_array_index (s->steps, StepWork, i);
  if (!create)
    return NULL;
  /* the steps a session no longer needs: finished and four steps back */
  for (guint i = 0; i < s->steps->len;)
    {
      StepWork *w = &g_array_index (s->steps, StepWork, i);
      if (w->done && w->step + 4 < step)
        {
          work_clear (w);
          g_array_remove_index (s->steps, i);
        }
      else
        i++;
    }
  StepWork w = { .step = step };
  g_array_append_val (s->steps, w);
  return &g_array_index (s->steps, StepWork, s->steps->len - 1);
}

/* What a request or a push says of this step: the blocks to run and the
 * servers after this one (the message was checked: a span per server). */
static void
set_chain (StepWork *w, const ProtoMsg *msg)
{
  g_clear_pointer (&w->chain, g_array_unref);
  w->chain = g_array_new (FALSE, FALSE, sizeof (ChainHop));
  for (guint i = 0; i < msg->n_peers && 2 * i + 1 < msg->n_indices; i++)
    {
      ChainHop h = { msg->peers[i], msg->indices[2 * i], msg->indices[2 * i + 1] };
      g_array_append_val (w->chain, h);
    }
  w->start = msg->degree;
  w->end = msg->node;
}

/* Does this server hold blocks [msg->degree, msg->node)? */
static gboolean
serves (const PipePeer *p, const ProtoMsg *msg)
{
  return msg->degree >= p->start && msg->node <= p->end && msg->degree < msg->node;
}

/* Is this queued or running job still the one its step wants? */
static StepWork *
job_wanted (PipePeer *p, const Job *j)
{
  Session *s = find_session (p, j->key, NULL);
  StepWork *w = s ? work_for (s, j->step, FALSE) : NULL;
  return w && w->job && !w->done && w->job_in == j->in ? w : NULL;
}

static void
start_next (PipePeer *p, ProtoOutbox *out)
{
  while (!p->running && !g_queue_is_empty (&p->jobs))
    {
      Job *j = g_queue_pop_head (&p->jobs);
      if (!job_wanted (p, j))
        {
          pip_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_PIPE_STEP, j->step,
                      "a queued computation no longer wanted: dropped");
          g_free (j);
          continue;
        }
      double per_block = (double) dl_dist_sample_time (&p->cfg.compute_per_block, p->rng);
      double ns = per_block * (double) (j->end - j->start) * (double) j->tokens / p->speed;
      p->running = j;
      p->compute_done = dl_time_add (p->now, (DlTime) llround (ns));
      pip_set_state (p, out, PIPE_PEER_COMPUTING);
    }
  if (!p->running)
    pip_set_state (p, out, PIPE_PEER_SERVING);
}

static void
queue_job (PipePeer *p, ProtoOutbox *out, guint64 key, const StepWork *w)
{
  Job *j = g_new0 (Job, 1);
  *j = (Job) { .key = key, .step = w->step, .in = w->job_in, .tokens = w->tokens, .start = w->start, .end = w->end };
  g_queue_push_tail (&p->jobs, j);
  start_next (p, out);
}

static void
client_step (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!serves (p, msg))
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "blocks it does not serve");
      return;
    }
  Session *s = find_session (p, msg->key, NULL);
  if (!s)
    {
      Session n = { .key = msg->key, .client = from, .steps = g_array_new (FALSE, TRUE, sizeof (StepWork)) };
      g_array_append_val (p->sessions, n);
      s = &g_array_index (p->sessions, Session, p->sessions->len - 1);
      pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->nb_participants,
                  msg->nb_participants > 1 ? "session opened by a replay of the client's inputs" : "session opened");
    }
  StepWork *w = work_for (s, msg->round, TRUE);
  gboolean hash_only = msg->helper;
  /* a full copy after the hash alone (asked for) is the step's data */
  gboolean full_after_hash = w->have_copy && w->copy_hash_only && !hash_only;
  if (w->have_copy && !full_after_hash)
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "a second copy of a step: ignored");
      return;
    }
  pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, hash_only ? "its hash alone" : NULL);
  s->copies_upto = MAX (s->copies_upto, msg->round + 1);
  if (!w->have_copy)
    {
      w->have_copy = TRUE;
      w->copy_in = msg->comm_round;
      w->tokens = msg->nb_participants;
      set_chain (w, msg);
    }
  w->copy_hash_only = hash_only;
  if (w->job && w->job_early)
    {
      if (w->job_in == w->copy_in)
        {
          pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                       "the pushed copy was the client's: early start used");
          pip_metric (p, out, "early_starts_used", (int32_t) msg->round, 1);
          w->job_early = FALSE;
          return;
        }
      pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                   "the pushed copy differs from the client's: early work thrown away, computed again");
      pip_metric (p, out, "early_starts_wasted", (int32_t) msg->round, 1);
      pip_metric (p, out, "recomputations", (int32_t) msg->round, 1);
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
      pip_send_link (p, out, s->client, &r);
      return;
    }
  w->job = TRUE;
  w->job_early = FALSE;
  w->done = FALSE;
  w->job_in = w->copy_in;
  queue_job (p, out, s->key, w);
}

static void
push (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!serves (p, msg))
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "blocks it does not serve");
      return;
    }
  Session *s = find_session (p, msg->key, NULL);
  if (!s)
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                  "a push for a session it does not hold: ignored");
      pip_metric (p, out, "pushes_ignored", (int32_t) msg->round, 1);
      return;
    }
  StepWork *w = work_for (s, msg->round, FALSE);
  if (!w && msg->round < s->copies_upto)
    {
      /* the step was done from the client's copy (and forgotten) */
      pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                   "the push came after the client's copy: ignored");
      pip_metric (p, out, "late_pushes", (int32_t) msg->round, 1);
      return;
    }
  if (!w)
    w = work_for (s, msg->round, TRUE);
  if (!w->job && w->have_copy && w->copy_hash_only && msg->comm_round == w->copy_in)
    {
      /* the client's hash came first and vouches for this push: its data */
      pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round,
                   "the push matches the client's hash: computed from it");
      pip_metric (p, out, "early_starts_used", (int32_t) msg->round, 1);
      w->job = TRUE;
      w->job_early = FALSE;
      w->done = FALSE;
      w->job_in = msg->comm_round;
      queue_job (p, out, s->key, w);
      return;
    }
  if (w->job || w->have_copy)
    {
      pip_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->round,
                  "the push came after the client's copy: ignored");
      pip_metric (p, out, "late_pushes", (int32_t) msg->round, 1);
      return;
    }
  pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, "early start");
  w->job = TRUE;
  w->job_early = TRUE;
  w->job_in = msg->comm_round;
  w->tokens = msg->nb_participants;
  set_chain (w, msg);
  queue_job (p, out, s->key, w);
}

void
psv_message (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_PING:
      {
        pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
        ProtoMsg r;
        proto_msg_init (&r, PROTO_MSG_PIPE_PONG);
        r.round = msg->round;
        pip_send_link (p, out, from, &r);
        return;
      }
    case PROTO_MSG_PIPE_STEP:
      client_step (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_PUSH:
      push (p, out, from, msg);
      return;
    case PROTO_MSG_PIPE_CLOSE:
      {
        guint at;
        if (!find_session (p, msg->key, &at))
          {
            pip_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1, "close of no session");
            return;
          }
        pip_observe (p, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, "session closed");
        session_remove (p, at);
        return;
      }
    default:
      pip_observe (p, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
      return;
    }
}

/* The running computation is over. */
void
psv_deadline (PipePeer *p, ProtoOutbox *out)
{
  if (!p->running || p->now < p->compute_done)
    return;
  g_autofree Job *j = g_steal_pointer (&p->running);
  p->compute_done = DL_TIME_NEVER;
  StepWork *w = job_wanted (p, j);
  if (!w)
    {
      pip_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_PIPE_STEP, j->step,
                  "its input proved wrong or its session closed: result thrown away");
      start_next (p, out);
      return;
    }
  Session *s = find_session (p, j->key, NULL);
  w->done = TRUE;
  w->job_out = pipe_blocks_hash (j->in, j->start, j->end);
  p->rounds_done++;
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_PIPE_RESULT);
  r.key = j->key;
  r.round = j->step;
  r.comm_round = w->job_out;
  r.degree = j->in;
  r.nb_participants = j->tokens;
  r.weights = pip_hidden (p, j->tokens);
  pip_send_link (p, out, s->client, &r);
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
      m.weights = pip_hidden (p, 1);
      pip_metric (p, out, "server_to_server_bytes", (int32_t) j->step, (int64_t) proto_msg_wire_size (&m));
      pip_send_link (p, out, next->id, &m);
    }
  start_next (p, out);
}

void
psv_link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  for (guint i = 0; i < p->sessions->len;)
    if (g_array_index (p->sessions, Session, i).client == other)
      {
        pip_observe (p, out, PROTO_OBS_NOTE, other, -1, -1, "the client's link is gone: session closed");
        session_remove (p, i);
      }
    else
      i++;
}

DlTime
psv_next_deadline (const PipePeer *p)
{
  return p->running ? p->compute_done : DL_TIME_NEVER;
}

void
psv_clear (PipePeer *p)
{
  while (p->sessions && p->sessions->len)
    session_remove (p, p->sessions->len - 1);
  g_clear_pointer (&p->running, g_free);
  Job *j;
  while ((j = g_queue_pop_head (&p->jobs)))
    g_free (j);
  p->compute_done = DL_TIME_NEVER;
}
