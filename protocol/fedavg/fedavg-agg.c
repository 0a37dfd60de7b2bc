/* fedavg-agg.c — the weighted average, the client draw, and the
 * asynchronous modes' arithmetic (fedavg-agg.h). */
#include "config.h"

#include "protocol/fedavg/fedavg-agg.h"

#include <math.h>

LearnWeights *
fedavg_agg_weighted_mean (LearnWeights *const *ws, const guint64 *counts, gsize n)
{
  g_return_val_if_fail (n >= 1, NULL);
  for (gsize k = 0; k < n; k++)
    if (learn_weights_is_symbolic (ws[k]))
      return learn_weights_copy (ws[0]);
  guint64 total = 0;
  for (gsize k = 0; k < n; k++)
    total += counts[k];
  g_return_val_if_fail (total > 0, NULL);
  LearnWeights *avg = learn_weights_new (learn_weights_len (ws[0]));
  for (gsize k = 0; k < n; k++)
    learn_weights_axpy (avg, (float) ((double) counts[k] / (double) total), ws[k]);
  return avg;
}

guint
fedavg_agg_sample_size (guint available, double fraction, guint min_clients)
{
  guint m = (guint) ceil (fraction * available - 1e-9);
  m = MAX (m, min_clients);
  return MIN (m, available);
}

void
fedavg_agg_sample (DlRandom *rng, const guint32 *ids, guint n, guint m, guint32 *out)
{
  g_return_if_fail (m <= n);
  g_autofree guint32 *pool = g_memdup2 (ids, n * sizeof *ids);
  for (guint i = 0; i < m; i++)
    {
      guint j = i + (guint) dl_random_below (rng, n - i);
      guint32 t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
      out[i] = pool[i];
    }
}

static int
cmp_id (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

GArray *
fedavg_agg_sorted_ids (GHashTable *set)
{
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), g_hash_table_size (set));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      guint32 id = GPOINTER_TO_UINT (k);
      g_array_append_val (ids, id);
    }
  g_array_sort (ids, cmp_id);
  return ids;
}

double
fedavg_agg_staleness_weight (guint32 tau, double power)
{
  return pow (1.0 + (double) tau, -power);
}

static LearnWeights *
zeros_like (const LearnWeights *x)
{
  gsize n = learn_weights_len (x);
  return learn_weights_is_symbolic (x) ? learn_weights_new_symbolic (n) : learn_weights_new (n);
}

void
fedavg_agg_buffer_add (LearnWeights **sum, double weight, const LearnWeights *x)
{
  if (!*sum)
    *sum = zeros_like (x);
  g_return_if_fail (learn_weights_len (*sum) == learn_weights_len (x));
  learn_weights_axpy (*sum, (float) weight, x);
}

LearnWeights *
fedavg_agg_step (const LearnWeights *model, double step, const LearnWeights *sum)
{
  LearnWeights *w = model ? learn_weights_copy (model) : zeros_like (sum);
  learn_weights_axpy (w, (float) step, sum);
  return w;
}

LearnWeights *
fedavg_agg_mix (const LearnWeights *model, double a, const LearnWeights *x)
{
  LearnWeights *w = model ? learn_weights_copy (model) : zeros_like (x);
  learn_weights_scal (w, (float) (1.0 - a));
  learn_weights_axpy (w, (float) a, x);
  return w;
}

LearnWeights *
fedavg_agg_add (const LearnWeights *a, float sign, const LearnWeights *b)
{
  LearnWeights *w = learn_weights_copy (a);
  learn_weights_axpy (w, sign, b);
  return w;
}
