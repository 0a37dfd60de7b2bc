/* fedavg-agg.h — the family's computations, a leaf module that the servers
 * (fedavg-server.c, fedavg-async.c) and the client call and that calls
 * nothing back: the sample-weighted average of the clients' models
 * (McMahan et al. 2017, Algorithm 1: w <- sum_k n_k/n w_k), the draw of a
 * round's clients, and the asynchronous modes' staleness weight, buffer,
 * server step and mixing (Nguyen et al. 2022, FedBuff; Xie et al. 2019,
 * FedAsync).  Symbolic weights (model none) stay symbolic: their
 * arithmetic is skipped (learn-weights.h). */
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

/* (transfer full) the keys of a set of node ids (GUINT_TO_POINTER keys),
 * in ascending order: what a server draws from or sends to depends on the
 * ids, not on the table's order. */
GArray *fedavg_agg_sorted_ids (GHashTable *set);

/* FedBuff's and FedAsync's staleness weight of an update tau server
 * versions old: s(tau) = (1 + tau)^-power (power 0.5: 1/sqrt(1 + tau),
 * FedBuff's; 0: every update weighs 1). */
double fedavg_agg_staleness_weight (guint32 tau, double power);

/* The buffer: *sum += weight x x; a NULL *sum starts as zeros of x's
 * length (symbolic if x is). */
void fedavg_agg_buffer_add (LearnWeights **sum, double weight, const LearnWeights *x);

/* (transfer full) model + step x sum; a NULL model is zeros (FedBuff's
 * server step: w <- w + eta_g / K x sum of s(tau) delta). */
LearnWeights *fedavg_agg_step (const LearnWeights *model, double step, const LearnWeights *sum);

/* (transfer full) (1 - a) x model + a x x; a NULL model is zeros
 * (FedAsync's mixing, a = alpha s(tau)). */
LearnWeights *fedavg_agg_mix (const LearnWeights *model, double a, const LearnWeights *x);

/* (transfer full) a - b, or a + b with sign 1 (the client's update and
 * the global model from its offset: fedavg-client.c). */
LearnWeights *fedavg_agg_add (const LearnWeights *a, float sign, const LearnWeights *b);

G_END_DECLS
