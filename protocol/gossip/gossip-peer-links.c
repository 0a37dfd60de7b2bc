/* gossip-peer-links.c — the gossip peer's links: a link per neighbour (or
 * Kademlia contact), kept across steps, set up by DISCO's signalling
 * through the coordinator (protocol/proto-links.h). */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"

gint
gp_cmp_id (gconstpointer a, gconstpointer b)
{
  return proto_node_id_cmp (a, b);
}

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  gp_send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  gp_observe (ud, out, kind, other, type, -1, detail);
}

void
gp_links_init (GossipPeer *p)
{
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
}

void
gp_send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}
