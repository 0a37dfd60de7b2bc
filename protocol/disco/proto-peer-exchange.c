/* proto-peer-exchange.c — the peer's exchange of weight updates:
 * exchangeWeightUpdates (discojs/src/client/decentralized/
 * decentralized_client.ts) with its aggregationResult promise
 * (proto-peer-private.h). */
#include "config.h"

#include "protocol/disco/proto-peer.h"
#include "protocol/disco/proto-aggregator.h"
#include "protocol/disco/proto-peer-private.h"
#include "protocol/disco/disco-msgs.h"

#include <math.h>
#include <string.h>

/* ---- the exchange: exchangeWeightUpdates (decentralized_client.ts) ----
 *
 * for c in 0 .. communicationRounds-1:
 *   payloads = aggregator.makePayloads(result); our own goes to
 *   aggregator.add at once, the others out as Payload{round, c} to every
 *   node we have a connection to;
 *   result = await race(aggregationResult, 15 s timeout)
 *     expired: break (and `return await aggregationResult`: whatever the
 *     pending promise resolves to, with no limit);
 *   if c is not the last: aggregationResult = a new promise.
 * return await aggregationResult
 *
 * aggregationResult is created at the start of each round (after JoinRound)
 * and resolves at the aggregator's next 'aggregation' event, whenever that
 * comes.  So with secure aggregation, a wait that expires in communication
 * round 0 ends the round with round 0's result: the partial sum, which the
 * peer takes as its model and never sends; its peers wait in communication
 * round 1, and its aggregator stays in communication round 1. */


/* The aggregator emitted 'aggregation' (takes the reference). */
void
_proto_peer_resolve (ProtoPeer *p, ProtoOutbox *out, LearnWeights *emitted)
{
  if (p->promise != PROMISE_PENDING)
    {
      _proto_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, proto_aggregator_comm_round (p->agg),
               "aggregation event with no pending aggregationResult: nobody awaits it");
      learn_weights_unref (emitted);
      return;
    }
  p->promise = PROMISE_RESOLVED;
  p->promised = emitted;
}

/* One communication round: our own contribution, then the Payloads. */
static void
send_round (ProtoPeer *p, ProtoOutbox *out)
{
  guint n = proto_aggregator_n_nodes (p->agg);
  LearnWeights **payloads = proto_aggregator_make_payloads (p->agg, p->xchg_result);
  /* the own contribution is added synchronously inside the forEach; the
   * Payloads are built after an `await encode`, so they carry the
   * aggregator's round as it is after that add */
  for (guint i = 0; i < n; i++)
    if (proto_aggregator_node (p->agg, i) == p->id)
      {
        gboolean refused;
        LearnWeights *emitted = proto_aggregator_add (p->agg, p->id, payloads[i], proto_aggregator_round (p->agg),
                                                      p->xchg_c, &refused);
        if (refused)
          _proto_peer_observe (p, out, PROTO_OBS_ERROR, p->id, PROTO_MSG_PAYLOAD, -1,
                   "own contribution refused by the aggregator");
        else if (emitted)
          _proto_peer_resolve (p, out, emitted);
      }
  gboolean rejected = FALSE;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId to = proto_aggregator_node (p->agg, i);
      if (to == p->id)
        continue;
      Link *l = _proto_peer_find_link (p, to);
      if (l == NULL)
        {
          _proto_peer_observe (p, out, PROTO_OBS_NOTE, to, PROTO_MSG_PAYLOAD, -1, "no connection: payload skipped");
          continue;
        }
      if (l->state == PROTO_LINK_CLOSED)
        {
          /* the other end closed the link, so the Peer is destroyed:
           * Peer.send (discojs/src/client/decentralized/peer.ts) throws
           * 'cannot send after peer is destroyed' inside the un-awaited
           * payloads.forEach(async ...) of exchangeWeightUpdates
           * (decentralized_client.ts).  The other callbacks still send; the
           * rejection is unhandled: a browser logs it, Node ends the
           * process once they have (D2) */
          _proto_peer_observe (p, out, PROTO_OBS_ERROR, to, PROTO_MSG_PAYLOAD, -1,
                      "unhandled rejection 'cannot send after peer is destroyed': payload not sent");
          rejected = TRUE;
          continue;
        }
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PAYLOAD);
      m.node = to;
      /* robust tags with the round the exchange began in: the own add above
       * may already have completed that round (F1, docs/found.md) */
      m.round = p->cfg.robust_exact_round ? p->xchg_round : proto_aggregator_round (p->agg);
      m.comm_round = p->xchg_c;
      proto_msg_set_weights (&m, payloads[i]);
      _proto_peer_send_msg (p, out, to, PROTO_VIA_LINK, &m);
    }
  proto_aggregator_payloads_free (payloads, n);
  if (rejected)
    _proto_peer_node_exits (p, out, "unhandled rejection 'cannot send after peer is destroyed'");
}

static void
finish_round (ProtoPeer *p, DlTime now, ProtoOutbox *out, LearnWeights *result, gboolean partial)
{
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (result);
  learn_weights_unref (p->latest_model);
  p->latest_model = learn_weights_ref (result);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, proto_peer_state_name (p->state), (int32_t) p->xchg_round,
                        PROTO_NO_NODE, -1, proto_aggregator_n_nodes (p->agg), "%s",
                        partial ? "the result of communication round 0 (a partial sum, never sent) "
                                  "becomes the model" : "");
  p->rounds_done++;
  p->agg_wait_deadline = DL_TIME_NEVER;
  /* finishRound: resolve #roundFinishedPromise: providers waiting for this round serve now */
  p->round_finished_pending = FALSE;
  for (guint i = 0; i < p->serves->len; i++)
    g_array_index (p->serves, Serve, i).wait_round = FALSE;
  _proto_peer_try_serve (p, out);
  if (p->helper)
    {
      /* robust: a helper's round does not count as one of its own */
      p->rounds_done--;
      _proto_peer_send_ready (p, out);
      return;
    }
  if (p->rounds_done >= p->cfg.rounds)
    {
      _proto_peer_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->rounds_done, NULL);
      _proto_peer_set_state (p, out, PROTO_PEER_DONE);
      if (!p->cfg.leave_after_training && p->cfg.robust_members_only)
        {
          /* S20: a finished peer that stays helps the others' rounds
           * (PeerIsReady with the helper flag; it never starts one alone) */
          p->helper = TRUE;
          _proto_peer_send_ready (p, out);
          return;
        }
      if (p->cfg.leave_after_training)
        {
          _proto_peer_shutdown_pool (p, out);
          proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
          p->connected = FALSE;
          _proto_peer_set_state (p, out, PROTO_PEER_LEFT);
        }
      return;
    }
  _proto_peer_begin_round (p, now, out);
}

/* The exchange loop, as far as resolved promises let it run. */
void
_proto_peer_exchange_continue (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  while (p->state == PROTO_PEER_EXCHANGING && p->promise == PROMISE_RESOLVED)
    {
      g_autoptr (LearnWeights) r = g_steal_pointer (&p->promised);
      p->promise = PROMISE_NONE;
      guint n_comm = proto_aggregator_n_comm_rounds (p->agg);
      if (p->xchg_broke || p->xchg_c + 1 >= n_comm)
        {
          finish_round (p, now, out, r, p->xchg_broke && p->xchg_c + 1 < n_comm);
          return;
        }
      learn_weights_unref (p->xchg_result);
      p->xchg_result = g_steal_pointer (&r);
      p->promise = PROMISE_PENDING;
      p->xchg_c++;
      p->agg_wait_deadline = dl_time_add (now, p->cfg.aggregation_wait);
      send_round (p, out);
    }
}

void
_proto_peer_begin_exchange (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  _proto_peer_set_state (p, out, PROTO_PEER_EXCHANGING);
  p->xchg_c = 0;
  p->xchg_broke = FALSE;
  p->xchg_round = proto_aggregator_round (p->agg);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  p->xchg_result = learn_weights_ref (p->model);
  p->agg_wait_deadline = dl_time_add (now, p->cfg.aggregation_wait);
  p->xchg_cut = FALSE;
  if (p->cfg.robust_exchange_deadline)
    p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  send_round (p, out);
  _proto_peer_exchange_continue (p, now, out);
}

/* robust: the exchange is given up (S15, S17).  The model stays the one
 * local training made; what arrived is dropped, and so are the links to the
 * nodes whose contribution is missing (one may be dead: S15).  The peer
 * goes back to PeerIsReady, as after a Retry.  Those that did complete the
 * round hold the same model (they had every contribution). */
void
_proto_peer_abort_exchange (ProtoPeer *p, DlTime now, ProtoOutbox *out, const char *why)
{
  (void) now;
  _proto_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->xchg_c, why);
  guint n = proto_aggregator_n_nodes (p->agg);
  g_autofree ProtoNodeId *missing = g_new (ProtoNodeId, MAX (n, 1));
  guint k = 0;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId id = proto_aggregator_node (p->agg, i);
      if (id != p->id && !proto_aggregator_has_contribution (p->agg, id))
        missing[k++] = id;
    }
  for (guint i = 0; i < k; i++)
    _proto_peer_drop_link (p, out, missing[i]);
  proto_aggregator_abort (p->agg);
  g_clear_pointer (&p->promised, learn_weights_unref);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  p->promise = PROMISE_PENDING;   /* a fresh aggregationResult for the round to come */
  p->xchg_deadline = DL_TIME_NEVER;
  p->agg_wait_deadline = DL_TIME_NEVER;
  p->round_finished_pending = FALSE;
  _proto_peer_end_round_loop (p, out);
}

