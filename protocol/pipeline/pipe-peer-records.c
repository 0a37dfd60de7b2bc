/* pipe-peer-records.c — the pipeline peer's records (pipe-peer.c),
 * through pipe-peer-private.h: a client's hops (lookup, the right input of
 * a hop, whether a session runs, the first failed hop) and its clearing,
 * a server's blocks, wanted jobs and its clearing, both roles' next
 * deadlines, the drop rule, construction and freeing, and the machine's
 * accessors (its view, pipe.h's).  A leaf: it decides no transition,
 * emits nothing and calls nothing of pipe-peer.c or of
 * pipe-peer-effects.c. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"

Hop *
_pipe_peer_hop_at (PipePeer *p, guint i)
{
  return &g_array_index (p->hops, Hop, i);
}

int
_pipe_peer_hop_of (PipePeer *p, ProtoNodeId server)
{
  for (guint i = 0; i < p->hops->len; i++)
    if (_pipe_peer_hop_at (p, i)->server == server)
      return (int) i;
  return -1;
}

/* the right input of hop i for this step, if the client knows it yet */
gboolean
_pipe_peer_expected_input (PipePeer *p, guint i, guint32 *in)
{
  if (i == 0)
    {
      *in = pipe_input_hash (p->id, p->step);
      return TRUE;
    }
  Hop *prev = _pipe_peer_hop_at (p, i - 1);
  *in = prev->res_out;
  return prev->validated;
}

/* a session under way: stepping, or repairing a hop */
gboolean
_pipe_peer_running (const PipePeer *p)
{
  return p->hops->len > 0
         && (p->base.state == PIPE_PEER_STEPPING || p->base.state == PIPE_PEER_LOOKUP || p->base.state == PIPE_PEER_PINGING
             || p->base.state == PIPE_PEER_WAIT_SERVERS);
}

int
_pipe_peer_first_failed (PipePeer *p)
{
  for (guint i = 0; i < p->hops->len; i++)
    if (_pipe_peer_hop_at (p, i)->failed)
      return (int) i;
  return -1;
}

DlTime
_pipe_peer_client_next_deadline (const PipePeer *p)
{
  DlTime d = DL_TIME_NEVER;
  if (p->base.state == PIPE_PEER_PINGING)
    d = p->ping_deadline;
  if (p->base.state == PIPE_PEER_WAIT_SERVERS || p->base.state == PIPE_PEER_LOOKUP)
    d = p->lookup_at;
  if (!_pipe_peer_running (p))
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
_pipe_peer_client_clear (PipePeer *p)
{
  g_hash_table_remove_all (p->ping_sent);
  p->pings_out = 0;
  p->ping_deadline = DL_TIME_NEVER;
  p->lookup_at = DL_TIME_NEVER;
  p->repair = FALSE;
}

/* Does this server hold blocks [msg->degree, msg->node)? */
gboolean
_pipe_peer_serves (const PipePeer *p, const ProtoMsg *msg)
{
  return msg->degree >= p->start && msg->node <= p->end && msg->degree < msg->node;
}

/* Is this queued or running job still the one its step wants? */
StepWork *
_pipe_peer_job_wanted (PipePeer *p, const Job *j)
{
  Session *s = _pipe_peer_session_find (p, j->key, NULL);
  StepWork *w = s ? _pipe_peer_work_for (s, j->step, FALSE) : NULL;
  return w && w->job && !w->done && w->job_in == j->in ? w : NULL;
}

DlTime
_pipe_peer_server_next_deadline (const PipePeer *p)
{
  return p->running ? p->compute_done : DL_TIME_NEVER;
}

void
_pipe_peer_server_clear (PipePeer *p)
{
  while (p->sessions && p->sessions->len)
    _pipe_peer_session_remove (p, p->sessions->len - 1);
  g_clear_pointer (&p->running, g_free);
  Job *j;
  while ((j = g_queue_pop_head (&p->jobs)))
    g_free (j);
  p->compute_done = DL_TIME_NEVER;
}

gboolean
_pipe_peer_listens (const PipePeer *p, ProtoMsgType type)
{
  if (!p->base.connected)
    return FALSE;
  switch (type)
    {
    case PROTO_MSG_PIPE_ROLE:
      return p->base.state == PIPE_PEER_CONNECTING;
    case PROTO_MSG_SIGNAL:
      return p->role_known;
    case PROTO_MSG_PIPE_PING:
    case PROTO_MSG_PIPE_STEP:
    case PROTO_MSG_PIPE_PUSH:
    case PROTO_MSG_PIPE_CLOSE:
      return p->role_known && p->is_server;
    case PROTO_MSG_PIPE_SERVERS:
    case PROTO_MSG_PIPE_PONG:
    case PROTO_MSG_PIPE_RESULT:
    case PROTO_MSG_PIPE_NEED:
      return p->role_known && !p->is_server;
    default:
      return FALSE;
    }
}

gboolean
_pipe_peer_class_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const PipePeer *p = impl;
  (void) from;
  return (unsigned) type < PROTO_MSG_N_TYPES && _pipe_peer_listens (p, type);
}

DlTime
_pipe_peer_next_deadline (const void *impl)
{
  const PipePeer *p = impl;
  if (!p->base.connected)
    return DL_TIME_NEVER;
  if (!p->role_known)
    return p->hello_again;
  return p->is_server ? _pipe_peer_server_next_deadline (p) : _pipe_peer_client_next_deadline (p);
}

void
_pipe_peer_view (const void *impl, ProtoPeerView *v)
{
  const PipePeer *p = impl;
  /* a server owes no rounds of its own: it serves while it stays */
  v->serves_only = p->role_known && p->is_server;
  v->settled = v->serves_only || p->base.state == PIPE_PEER_DONE || p->base.state == PIPE_PEER_LEFT;
  /* the last table it read lacked a server for some block (the backoff
   * is reset by a table that routes) */
  v->starved = !p->is_server && p->backoff > PIPE_BACKOFF_MIN_NS;
  /* a client's steps; a server does no rounds (its computations are
   * pipe_peer_computations), as the testbed counts them from round ends */
  v->rounds_done = p->is_server ? 0 : p->base.rounds_done;
}

void
_pipe_peer_free (void *impl)
{
  PipePeer *p = impl;
  _pipe_peer_server_clear (p);
  _pipe_peer_client_clear (p);
  proto_links_clear (&p->links);
  g_array_unref (p->sessions);
  g_array_unref (p->servers);
  g_hash_table_unref (p->rtt);
  g_hash_table_unref (p->banned);
  g_hash_table_unref (p->ping_sent);
  g_array_unref (p->hops);
  learn_weights_unref (p->hidden);
  g_free (p->region);
  g_free (p);
}

guint
pipe_peer_computations (const ProtoMachine *m)
{
  const PipePeer *p = m->impl;
  return p->is_server ? p->base.rounds_done : 0;
}

gboolean
pipe_peer_is_server (const ProtoMachine *m)
{
  const PipePeer *p = m->impl;
  return p->role_known && p->is_server;
}

gboolean
pipe_peer_is_faulty (const ProtoMachine *m)
{
  const PipePeer *p = m->impl;
  return p->faulty;
}

void
pipe_peer_range (const ProtoMachine *m, guint *start, guint *end)
{
  const PipePeer *p = m->impl;
  *start = p->start;
  *end = p->end;
}

GArray *
pipe_peer_chain (const ProtoMachine *m)
{
  const PipePeer *p = m->impl;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; p->hops && i < p->hops->len; i++)
    g_array_append_val (a, g_array_index (p->hops, Hop, i).server);
  return a;
}

/* a new peer's state, after its base's (its links: pipe-peer-effects.c) */
void
_pipe_peer_init (PipePeer *p, const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  p->cfg = *cfg;
  p->id = PROTO_NO_NODE;
  p->rng = env->rng;
  p->region = g_strdup (env->region ? env->region : "");
  p->speed = env->speed > 0 ? env->speed : 1e-3;
  p->hidden = learn_weights_new_symbolic ((pipe_config (cfg)->hidden_size + 3) / 4);
  p->sessions = g_array_new (FALSE, TRUE, sizeof (Session));
  g_queue_init (&p->jobs);
  p->compute_done = DL_TIME_NEVER;
  p->servers = g_array_new (FALSE, FALSE, sizeof (PipeServerInfo));
  p->rtt = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->banned = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->ping_sent = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->hops = g_array_new (FALSE, TRUE, sizeof (Hop));
  p->ping_deadline = DL_TIME_NEVER;
  p->lookup_at = DL_TIME_NEVER;
  p->backoff = PIPE_BACKOFF_MIN_NS;
}
