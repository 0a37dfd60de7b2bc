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

Msg *
_sim_net_msg_new (SimWorld *w)
{
  guint32 idx;
  Msg *m = dl_slab_take_index (&w->msgs, &idx);
  m->idx = idx;
  m->live = 1;
  return m;
}

/* ---------------------------------------------------------------- bodies */

/* A body can be shared if it owns nothing but its weights reference. */
static gboolean
body_shareable (const ProtoMsg *msg)
{
  return !msg->signal_data && !msg->peers && !msg->indices && !msg->inner;
}

/* TRUE if a and b say the same apart from `node` (both shareable). */
G_STATIC_ASSERT (sizeof (ProtoMsg) == 88);   /* a new field: compare it here */
static gboolean
body_same (const ProtoMsg *a, const ProtoMsg *b)
{
  return a->weights == b->weights && a->key == b->key && a->nb_participants == b->nb_participants
         && a->round == b->round && a->comm_round == b->comm_round && a->n_peers == b->n_peers
         && a->degree == b->degree && a->n_indices == b->n_indices && a->sess_seq == b->sess_seq
         && a->sess_ack == b->sess_ack && a->type == b->type && a->signal == b->signal
         && a->wait_for_more == b->wait_for_more && a->joined_mid_training == b->joined_mid_training
         && a->helper == b->helper;
}

/* A body for msg, whose content it takes (msg is left as proto_msg_init
 * makes it): the last body taken if it says the same apart from the node,
 * else a new one. */
MsgBody *
_sim_net_msg_body_take (SimWorld *w, ProtoMsg *msg)
{
  ProtoMsgType type = msg->type;
  MsgBody *b = w->last_body;
  gboolean shareable = body_shareable (msg);
  if (b && shareable && body_same (&b->msg, msg))
    {
      b->refs++;
      proto_msg_clear (msg);   /* its weights reference: the body holds one */
    }
  else
    {
      b = dl_slab_take (&w->bodies);
      b->msg = *msg;
      b->refs = 1;
      w->live_bodies++;
      w->last_body = shareable ? b : NULL;
    }
  proto_msg_init (msg, type);
  return b;
}

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

/* m's extra, 0 if none, which m no longer keeps */
DlTime
_sim_net_msg_take_extra (SimWorld *w, Msg *m)
{
  if (!m->extra)
    return 0;
  m->extra = 0;
  return (DlTime) (uintptr_t) dl_word_map_steal (w->msg_extras, m->idx);
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

/* A message's serialized size (proto_msg_wire_size builds its GVariant,
 * 3 % of a 1 000-peer run) is kept by its wire key: the message's family
 * says what its size depends on (proto_msg_wire_key); a message whose size
 * has no key is measured each time. */
gsize
_sim_net_msg_wire_size (SimWorld *w, const ProtoMsg *msg)
{
  guint64 key = proto_msg_wire_key (msg);
  if (key == PROTO_MSG_WIRE_KEY_NONE)
    return proto_msg_charged_size (msg);
  gpointer v = dl_word_map_lookup (w->wire_sizes, key);
  if (v)
    return (gsize) (uintptr_t) v;
  gsize bytes = proto_msg_charged_size (msg);
  g_assert (bytes > 0);
  dl_word_map_insert (w->wire_sizes, key, (gpointer) (uintptr_t) bytes);
  return bytes;
}
