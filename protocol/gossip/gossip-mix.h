/* gossip-mix.h — the gossip family's arithmetic, free of any machine state:
 * which coordinates a peer sends (sparsification with optional error
 * feedback) and how a peer mixes what its neighbours sent (Metropolis–
 * Hastings weights over the step's contact graph).
 *
 * Metropolis–Hastings (Xiao & Boyd, "Fast linear iterations for distributed
 * averaging", 2004; the weights of decentralized SGD, Lian et al. 2017):
 * for an edge i–j, w_ij = 1 / (1 + max(d_i, d_j)), and w_ii = 1 - sum_j w_ij.
 * The matrix is symmetric and doubly stochastic, so repeated mixing
 * converges to the average.  With sparsified payloads a coordinate that a
 * neighbour did not send keeps that neighbour's weight on the peer's own
 * value (the same rule as a neighbour that never answered), which keeps each
 * coordinate's row stochastic. */
#pragma once

#include "base/dl-random.h"
#include "learn/learn-weights.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* How many candidates a PeersForRound offers at most: max(4 x fanout, 32). */
guint gossip_sample_size (guint fanout);

/* k of n coordinates: ceil(keep * n), at least 1 (n > 0). */
guint32 gossip_keep_count (gsize n, double keep);

/* (transfer full) k distinct indices of [0, n) drawn from rng, ascending
 * (Floyd's algorithm: k draws whatever n is). */
guint32 *gossip_pick_random (DlRandom *rng, guint32 n, guint32 k);

/* The same k indices, the same draws, into the caller's out[0..k): no
 * allocation for k up to 256. */
void gossip_pick_random_into (DlRandom *rng, guint32 n, guint32 k, guint32 *out);

/* (transfer full) the k indices of the largest |score|, ascending; ties go
 * to the lower index. */
guint32 *gossip_pick_top (const float *score, guint32 n, guint32 k);

/* What one neighbour sent. */
typedef struct {
  LearnWeights *values;       /* the model, or the values at `indices` */
  const guint32 *indices;     /* NULL: dense */
  guint32 n_indices;
  guint32 degree;             /* the sender's degree */
} GossipContribution;

/* Metropolis–Hastings weight of an edge between degrees di and dj. */
double gossip_mh_weight (guint32 di, guint32 dj);

/* (transfer full) own mixed with cs[0..n) by Metropolis–Hastings, own
 * degree `degree` (the size of its neighbour set, arrived or not).  The
 * sum runs in the order of cs (callers sort by sender), in double. */
LearnWeights *gossip_mix (LearnWeights *own, guint32 degree, const GossipContribution *cs, guint n);

/* An asynchronous push's weight: alpha x (1 + staleness)^-exponent, the
 * polynomial staleness function of FedAsync (Xie et al., 2019). */
double gossip_staleness_weight (double alpha, double exponent, guint staleness);

/* (transfer full) own moved towards c by weight w: own + w (c - own), on
 * c's coordinates only (sparse) or all (dense).  c->degree is not used. */
LearnWeights *gossip_blend (LearnWeights *own, const GossipContribution *c, double w);

/* Push-pull averaging (Jelasity, Montresor, Babaoglu, ACM TOCS 2005: the
 * exchange of their Figure 1 with AVERAGE).  The receiver of a push takes
 * the mean of the value pushed and its own, and answers with it. */
float gossip_pushpull_mean (float mine, float pushed);

/* The pusher, answered with `mean` for the value `sent`: it moves by what
 * the receiver moved, the other way.  With nothing in between (mine ==
 * sent) both end on the mean, exactly; when a push of a third peer changed
 * mine meanwhile, the sum of the values is still kept. */
float gossip_pushpull_take (float mine, float sent, float mean);

G_END_DECLS
