/* sim-net-msg.c — a message in flight: its record (from the world's
 * slabs), its protocol body, shared by the messages that say the same
 * apart from the recipient, a delay rule's extra that a few keep, its
 * release, and its serialized size, kept by its wire key.
 *
 * A leaf under sim-net.c (sim-world-private.h draws the world's files):
 * it calls nothing of the world's other files, only sim-world-private.h's
 * inlines, base/ and protocol/'s messages. */
#include "config.h"

#include "sim/sim-world-private.h"
#include "sim/sim-net-msg-private.h"

/* ---------------------------------------------------------------- bodies */

static void
body_release (SimWorld *w, MsgBody *b)
{
  g_assert (b->refs > 0);
  if (--b->refs > 0)
    return;
  if (w->last_body == b)
    w->last_body = NULL;
  proto_msg_clear (&b->msg);
  w->live_bodies--;
  dl_slab_give (&w->bodies, b);
}

/* m's protocol message, in tmp: its body's with its own node; NULL for a
 * close frame. */
const ProtoMsg *
sim_net_msg_view (const Msg *m, ProtoMsg *tmp)
{
  if (!m->body)
    return NULL;
  *tmp = m->body->msg;
  tmp->node = m->node;
  return tmp;
}

/* A delay rule's extra for m (sharing = fair), kept by its idx: few
 * messages have one, and a Msg has no room for it */
void
_sim_net_msg_set_extra (SimWorld *w, Msg *m, DlTime extra)
{
  if (extra == 0)
    return;
  if (!w->msg_extras)
    w->msg_extras = dl_word_map_new (NULL);
  m->extra = 1;
  dl_word_map_insert (w->msg_extras, m->idx, (gpointer) (uintptr_t) extra);
}

/* A message delivered, lost, or that never went in flight. */
static void
msg_drop (SimWorld *w, Msg *m)
{
  if (m->extra)
    _sim_net_msg_take_extra (w, m);
  if (m->body)
    body_release (w, m->body);
  m->live = 0;
  dl_slab_give_index (&w->msgs, m, m->idx);
}

void
sim_net_msg_free (SimWorld *w, Msg *m)
{
  msg_drop (w, m);
}
