/* gossip-graph-private.h — a step's undirected contact graph for the
 * gossip coordinator (gossip-coord.c), built at once from its edges, a
 * leaf: it never calls the coordinator back.
 *
 * The vertices are slots 0..n-1 (the listed members, in order), each
 * naming a node; the edges are pairs of slots, in any order and with
 * repeats.  A slot's neighbours are the nodes at the other end of its
 * edges, each once, ascending.  One flat array holds the whole graph
 * (compressed rows), where a GArray per member in a hash table cost an
 * allocation and a lookup per member at every step.
 *
 * Shape: _gossip_graph_build / _gossip_graph_clear on caller memory. */
#pragma once

#include "protocol/proto-message.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint n;             /* slots */
  guint *start;        /* slot s's neighbours: nb[start[s] .. start[s] + len[s]) */
  guint *len;
  ProtoNodeId *nb;
} GossipGraph;

/* g from the n_edges edges ends[2e] -- ends[2e + 1] (slots below n) over
 * the nodes ids[0..n) */
void _gossip_graph_build (GossipGraph *g, const ProtoNodeId *ids, guint n, const guint *ends, guint n_edges);
/* slot s's neighbours (*len of them), ascending, distinct */
const ProtoNodeId *_gossip_graph_neighbors (const GossipGraph *g, guint s, guint *len);
void _gossip_graph_clear (GossipGraph *g);

G_END_DECLS
