/* learn-model.c — softmax regression and a ReLU MLP on OpenBLAS.
 * Not modelled: regularisation, momentum, learning-rate schedules. */
#include "config.h"

#include "learn/learn-model.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

static const char *const kind_names[] = {
  [LEARN_MODEL_NONE] = "none",
  [LEARN_MODEL_SOFTMAX] = "softmax",
  [LEARN_MODEL_MLP] = "mlp",
};

const char *
learn_model_kind_name (LearnModelKind k)
{
  return (unsigned) k < G_N_ELEMENTS (kind_names) ? kind_names[k] : "?";
}

gboolean
learn_model_kind_from_name (const char *name, LearnModelKind *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_strcmp0 (name, kind_names[i]) == 0)
      {
        *out = (LearnModelKind) i;
        return TRUE;
      }
  g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
               "unknown model kind '%s' (expected none, softmax or mlp)", name ? name : "");
  return FALSE;
}

gsize
learn_model_n_params (const LearnModel *m)
{
  switch (m->kind)
    {
    case LEARN_MODEL_NONE:
      return m->size;
    case LEARN_MODEL_SOFTMAX:
      return m->classes * m->features + m->classes;
    case LEARN_MODEL_MLP:
      return m->hidden * m->features + m->hidden + m->classes * m->hidden + m->classes;
    }
  return 0;
}

LearnWeights *
learn_model_initial_weights (const LearnModel *m, DlRandom *rng)
{
  if (m->kind == LEARN_MODEL_NONE)
    return learn_weights_new_symbolic (m->size);
  LearnWeights *w = learn_weights_new (learn_model_n_params (m));
  if (m->kind != LEARN_MODEL_MLP)
    return w;
  float *d = learn_weights_data_mut (w);
  float lim1 = (float) sqrt (6.0 / (double) (m->features + m->hidden));
  float lim2 = (float) sqrt (6.0 / (double) (m->hidden + m->classes));
  gsize w1 = m->hidden * m->features, b1 = m->hidden, w2 = m->classes * m->hidden;
  for (gsize i = 0; i < w1; i++)
    d[i] = (float) (dl_random_uniform (rng) * 2 - 1) * lim1;
  for (gsize i = 0; i < w2; i++)
    d[w1 + b1 + i] = (float) (dl_random_uniform (rng) * 2 - 1) * lim2;
  return w;
}

/* Row-wise softmax in place; returns the summed -log p[y] over the rows. */
static double
softmax_xent (float *logits, gsize rows, guint classes, const int32_t *y)
{
  double loss = 0;
  for (gsize r = 0; r < rows; r++)
    {
      float *l = logits + r * classes;
      float mx = l[0];
      for (guint c = 1; c < classes; c++)
        mx = MAX (mx, l[c]);
      double sum = 0;
      for (guint c = 0; c < classes; c++)
        {
          l[c] = expf (l[c] - mx);
          sum += l[c];
        }
      for (guint c = 0; c < classes; c++)
        l[c] = (float) (l[c] / sum);
      int32_t t = y[r];
      if (t >= 0 && (guint) t < classes)
        loss += -log (MAX ((double) l[t], 1e-30));
    }
  return loss;
}

typedef struct {
  float *x;       /* B x f gathered rows */
  int32_t *y;
  float *hpre;    /* B x h */
  float *h;       /* B x h */
  float *logits;  /* B x c */
  float *dh;      /* B x h */
} Work;

static void
work_init (Work *k, const LearnModel *m, gsize b)
{
  k->x = g_new (float, b * m->features);
  k->y = g_new (int32_t, b);
  k->logits = g_new (float, b * m->classes);
  gsize hh = m->kind == LEARN_MODEL_MLP ? b * m->hidden : 1;
  k->hpre = g_new (float, hh);
  k->h = g_new (float, hh);
  k->dh = g_new (float, hh);
}

static void
work_clear (Work *k)
{
  g_free (k->x);
  g_free (k->y);
  g_free (k->logits);
  g_free (k->hpre);
  g_free (k->h);
  g_free (k->dh);
}

/* Forward pass over b gathered rows; leaves probabilities in k->logits;
 * returns the summed loss. */
static double
forward (const LearnModel *m, const float *w, Work *k, gsize b)
{
  int B = (int) b, F = (int) m->features, C = (int) m->classes, H = (int) m->hidden;
  if (m->kind == LEARN_MODEL_SOFTMAX)
    {
      const float *W = w, *bias = w + (gsize) C * F;
      for (gsize r = 0; r < b; r++)
        memcpy (k->logits + r * C, bias, C * sizeof (float));
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, B, C, F, 1.0f, k->x, F, W, F, 1.0f,
                   k->logits, C);
    }
  else
    {
      const float *W1 = w, *b1 = W1 + (gsize) H * F, *W2 = b1 + H, *b2 = W2 + (gsize) C * H;
      for (gsize r = 0; r < b; r++)
        memcpy (k->hpre + r * H, b1, H * sizeof (float));
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, B, H, F, 1.0f, k->x, F, W1, F, 1.0f,
                   k->hpre, H);
      for (gsize i = 0; i < b * (gsize) H; i++)
        k->h[i] = k->hpre[i] > 0 ? k->hpre[i] : 0;
      for (gsize r = 0; r < b; r++)
        memcpy (k->logits + r * C, b2, C * sizeof (float));
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, B, C, H, 1.0f, k->h, H, W2, H, 1.0f,
                   k->logits, C);
    }
  return softmax_xent (k->logits, b, m->classes, k->y);
}

/* Backward pass after forward: grad = d(mean loss)/dw. */
static void
backward (const LearnModel *m, const float *w, Work *k, gsize b, float *grad)
{
  int B = (int) b, F = (int) m->features, C = (int) m->classes, H = (int) m->hidden;
  float inv = 1.0f / (float) b;
  /* dlogits = (p - onehot) / B, in place */
  for (gsize r = 0; r < b; r++)
    {
      float *l = k->logits + r * C;
      if (k->y[r] >= 0 && k->y[r] < C)
        l[k->y[r]] -= 1.0f;
      for (int c = 0; c < C; c++)
        l[c] *= inv;
    }
  if (m->kind == LEARN_MODEL_SOFTMAX)
    {
      float *dW = grad, *db = grad + (gsize) C * F;
      cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, C, F, B, 1.0f, k->logits, C, k->x, F,
                   0.0f, dW, F);
      memset (db, 0, C * sizeof (float));
      for (gsize r = 0; r < b; r++)
        for (int c = 0; c < C; c++)
          db[c] += k->logits[r * C + c];
      return;
    }
  const float *W2 = w + (gsize) H * F + H;
  float *dW1 = grad, *db1 = dW1 + (gsize) H * F, *dW2 = db1 + H, *db2 = dW2 + (gsize) C * H;
  cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, C, H, B, 1.0f, k->logits, C, k->h, H,
               0.0f, dW2, H);
  memset (db2, 0, C * sizeof (float));
  for (gsize r = 0; r < b; r++)
    for (int c = 0; c < C; c++)
      db2[c] += k->logits[r * C + c];
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, C, 1.0f, k->logits, C, W2, H,
               0.0f, k->dh, H);
  for (gsize i = 0; i < b * (gsize) H; i++)
    if (k->hpre[i] <= 0)
      k->dh[i] = 0;
  cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, H, F, B, 1.0f, k->dh, H, k->x, F, 0.0f,
               dW1, F);
  memset (db1, 0, H * sizeof (float));
  for (gsize r = 0; r < b; r++)
    for (int j = 0; j < H; j++)
      db1[j] += k->dh[r * H + j];
}

static void
gather (const LearnDataset *d, const gsize *idx, gsize n, Work *k)
{
  for (gsize i = 0; i < n; i++)
    {
      gsize row = idx ? idx[i] : i;
      memcpy (k->x + i * d->features, d->x + row * d->features, d->features * sizeof (float));
      k->y[i] = d->y[row];
    }
}

double
learn_model_loss_grad (const LearnModel *m, const float *w, const LearnDataset *d, const gsize *idx,
                       gsize n, float *grad)
{
  g_return_val_if_fail (m->kind != LEARN_MODEL_NONE && n > 0, NAN);
  Work k;
  work_init (&k, m, n);
  gather (d, idx, n, &k);
  double loss = forward (m, w, &k, n) / (double) n;
  if (grad)
    backward (m, w, &k, n, grad);
  work_clear (&k);
  return loss;
}

LearnWeights *
learn_model_train (const LearnModel *m, LearnWeights *w, const LearnDataset *shard, guint epochs,
                   DlRandom *rng)
{
  if (m->kind == LEARN_MODEL_NONE || shard == NULL || shard->n == 0 || epochs == 0)
    return learn_weights_ref (w);
  g_return_val_if_fail (shard->features == m->features, learn_weights_ref (w));
  LearnWeights *out = learn_weights_copy (w);
  float *wd = learn_weights_data_mut (out);
  gsize np = learn_model_n_params (m), bs = MAX (m->batch_size, 1);
  g_autofree float *grad = g_new (float, np);
  g_autofree gsize *order = g_new (gsize, shard->n);
  Work k;
  work_init (&k, m, MIN (bs, shard->n));
  for (guint e = 0; e < epochs; e++)
    {
      for (gsize i = 0; i < shard->n; i++)
        order[i] = i;
      for (gsize i = shard->n; i > 1; i--)
        {
          gsize j = (gsize) dl_random_below (rng, i), t = order[i - 1];
          order[i - 1] = order[j];
          order[j] = t;
        }
      for (gsize start = 0; start < shard->n; start += bs)
        {
          gsize b = MIN (bs, shard->n - start);
          gather (shard, order + start, b, &k);
          forward (m, wd, &k, b);
          backward (m, wd, &k, b, grad);
          cblas_saxpy ((int) np, -m->learning_rate, grad, 1, wd, 1);
        }
    }
  work_clear (&k);
  return out;
}

void
learn_model_evaluate (const LearnModel *m, const LearnWeights *w, const LearnDataset *d,
                      double *out_accuracy, double *out_loss)
{
  if (m->kind == LEARN_MODEL_NONE || d == NULL || d->n == 0)
    {
      *out_accuracy = NAN;
      *out_loss = NAN;
      return;
    }
  const gsize chunk = 256;
  Work k;
  work_init (&k, m, MIN (chunk, d->n));
  double loss = 0;
  gsize correct = 0;
  g_autofree gsize *idx = g_new (gsize, MIN (chunk, d->n));
  for (gsize start = 0; start < d->n; start += chunk)
    {
      gsize b = MIN (chunk, d->n - start);
      for (gsize i = 0; i < b; i++)
        idx[i] = start + i;
      gather (d, idx, b, &k);
      loss += forward (m, learn_weights_data (w), &k, b);
      for (gsize r = 0; r < b; r++)
        {
          const float *p = k.logits + r * m->classes;
          guint best = 0;
          for (guint c = 1; c < m->classes; c++)
            if (p[c] > p[best])
              best = c;
          correct += (int32_t) best == k.y[r];
        }
    }
  work_clear (&k);
  *out_accuracy = (double) correct / (double) d->n;
  *out_loss = loss / (double) d->n;
}

void
learn_model_evaluate_cached (LearnEvalCache *c, const LearnModel *m, const LearnWeights *w,
                             const LearnDataset *d, double *out_accuracy, double *out_loss)
{
  if (c->weights && c->model == m && c->set == d && learn_weights_equal (c->weights, w))
    {
      c->hits++;
      *out_accuracy = c->accuracy;
      *out_loss = c->loss;
      return;
    }
  learn_model_evaluate (m, w, d, out_accuracy, out_loss);
  gsize n = learn_weights_len (w);
  if (c->weights && learn_weights_len (c->weights) == n && !learn_weights_is_symbolic (w)
      && !learn_weights_is_symbolic (c->weights))
    memcpy (learn_weights_data_mut (c->weights), learn_weights_data (w), n * sizeof (float));
  else
    {
      g_clear_pointer (&c->weights, learn_weights_unref);
      c->weights = learn_weights_copy (w);
    }
  c->model = m;
  c->set = d;
  c->accuracy = *out_accuracy;
  c->loss = *out_loss;
}

void
learn_eval_cache_clear (LearnEvalCache *c)
{
  g_clear_pointer (&c->weights, learn_weights_unref);
  c->model = NULL;
  c->set = NULL;
}
