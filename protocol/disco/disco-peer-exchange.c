/* disco-peer-exchange.c — the bookkeeping of the peer's exchange of weight
 * updates: exchangeWeightUpdates (discojs/src/client/decentralized/
 * decentralized_client.ts) with its aggregationResult promise
 * (disco-peer-private.h; the block comment at the exchange in
 * disco-peer.c says how it runs): a communication round's Payloads, a received
 * contribution's validation and add, the promise, and what a finished or
 * aborted exchange leaves.  A leaf of disco-peer.c: the peer decides when
 * the exchange begins, goes on, ends or is aborted, and what comes next;
 * this file calls nothing of disco-peer.c. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-peer-private.h"
#include "protocol/disco/disco-msgs.h"

#include <math.h>
#include <string.h>

/* The aggregator emitted 'aggregation' (takes the reference). */
void
_disco_peer_resolve (DiscoPeer *p, ProtoOutbox *out, LearnWeights *emitted)
{
  if (p->promise != PROMISE_PENDING)
    {
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, disco_aggregator_comm_round (p->agg),
               "aggregation event with no pending aggregationResult: nobody awaits it");
      learn_weights_unref (emitted);
      return;
    }
  p->promise = PROMISE_RESOLVED;
  p->promised = emitted;
}

/* One communication round: our own contribution, then the Payloads.  TRUE
 * if a send was rejected (a link the other end closed): an unhandled
 * rejection, which ends a Node.js process (disco-peer.c decides). */
gboolean
_disco_peer_send_round (DiscoPeer *p, ProtoOutbox *out)
{
  guint n = disco_aggregator_n_nodes (p->agg);
  LearnWeights **payloads = disco_aggregator_make_payloads (p->agg, p->xchg_result);
  /* the own contribution is added synchronously inside the forEach; the
   * Payloads are built after an `await encode`, so they carry the
   * aggregator's round as it is after that add */
  for (guint i = 0; i < n; i++)
    if (disco_aggregator_node (p->agg, i) == p->id)
      {
        gboolean refused;
        LearnWeights *emitted = disco_aggregator_add (p->agg, p->id, payloads[i], disco_aggregator_round (p->agg),
                                                      p->xchg_c, &refused);
        if (refused)
          _disco_peer_observe (p, out, PROTO_OBS_ERROR, p->id, DISCO_MSG_PAYLOAD, -1,
                   "own contribution refused by the aggregator");
        else if (emitted)
          _disco_peer_resolve (p, out, emitted);
      }
  gboolean rejected = FALSE;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId to = disco_aggregator_node (p->agg, i);
      if (to == p->id)
        continue;
      Link *l = _disco_peer_find_link (p, to);
      if (l == NULL)
        {
          _disco_peer_observe (p, out, PROTO_OBS_NOTE, to, DISCO_MSG_PAYLOAD, -1, "no connection: payload skipped");
          continue;
        }
      if (l->state == DISCO_LINK_CLOSED)
        {
          /* the other end closed the link, so the Peer is destroyed:
           * Peer.send (discojs/src/client/decentralized/peer.ts) throws
           * 'cannot send after peer is destroyed' inside the un-awaited
           * payloads.forEach(async ...) of exchangeWeightUpdates
           * (decentralized_client.ts).  The other callbacks still send; the
           * rejection is unhandled: a browser logs it, Node ends the
           * process once they have (D2) */
          _disco_peer_observe (p, out, PROTO_OBS_ERROR, to, DISCO_MSG_PAYLOAD, -1,
                      "unhandled rejection 'cannot send after peer is destroyed': payload not sent");
          rejected = TRUE;
          continue;
        }
      ProtoMsg m;
      proto_msg_init (&m, DISCO_MSG_PAYLOAD);
      m.node = to;
      /* robust tags with the round the exchange began in: the own add above
       * may already have completed that round (F1, docs/found.md) */
      m.round = disco_config (&p->cfg)->robust_exact_round ? p->xchg_round : disco_aggregator_round (p->agg);
      m.comm_round = p->xchg_c;
      proto_msg_set_weights (&m, payloads[i]);
      _disco_peer_send_msg (p, out, to, PROTO_VIA_LINK, &m);
    }
  disco_aggregator_payloads_free (payloads, n);
  return rejected;
}

/* One receive loop's handling of a Payload (receivePayloads in
 * decentralized_client.ts): isValidContribution, then aggregator.add.
 * TRUE if the aggregator emitted (the promise took it): the exchange may
 * go on (disco-peer.c). */
gboolean
_disco_peer_exchange_add (DiscoPeer *p, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  /* receivePayloads: isValidContribution (sender in nodes and round -
   * msgRound <= 0: a future round passes, S27), then aggregator.add, which
   * throws (caught and logged by the loop) for a secure comm round > 1 */
  /* pre-775's Payload carries no aggregation round: receivePayloads passes
   * the receiver's own (always within the cutoff) */
  uint32_t msg_round = disco_config (&p->cfg)->ready_at_round_start ? disco_aggregator_round (p->agg) : msg->round;
  if (msg->weights == NULL || !disco_aggregator_is_valid (p->agg, from, msg_round)
      || (disco_config (&p->cfg)->robust_exact_round && msg->round != disco_aggregator_round (p->agg))
      || (disco_aggregator_n_comm_rounds (p->agg) == 2 && msg->comm_round >= 2))
    {
      char why[80];
      g_snprintf (why, sizeof why, "invalid contribution (payload round %u, comm %u)",
                  msg->round, msg->comm_round);
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, from, DISCO_MSG_PAYLOAD, msg->round, why);
      return FALSE;
    }
  if (learn_weights_len (msg->weights) != learn_weights_len (p->model))
    {
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, from, DISCO_MSG_PAYLOAD, msg->round,
               "weights of the wrong size");
      return FALSE;
    }
  if (disco_config (&p->cfg)->robust_exchange_deadline && p->base.state == DISCO_PEER_EXCHANGING && !p->xchg_cut)
    p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  gboolean refused;
  uint32_t agg_round = disco_aggregator_round (p->agg);
  LearnWeights *emitted = disco_aggregator_add (p->agg, from, msg->weights, msg_round, msg->comm_round, &refused);
  if (!refused && msg_round != agg_round)
    {
      /* S27: isValidContribution lets a future round's contribution in */
      char why[80];
      g_snprintf (why, sizeof why, "a contribution of round %u aggregated in round %u", msg->round, agg_round);
      _disco_peer_observe (p, out, PROTO_OBS_FOREIGN_ROUND, from, DISCO_MSG_PAYLOAD, msg->round, why);
    }
  if (emitted == NULL)
    return FALSE;
  _disco_peer_resolve (p, out, emitted);
  return TRUE;
}

/* exchangeWeightUpdates returned `result` (partial: communication round
 * 0's, never sent): it becomes the model, the round counts, and providers
 * waiting for this round serve now. */
void
_disco_peer_round_finished (DiscoPeer *p, ProtoOutbox *out, LearnWeights *result, gboolean partial)
{
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (result);
  learn_weights_unref (p->latest_model);
  p->latest_model = learn_weights_ref (result);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, disco_peer_state_name (p->base.state), (int32_t) p->xchg_round,
                        PROTO_NO_NODE, -1, disco_aggregator_n_nodes (p->agg), "%s",
                        partial ? "the result of communication round 0 (a partial sum, never sent) "
                                  "becomes the model" : "");
  p->base.rounds_done++;
  p->agg_wait_deadline = DL_TIME_NEVER;
  /* finishRound: resolve #roundFinishedPromise: providers waiting for this round serve now */
  p->round_finished_pending = FALSE;
  for (guint i = 0; i < _disco_peer_n_serves (p); i++)
    g_array_index (p->serves, Serve, i).wait_round = FALSE;
  _disco_peer_try_serve (p, out);
}

/* exchangeWeightUpdates begins: communication round 0 sends the model. */
void
_disco_peer_exchange_reset (DiscoPeer *p, DlTime now)
{
  p->xchg_c = 0;
  p->xchg_broke = FALSE;
  p->xchg_round = disco_aggregator_round (p->agg);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  p->xchg_result = learn_weights_ref (p->model);
  p->agg_wait_deadline = dl_time_add (now, disco_config (&p->cfg)->aggregation_wait);
  p->xchg_cut = FALSE;
  if (disco_config (&p->cfg)->robust_exchange_deadline)
    p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
}

/* robust: the exchange is given up (S15, S17).  The model stays the one
 * local training made; what arrived is dropped, and so are the links to the
 * nodes whose contribution is missing (one may be dead: S15).  (The peer
 * then goes back to PeerIsReady, as after a Retry: disco-peer.c.)  Those
 * that did complete the round hold the same model (they had every
 * contribution). */
void
_disco_peer_exchange_abort (DiscoPeer *p, ProtoOutbox *out, const char *why)
{
  _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->xchg_c, why);
  guint n = disco_aggregator_n_nodes (p->agg);
  g_autofree ProtoNodeId *missing = g_new (ProtoNodeId, MAX (n, 1));
  guint k = 0;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId id = disco_aggregator_node (p->agg, i);
      if (id != p->id && !disco_aggregator_has_contribution (p->agg, id))
        missing[k++] = id;
    }
  for (guint i = 0; i < k; i++)
    _disco_peer_drop_link (p, out, missing[i]);
  disco_aggregator_abort (p->agg);
  g_clear_pointer (&p->promised, learn_weights_unref);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  p->promise = PROMISE_PENDING;   /* a fresh aggregationResult for the round to come */
  p->xchg_deadline = DL_TIME_NEVER;
  p->agg_wait_deadline = DL_TIME_NEVER;
  p->round_finished_pending = FALSE;
}

