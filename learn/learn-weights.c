/* learn-weights.c — refcounted float vectors with OpenBLAS arithmetic. */
#include "config.h"

#include "learn/learn-weights.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

struct LearnWeights {
  gatomicrefcount ref;
  gsize n;
  gboolean symbolic;
  float data[];
};

LearnWeights *
learn_weights_new (gsize n)
{
  g_return_val_if_fail (n <= (G_MAXSIZE - sizeof (LearnWeights)) / sizeof (float), NULL);
  LearnWeights *w = g_malloc0 (sizeof (LearnWeights) + n * sizeof (float));
  g_atomic_ref_count_init (&w->ref);
  w->n = n;
  return w;
}

LearnWeights *
learn_weights_new_symbolic (gsize n)
{
  LearnWeights *w = learn_weights_new (n);
  w->symbolic = TRUE;
  return w;
}

gboolean
learn_weights_is_symbolic (const LearnWeights *w)
{
  return w->symbolic;
}

LearnWeights *
learn_weights_new_from (const float *data, gsize n)
{
  LearnWeights *w = learn_weights_new (n);
  if (n)
    memcpy (w->data, data, n * sizeof (float));
  return w;
}

LearnWeights *
learn_weights_copy (const LearnWeights *w)
{
  if (w->symbolic)
    return learn_weights_new_symbolic (w->n);
  return learn_weights_new_from (w->data, w->n);
}

LearnWeights *
learn_weights_ref (LearnWeights *w)
{
  g_return_val_if_fail (w != NULL, NULL);
  g_atomic_ref_count_inc (&w->ref);
  return w;
}

void
learn_weights_unref (LearnWeights *w)
{
  if (w && g_atomic_ref_count_dec (&w->ref))
    g_free (w);
}

gsize
learn_weights_len (const LearnWeights *w)
{
  return w->n;
}

gsize
learn_weights_byte_size (const LearnWeights *w)
{
  return w->n * sizeof (float);
}

const float *
learn_weights_data (const LearnWeights *w)
{
  return w->data;
}

gboolean
learn_weights_is_shared (const LearnWeights *w)
{
  return !g_atomic_ref_count_compare (&((LearnWeights *) w)->ref, 1);
}

float *
learn_weights_data_mut (LearnWeights *w)
{
  g_assert (!learn_weights_is_shared (w));
  return w->data;
}

/* OpenBLAS takes int lengths; work in chunks so any length is fine. */
#define CHUNK ((gsize) 1 << 30)

void
learn_weights_axpy (LearnWeights *y, float alpha, const LearnWeights *x)
{
  g_return_if_fail (x->n == y->n);
  if (y->symbolic)
    return;
  float *yd = learn_weights_data_mut (y);
  for (gsize off = 0; off < y->n; off += CHUNK)
    {
      gsize len = MIN (CHUNK, y->n - off);
      cblas_saxpy ((int) len, alpha, x->data + off, 1, yd + off, 1);
    }
}

void
learn_weights_scal (LearnWeights *y, float alpha)
{
  if (y->symbolic)
    return;
  float *yd = learn_weights_data_mut (y);
  for (gsize off = 0; off < y->n; off += CHUNK)
    {
      gsize len = MIN (CHUNK, y->n - off);
      cblas_sscal ((int) len, alpha, yd + off, 1);
    }
}

LearnWeights *
learn_weights_sum (LearnWeights *const *ws, gsize n)
{
  g_return_val_if_fail (n > 0, NULL);
  if (ws[0]->symbolic)
    return learn_weights_ref (ws[0]);
  LearnWeights *acc = learn_weights_copy (ws[0]);
  for (gsize i = 1; i < n; i++)
    learn_weights_axpy (acc, 1.0f, ws[i]);
  return acc;
}

LearnWeights *
learn_weights_mean (LearnWeights *const *ws, gsize n)
{
  if (n > 0 && ws[0]->symbolic)
    return learn_weights_ref (ws[0]);
  LearnWeights *acc = learn_weights_sum (ws, n);
  if (n > 1)
    learn_weights_scal (acc, 1.0f / (float) n);
  return acc;
}

double
learn_weights_max_abs_diff (const LearnWeights *a, const LearnWeights *b)
{
  g_return_val_if_fail (a->n == b->n, INFINITY);
  double m = 0;
  for (gsize i = 0; i < a->n; i++)
    m = MAX (m, fabs ((double) a->data[i] - (double) b->data[i]));
  return m;
}

gboolean
learn_weights_equal (const LearnWeights *a, const LearnWeights *b)
{
  return a->n == b->n && memcmp (a->data, b->data, a->n * sizeof (float)) == 0;
}

double
learn_weights_consensus_distance (LearnWeights *const *ws, gsize n)
{
  if (n == 0)
    return NAN;
  g_autoptr (LearnWeights) avg = learn_weights_mean (ws, n);
  double d = 0;
  gsize len = learn_weights_len (avg);
  const float *y = learn_weights_data (avg);
  for (gsize m = 0; m < n; m++)
    {
      const float *x = learn_weights_data (ws[m]);
      for (gsize k = 0; k < len; k++)
        d += ((double) x[k] - y[k]) * ((double) x[k] - y[k]);
    }
  return d / (double) n;
}
