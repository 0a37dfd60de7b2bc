/* learn-model.h — the models peers train: softmax regression, a
 * one-hidden-layer ReLU MLP, or `none` (weights are only a size, for pure
 * protocol studies).  Weights are one flat float vector:
 *   softmax: W[classes x features], b[classes]
 *   mlp:     W1[hidden x features], b1[hidden], W2[classes x hidden], b2[classes]
 * Minibatch SGD with forward and backward passes on OpenBLAS (sgemm).
 *
 * Shape: LearnModel is a plain value (learn_model_init). */
#pragma once

#include "base/dl-random.h"
#include "learn/learn-data.h"
#include "learn/learn-weights.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  LEARN_MODEL_NONE,
  LEARN_MODEL_SOFTMAX,
  LEARN_MODEL_MLP,
} LearnModelKind;

typedef struct {
  LearnModelKind kind;
  gsize features;
  guint classes;
  gsize hidden;          /* mlp */
  gsize size;            /* none: number of floats */
  float learning_rate;
  gsize batch_size;
} LearnModel;

gboolean learn_model_kind_from_name (const char *name, LearnModelKind *out, GError **error);
const char *learn_model_kind_name (LearnModelKind kind);

gsize learn_model_n_params (const LearnModel *m);
/* (transfer full) softmax: zeros; mlp: Glorot-uniform from rng; none: zeros. */
LearnWeights *learn_model_initial_weights (const LearnModel *m, DlRandom *rng);

/* Mean cross-entropy over rows idx[0..n) of d; if grad != NULL, also its
 * gradient with respect to w (n_params floats). */
double learn_model_loss_grad (const LearnModel *m, const float *w, const LearnDataset *d,
                              const gsize *idx, gsize n, float *grad);

/* (transfer full) w after `epochs` passes of minibatch SGD over shard, the
 * minibatch order drawn from rng.  none: returns a new reference to w. */
LearnWeights *learn_model_train (const LearnModel *m, LearnWeights *w, const LearnDataset *shard,
                                 guint epochs, DlRandom *rng);

/* Accuracy and mean cross-entropy on d; NAN for `none` or an empty set. */
void learn_model_evaluate (const LearnModel *m, const LearnWeights *w, const LearnDataset *d,
                           double *out_accuracy, double *out_loss);

/* The last evaluation, kept so that the same weights on the same set are
 * evaluated once: at a round's end every peer of a synchronous family
 * holds the same model (in the churn example sweep 2 813 evaluations
 * were 263 distinct models).  It keeps a copy of the weights, compared
 * bit for bit, so a vector changed in place since is evaluated again.
 * Zero-initialise it; learn_eval_cache_clear frees it. */
typedef struct {
  LearnWeights *weights;          /* a copy; NULL: nothing kept */
  const LearnModel *model;
  const LearnDataset *set;
  double accuracy, loss;
  guint64 hits;                   /* evaluations answered from the copy */
} LearnEvalCache;

/* learn_model_evaluate's results, taken from c when w holds the same bits
 * as the weights c kept for the same model and set */
void learn_model_evaluate_cached (LearnEvalCache *c, const LearnModel *m, const LearnWeights *w,
                                  const LearnDataset *d, double *out_accuracy, double *out_loss);
void learn_eval_cache_clear (LearnEvalCache *c);

G_END_DECLS
