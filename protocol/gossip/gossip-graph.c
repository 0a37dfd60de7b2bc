/* gossip-graph.c — a step's contact graph in compressed rows
 * (gossip-graph-private.h): the degrees counted, their prefix sums, then
 * each row filled, sorted and stripped of repeats. */
#include "config.h"

#include "protocol/gossip/gossip-graph-private.h"
#include "protocol/session/session-links.h"

#include <stdlib.h>

/* the row nb[0..len) sorted, its repeats dropped: how many remain */
static guint
sort_unique (ProtoNodeId *nb, guint len)
{
  qsort (nb, len, sizeof *nb, proto_node_id_cmp);
  guint w = 0;
  for (guint k = 0; k < len; k++)
    if (w == 0 || nb[k] != nb[w - 1])
      nb[w++] = nb[k];
  return w;
}

void
_gossip_graph_build (GossipGraph *g, const ProtoNodeId *ids, guint n, const guint *ends, guint n_edges)
{
  g->n = n;
  g->start = g_new0 (guint, n + 1);
  g->len = g_new0 (guint, MAX (n, 1));
  for (guint e = 0; e < 2 * n_edges; e++)
    {
      g_assert (ends[e] < n);
      g->start[ends[e] + 1]++;
    }
  for (guint s = 0; s < n; s++)
    g->start[s + 1] += g->start[s];
  g->nb = g_new (ProtoNodeId, MAX (2 * n_edges, 1));
  for (guint e = 0; e < n_edges; e++)
    {
      guint u = ends[2 * e], v = ends[2 * e + 1];
      g->nb[g->start[u] + g->len[u]++] = ids[v];
      g->nb[g->start[v] + g->len[v]++] = ids[u];
    }
  for (guint s = 0; s < n; s++)
    g->len[s] = sort_unique (g->nb + g->start[s], g->len[s]);
}

const ProtoNodeId *
_gossip_graph_neighbors (const GossipGraph *g, guint s, guint *len)
{
  g_return_val_if_fail (s < g->n, NULL);
  *len = g->len[s];
  return g->nb + g->start[s];
}

void
_gossip_graph_clear (GossipGraph *g)
{
  g_clear_pointer (&g->start, g_free);
  g_clear_pointer (&g->len, g_free);
  g_clear_pointer (&g->nb, g_free);
  g->n = 0;
}
