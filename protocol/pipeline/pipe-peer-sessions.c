/* pipe-peer-sessions.c — a pipeline server's sessions as a data structure
 * (pipe-peer-private.h): find and remove a session, the work on one of its
 * steps (made on demand; the finished steps four back are dropped), and
 * the blocks and chain a request or push names for a step.  A leaf: it
 * records nothing, sends nothing, decides no transition and calls nothing
 * of pipe-peer.c. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"

Session *
_pipe_peer_session_find (PipePeer *p, guint64 key, guint *at)
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

void
_pipe_peer_session_remove (PipePeer *p, guint at)
{
  Session *s = &g_array_index (p->sessions, Session, at);
  for (guint i = 0; i < s->steps->len; i++)
    work_clear (&g_array_index (s->steps, StepWork, i));
  g_array_unref (s->steps);
  g_array_remove_index (p->sessions, at);
}

StepWork *
_pipe_peer_work_for (Session *s, guint32 step, gboolean create)
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
void
_pipe_peer_work_set_chain (StepWork *w, const ProtoMsg *msg)
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
