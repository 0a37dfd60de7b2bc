/* sim-net-chan-private.h — sim-net-chan.c's look-ups that every message
 * sent calls (its channel's last arrival and its queue), defined here as
 * static inline so that sim-net.c's send path inlines them (the build
 * has no link-time optimisation).  A part of the leaf sim-net-chan.c: it
 * calls only sim-net-maps.c's look-ups.
 * Nothing outside sim/ includes it. */
#pragma once

#include "sim/sim-world-private.h"

/* The last arrival time on m's channel (from, to, via): kept in the link
 * for a link, in the peer's node for its coordinator stream, in the world's
 * table otherwise (a node that does not exist). */
static inline DlTime *
_sim_net_channel_last (SimWorld *w, const Msg *m, Link *l)
{
  if (m->via == PROTO_VIA_LINK && l)
    return &l->last_arrival[sim_link_side (m->from, m->to)];
  if (m->via != PROTO_VIA_LINK)
    {
      Node *n = m->to == PROTO_SERVER ? sim_node_at (w, m->from) : m->from == PROTO_SERVER ? sim_node_at (w, m->to) : NULL;
      if (n)
        return m->to == PROTO_SERVER ? &n->last_to_server : &n->last_from_server;
    }
  gpointer ckey = (gpointer) (uintptr_t) (((guint64) m->from << 33) | ((guint64) m->to << 1) | (m->via == PROTO_VIA_LINK));
  DlTime *last = g_hash_table_lookup (w->channels, ckey);
  if (!last)
    {
      last = g_new0 (DlTime, 1);
      g_hash_table_insert (w->channels, ckey, last);
    }
  return last;
}

/* m's channel: the queue of its messages, its head and tail (MsgRef;
 * NULL: a channel with no link or node to keep one, whose messages go as
 * they come) */
static inline guint32 *
_sim_net_channel_queue (SimWorld *w, const Msg *m, Link *l, guint32 **tail)
{
  if (m->via == PROTO_VIA_LINK)
    {
      if (!l)
        l = sim_link_get (w, m->from, m->to, FALSE);   /* links live as long as the world */
      if (!l)
        return NULL;
      int side = sim_link_side (m->from, m->to);
      *tail = &l->q_tail[side];
      return &l->q[side];
    }
  Node *n = m->to == PROTO_SERVER ? sim_node_at (w, m->from) : m->from == PROTO_SERVER ? sim_node_at (w, m->to) : NULL;
  if (!n)
    return NULL;
  int dir = m->to == PROTO_SERVER ? 0 : 1;
  *tail = &n->stream_q_tail[dir];
  return &n->stream_q[dir];
}
