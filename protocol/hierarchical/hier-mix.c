/* hier-mix.c — the hierarchical family's arithmetic (hier-mix-private.h).
 * A leaf: it includes only its own header, learn/ and protocol/'s links
 * (for the id order), and calls nothing of the peer's. */
#include "config.h"

#include "protocol/hierarchical/hier-mix-private.h"
#include "protocol/session/session-links.h"

#include <math.h>

LearnWeights *
hier_mix_mean (GHashTable *updates, guint *n)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, updates);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (ids, id);
    }
  g_array_sort (ids, proto_node_id_cmp);
  *n = ids->len;
  g_autofree LearnWeights **ws = g_new (LearnWeights *, MAX (ids->len, 1));
  for (guint i = 0; i < ids->len; i++)
    ws[i] = g_hash_table_lookup (updates, GUINT_TO_POINTER (g_array_index (ids, ProtoNodeId, i) + 1));
  return learn_weights_mean (ws, ids->len);
}

LearnWeights *
hier_mix_combine (GArray *parts, guint64 *total_out)
{
  g_array_sort (parts, proto_node_id_cmp);   /* HierMixPart starts with its head id */
  guint64 total = 0;
  for (guint i = 0; i < parts->len; i++)
    total += g_array_index (parts, HierMixPart, i).count;
  *total_out = total;
  if (total == 0)
    return NULL;
  HierMixPart *first = &g_array_index (parts, HierMixPart, 0);
  if (parts->len == 1)
    return learn_weights_ref (first->mean);
  LearnWeights *w = learn_weights_copy (first->mean);
  if (!learn_weights_is_symbolic (w))
    {
      learn_weights_scal (w, (float) first->count);
      for (guint i = 1; i < parts->len; i++)
        learn_weights_axpy (w, (float) g_array_index (parts, HierMixPart, i).count,
                            g_array_index (parts, HierMixPart, i).mean);
      learn_weights_scal (w, (float) (1.0 / (double) total));
    }
  return w;
}

double
hier_mix_staleness_weight (double alpha, double exponent, guint staleness)
{
  return alpha * pow (1.0 + staleness, -exponent);
}

LearnWeights *
hier_mix_blend (LearnWeights *x, LearnWeights *y, double w)
{
  LearnWeights *r = learn_weights_copy (x);
  if (learn_weights_len (y) != learn_weights_len (x))
    return r;
  learn_weights_scal (r, (float) (1.0 - w));
  learn_weights_axpy (r, (float) w, y);
  return r;
}
