/* fedavg-agg.c — the weighted average and the client draw (fedavg-agg.h). */
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
