/* sim-net-maps.c — the world's side maps, and the look-ups that every
 * layer of the world shares: the hash of the tables keyed by a word, a
 * pair's link (in its nodes' maps or the world's table) and the host's
 * hint before a send on it, which side of a link a node is, a fact for the
 * recorder, and whether a partition separates two nodes.
 *
 * A leaf of the world's files (sim-world-private.h draws them): sim-net.c,
 * sim-servers.c, sim-churn.c and sim-world.c call it; it calls nothing of
 * theirs, only sim-world-private.h's inlines and base/. */
#include "config.h"

#include "sim/sim-world-private.h"

/* Tables keyed by a 64-bit value stored in the pointer itself (no boxed
 * key, and GLib compares the keys inline when the equal function is NULL).
 * g_direct_hash keeps only the low 32 bits; our keys put ids in both
 * halves. */
guint
sim_hash_word (gconstpointer k)
{
  return (guint) dl_mix64 ((guint64) (uintptr_t) k);
}

G_STATIC_ASSERT (sizeof (gpointer) >= sizeof (guint64));

static guint64
pair_key (ProtoNodeId a, ProtoNodeId b)
{
  return ((guint64) MIN (a, b) << 32) | MAX (a, b);
}

/* A link is kept in both its nodes' maps (a node's links are one small
 * array by the other's id, of the records' indices + 1 (a narrow map):
 * at 1 000 peers all-to-all, 4 KiB a node, read
 * in order when a peer sends to all, where one table of half a million
 * pairs missed the cache at every lookup); or, made before one of its
 * nodes existed (a timeline action names a later peer), in the world's
 * table. */
Link *
sim_link_get (SimWorld *w, ProtoNodeId a, ProtoNodeId b, gboolean create)
{
  Node *na = sim_node_at (w, a);
  guint32 ref = na ? dl_id_map_lookup32 (&na->links, b) : 0;
  if (ref)
    return sim_link_at (w, ref);
  guint64 k = pair_key (a, b);
  Link *l = NULL;
  if (dl_word_map_size (w->links))
    l = dl_word_map_lookup (w->links, k);
  if (!l && create)
    {
      guint32 idx;
      l = dl_slab_take_index (&w->link_slab, &idx);
      Node *nb = sim_node_at (w, b);
      if (na && nb)
        {
          dl_id_map_insert32 (&na->links, b, idx + 1);
          dl_id_map_insert32 (&nb->links, a, idx + 1);
        }
      else
        dl_word_map_insert (w->links, k, l);
    }
  return l;
}

/* The host's hint before a send on a link (SimTransport.prepare_send):
 * stage 0 loads the sender's entry for the link, stage 1 (later) the link
 * itself. */
void
sim_net_prepare_send (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, int stage)
{
  Node *n = sim_node_at (w, from);
  if (via != PROTO_VIA_LINK || !n)
    return;
  if (stage == 0)
    dl_id_map_prefetch (&n->links, to);
  else
    {
      guint32 ref = dl_id_map_lookup32 (&n->links, to);
      if (ref)
        __builtin_prefetch (sim_link_at (w, ref), 1);
    }
}

void
sim_fact (SimWorld *w, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  if (w->rec.fact)
    w->rec.fact (w->rec.user_data, sim_engine_now (w->engine), node, other, kind, detail ? detail : "");
}

gboolean
sim_partitioned (const SimWorld *w, ProtoNodeId a, ProtoNodeId b)
{
  if (!w->groups)
    return FALSE;
  guint ga = a < w->groups->len ? g_array_index (w->groups, guint, a) : 0;
  guint gb = b < w->groups->len ? g_array_index (w->groups, guint, b) : 0;
  return ga != gb;
}
