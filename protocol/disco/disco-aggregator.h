/* disco-aggregator.h — DISCO's decentralized aggregators as plain state:
 * `Aggregator` (discojs/src/aggregator/aggregator.ts) with its two
 * decentralized subclasses, `MeanAggregator` (mean.ts, threshold 1 relative,
 * round cutoff 0, as getAggregator (get.ts) builds it for decentralized
 * tasks) and `SecureAggregator` (secure.ts).
 *
 * Its state outlives a round: the aggregation round (raised by setRound,
 * incremented when the last communication round aggregates), the
 * communication round (incremented at each aggregation, back to 0 after the
 * last), and the stored contributions per communication round (cleared only
 * after the last communication round).  A peer that stops part-way (secure
 * aggregation whose wait expired in communication round 0) leaves it in
 * communication round 1 for later rounds, as DISCO's does.
 *
 * Shape: disco_aggregator_new / disco_aggregator_free (g_autoptr). */
#pragma once

#include "base/dl-random.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-config.h"
#include "protocol/proto-message.h"

G_BEGIN_DECLS

typedef struct DiscoAggregator DiscoAggregator;

/* rng: the stream for secure shares (borrowed; needed for secure only). */
DiscoAggregator *disco_aggregator_new (DiscoAggregation kind, double max_share_value, DlRandom *rng);
void disco_aggregator_free (DiscoAggregator *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DiscoAggregator, disco_aggregator_free)

/* setNodes: the round's node set, in this order (DISCO: the PeersForRound
 * list, then self). */
void disco_aggregator_set_nodes (DiscoAggregator *a, const ProtoNodeId *ids, guint n);
guint disco_aggregator_n_nodes (const DiscoAggregator *a);
ProtoNodeId disco_aggregator_node (const DiscoAggregator *a, guint i);
gboolean disco_aggregator_has_node (const DiscoAggregator *a, ProtoNodeId id);

/* setRound: only ever raises the round. */
void disco_aggregator_set_round (DiscoAggregator *a, uint32_t round);
uint32_t disco_aggregator_round (const DiscoAggregator *a);
guint disco_aggregator_comm_round (const DiscoAggregator *a);
guint disco_aggregator_n_comm_rounds (const DiscoAggregator *a);
/* Contributions stored under a communication round (any node, any round). */
guint disco_aggregator_stored (const DiscoAggregator *a, guint comm_round);

/* isValidContribution: node is in the set and round - msg_round <= 0 (a
 * future round passes: S27). */
gboolean disco_aggregator_is_valid (const DiscoAggregator *a, ProtoNodeId node, uint32_t round);

/* A hint that changes nothing: a contribution of `node` comes soon.
 * Stage 0 loads the aggregator's record, stage 1 (later: it reads the
 * record) node's places in the node set and the stores. */
void disco_aggregator_prefetch (const DiscoAggregator *a, ProtoNodeId node, guint stage);

/* add(): stores the contribution (mean: always under communication round 0;
 * secure: under comm_round, which must be 0 or 1) and, if the aggregator is
 * then full, aggregates, advances, and returns the result: the 'aggregation'
 * event.  (transfer full) the emitted weights, or NULL when nothing was
 * emitted.  An invalid contribution or comm round is refused (NULL) and
 * *refused is set: DISCO throws there. */
LearnWeights *disco_aggregator_add (DiscoAggregator *a, ProtoNodeId node, LearnWeights *w,
                                    uint32_t round, guint comm_round, gboolean *refused);

/* makePayloads(base) for the aggregator's current communication round: one
 * vector per node, in node order.  Mean, or secure in communication round 1:
 * base for every node.  Secure in round 0: n-1 uniform shares in
 * (-max_share_value, max_share_value), then base minus their sum.
 * (transfer full) an array of n_nodes references; free with
 * disco_aggregator_payloads_free. */
LearnWeights **disco_aggregator_make_payloads (DiscoAggregator *a, LearnWeights *base);
void disco_aggregator_payloads_free (LearnWeights **payloads, guint n);

/* robust: the round's exchange is given up: contributions dropped, back to
 * communication round 0, the aggregation round unchanged (the next
 * PeersForRound raises it). */
void disco_aggregator_abort (DiscoAggregator *a);
/* robust, async and mixed: in round `round`, node ids[i]'s contribution to
 * the mean weighs w[i] (the mean is then sum w x / sum w, in node-id
 * order); equal weights leave the plain mean.  Forgotten once that round
 * is aggregated or a later one begins. */
void disco_aggregator_set_weights (DiscoAggregator *a, uint32_t round, const ProtoNodeId *ids, const double *w,
                                   guint n);
/* robust: full only with one contribution from each current node (self
 * included), aggregating those alone; a higher round drops what is stored.
 * DISCO's mean counts every stored contribution (mean.ts), which lets early
 * Payloads complete a round before the peer's own (F1). */
void disco_aggregator_set_strict (DiscoAggregator *a, gboolean strict);
/* Has node's contribution for the current communication round arrived? */
gboolean disco_aggregator_has_contribution (const DiscoAggregator *a, ProtoNodeId node);

G_END_DECLS
