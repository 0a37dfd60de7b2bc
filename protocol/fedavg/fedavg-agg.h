/* fedavg-agg.h — FedAvg's two computations, a leaf module that the server
 * (fedavg-server.c) calls and that calls nothing back: the sample-weighted
 * average of the clients' models (McMahan et al. 2017, Algorithm 1:
 * w <- sum_k n_k/n w_k) and the draw of a round's clients. */
#pragma once

#include "base/dl-random.h"
#include "learn/learn-weights.h"

G_BEGIN_DECLS

/* (transfer full) sum_k counts[k] / sum(counts) * ws[k]; n >= 1, every
 * count >= 1.  Symbolic weights (model none) give a copy of ws[0]. */
LearnWeights *fedavg_agg_weighted_mean (LearnWeights *const *ws, const guint64 *counts, gsize n);

/* How many of `available` clients a round samples: max(ceil(fraction x
 * available), min_clients), at most `available`. */
guint fedavg_agg_sample_size (guint available, double fraction, guint min_clients);

/* Draws m of the n ids into out (m <= n), without replacement, in the
 * order drawn (a partial Fisher-Yates shuffle of a copy of ids). */
void fedavg_agg_sample (DlRandom *rng, const guint32 *ids, guint n, guint m, guint32 *out);

G_END_DECLS
