/* hier-peer-policies.c — the straggler policies' bookkeeping at a head
 * (hier-peer.c has their transitions), through hier-peer-private.h:
 * drop-slowest's and mixed's judgment of the members at a round's end,
 * async's model and its blends, and mixed's blend of the slow members'
 * updates into the cluster mean.  A leaf: it decides no transition and
 * calls nothing of hier-peer.c. */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <stdlib.h>

static int
cmp_time (const void *a, const void *b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* drop-slowest, at a round's end: a member whose update came later than
 * drop_factor x the median of this round's is not waited for in the next
 * drop_rounds rounds (it still counts when it is in time). */
void
_hier_peer_judge_members (HierPeer *p, ProtoOutbox *out)
{
  if (p->cfg.straggler_policy != PROTO_STRAGGLER_DROP_SLOWEST && p->cfg.straggler_policy != PROTO_STRAGGLER_MIXED)
    {
      g_hash_table_remove_all (p->latency);
      return;
    }
  guint n = g_hash_table_size (p->latency);
  if (n >= 3)
    {
      g_autofree DlTime *d = g_new (DlTime, n);
      g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
      GHashTableIter it;
      gpointer k, v;
      guint i = 0;
      g_hash_table_iter_init (&it, p->latency);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          ids[i] = GPOINTER_TO_UINT (k) - 1;
          d[i++] = (DlTime) GPOINTER_TO_SIZE (v) - 1;
        }
      g_autofree DlTime *sorted = g_memdup2 (d, n * sizeof *d);
      qsort (sorted, n, sizeof *sorted, cmp_time);
      DlTime median = sorted[n / 2];
      p->last_median = median;
      g_array_sort (p->members, hier_cmp_id);
      for (guint j = 0; j < n; j++)
        if (median > 0 && (double) d[j] > p->cfg.drop_factor * (double) median
            && p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED)
          {
            /* asynchronous until an update of its comes within the factor (mixed, below) */
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1), GUINT_TO_POINTER (G_MAXUINT));
            g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (ids[j] + 1),
                                 GSIZE_TO_POINTER ((gsize) p->now + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, ids[j], -1, -1,
                                  "head: slow: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: asynchronous from now on", dl_time_to_s (d[j]), p->cfg.drop_factor,
                                  dl_time_to_s (median));
          }
        else if (median > 0 && (double) d[j] > p->cfg.drop_factor * (double) median)
          {
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1),
                                 GUINT_TO_POINTER (p->hr + 1 + p->cfg.drop_rounds + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, ids[j], -1,
                                  (int64_t) p->cfg.drop_rounds,
                                  "head: slowest: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: not waited for in the next %u rounds", dl_time_to_s (d[j]),
                                  p->cfg.drop_factor, dl_time_to_s (median), p->cfg.drop_rounds);
          }
    }
  g_hash_table_remove_all (p->latency);
}

LearnWeights *
_hier_peer_model_of (HierPeer *p)
{
  if (!p->async_model)
    p->async_model = learn_weights_ref (p->last_global ? p->last_global : p->model);
  return p->async_model;
}

void
_hier_peer_take (HierPeer *p, LearnWeights *y, double w)
{
  LearnWeights *x = hier_mix_blend (_hier_peer_model_of (p), y, w);
  learn_weights_unref (p->async_model);
  p->async_model = x;
  p->async_version++;
}

LearnWeights *
_hier_peer_mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean)
{
  for (guint i = 0; i < p->async_in->len; i++)
    {
      AsyncIn *a = &g_array_index (p->async_in, AsyncIn, i);
      if (mean)
        {
          double wt = hier_mix_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, a->stale);
          LearnWeights *x = hier_mix_blend (mean, a->w, wt);
          learn_weights_unref (mean);
          mean = x;
          char detail[80];
          g_snprintf (detail, sizeof detail, "mixed: mixed in at staleness %u, weight %.3f", a->stale, wt);
          _hier_peer_observe (p, out, PROTO_OBS_NOTE, a->from, PROTO_MSG_HIER_UPDATE, a->stale, detail);
        }
      else
        mean = learn_weights_ref (a->w);   /* only slow members this round */
      learn_weights_unref (a->w);
    }
  g_array_set_size (p->async_in, 0);
  return mean;
}
