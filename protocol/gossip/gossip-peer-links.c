/* gossip-peer-links.c — the gossip peer's links: a link per neighbour,
 * kept across steps, set up by DISCO's signalling through the coordinator
 * (SignalForPeer offer/answer; the larger id offers: discojs/src/client/
 * decentralized/peer_pool.ts). */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"

#include <string.h>

gboolean
gp_link_state (const GossipPeer *p, ProtoNodeId id, GLinkState *s)
{
  gpointer v = g_hash_table_lookup (p->links, GUINT_TO_POINTER (id + 1));
  if (v && s)
    *s = (GLinkState) (GPOINTER_TO_UINT (v) - 1);
  return v != NULL;
}

void
gp_set_link (GossipPeer *p, ProtoNodeId id, GLinkState s)
{
  g_hash_table_insert (p->links, GUINT_TO_POINTER (id + 1), GUINT_TO_POINTER ((guint) s + 1));
}

/* Our side of a link is destroyed. */
void
gp_drop_link (GossipPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (g_hash_table_remove (p->links, GUINT_TO_POINTER (id + 1)))
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, id);
}

gint
gp_cmp_id (gconstpointer a, gconstpointer b)
{
  ProtoNodeId x = *(const ProtoNodeId *) a, y = *(const ProtoNodeId *) b;
  return (x > y) - (x < y);
}

void
gp_close_all_links (GossipPeer *p, ProtoOutbox *out)
{
  GHashTableIter it;
  gpointer k;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_hash_table_iter_init (&it, p->links);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (ids, id);
    }
  /* in id order: the outbox must not follow the hash table's order */
  g_array_sort (ids, gp_cmp_id);
  for (guint i = 0; i < ids->len; i++)
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, g_array_index (ids, ProtoNodeId, i));
  g_hash_table_remove_all (p->links);
}

/* A link object to `id` is created; the larger id offers (peer_pool.ts). */
void
gp_open_link (GossipPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  gboolean initiator = p->id > id;
  gp_set_link (p, id, initiator ? GL_WAIT_ANSWER : GL_WAIT_OFFER);
  proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, id);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = initiator;
  if (initiator)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
      m.node = id;
      m.signal = PROTO_SIGNAL_OFFER;
      gp_send_server (p, out, &m);
    }
}

void
gp_handle_signal (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  ProtoNodeId other = msg->node;
  GLinkState s;
  gboolean known = gp_link_state (p, other, &s);
  if (msg->signal == PROTO_SIGNAL_OFFER)
    {
      if (known && s != GL_WAIT_OFFER)
        {
          /* the other side made a new link: ours is stale */
          gp_observe (p, out, PROTO_OBS_LINK, other, -1, -1, "offer for a link we hold: replaced");
          gp_drop_link (p, out, other);
          known = FALSE;
        }
      if (!known)
        {
          gp_set_link (p, other, GL_WAIT_OFFER);
          proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, other);
          proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = FALSE;
        }
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
      m.node = other;
      m.signal = PROTO_SIGNAL_ANSWER;
      gp_send_server (p, out, &m);
      gp_set_link (p, other, GL_CONNECTING);
    }
  else if (known && s == GL_WAIT_ANSWER)
    {
      gp_set_link (p, other, GL_CONNECTING);
      proto_outbox_simple (out, PROTO_ACT_CONNECT_LINK, other);
    }
  else
    gp_observe (p, out, PROTO_OBS_REJECTED, other, PROTO_MSG_SIGNAL_FOR_PEER, -1, "answer for no offer of ours");
}


void
gp_send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  GLinkState s;
  if (gp_link_state (p, to, &s) && s == GL_UP)
    {
      gp_send_msg (p, out, to, PROTO_VIA_LINK, m);
      return;
    }
  if (!gp_link_state (p, to, NULL))
    gp_open_link (p, out, to);
  Early e = { .from = to, .msg = *m };
  proto_msg_init (m, m->type);
  g_array_append_val (p->pending, e);
}
