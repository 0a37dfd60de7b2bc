/* hier-mix-private.h — the hierarchical family's arithmetic, free of any
 * machine state (hier-mix.c, a leaf the peer calls): a cluster's mean, the
 * count-weighted mean of heads' aggregates, and the staleness blend of
 * straggler_policy = async and mixed. */
#pragma once

#include "learn/learn-weights.h"
#include "protocol/proto-message.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* A head's aggregate of one round (its head id first: sorted by it). */
typedef struct {
  ProtoNodeId head;
  uint32_t round;
  guint32 count;
  LearnWeights *mean;
} HierMixPart;

/* (transfer full) the mean of the models in `updates` (member + 1 ->
 * LearnWeights*), summed in member id order; their number in *n. */
LearnWeights *hier_mix_mean (GHashTable *updates, guint *n);

/* (transfer full) the count-weighted mean of `parts` (sorted by head id
 * here): the same bits wherever the same set is combined; a single one is
 * itself; NULL if the counts sum to 0.  The sum of the counts in *total. */
LearnWeights *hier_mix_combine (GArray *parts, guint64 *total);

/* alpha x (1 + staleness)^-exponent (FedAsync's polynomial staleness). */
double hier_mix_staleness_weight (double alpha, double exponent, guint staleness);

/* (transfer full) x + w (y - x); a copy of x if the lengths differ. */
LearnWeights *hier_mix_blend (LearnWeights *x, LearnWeights *y, double w);

G_END_DECLS
