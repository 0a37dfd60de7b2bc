/* sim-net-msg-private.h — sim-net-msg.c's functions that every message
 * sent or delivered calls (its record, its body, a delay rule's extra,
 * its serialized size), defined here as static inline so that
 * sim-net.c's send path inlines them (the build has no link-time
 * optimisation).  A part of the leaf sim-net-msg.c: it calls only base/
 * and protocol/'s messages.
 * Nothing outside sim/ includes it. */
#pragma once

#include "sim/sim-world-private.h"

static inline Msg *
_sim_net_msg_new (SimWorld *w)
{
  guint32 idx;
  Msg *m = dl_slab_take_index (&w->msgs, &idx);
  m->idx = idx;
  m->live = 1;
  return m;
}

/* A body can be shared if it owns nothing but its weights reference. */
static inline gboolean
_sim_net_msg_body_shareable (const ProtoMsg *msg)
{
  return !msg->signal_data && !msg->peers && !msg->indices && !msg->inner;
}

/* TRUE if a and b say the same apart from `node` (both shareable). */
G_STATIC_ASSERT (sizeof (ProtoMsg) == 88);   /* a new field: compare it here */
static inline gboolean
_sim_net_msg_body_same (const ProtoMsg *a, const ProtoMsg *b)
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
static inline MsgBody *
_sim_net_msg_body_take (SimWorld *w, ProtoMsg *msg)
{
  ProtoMsgType type = msg->type;
  MsgBody *b = w->last_body;
  gboolean shareable = _sim_net_msg_body_shareable (msg);
  if (b && shareable && _sim_net_msg_body_same (&b->msg, msg))
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

/* m's extra, 0 if none, which m no longer keeps */
static inline DlTime
_sim_net_msg_take_extra (SimWorld *w, Msg *m)
{
  if (!m->extra)
    return 0;
  m->extra = 0;
  return (DlTime) (uintptr_t) dl_word_map_steal (w->msg_extras, m->idx);
}

/* A message's serialized size (proto_msg_wire_size builds its GVariant,
 * 3 % of a 1 000-peer run) is kept by its wire key: the message's family
 * says what its size depends on (proto_msg_wire_key); a message whose size
 * has no key is measured each time. */
static inline gsize
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
