/* learn-weights.h — weight vectors: refcounted float arrays.
 *
 * A vector is mutable only while its creator holds the one reference
 * (learn_weights_data_mut asserts that); once shared it is immutable, so one
 * peer's weights sent to 999 others are referenced, never copied.
 * Arithmetic runs on OpenBLAS (saxpy, sscal).
 *
 * Shape: learn_weights_new* / learn_weights_ref / learn_weights_unref
 * (g_autoptr). */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct LearnWeights LearnWeights;

/* (transfer full) n zeros */
LearnWeights *learn_weights_new (gsize n);
/* (transfer full) a copy of data[0..n) */
LearnWeights *learn_weights_new_from (const float *data, gsize n);
/* (transfer full) n floats that are only a size (model `none`): the data
 * reads as zeros, arithmetic on symbolic vectors is skipped, and the mean or
 * sum of symbolic vectors is a reference to the first one. */
LearnWeights *learn_weights_new_symbolic (gsize n);
gboolean learn_weights_is_symbolic (const LearnWeights *w);
/* (transfer full) a mutable copy of w */
LearnWeights *learn_weights_copy (const LearnWeights *w);
LearnWeights *learn_weights_ref (LearnWeights *w);
void learn_weights_unref (LearnWeights *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LearnWeights, learn_weights_unref)

gsize learn_weights_len (const LearnWeights *w);
gsize learn_weights_byte_size (const LearnWeights *w);
const float *learn_weights_data (const LearnWeights *w);
/* Writable data; only while the caller holds the only reference. */
float *learn_weights_data_mut (LearnWeights *w);
gboolean learn_weights_is_shared (const LearnWeights *w);

/* y += alpha * x (y must be unshared, same length) */
void learn_weights_axpy (LearnWeights *y, float alpha, const LearnWeights *x);
/* y *= alpha (y unshared) */
void learn_weights_scal (LearnWeights *y, float alpha);
/* (transfer full) element-wise mean of ws[0..n), summed in the given order. */
LearnWeights *learn_weights_mean (LearnWeights *const *ws, gsize n);
/* (transfer full) element-wise sum of ws[0..n), in the given order. */
LearnWeights *learn_weights_sum (LearnWeights *const *ws, gsize n);
/* Largest absolute element-wise difference. */
double learn_weights_max_abs_diff (const LearnWeights *a, const LearnWeights *b);
gboolean learn_weights_equal (const LearnWeights *a, const LearnWeights *b);
/* Mean over ws[0..n) of the squared distance to their element-wise mean
 * (the consensus distance); NAN for n = 0. */
double learn_weights_consensus_distance (LearnWeights *const *ws, gsize n);

G_END_DECLS
