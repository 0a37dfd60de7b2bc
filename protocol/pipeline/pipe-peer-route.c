/* pipe-peer-route.c — a pipeline client's routing over its table
 * (pipe-peer-private.h): which servers are banned now, and the hops of a
 * min-latency path over blocks [from, to) through the servers it knows,
 * with the round trips its pings measured (the path itself is
 * pipe-route.c's, Petals' _make_sequence_with_min_latency).  A leaf: it
 * records nothing, sends nothing, decides no transition and calls nothing
 * of pipe-peer.c. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"

gboolean
_pipe_peer_banned (const PipePeer *p, ProtoNodeId id)
{
  gpointer v = g_hash_table_lookup (p->banned, GUINT_TO_POINTER (id + 1));
  return v && (DlTime) (GPOINTER_TO_SIZE (v) - 1) > p->now;
}

static PipeRouteCost
route_cost (const PipePeer *p)
{
  return (PipeRouteCost) { .block_ns = pipe_block_ns_pessimistic (&p->cfg), .next_peer = pipe_config (&p->cfg)->next_peer,
                           .family_hint = pipe_config (&p->cfg)->family_hint };
}

/* Routes blocks [from, to); the hops in *out.  FALSE if a block has no
 * server that is not banned. */
gboolean
_pipe_peer_route (PipePeer *p, guint from, guint to, GArray *out)
{
  guint n = p->servers->len;
  g_autofree gboolean *skip = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      PipeServerInfo *s = &g_array_index (p->servers, PipeServerInfo, i);
      skip[i] = _pipe_peer_banned (p, s->id);
      gpointer v = g_hash_table_lookup (p->rtt, GUINT_TO_POINTER (s->id + 1));
      s->rtt = v ? (DlTime) (GPOINTER_TO_SIZE (v) - 1) : DL_TIME_NEVER;
    }
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (PipeHop));
  PipeRouteCost cost = route_cost (p);
  if (!pipe_route ((const PipeServerInfo *) (const void *) p->servers->data, n, skip, from, to, &cost, path))
    return FALSE;
  g_array_set_size (out, 0);
  for (guint i = 0; i < path->len; i++)
    {
      const PipeHop *ph = &g_array_index (path, PipeHop, i);
      Hop h = { .server = g_array_index (p->servers, PipeServerInfo, ph->server).id, .start = ph->start,
                .end = ph->end, .deadline = DL_TIME_NEVER };
      g_array_append_val (out, h);
    }
  return TRUE;
}
