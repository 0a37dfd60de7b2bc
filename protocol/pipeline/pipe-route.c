/* pipe-route.c — a client's choice of servers (Petals' min-latency path,
 * client/routing/sequence_manager.py, _build_inference_graph and
 * _make_sequence_with_min_latency), and the content hashes that stand in
 * for hidden states.
 *
 * Petals runs Dijkstra over (server, block) nodes, with a server kept to
 * its range's end before the next.  So a chain is a sequence of servers,
 * each entered at some block boundary and left at its own end (the last
 * at `to`), and entering server s at boundary b needs some server to end
 * at b.  One pass over the boundaries in increasing order therefore finds
 * the least-cost chain: an entry at b depends only on exits at b, which
 * depend only on entries before b.  Ties go to the lower table index, so
 * the choice is the same on every run.
 *
 * Costs (what the client can know): the client's half round trip to the
 * first and from the last server (measured by pings; Petals' 150 ms when
 * unknown), each block's pessimistic compute over the server's announced
 * speed, and between two servers the way the data goes: through the client
 * (half round trips to both) or, with next-peer, directly (unknown: 150 ms;
 * inside one family with family_hint: nothing, a LAN).
 *
 * Not modelled: Petals' 18 ms serialization overhead and its cache-space
 * penalty (servers here have room for every session). */
#include "config.h"

#include "protocol/pipeline/pipe.h"
#include "base/dl-random.h"

#include <math.h>

/* Petals' sequence_manager._rtt_to_delay: an unknown delay is 150 ms */
#define UNKNOWN_DELAY_NS 150e6

static double
half_rtt (const PipeServerInfo *s)
{
  return s->rtt == DL_TIME_NEVER ? UNKNOWN_DELAY_NS : (double) s->rtt / 2.0;
}

static double
hop_ns (const PipeServerInfo *a, const PipeServerInfo *b, const PipeRouteCost *cost)
{
  if (!cost->next_peer)
    return half_rtt (a) + half_rtt (b);   /* back to the client, then out to the next */
  if (cost->family_hint && a->family == b->family)
    return 0;
  return UNKNOWN_DELAY_NS;
}

static double
compute_ns (const PipeServerInfo *s, guint blocks, const PipeRouteCost *cost)
{
  return (double) blocks * cost->block_ns / (s->speed > 0 ? s->speed : 1e-9);
}

gboolean
pipe_route (const PipeServerInfo *servers, guint n, const gboolean *skip, guint from, guint to,
            const PipeRouteCost *cost, GArray *out)
{
  g_return_val_if_fail (out != NULL && from < to, FALSE);
  g_array_set_size (out, 0);
  /* for each server: the best entry (cost at entry, boundary, the server
   * it came from: -1 the client) */
  g_autofree double *entry_cost = g_new (double, MAX (n, 1));
  g_autofree guint *entry_at = g_new0 (guint, MAX (n, 1));
  g_autofree int *prev = g_new (int, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      entry_cost[i] = INFINITY;
      prev[i] = -1;
      if ((skip && skip[i]) || servers[i].start > from || servers[i].end <= from)
        continue;
      entry_cost[i] = half_rtt (&servers[i]);
      entry_at[i] = from;
    }
  /* exit cost of server i: at min(end, to) */
#define EXIT_AT(i) MIN (servers[i].end, to)
#define EXIT_COST(i) (entry_cost[i] + compute_ns (&servers[i], EXIT_AT (i) - entry_at[i], cost))
  for (guint b = from + 1; b < to; b++)
    {
      /* servers that end at b hand over to servers that cover b */
      for (guint p = 0; p < n; p++)
        {
          if (isinf (entry_cost[p]) || servers[p].end != b || entry_at[p] >= b)
            continue;
          double at_b = EXIT_COST (p);
          for (guint s = 0; s < n; s++)
            {
              if (s == p || (skip && skip[s]) || servers[s].start > b || servers[s].end <= b)
                continue;
              double c = at_b + hop_ns (&servers[p], &servers[s], cost);
              /* compare where both would leave s */
              double leave_new = c + compute_ns (&servers[s], EXIT_AT (s) - b, cost);
              if (isinf (entry_cost[s]) || leave_new < EXIT_COST (s))
                {
                  entry_cost[s] = c;
                  entry_at[s] = b;
                  prev[s] = (int) p;
                }
            }
        }
    }
  int best = -1;
  double best_cost = INFINITY;
  for (guint i = 0; i < n; i++)
    {
      if (isinf (entry_cost[i]) || servers[i].end < to || servers[i].start >= to)
        continue;
      double c = EXIT_COST (i) + half_rtt (&servers[i]);
      if (c < best_cost)
        {
          best_cost = c;
          best = (int) i;
        }
    }
#undef EXIT_COST
#undef EXIT_AT
  if (best < 0)
    return FALSE;
  for (int i = best; i >= 0; i = prev[i])
    {
      PipeHop h = { .server = (guint) i, .start = entry_at[i], .end = MIN (servers[i].end, to) };
      g_array_prepend_val (out, h);
    }
  return TRUE;
}

guint32
pipe_blocks_hash (guint32 in, guint start, guint end)
{
  return (guint32) dl_mix64 (((guint64) in << 32) ^ ((guint64) start << 16) ^ end ^ G_GUINT64_CONSTANT (0x9e3779b9));
}

guint32
pipe_input_hash (guint64 session, guint32 step)
{
  return (guint32) dl_mix64 ((session << 32) ^ step ^ G_GUINT64_CONSTANT (0x51ed270b));
}

double
pipe_block_ns_pessimistic (const ProtoConfig *cfg)
{
  const DlDist *block = &pipe_config (cfg)->compute_per_block;
  double m = dl_dist_mean (block), v = dl_dist_variance (block);
  if (isfinite (m) && isfinite (v))
    return m + 2.0 * sqrt (MAX (v, 0.0));
  return 10.0 * block->a;
}
