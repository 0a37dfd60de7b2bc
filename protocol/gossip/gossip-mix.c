/* gossip-mix.c — sparsification and Metropolis–Hastings mixing
 * (gossip-mix.h). */
#include "config.h"

#include "protocol/gossip/gossip-mix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

guint
gossip_sample_size (guint fanout)
{
  return MAX (4 * fanout, 32u);
}

guint32
gossip_keep_count (gsize n, double keep)
{
  if (n == 0)
    return 0;
  double k = ceil (keep * (double) n - 1e-9);
  if (k < 1)
    k = 1;
  if (k > (double) n)
    k = (double) n;
  return (guint32) k;
}

static int
cmp_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

/* Up to this many draws, the taken set is a sorted array: Floyd's
 * membership test is a binary search and the final sort is the insertion
 * itself, with no allocation.  The coordinator draws sample + 1 (33 for
 * fanout up to 8) for every listed peer at every step. */
#define PICK_SORTED_MAX 256

static guint32
lower_bound (const guint32 *a, guint32 m, guint32 t)
{
  guint32 lo = 0, hi = m;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (a[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Floyd: for j = n-k .. n-1, draw t in [0, j]; take t unless taken, else
 * j.  Every value taken before step j is below j, so j goes at the end. */
static void
pick_sorted (DlRandom *rng, guint32 n, guint32 k, guint32 *out)
{
  guint32 m = 0;
  for (guint32 j = n - k; j < n; j++)
    {
      guint32 t = (guint32) dl_random_below (rng, (uint64_t) j + 1);
      guint32 at = lower_bound (out, m, t);
      if (at < m && out[at] == t)
        {
          out[m++] = j;
          continue;
        }
      memmove (out + at + 1, out + at, (m - at) * sizeof *out);
      out[at] = t;
      m++;
    }
}

/* The same draws for a large k (sparsification: up to the model's size):
 * a hash set, then one sort. */
static void
pick_hashed (DlRandom *rng, guint32 n, guint32 k, guint32 *out)
{
  GHashTable *taken = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 m = 0;
  for (guint32 j = n - k; j < n; j++)
    {
      guint32 t = (guint32) dl_random_below (rng, (uint64_t) j + 1);
      if (g_hash_table_contains (taken, GUINT_TO_POINTER (t + 1)))
        t = j;
      g_hash_table_add (taken, GUINT_TO_POINTER (t + 1));
      out[m++] = t;
    }
  g_hash_table_unref (taken);
  qsort (out, k, sizeof *out, cmp_u32);
}

void
gossip_pick_random_into (DlRandom *rng, guint32 n, guint32 k, guint32 *out)
{
  g_return_if_fail (k <= n);
  if (k <= PICK_SORTED_MAX)
    pick_sorted (rng, n, k, out);
  else
    pick_hashed (rng, n, k, out);
}

guint32 *
gossip_pick_random (DlRandom *rng, guint32 n, guint32 k)
{
  g_return_val_if_fail (k <= n, NULL);
  guint32 *out = g_new (guint32, MAX (k, 1));
  gossip_pick_random_into (rng, n, k, out);
  return out;
}

typedef struct {
  float mag;
  guint32 i;
} Ranked;

/* larger |score| first, then the lower index */
static int
cmp_ranked (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;
  if (x->mag != y->mag)
    return x->mag < y->mag ? 1 : -1;
  return (x->i > y->i) - (x->i < y->i);
}

guint32 *
gossip_pick_top (const float *score, guint32 n, guint32 k)
{
  g_return_val_if_fail (k <= n, NULL);
  Ranked *r = g_new (Ranked, MAX (n, 1));
  for (guint32 i = 0; i < n; i++)
    {
      float m = fabsf (score[i]);
      r[i] = (Ranked) { .mag = isnan (m) ? 0 : m, .i = i };
    }
  qsort (r, n, sizeof *r, cmp_ranked);
  guint32 *out = g_new (guint32, MAX (k, 1));
  for (guint32 j = 0; j < k; j++)
    out[j] = r[j].i;
  g_free (r);
  qsort (out, k, sizeof *out, cmp_u32);
  return out;
}

double
gossip_mh_weight (guint32 di, guint32 dj)
{
  return 1.0 / (1.0 + (double) MAX (di, dj));
}

LearnWeights *
gossip_mix (LearnWeights *own, guint32 degree, const GossipContribution *cs, guint n)
{
  gsize len = learn_weights_len (own);
  if (learn_weights_is_symbolic (own))
    return learn_weights_ref (own);
  const float *x = learn_weights_data (own);
  /* acc[c] = sum over contributions with c of w_ij (x_j[c] - x_i[c]):
   * x_i + that is w_ii x_i + sum w_ij x_j with w_ii = 1 - sum w_ij */
  double *acc = g_new0 (double, MAX (len, 1));
  for (guint k = 0; k < n; k++)
    {
      const GossipContribution *c = &cs[k];
      if (learn_weights_is_symbolic (c->values))
        continue;
      double w = gossip_mh_weight (degree, c->degree);
      const float *v = learn_weights_data (c->values);
      if (c->indices == NULL)
        {
          if (learn_weights_len (c->values) != len)
            continue;
          for (gsize i = 0; i < len; i++)
            acc[i] += w * ((double) v[i] - x[i]);
        }
      else
        for (guint32 j = 0; j < c->n_indices; j++)
          if (c->indices[j] < len)
            acc[c->indices[j]] += w * ((double) v[j] - x[c->indices[j]]);
    }
  LearnWeights *out = learn_weights_new (len);
  float *y = learn_weights_data_mut (out);
  for (gsize i = 0; i < len; i++)
    y[i] = (float) ((double) x[i] + acc[i]);
  g_free (acc);
  return out;
}

double
gossip_staleness_weight (double alpha, double exponent, guint staleness)
{
  return alpha * pow (1.0 + staleness, -exponent);
}

LearnWeights *
gossip_blend (LearnWeights *own, const GossipContribution *c, double w)
{
  gsize len = learn_weights_len (own);
  if (learn_weights_is_symbolic (own) || learn_weights_is_symbolic (c->values))
    return learn_weights_ref (own);
  LearnWeights *out = learn_weights_copy (own);
  float *y = learn_weights_data_mut (out);
  const float *v = learn_weights_data (c->values);
  if (c->indices == NULL)
    {
      if (learn_weights_len (c->values) == len)
        for (gsize i = 0; i < len; i++)
          y[i] = (float) ((double) y[i] + w * ((double) v[i] - y[i]));
    }
  else
    for (guint32 j = 0; j < c->n_indices; j++)
      if (c->indices[j] < len)
        y[c->indices[j]] = (float) ((double) y[c->indices[j]] + w * ((double) v[j] - y[c->indices[j]]));
  return out;
}

float
gossip_pushpull_mean (float mine, float pushed)
{
  return (float) (((double) mine + (double) pushed) / 2);
}

float
gossip_pushpull_take (float mine, float sent, float mean)
{
  if (mine == sent)
    return mean;
  return (float) ((double) mine + ((double) mean - (double) sent));
}
