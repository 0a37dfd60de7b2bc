/* disco-peer.c — DISCO's decentralized client at dcf4b31e (DISCO-NOTES.md
 * §1.2, §1.3, §3), with the version switches of proto-config.h: every
 * transition of the peer, one `static` handler per input.
 *
 * One round: [sync if joined mid-training] -> JoinRound -> [pause] -> train
 * -> loop { [pause] -> PeerIsReady -> PeersForRound -> open new links ->
 * ConnectionsReady -> Start | Retry (drop all links, loop) | Fail } ->
 * exchange (mean: 1 communication round; secure: 2) -> finishRound.
 *
 * Link pool: persists across rounds, dead links included; replaced only on
 * Retry or disconnect.  getPeers creates links only for unknown ids, starts
 * receive loops for the whole pool, and waits (no timeout) for the new links.
 * Receive loops (receivePayloads): per pool link, `communication rounds`
 * receptions, each a 60 s wait whose expiry uses up that reception; a
 * Payload from a peer with no active loop is dropped (S4).  The aggregator
 * is DISCO's (disco-aggregator.c) and the exchange is exchangeWeightUpdates
 * with its aggregationResult promise: see the block comment at the exchange.
 *
 * Pool shutdown (Retry, ConnectionFail) takes its 1 s cap when a link in the
 * pool was already destroyed, else no time (begin_pool_shutdown).
 *
 * The leaves this file calls, which never call it (disco-peer-private.h):
 * disco-peer-effects.c (observations, sends), disco-peer-pool.c (the link
 * pool and its receive loops as a data structure), disco-peer-exchange.c
 * (the exchange's bookkeeping), disco-peer-sync.c (model sync's
 * bookkeeping, the provider's side) and disco-peer-listen.c (the drop rule).
 *
 * Not modelled: ICE candidates (one offer and one answer per link), message chunking,
 * listener accumulation (S16, memory only), DP/Byzantine clipping. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-peer-private.h"

#include <string.h>
#include "protocol/disco/disco-msgs.h"

#include <math.h>

/* ---- helpers ---- */

/* robust: the states in which the peer waits for the coordinator, and for
 * which a lost message would otherwise be a silent hang */
static gboolean
waits_for_coordinator (const DiscoPeer *p)
{
  switch ((DiscoPeerState) p->base.state)
    {
    case DISCO_PEER_CONNECTING:
    case DISCO_PEER_PAUSED_BEGIN:
    case DISCO_PEER_PAUSED_END:
    case DISCO_PEER_WAIT_PEERS:
    case DISCO_PEER_LINKING:
    case DISCO_PEER_WAIT_DECISION:
      return TRUE;
    case DISCO_PEER_DONE:
      return p->helper;
    default:
      return FALSE;
    }
}

static void
arm_wait (DiscoPeer *p)
{
  p->wait_deadline = disco_config (&p->cfg)->robust_wait_timeout && waits_for_coordinator (p)
                     ? dl_time_add (p->now, disco_wait_timeout (&p->cfg)) : DL_TIME_NEVER;
}

static void
set_state (DiscoPeer *p, ProtoOutbox *out, DiscoPeerState s)
{
  if (p->base.state == s)
    return;
  p->base.state = s;
  arm_wait (p);
  _disco_peer_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, disco_peer_state_name (s));
}

static void
fail (DiscoPeer *p, ProtoOutbox *out, gboolean disconnect, const char *why)
{
  g_strlcpy (p->error, why, sizeof p->error);
  _disco_peer_observe (p, out, PROTO_OBS_ERROR, PROTO_NO_NODE, -1, -1, why);
  /* webapp: Trainer.vue's finally closes the session after an error too */
  if ((disconnect || disco_config (&p->cfg)->webapp_runtime) && p->base.connected)
    {
      for (guint i = 0; i < p->pool_len; i++)
        proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, _disco_peer_pool_at (p, i)->peer);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->base.connected = FALSE;
    }
  set_state (p, out, DISCO_PEER_FAILED);
}

/* runtime = node: Node.js ends the process on an uncaught exception or an
 * unhandled rejection (a browser tab only logs it), so the client's sockets
 * close and the coordinator sees a close.  One client per process, as in a
 * deployment; DISCO's own CLI runs every client and the server in one
 * process, where the first such error ends them all. */
static gboolean
node_exits (DiscoPeer *p, ProtoOutbox *out, const char *what)
{
  if (!disco_config (&p->cfg)->node_runtime)
    return FALSE;
  char why[PROTO_OBS_DETAIL_LEN];
  g_snprintf (why, sizeof why, "process exited (Node.js): %s", what);
  fail (p, out, TRUE, why);
  return TRUE;
}

/* ---- the round ---- */

static void
start_training (DiscoPeer *p, ProtoOutbox *out)
{
  set_state (p, out, DISCO_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->base.rounds_done;
}

/* waitForParticipantsIfNeeded: TRUE if the peer may go on now. */
static gboolean
pass_pause_point (DiscoPeer *p, ProtoOutbox *out, DiscoPeerState paused_state)
{
  if (p->pause == PAUSE_PENDING)
    {
      set_state (p, out, paused_state);
      _disco_peer_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "not enough participants");
      return FALSE;
    }
  p->pause = PAUSE_NONE;
  return TRUE;
}

static void
after_sync (DiscoPeer *p, ProtoOutbox *out)
{
  _disco_peer_send_server (p, out, DISCO_MSG_JOIN_ROUND);
  /* this.aggregationResult = aggregator.getPromiseForAggregation() */
  g_clear_pointer (&p->promised, learn_weights_unref);
  p->promise = PROMISE_PENDING;
  if (disco_config (&p->cfg)->pause_before_training && !pass_pause_point (p, out, DISCO_PEER_PAUSED_BEGIN))
    return;
  start_training (p, out);
}

/* disco-pre775's onRoundBeginCommunication (decentralized_client.ts at
 * b95004b4^1): PeerIsReady, then PeersForRound raced against 15 s (the
 * utils.ts timeout, aggregation_wait here); on expiry the round's nodes are
 * the peer alone.  Training comes after the links (S1). */
static void
pre775_begin_round (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  _disco_peer_send_server (p, out, PROTO_MSG_READY);
  set_state (p, out, DISCO_PEER_WAIT_PEERS);
  p->sync_deadline = dl_time_add (now, disco_config (&p->cfg)->aggregation_wait);
}

static void
pre775_train (DiscoPeer *p, ProtoOutbox *out)
{
  p->sync_deadline = DL_TIME_NEVER;
  g_clear_pointer (&p->promised, learn_weights_unref);
  p->promise = PROMISE_PENDING;
  start_training (p, out);
}

static void
begin_round (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (disco_config (&p->cfg)->ready_at_round_start)
    {
      pre775_begin_round (p, now, out);
      return;
    }
  if (p->sync_needed && disco_config (&p->cfg)->model_sync)
    {
      p->sync_attempts++;
      _disco_peer_send_server (p, out, PROTO_MSG_SYNC_REQUEST);
      set_state (p, out, DISCO_PEER_SYNC_WAIT_PROVIDER);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
      _disco_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, PROTO_NO_NODE, -1, -1, "ModelSyncRequest sent");
      return;
    }
  after_sync (p, out);
}

/* robust: a paused peer whose wait timed out says it is ready and stays
 * paused; the coordinator, which enforces min, decides (a lost
 * EnoughParticipants cannot hold it forever). */
static void
send_ready_paused (DiscoPeer *p, ProtoOutbox *out)
{
  _disco_peer_send_server (p, out, PROTO_MSG_READY);
  arm_wait (p);
}

static void
send_ready (DiscoPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  m.helper = p->helper;
  if (p->helper)
    {
      /* a helper has no JoinRound: its aggregationResult starts here */
      g_clear_pointer (&p->promised, learn_weights_unref);
      p->promise = PROMISE_PENDING;
    }
  _disco_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  set_state (p, out, p->helper ? DISCO_PEER_DONE : DISCO_PEER_WAIT_PEERS);
  arm_wait (p);
}

/* onRoundEndCommunication's loop head: pause point, then PeerIsReady. */
static void
end_round_loop (DiscoPeer *p, ProtoOutbox *out)
{
  if (!p->helper && !pass_pause_point (p, out, DISCO_PEER_PAUSED_END))
    return;
  send_ready (p, out);
}

/* ---- the exchange: exchangeWeightUpdates (decentralized_client.ts) ----
 *
 * (its bookkeeping: disco-peer-exchange.c)
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

static void
send_round (DiscoPeer *p, ProtoOutbox *out)
{
  if (_disco_peer_send_round (p, out))
    node_exits (p, out, "unhandled rejection 'cannot send after peer is destroyed'");
}

static void
finish_round (DiscoPeer *p, DlTime now, ProtoOutbox *out, LearnWeights *result, gboolean partial)
{
  _disco_peer_round_finished (p, out, result, partial);
  if (p->helper)
    {
      /* robust: a helper's round does not count as one of its own */
      p->base.rounds_done--;
      send_ready (p, out);
      return;
    }
  if (p->base.rounds_done >= p->cfg.rounds)
    {
      _disco_peer_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->base.rounds_done, NULL);
      set_state (p, out, DISCO_PEER_DONE);
      if (!p->cfg.leave_after_training && disco_config (&p->cfg)->robust_members_only)
        {
          /* S20: a finished peer that stays helps the others' rounds
           * (PeerIsReady with the helper flag; it never starts one alone) */
          p->helper = TRUE;
          send_ready (p, out);
          return;
        }
      if (p->cfg.leave_after_training)
        {
          _disco_peer_shutdown_pool (p, out);
          proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
          p->base.connected = FALSE;
          set_state (p, out, DISCO_PEER_LEFT);
        }
      return;
    }
  begin_round (p, now, out);
}

/* The exchange loop, as far as resolved promises let it run. */
static void
exchange_continue (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  while (p->base.state == DISCO_PEER_EXCHANGING && p->promise == PROMISE_RESOLVED)
    {
      g_autoptr (LearnWeights) r = g_steal_pointer (&p->promised);
      p->promise = PROMISE_NONE;
      guint n_comm = disco_aggregator_n_comm_rounds (p->agg);
      if (p->xchg_broke || p->xchg_c + 1 >= n_comm)
        {
          finish_round (p, now, out, r, p->xchg_broke && p->xchg_c + 1 < n_comm);
          return;
        }
      learn_weights_unref (p->xchg_result);
      p->xchg_result = g_steal_pointer (&r);
      p->promise = PROMISE_PENDING;
      p->xchg_c++;
      p->agg_wait_deadline = dl_time_add (now, disco_config (&p->cfg)->aggregation_wait);
      send_round (p, out);
    }
}

static void
begin_exchange (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  set_state (p, out, DISCO_PEER_EXCHANGING);
  _disco_peer_exchange_reset (p, now);
  send_round (p, out);
  exchange_continue (p, now, out);
}

/* A contribution taken by the aggregator may resolve the promise. */
static void
add_contribution (DiscoPeer *p, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (_disco_peer_exchange_add (p, now, from, msg, out))
    exchange_continue (p, now, out);
}

static void
links_ready (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (disco_config (&p->cfg)->connect_barrier)
    {
      _disco_peer_send_server (p, out, DISCO_MSG_CONNECTIONS_READY);
      set_state (p, out, DISCO_PEER_WAIT_DECISION);
    }
  else if (disco_config (&p->cfg)->ready_at_round_start)
    pre775_train (p, out);
  else
    begin_exchange (p, now, out);
}

static void
handle_peers_for_round (DiscoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] == p->id)
      {
        /* establishPeerConnections catches "received peer list contains our
         * own id": nodes = {self}, #connections empty, no ConnectionsReady.
         * disco-1110 then waits in the race for Start/Retry/Fail; disco-775
         * goes straight on to exchangeWeightUpdates and aggregates alone
         * (decentralized_client.ts at b95004b4, onRoundEndCommunication). */
        _disco_peer_set_nodes_self_only (p);
        _disco_peer_observe (p, out, PROTO_OBS_ERROR, PROTO_NO_NODE, -1, -1, "peers to connect contains our id");
        if (disco_config (&p->cfg)->ready_at_round_start)
          pre775_train (p, out);
        else if (disco_config (&p->cfg)->connect_barrier)
          set_state (p, out, DISCO_PEER_WAIT_DECISION);
        else
          begin_exchange (p, now, out);
        return;
      }
  _disco_peer_set_nodes (p, msg->peers, msg->n_peers);
  if (!disco_config (&p->cfg)->ready_at_round_start)   /* pre-775's list has no round */
    disco_aggregator_set_round (p->agg, msg->round);   /* setRound only raises */
  _disco_peer_get_peers (p, now, out, msg->peers, msg->n_peers, TRUE);
  if (p->n_pending == 0)
    links_ready (p, now, out);
  else
    set_state (p, out, DISCO_PEER_LINKING);
}

static void
handle_payload (DiscoPeer *p, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  /* every receive loop on the link with receptions left has a listener
   * (waitMessage in event_connection.ts) and takes this Payload */
  Link *l = _disco_peer_find_link (p, from);
  guint takers = l ? l->active : 0;   /* its loops with receptions left */
  _disco_peer_loops_received (p, l, now);
  add_contribution (p, now, from, msg, out);
  /* D4: each of the other loops validates and adds it too.  Into the same
   * round it only replaces the first add; but if the first completed the
   * round (a Payload tagged for the next one, F1), the second stores a
   * stale contribution into the next round.  robust adds once. */
  for (guint k = 1; k < takers && !disco_config (&p->cfg)->robust_single_add && p->base.connected; k++)
    {
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, from, DISCO_MSG_PAYLOAD, msg->round,
                  "another receive loop on the link takes it and adds it again");
      add_contribution (p, now, from, msg, out);
    }
}

/* ---- the link pool (the data structure: disco-peer-pool.c) ---- */

/* `await pool.shutdown()` (peer_pool.ts): race(all peers' destroy(), 1 s).
 * Peer.destroy (peer.ts) resolves on simple-peer's 'close', which a peer
 * already destroyed (its link closed by the other side, or failed) never
 * emits again: then the race takes the full second.  Links are destroyed at
 * once either way.  TRUE if the peer now waits out that second. */
static gboolean
begin_pool_shutdown (DiscoPeer *p, DlTime now, ProtoOutbox *out, gboolean then_fail)
{
  gboolean slow = _disco_peer_pool_has_destroyed (p);
  _disco_peer_shutdown_pool (p, out);
  if (!slow)
    return FALSE;
  _disco_peer_set_nodes_self_only (p);
  p->shutdown_then_fail = then_fail;
  p->shutdown_deadline = dl_time_add (now, DL_S);
  set_state (p, out, DISCO_PEER_POOL_SHUTDOWN);
  _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
           "pool shutdown waits its 1 s cap: a destroyed link never emits 'close'");
  return TRUE;
}

static void
handle_link_up (DiscoPeer *p, DlTime now, ProtoNodeId other, ProtoOutbox *out)
{
  Link *l = _disco_peer_find_link (p, other);
  if (l == NULL)
    {
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, other, -1, -1, "link up for a link no longer in the pool");
      return;
    }
  l->state = DISCO_LINK_UP;
  _disco_peer_observe (p, out, PROTO_OBS_LINK, other, -1, -1, "up");
  _disco_peer_serves_link_up (p, other, out);
  if (!_disco_peer_pending_remove (p, other) || p->n_pending > 0)
    return;
  if (p->base.state == DISCO_PEER_LINKING)
    links_ready (p, now, out);
  else if (p->base.state == DISCO_PEER_SYNC_LINKING)
    {
      set_state (p, out, DISCO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
    }
}

/* SignalForPeer: its listener throws on an unknown peer or an unexpected
 * offer or answer (disco-peer-pool.c applies it). */
static void
handle_signal (DiscoPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  const char *uncaught = _disco_peer_pool_signal (p, msg, out);
  if (uncaught)
    node_exits (p, out, uncaught);
}

/* ---- model sync (its bookkeeping: disco-peer-sync.c) ---- */

static void
handle_signal_new_peer (DiscoPeer *p, ProtoNodeId newcomer, ProtoOutbox *out)
{
  if (newcomer == p->id)
    {
      /* `void this.handleSignalNewPeer(event)`: getPeers rejects, unhandled */
      _disco_peer_observe (p, out, PROTO_OBS_ERROR, newcomer, DISCO_MSG_SIGNAL_NEW_PEER, -1,
               "peers to connect contains our id (provider side)");
      node_exits (p, out, "unhandled rejection 'peers to connect contains our id'");
      return;
    }
  _disco_peer_serve (p, newcomer, out);
}

static void
handle_signal_model_provider (DiscoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (disco_config (&p->cfg)->robust_sync_retry && p->provider != PROTO_NO_NODE && p->provider != msg->node)
    {
      /* S12: re-targeted; a link to the old provider that is not up goes */
      _disco_peer_drop_link_unless_up (p, out, p->provider);
      _disco_peer_pending_clear (p);
    }
  p->provider = msg->node;
  if (msg->node == PROTO_SERVER && disco_config (&p->cfg)->robust_checkpoint)
    {
      /* robust: the coordinator serves its checkpoint over the stream */
      _disco_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "the coordinator's checkpoint");
      set_state (p, out, DISCO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
      return;
    }
  _disco_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "provider assigned");
  if (msg->node == p->id && disco_config (&p->cfg)->robust_sync_retry)
    {
      /* robust: no trained model exists anywhere; start from our own */
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_SYNC_PROVIDER, -1,
                  "no trained model to sync: starts from its own");
      p->provider = PROTO_NO_NODE;
      p->sync_needed = FALSE;
      p->sync_deadline = DL_TIME_NEVER;
      after_sync (p, out);
      return;
    }
  if (msg->node == p->id)
    {
      _disco_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, msg->node, -1, -1, "told to sync from itself");
      fail (p, out, FALSE, "training failed: peers to connect contains our id (provider is self)");
      return;
    }
  _disco_peer_get_peers (p, now, out, &msg->node, 1, FALSE);
  if (p->n_pending > 0)
    {
      set_state (p, out, DISCO_PEER_SYNC_LINKING);
      /* getPeers has no timeout; robust bounds it (S12) */
      p->sync_deadline = disco_config (&p->cfg)->robust_sync_retry ? dl_time_add (now, p->cfg.model_sync_timeout) : DL_TIME_NEVER;
    }
  else
    {
      set_state (p, out, DISCO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
    }
}

/* A sync wait ended (SignalModelProvider, the link, or SharedModel). */
static void
sync_expired (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  p->sync_deadline = DL_TIME_NEVER;
  _disco_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1, "model sync timeout");
  if (disco_config (&p->cfg)->robust_sync_retry)
    {
      /* S11, S12: ask again, for as long as the peer stays; the
       * coordinator names another provider or serves its checkpoint */
      if (p->provider != PROTO_NO_NODE && p->provider != PROTO_SERVER)
        _disco_peer_drop_link_unless_up (p, out, p->provider);
      _disco_peer_pending_clear (p);
      p->provider = PROTO_NO_NODE;
      begin_round (p, now, out);
      return;
    }
  _disco_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, p->provider, -1, -1, "model sync timed out");
  fail (p, out, FALSE, p->base.state == DISCO_PEER_SYNC_WAIT_PROVIDER
                       ? "training failed: timed out waiting for SignalModelProvider"
                       : "training failed: timed out waiting for SharedModel");
}

#define CONNECTION_FAIL_ERROR "training failed: ConnectionFail (client disconnected after connection failure)"

/* NewNodeInfo: its id, and whether it syncs or pauses first. */
static void
on_welcome (DiscoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  p->id = msg->node;
  p->sync_needed = msg->joined_mid_training && disco_config (&p->cfg)->model_sync;
  if (msg->wait_for_more && !p->enough_before_info && !disco_config (&p->cfg)->ready_at_round_start)
    p->pause = PAUSE_PENDING;   /* pre-775's client does not read it */
  begin_round (p, now, out);
}

/* EnoughParticipants: a pause ends (or, before NewNodeInfo, is noted). */
static void
on_enough_participants (DiscoPeer *p, ProtoOutbox *out)
{
  if (p->base.state == DISCO_PEER_CONNECTING && p->pause != PAUSE_PENDING)
    {
      p->enough_before_info = TRUE;
      return;
    }
  p->pause = PAUSE_RESOLVED;
  _disco_peer_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "enough participants");
  if (p->base.state == DISCO_PEER_PAUSED_BEGIN)
    {
      p->pause = PAUSE_NONE;
      start_training (p, out);
    }
  else if (p->base.state == DISCO_PEER_PAUSED_END)
    {
      p->pause = PAUSE_NONE;
      send_ready (p, out);
    }
}

/* WaitingForMoreParticipants: a pause (a second one throws, unless robust). */
static void
on_waiting_for_more (DiscoPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (p->pause != PAUSE_NONE && disco_config (&p->cfg)->robust_listen)
    {
      /* S21: robust takes a second Waiting as what it says */
      p->pause = PAUSE_PENDING;
      _disco_peer_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, (int64_t) msg->nb_participants,
                  "not enough participants (again)");
      return;
    }
  if (p->pause != PAUSE_NONE)
    {
      /* setupServerCallbacks (client.ts): the listener throws */
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, PROTO_SERVER, (int32_t) msg->type, -1,
               "Server sent multiple WaitingForMoreParticipants messages");
      node_exits (p, out, "uncaught 'Server sent multiple WaitingForMoreParticipants messages'");
      return;
    }
  p->pause = PAUSE_PENDING;
  _disco_peer_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1,
           disco_config (&p->cfg)->participant_counts ? (int64_t) msg->nb_participants : -1, "not enough participants");
}

/* SharedModel: the synced model, after which the round begins. */
static void
on_sync_model (DiscoPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (_disco_peer_sync_take_model (p, from, msg, out))
    after_sync (p, out);
}

/* PeersForRound: the round's members (and, robust, a pause's end). */
static void
on_round_peers (DiscoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (p->base.state == DISCO_PEER_PAUSED_END)
    {
      p->pause = PAUSE_NONE;   /* robust: the coordinator found enough */
      _disco_peer_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "enough participants (a list came)");
    }
  handle_peers_for_round (p, now, msg, out);
}

/* RoundStaleness: the listed peers' weights in the round's mean. */
static void
on_round_staleness (DiscoPeer *p, const ProtoMsg *msg)
{
  /* robust, async or mixed: each listed peer's contribution weighs
   * (1 + staleness)^-staleness_exponent in the round's mean */
  g_autofree double *w = g_new (double, MAX (msg->n_peers, 1));
  for (guint i = 0; i < msg->n_peers && i < msg->n_indices; i++)
    w[i] = pow (1.0 + msg->indices[i], -p->cfg.staleness_exponent);
  disco_aggregator_set_weights (p->agg, msg->round, msg->peers, w, MIN (msg->n_peers, msg->n_indices));
}

/* StartWeightSharing: the exchange begins. */
static void
on_start_weight_sharing (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  p->round_finished_pending = TRUE;
  begin_exchange (p, now, out);
}

/* RetryPeerConnections: ready again, an exchange cut short, or the round
 * ended alone. */
static void
on_retry_peer_connections (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->base.state == DISCO_PEER_WAIT_PEERS || p->base.state == DISCO_PEER_DONE)
    {
      /* robust: a PeerIsReady again is harmless (S9) */
      send_ready (p, out);
      return;
    }
  if (p->base.state == DISCO_PEER_PAUSED_END)
    {
      send_ready_paused (p, out);
      return;
    }
  if (p->base.state == DISCO_PEER_EXCHANGING)
    {
      /* robust (S17): a member left; what it sent may still arrive, so
       * the exchange gets aggregation_wait more, then is aborted */
      p->xchg_deadline = MIN (p->xchg_deadline, dl_time_add (now, disco_config (&p->cfg)->aggregation_wait));
      p->xchg_cut = TRUE;
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, DISCO_MSG_RETRY_PEER_CONNECTIONS, -1,
                  "a member left: the exchange ends within aggregation_wait");
      return;
    }
  if (begin_pool_shutdown (p, now, out, FALSE))
    return;
  _disco_peer_set_nodes_self_only (p);
  end_round_loop (p, out);
}

/* ConnectionFail: the pool shuts down, or training fails. */
static void
on_connection_fail (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (begin_pool_shutdown (p, now, out, TRUE))
    return;
  fail (p, out, TRUE, CONNECTION_FAIL_ERROR);
}

/* A message: counted, dropped unless listened for, then one handler per
 * type. */
static void
handle_message (DiscoPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->base.received[msg->type]++;
  if (!_disco_peer_listens (p, msg->type, in->from))
    {
      _disco_peer_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  _disco_peer_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_WELCOME:
      on_welcome (p, now, msg, out);
      return;
    case DISCO_MSG_ENOUGH_PARTICIPANTS:
      on_enough_participants (p, out);
      return;
    case DISCO_MSG_WAITING_FOR_MORE:
      on_waiting_for_more (p, msg, out);
      return;
    case PROTO_MSG_SIGNAL:
      handle_signal (p, msg, out);
      return;
    case DISCO_MSG_SIGNAL_NEW_PEER:
      handle_signal_new_peer (p, msg->node, out);
      return;
    case PROTO_MSG_SYNC_PROVIDER:
      handle_signal_model_provider (p, now, msg, out);
      return;
    case PROTO_MSG_SYNC_MODEL:
      on_sync_model (p, in->from, msg, out);
      return;
    case PROTO_MSG_ROUND_PEERS:
      on_round_peers (p, now, msg, out);
      return;
    case DISCO_MSG_ROUND_STALENESS:
      on_round_staleness (p, msg);
      return;
    case DISCO_MSG_START_WEIGHT_SHARING:
      on_start_weight_sharing (p, now, out);
      return;
    case DISCO_MSG_RETRY_PEER_CONNECTIONS:
      on_retry_peer_connections (p, now, out);
      return;
    case DISCO_MSG_CONNECTION_FAIL:
      on_connection_fail (p, now, out);
      return;
    case DISCO_MSG_PAYLOAD:
      handle_payload (p, now, in->from, msg, out);
      return;
    case PROTO_MSG_HELLO:
    case DISCO_MSG_JOIN_ROUND:
    case PROTO_MSG_READY:
    case DISCO_MSG_CONNECTIONS_READY:
    case PROTO_MSG_SYNC_REQUEST:
    default:   /* another family's message (its own folder's types) */
      break;  /* never listened for: _disco_peer_listens said no */
    }
  g_assert_not_reached ();
}

/* robust: the coordinator has been silent for the wait timeout; a message
 * on its stream may be lost.  The peer says again where it is. */
static void
wait_expired (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  _disco_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1,
              "no word from the coordinator for the wait timeout: said again");
  switch ((DiscoPeerState) p->base.state)
    {
    case DISCO_PEER_CONNECTING:
      _disco_peer_send_server (p, out, PROTO_MSG_HELLO);
      arm_wait (p);
      return;
    case DISCO_PEER_PAUSED_BEGIN:
      start_training (p, out);   /* still paused: it waits again before PeerIsReady */
      return;
    case DISCO_PEER_PAUSED_END:
      send_ready_paused (p, out);
      return;
    case DISCO_PEER_WAIT_PEERS:
    case DISCO_PEER_DONE:
      send_ready (p, out);
      return;
    case DISCO_PEER_LINKING:
    case DISCO_PEER_WAIT_DECISION:
      /* as a Retry would */
      if (begin_pool_shutdown (p, now, out, FALSE))
        return;
      _disco_peer_set_nodes_self_only (p);
      end_round_loop (p, out);
      return;
    default:
      p->wait_deadline = DL_TIME_NEVER;
      return;
    }
}

static void
handle_deadline (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->wait_deadline <= now && waits_for_coordinator (p))
    {
      wait_expired (p, now, out);
      return;
    }
  if ((p->base.state == DISCO_PEER_SYNC_WAIT_PROVIDER || p->base.state == DISCO_PEER_SYNC_WAIT_MODEL
       || p->base.state == DISCO_PEER_SYNC_LINKING)
      && p->sync_deadline <= now)
    {
      sync_expired (p, now, out);
      return;
    }
  if (disco_config (&p->cfg)->ready_at_round_start && p->base.state == DISCO_PEER_WAIT_PEERS && p->sync_deadline <= now)
    {
      _disco_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1,
                  "Timeout waiting for the round's peer list: the round's nodes are this peer alone");
      _disco_peer_set_nodes_self_only (p);
      pre775_train (p, out);
      return;
    }
  if (p->base.state == DISCO_PEER_POOL_SHUTDOWN && p->shutdown_deadline <= now)
    {
      p->shutdown_deadline = DL_TIME_NEVER;
      if (p->shutdown_then_fail)
        fail (p, out, TRUE, CONNECTION_FAIL_ERROR);
      else
        end_round_loop (p, out);
      return;
    }
  if (p->base.state == DISCO_PEER_EXCHANGING && p->xchg_deadline <= now)
    {
      /* robust: given up (disco-peer-exchange.c); back to PeerIsReady, as after a Retry */
      _disco_peer_exchange_abort (p, out, "no contribution for payload_timeout: the exchange is aborted");
      end_round_loop (p, out);
      return;
    }
  if (p->base.state == DISCO_PEER_EXCHANGING && p->agg_wait_deadline <= now && disco_config (&p->cfg)->robust_exchange_deadline)
    p->agg_wait_deadline = DL_TIME_NEVER;   /* robust does not break: a partial sum is no model */
  if (p->base.state == DISCO_PEER_EXCHANGING && p->agg_wait_deadline <= now)
    {
      p->agg_wait_deadline = DL_TIME_NEVER;
      p->xchg_broke = TRUE;
      _disco_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, p->xchg_c,
               p->xchg_c + 1 < disco_aggregator_n_comm_rounds (p->agg)
               ? "aggregation wait expired in comm round 0: break; round 0's result (never sent) ends the round"
               : "aggregation wait expired: break; the result is awaited with no limit");
    }
  if (p->loops_deadline <= now)
    _disco_peer_loops_expire (p, now, out);
}

static DlTime
disco_peer_next_deadline (const void *impl)
{
  const DiscoPeer *p = impl;
  if (!p->base.connected)
    return DL_TIME_NEVER;
  DlTime t = DL_TIME_NEVER;
  if (p->base.state == DISCO_PEER_SYNC_WAIT_PROVIDER || p->base.state == DISCO_PEER_SYNC_WAIT_MODEL
      || p->base.state == DISCO_PEER_SYNC_LINKING
      || (disco_config (&p->cfg)->ready_at_round_start && p->base.state == DISCO_PEER_WAIT_PEERS))
    t = MIN (t, p->sync_deadline);
  if (p->base.state == DISCO_PEER_EXCHANGING)
    t = MIN (t, p->xchg_deadline);
  if (waits_for_coordinator (p))
    t = MIN (t, p->wait_deadline);
  if (p->base.state == DISCO_PEER_EXCHANGING)
    t = MIN (t, p->agg_wait_deadline);
  if (p->base.state == DISCO_PEER_POOL_SHUTDOWN)
    t = MIN (t, p->shutdown_deadline);
  /* a lower bound: a wake-up with nothing due is harmless (the loops are
   * rescanned only then) */
  if (p->pool_len > 0)
    t = MIN (t, p->loops_deadline);
  return t;
}

static void
disco_peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  DiscoPeer *p = impl;
  DlTime before = disco_peer_next_deadline (p);
  p->now = now;
  switch (in->kind)
    {
    case PROTO_IN_START:
      if (p->base.state != DISCO_PEER_IDLE)
        break;
      p->base.connected = TRUE;
      _disco_peer_send_server (p, out, PROTO_MSG_HELLO);
      set_state (p, out, DISCO_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, now, in, out);
      break;
    case PROTO_IN_DEADLINE:
      if (p->base.connected)
        handle_deadline (p, now, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      if (p->base.state != DISCO_PEER_TRAINING || in->weights == NULL)
        {
          _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, "training result ignored");
          break;
        }
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (in->weights);
      if (disco_config (&p->cfg)->ready_at_round_start)
        begin_exchange (p, now, out);   /* pre-775: no barrier after training */
      else
        end_round_loop (p, out);
      break;
    case PROTO_IN_LINK_UP:
      if (p->base.connected)
        handle_link_up (p, now, in->from, out);
      break;
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
      {
        Link *l = _disco_peer_find_link (p, in->from);
        if (l && p->base.connected)
          {
            gboolean failed = in->kind == PROTO_IN_LINK_FAILED;
            l->state = failed ? DISCO_LINK_FAILED : DISCO_LINK_CLOSED;
            _disco_peer_observe (p, out, PROTO_OBS_LINK, in->from, -1, -1,
                     failed ? "failed: never comes up (DISCO does not notice)"
                            : "closed (kept in the pool)");
            /* ICE failure: simple-peer emits `error` with no listener (S28) */
            if (failed)
              node_exits (p, out, "uncaught simple-peer error 'Connection failed.'");
          }
        break;
      }
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      if (!p->base.connected)
        break;
      _disco_peer_shutdown_pool (p, out);
      if (in->kind == PROTO_IN_LEAVE)
        proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->base.connected = FALSE;
      _disco_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
               in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      set_state (p, out, DISCO_PEER_LEFT);
      break;
    }
  DlTime after = disco_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

/* ---- the machine (proto-machine.h) ---- */

static gboolean
peer_waiting_on_peer (const void *impl)
{
  const DiscoPeer *p = impl;
  DiscoPeerState s = p->base.state;
  return (s == DISCO_PEER_SYNC_WAIT_PROVIDER || s == DISCO_PEER_SYNC_WAIT_MODEL) && p->base.connected;
}

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const DiscoPeer *p = impl;
  DiscoPeerState s = p->base.state;
  v->settled = s == DISCO_PEER_DONE || s == DISCO_PEER_FAILED || s == DISCO_PEER_LEFT;
  v->failed = s == DISCO_PEER_FAILED;
  /* DISCO's client throws this when the coordinator excludes it */
  v->excluded = strstr (v->error, "ConnectionFail") != NULL;
  v->waiting_on_peer = peer_waiting_on_peer (p);
  v->synced = p->synced;
}

static LearnWeights *
peer_model (const void *impl)
{
  const DiscoPeer *p = impl;
  return p->model;
}

static void
disco_peer_free (void *impl)
{
  DiscoPeer *p = impl;
  _disco_peer_links_clear (p);
  disco_aggregator_free (p->agg);
  g_clear_pointer (&p->promised, learn_weights_unref);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  g_clear_pointer (&p->serves, g_array_unref);
  learn_weights_unref (p->model);
  learn_weights_unref (p->latest_model);
  g_aligned_free (p);
}

static const ProtoMachineClass peer_class = {
  .handle = disco_peer_handle,
  .next_deadline = disco_peer_next_deadline,
  .listens = _disco_peer_listens,
  .prefetch = _disco_peer_prefetch,
  .view = peer_view,
  .waiting_on_peer = peer_waiting_on_peer,
  .model = peer_model,
  .free = disco_peer_free,
};

ProtoMachine *
disco_peer_new (const ProtoConfig *config, LearnWeights *initial, DlRandom *rng)
{
  g_return_val_if_fail (initial != NULL, NULL);
  /* 64-byte aligned: the lines _disco_peer_prefetch asks for are the
   * struct's own (disco-peer-private.h) */
  DiscoPeer *p = g_aligned_alloc0 (1, sizeof (DiscoPeer), 64);
  proto_machine_base_init (&p->base, _disco_peer_state_names, DISCO_PEER_IDLE);
  p->base.error = p->error;
  p->cfg = *config;
  p->id = PROTO_NO_NODE;
  p->provider = PROTO_NO_NODE;
  p->model = learn_weights_ref (initial);
  _disco_peer_links_init (p);
  p->agg = disco_aggregator_new (disco_config (config)->aggregation, disco_config (config)->max_share_value, rng);
  disco_aggregator_set_strict (p->agg, disco_config (config)->robust_exact_round);
  p->sync_deadline = DL_TIME_NEVER;
  p->agg_wait_deadline = DL_TIME_NEVER;
  p->shutdown_deadline = DL_TIME_NEVER;
  p->loops_deadline = DL_TIME_NEVER;
  p->xchg_deadline = DL_TIME_NEVER;
  p->wait_deadline = DL_TIME_NEVER;
  ProtoMachine *m = proto_machine_new (&peer_class, &p->base);
  g_return_val_if_fail (disco_config (config)->aggregation != DISCO_AGG_SECURE || rng != NULL, m);
  return m;
}

ProtoNodeId disco_peer_id (const DiscoPeer *p) { return p->id; }
uint32_t disco_peer_agg_round (const DiscoPeer *p) { return disco_aggregator_round (p->agg); }
guint disco_peer_agg_comm_round (const DiscoPeer *p) { return disco_aggregator_comm_round (p->agg); }
LearnWeights *disco_peer_latest_model (const DiscoPeer *p) { return p->latest_model; }
gboolean disco_peer_synced (const DiscoPeer *p) { return p->synced; }
gboolean disco_peer_paused (const DiscoPeer *p) { return p->pause == PAUSE_PENDING; }
guint disco_peer_pool_size (const DiscoPeer *p) { return p->pool_len; }

int
disco_peer_link_state (const DiscoPeer *p, ProtoNodeId other)
{
  Link *l = _disco_peer_find_link (p, other);
  return l ? (int) l->state : -1;
}
