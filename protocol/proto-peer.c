/* proto-peer.c — DISCO's decentralized client at dcf4b31e (DISCO-NOTES.md
 * §1.2, §1.3, §3), with the version switches of proto-config.h.
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
 * is DISCO's (proto-aggregator.c) and the exchange is exchangeWeightUpdates
 * with its aggregationResult promise: see the block comment at the exchange.
 *
 * Pool shutdown (Retry, ConnectionFail) takes its 1 s cap when a link in the
 * pool was already destroyed, else no time (begin_pool_shutdown).
 *
 * Not modelled: ICE candidates (one offer and one answer per link), message chunking,
 * listener accumulation (S16, memory only), DP/Byzantine clipping. */
#include "config.h"

#include "protocol/proto-peer.h"
#include "protocol/proto-aggregator.h"
#include "protocol/proto-peer-private.h"

#include <math.h>
#include <string.h>


static const char *const state_names[PROTO_PEER_N_STATES] = {
  [PROTO_PEER_IDLE] = "idle",
  [PROTO_PEER_CONNECTING] = "connecting",
  [PROTO_PEER_SYNC_WAIT_PROVIDER] = "sync-wait-provider",
  [PROTO_PEER_SYNC_LINKING] = "sync-linking",
  [PROTO_PEER_SYNC_WAIT_MODEL] = "sync-wait-model",
  [PROTO_PEER_PAUSED_BEGIN] = "paused-before-training",
  [PROTO_PEER_TRAINING] = "training",
  [PROTO_PEER_PAUSED_END] = "paused-before-ready",
  [PROTO_PEER_WAIT_PEERS] = "wait-peers-for-round",
  [PROTO_PEER_LINKING] = "linking",
  [PROTO_PEER_WAIT_DECISION] = "wait-start-retry-fail",
  [PROTO_PEER_POOL_SHUTDOWN] = "pool-shutdown",
  [PROTO_PEER_EXCHANGING] = "exchanging",
  [PROTO_PEER_DONE] = "done",
  [PROTO_PEER_FAILED] = "failed",
  [PROTO_PEER_LEFT] = "left",
};

const char *
proto_peer_state_name (ProtoPeerState s)
{
  return (unsigned) s < PROTO_PEER_N_STATES ? state_names[s] : "?";
}

/* ---- the drop rule ----
 *
 * One-shot listeners, by state (DISCO-NOTES.md §1.3):
 *
 *   state                   listens for
 *   connecting              NewNodeInfo
 *   sync-wait-provider      SignalModelProvider
 *   sync-wait-model         SharedModel (from the provider's link)
 *   wait-peers-for-round    PeersForRound
 *   wait-start-retry-fail   StartWeightSharing, RetryPeerConnections, ConnectionFail
 *   every other state       none
 *
 * Persistent, while connected: SignalForPeer, SignalNewPeer,
 * WaitingForMoreParticipants.  Conditional: EnoughParticipants while a pause
 * is pending (or before NewNodeInfo: DISCO's inversion flag); Payload from a
 * pool peer whose receive loop is active.  Nothing once disconnected. */
#define BIT(t) (1u << (t))
static const guint32 one_shot[PROTO_PEER_N_STATES] = {
  [PROTO_PEER_CONNECTING] = BIT (PROTO_MSG_NEW_NODE_INFO),
  [PROTO_PEER_SYNC_WAIT_PROVIDER] = BIT (PROTO_MSG_SIGNAL_MODEL_PROVIDER),
  [PROTO_PEER_SYNC_WAIT_MODEL] = BIT (PROTO_MSG_SHARED_MODEL),
  [PROTO_PEER_WAIT_PEERS] = BIT (PROTO_MSG_PEERS_FOR_ROUND),
  [PROTO_PEER_WAIT_DECISION] = BIT (PROTO_MSG_START_WEIGHT_SHARING)
                               | BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS)
                               | BIT (PROTO_MSG_CONNECTION_FAIL),
};
static const guint32 persistent = BIT (PROTO_MSG_SIGNAL_FOR_PEER) | BIT (PROTO_MSG_SIGNAL_NEW_PEER)
                                  | BIT (PROTO_MSG_WAITING_FOR_MORE);

/* robust adds (proto-config.h): Retry and Fail while linking and while
 * waiting for the list (S8, S9, S24); Retry during the exchange (S17: a
 * member left); a new provider while syncing (S12); and a finished peer
 * that stays is a helper, waiting in `done` for lists (S20). */
static const guint32 robust_extra[PROTO_PEER_N_STATES] = {
  [PROTO_PEER_SYNC_LINKING] = BIT (PROTO_MSG_SIGNAL_MODEL_PROVIDER),
  [PROTO_PEER_SYNC_WAIT_MODEL] = BIT (PROTO_MSG_SIGNAL_MODEL_PROVIDER),
  [PROTO_PEER_WAIT_PEERS] = BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS) | BIT (PROTO_MSG_CONNECTION_FAIL),
  [PROTO_PEER_LINKING] = BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS) | BIT (PROTO_MSG_CONNECTION_FAIL),
  [PROTO_PEER_EXCHANGING] = BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS),
  [PROTO_PEER_PAUSED_END] = BIT (PROTO_MSG_PEERS_FOR_ROUND) | BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS)
                            | BIT (PROTO_MSG_CONNECTION_FAIL),
  [PROTO_PEER_DONE] = BIT (PROTO_MSG_PEERS_FOR_ROUND) | BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS)
                      | BIT (PROTO_MSG_CONNECTION_FAIL),
};

Link *
pp_find_link (const ProtoPeer *p, ProtoNodeId other)
{
  return g_hash_table_lookup (p->pool_index, GUINT_TO_POINTER (other + 1));
}

static Link *
pool_at (const ProtoPeer *p, guint i)
{
  return g_ptr_array_index (p->pool, i);
}

static gboolean
loop_active (const Link *l)
{
  for (guint i = 0; i < l->loops->len; i++)
    if (g_array_index (l->loops, RecvLoop, i).remaining > 0)
      return TRUE;
  return FALSE;
}

gboolean
proto_peer_listens (const ProtoPeer *p, ProtoMsgType type, ProtoNodeId from)
{
  if (!p->connected || (unsigned) type >= PROTO_MSG_N_TYPES)
    return FALSE;
  if (one_shot[p->state] & BIT (type))
    return type != PROTO_MSG_SHARED_MODEL || from == p->provider;
  if (p->cfg.robust_listen && (robust_extra[p->state] & BIT (type)))
    return p->state != PROTO_PEER_DONE || p->helper;
  if (persistent & BIT (type))
    return TRUE;
  if (type == PROTO_MSG_ENOUGH_PARTICIPANTS)
    return p->pause == PAUSE_PENDING || p->state == PROTO_PEER_CONNECTING;
  if (type == PROTO_MSG_PAYLOAD)
    {
      Link *l = pp_find_link (p, from);
      return l != NULL && loop_active (l);
    }
  return FALSE;
}

/* ---- helpers ---- */

void
pp_observe (ProtoPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
         int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, state_names[p->state], (int32_t) proto_aggregator_round (p->agg), other, type,
                        value, "%s", detail ? detail : "");
}

/* robust: the states in which the peer waits for the coordinator, and for
 * which a lost message would otherwise be a silent hang */
static gboolean
waits_for_coordinator (const ProtoPeer *p)
{
  switch (p->state)
    {
    case PROTO_PEER_CONNECTING:
    case PROTO_PEER_PAUSED_BEGIN:
    case PROTO_PEER_PAUSED_END:
    case PROTO_PEER_WAIT_PEERS:
    case PROTO_PEER_LINKING:
    case PROTO_PEER_WAIT_DECISION:
      return TRUE;
    case PROTO_PEER_DONE:
      return p->helper;
    default:
      return FALSE;
    }
}

static void
arm_wait (ProtoPeer *p)
{
  p->wait_deadline = p->cfg.robust_wait_timeout && waits_for_coordinator (p)
                     ? dl_time_add (p->now, proto_config_wait_timeout (&p->cfg)) : DL_TIME_NEVER;
}

void
pp_set_state (ProtoPeer *p, ProtoOutbox *out, ProtoPeerState s)
{
  if (p->state == s)
    return;
  p->state = s;
  arm_wait (p);
  pp_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

void
pp_send_msg (ProtoPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  pp_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

static void
send_server (ProtoPeer *p, ProtoOutbox *out, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

static void
fail (ProtoPeer *p, ProtoOutbox *out, gboolean disconnect, const char *why)
{
  g_strlcpy (p->error, why, sizeof p->error);
  pp_observe (p, out, PROTO_OBS_ERROR, PROTO_NO_NODE, -1, -1, why);
  if (disconnect && p->connected)
    {
      for (guint i = 0; i < p->pool->len; i++)
        proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, pool_at (p, i)->peer);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
    }
  pp_set_state (p, out, PROTO_PEER_FAILED);
}

/* runtime = node: Node.js ends the process on an uncaught exception or an
 * unhandled rejection (a browser tab only logs it), so the client's sockets
 * close and the coordinator sees a close.  One client per process, as in a
 * deployment; DISCO's own CLI runs every client and the server in one
 * process, where the first such error ends them all. */
static gboolean
node_exits (ProtoPeer *p, ProtoOutbox *out, const char *what)
{
  if (!p->cfg.node_runtime)
    return FALSE;
  char why[PROTO_OBS_DETAIL_LEN];
  g_snprintf (why, sizeof why, "process exited (Node.js): %s", what);
  fail (p, out, TRUE, why);
  return TRUE;
}

static void
link_free (gpointer data)
{
  Link *l = data;
  g_clear_pointer (&l->loops, g_array_unref);
  g_free (l);
}

/* PeerPool.shutdown(): destroy every link; a fresh, empty pool. */
void
pp_shutdown_pool (ProtoPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->pool->len; i++)
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, pool_at (p, i)->peer);
  g_hash_table_remove_all (p->pool_index);
  g_ptr_array_set_size (p->pool, 0);
  g_array_set_size (p->pending, 0);
}

/* robust: one link leaves the pool (closed), pending included. */
void
pp_drop_link (ProtoPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  Link *l = pp_find_link (p, other);
  if (l == NULL)
    return;
  proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, other);
  g_hash_table_remove (p->pool_index, GUINT_TO_POINTER (other + 1));
  g_ptr_array_remove (p->pool, l);
  for (guint i = 0; i < p->pending->len; i++)
    if (g_array_index (p->pending, ProtoNodeId, i) == other)
      {
        g_array_remove_index (p->pending, i);
        break;
      }
}

/* setAggregatorNodes(peers + self): the list's order, then self. */
static void
set_nodes (ProtoPeer *p, const ProtoNodeId *peers, guint n)
{
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n + 1);
  if (n)
    memcpy (ids, peers, n * sizeof *ids);
  ids[n] = p->id;
  proto_aggregator_set_nodes (p->agg, ids, n + 1);
}

static void
set_nodes_self_only (ProtoPeer *p)
{
  set_nodes (p, NULL, 0);
}

/* Creates links for the ids not in the pool (they become pending), as
 * PeerPool.getPeers does.  With loops, starts receive loops for the whole
 * pool (the handle gets every pool peer, not only `ids`). */
static void
get_peers (ProtoPeer *p, DlTime now, ProtoOutbox *out, const ProtoNodeId *ids, guint n, gboolean loops)
{
  g_array_set_size (p->pending, 0);
  for (guint i = 0; i < n; i++)
    {
      Link *known = pp_find_link (p, ids[i]);
      if (known && p->cfg.robust_links
          && (known->state == PROTO_LINK_CLOSED || known->state == PROTO_LINK_FAILED))
        {
          /* S15: robust opens a new link in place of one that closed or failed */
          pp_observe (p, out, PROTO_OBS_LINK, ids[i], -1, -1, "closed or failed: replaced");
          pp_drop_link (p, out, ids[i]);
          known = NULL;
        }
      if (known)
        continue;
      Link *l = g_new0 (Link, 1);
      l->peer = ids[i];
      l->initiator = p->id > ids[i];
      l->loops = g_array_new (FALSE, FALSE, sizeof (RecvLoop));
      l->state = l->initiator ? PROTO_LINK_WAIT_ANSWER : PROTO_LINK_WAIT_OFFER;
      g_ptr_array_add (p->pool, l);
      g_hash_table_insert (p->pool_index, GUINT_TO_POINTER (ids[i] + 1), l);
      g_array_append_val (p->pending, ids[i]);
      proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, ids[i]);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = l->initiator;
      if (l->initiator)
        {
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
          m.node = ids[i];
          m.signal = PROTO_SIGNAL_OFFER;
          pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
        }
    }
  if (loops)
    for (guint i = 0; i < p->pool->len; i++)
      {
        GArray *ls = pool_at (p, i)->loops;
        for (guint k = ls->len; k > 0; k--)   /* exhausted loops are gone */
          if (g_array_index (ls, RecvLoop, k - 1).remaining == 0)
            g_array_remove_index_fast (ls, k - 1);
        RecvLoop rl = { .remaining = proto_aggregator_n_comm_rounds (p->agg),
                        .deadline = dl_time_add (now, p->cfg.payload_timeout) };
        g_array_append_val (ls, rl);
        p->loops_deadline = MIN (p->loops_deadline, rl.deadline);
      }
}

/* ---- the round ---- */

static void
start_training (ProtoPeer *p, ProtoOutbox *out)
{
  pp_set_state (p, out, PROTO_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->rounds_done;
}

/* waitForParticipantsIfNeeded: TRUE if the peer may go on now. */
static gboolean
pass_pause_point (ProtoPeer *p, ProtoOutbox *out, ProtoPeerState paused_state)
{
  if (p->pause == PAUSE_PENDING)
    {
      pp_set_state (p, out, paused_state);
      pp_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "not enough participants");
      return FALSE;
    }
  p->pause = PAUSE_NONE;
  return TRUE;
}

static void
after_sync (ProtoPeer *p, ProtoOutbox *out)
{
  send_server (p, out, PROTO_MSG_JOIN_ROUND);
  /* this.aggregationResult = aggregator.getPromiseForAggregation() */
  g_clear_pointer (&p->promised, learn_weights_unref);
  p->promise = PROMISE_PENDING;
  if (p->cfg.pause_before_training && !pass_pause_point (p, out, PROTO_PEER_PAUSED_BEGIN))
    return;
  start_training (p, out);
}

/* disco-pre775's onRoundBeginCommunication (decentralized_client.ts at
 * b95004b4^1): PeerIsReady, then PeersForRound raced against 15 s (the
 * utils.ts timeout, aggregation_wait here); on expiry the round's nodes are
 * the peer alone.  Training comes after the links (S1). */
static void
pre775_begin_round (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  send_server (p, out, PROTO_MSG_PEER_IS_READY);
  pp_set_state (p, out, PROTO_PEER_WAIT_PEERS);
  p->sync_deadline = dl_time_add (now, p->cfg.aggregation_wait);
}

static void
pre775_train (ProtoPeer *p, ProtoOutbox *out)
{
  p->sync_deadline = DL_TIME_NEVER;
  g_clear_pointer (&p->promised, learn_weights_unref);
  p->promise = PROMISE_PENDING;
  start_training (p, out);
}

void
pp_begin_round (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->cfg.ready_at_round_start)
    {
      pre775_begin_round (p, now, out);
      return;
    }
  if (p->sync_needed && p->cfg.model_sync)
    {
      p->sync_attempts++;
      send_server (p, out, PROTO_MSG_MODEL_SYNC_REQUEST);
      pp_set_state (p, out, PROTO_PEER_SYNC_WAIT_PROVIDER);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
      pp_observe (p, out, PROTO_OBS_SYNC_STARTED, PROTO_NO_NODE, -1, -1, "ModelSyncRequest sent");
      return;
    }
  after_sync (p, out);
}

/* robust: a paused peer whose wait timed out says it is ready and stays
 * paused; the coordinator, which enforces min, decides (a lost
 * EnoughParticipants cannot hold it forever). */
static void
send_ready_paused (ProtoPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
  pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  arm_wait (p);
}

void
pp_send_ready (ProtoPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
  m.helper = p->helper;
  if (p->helper)
    {
      /* a helper has no JoinRound: its aggregationResult starts here */
      g_clear_pointer (&p->promised, learn_weights_unref);
      p->promise = PROMISE_PENDING;
    }
  pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  pp_set_state (p, out, p->helper ? PROTO_PEER_DONE : PROTO_PEER_WAIT_PEERS);
  arm_wait (p);
}

/* onRoundEndCommunication's loop head: pause point, then PeerIsReady. */
void
pp_end_round_loop (ProtoPeer *p, ProtoOutbox *out)
{
  if (!p->helper && !pass_pause_point (p, out, PROTO_PEER_PAUSED_END))
    return;
  pp_send_ready (p, out);
}

static void
links_ready (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->cfg.connect_barrier)
    {
      send_server (p, out, PROTO_MSG_CONNECTIONS_READY);
      pp_set_state (p, out, PROTO_PEER_WAIT_DECISION);
    }
  else if (p->cfg.ready_at_round_start)
    pre775_train (p, out);
  else
    pp_begin_exchange (p, now, out);
}

static void
handle_peers_for_round (ProtoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] == p->id)
      {
        /* establishPeerConnections catches "received peer list contains our
         * own id": nodes = {self}, #connections empty, no ConnectionsReady.
         * disco-1110 then waits in the race for Start/Retry/Fail; disco-775
         * goes straight on to exchangeWeightUpdates and aggregates alone
         * (decentralized_client.ts at b95004b4, onRoundEndCommunication). */
        set_nodes_self_only (p);
        pp_observe (p, out, PROTO_OBS_ERROR, PROTO_NO_NODE, -1, -1, "peers to connect contains our id");
        if (p->cfg.ready_at_round_start)
          pre775_train (p, out);
        else if (p->cfg.connect_barrier)
          pp_set_state (p, out, PROTO_PEER_WAIT_DECISION);
        else
          pp_begin_exchange (p, now, out);
        return;
      }
  set_nodes (p, msg->peers, msg->n_peers);
  if (!p->cfg.ready_at_round_start)   /* pre-775's list has no round */
    proto_aggregator_set_round (p->agg, msg->round);   /* setRound only raises */
  get_peers (p, now, out, msg->peers, msg->n_peers, TRUE);
  if (p->pending->len == 0)
    links_ready (p, now, out);
  else
    pp_set_state (p, out, PROTO_PEER_LINKING);
}

void
pp_try_serve (ProtoPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->serves->len;)
    {
      Serve *s = &g_array_index (p->serves, Serve, i);
      if (!s->link_ready || s->wait_round)
        {
          i++;
          continue;
        }
      ProtoNodeId n = s->newcomer;
      g_array_remove_index (p->serves, i);
      Link *l = pp_find_link (p, n);
      if (n == PROTO_SERVER && p->latest_model != NULL)
        {
          /* robust: the coordinator's checkpoint, over the stream */
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
          continue;
        }
      if (p->latest_model == NULL)
        pp_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1, "Failed to get the latest model: nothing sent");
      else if (l == NULL)
        pp_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1, "link to the newcomer destroyed: SharedModel not sent");
      else
        {
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          pp_send_msg (p, out, n, PROTO_VIA_LINK, &m);
          /* between PeersForRound and Start the round in flight is about to
           * finish, but #roundFinishedPromise is not set yet: the previous
           * round's model goes out (S13a) */
          gboolean stale = p->state == PROTO_PEER_LINKING || p->state == PROTO_PEER_WAIT_DECISION;
          pp_observe (p, out, PROTO_OBS_SYNC_SERVED, n, -1, stale ? 1 : 0,
                   stale ? "the previous round's model: a round is in its connect phase" : NULL);
        }
    }
}

static gboolean
pending_remove (ProtoPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->pending->len; i++)
    if (g_array_index (p->pending, ProtoNodeId, i) == id)
      {
        g_array_remove_index (p->pending, i);
        return TRUE;
      }
  return FALSE;
}

static void
handle_link_up (ProtoPeer *p, DlTime now, ProtoNodeId other, ProtoOutbox *out)
{
  Link *l = pp_find_link (p, other);
  if (l == NULL)
    {
      pp_observe (p, out, PROTO_OBS_NOTE, other, -1, -1, "link up for a link no longer in the pool");
      return;
    }
  l->state = PROTO_LINK_UP;
  pp_observe (p, out, PROTO_OBS_LINK, other, -1, -1, "up");
  for (guint i = 0; i < p->serves->len; i++)
    if (g_array_index (p->serves, Serve, i).newcomer == other)
      g_array_index (p->serves, Serve, i).link_ready = TRUE;
  pp_try_serve (p, out);
  if (!pending_remove (p, other) || p->pending->len > 0)
    return;
  if (p->state == PROTO_PEER_LINKING)
    links_ready (p, now, out);
  else if (p->state == PROTO_PEER_SYNC_LINKING)
    {
      pp_set_state (p, out, PROTO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
    }
}

static void
handle_signal (ProtoPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  Link *l = pp_find_link (p, msg->node);
  if (l == NULL)
    {
      /* PeerPool.signal throws inside the SignalForPeer listener */
      pp_observe (p, out, PROTO_OBS_REJECTED, msg->node, PROTO_MSG_SIGNAL_FOR_PEER, -1,
               "received signal for unknown peer");
      node_exits (p, out, "uncaught 'received signal for unknown peer'");
      return;
    }
  if (msg->signal == PROTO_SIGNAL_OFFER && l->state == PROTO_LINK_WAIT_OFFER)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
      m.node = msg->node;
      m.signal = PROTO_SIGNAL_ANSWER;
      pp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
      l->state = PROTO_LINK_CONNECTING;
    }
  else if (msg->signal == PROTO_SIGNAL_ANSWER && l->state == PROTO_LINK_WAIT_ANSWER)
    {
      l->state = PROTO_LINK_CONNECTING;
      proto_outbox_simple (out, PROTO_ACT_CONNECT_LINK, msg->node);
    }
  else
    {
      /* Peer.signal (peer.ts) throws inside the same listener */
      pp_observe (p, out, PROTO_OBS_REJECTED, msg->node, PROTO_MSG_SIGNAL_FOR_PEER, -1,
               "unexpected offer/answer (buffer size set twice)");
      node_exits (p, out, "uncaught 'buffer size set twice'");
    }
}

static void
handle_payload (ProtoPeer *p, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  Link *l = pp_find_link (p, from);
  for (guint i = 0; i < l->loops->len; i++)
    {
      RecvLoop *rl = &g_array_index (l->loops, RecvLoop, i);
      if (rl->remaining == 0)
        continue;
      rl->remaining--;
      rl->deadline = rl->remaining ? dl_time_add (now, p->cfg.payload_timeout) : DL_TIME_NEVER;
    }
  /* receivePayloads: isValidContribution (sender in nodes and round -
   * msgRound <= 0: a future round passes, S27), then aggregator.add, which
   * throws (caught and logged by the loop) for a secure comm round > 1 */
  /* pre-775's Payload carries no aggregation round: receivePayloads passes
   * the receiver's own (always within the cutoff) */
  uint32_t msg_round = p->cfg.ready_at_round_start ? proto_aggregator_round (p->agg) : msg->round;
  if (msg->weights == NULL || !proto_aggregator_is_valid (p->agg, from, msg_round)
      || (p->cfg.robust_exact_round && msg->round != proto_aggregator_round (p->agg))
      || (proto_aggregator_n_comm_rounds (p->agg) == 2 && msg->comm_round >= 2))
    {
      char why[80];
      g_snprintf (why, sizeof why, "invalid contribution (payload round %u, comm %u)",
                  msg->round, msg->comm_round);
      pp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_PAYLOAD, msg->round, why);
      return;
    }
  if (learn_weights_len (msg->weights) != learn_weights_len (p->model))
    {
      pp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_PAYLOAD, msg->round,
               "weights of the wrong size");
      return;
    }
  if (p->cfg.robust_exchange_deadline && p->state == PROTO_PEER_EXCHANGING && !p->xchg_cut)
    p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  gboolean refused;
  uint32_t agg_round = proto_aggregator_round (p->agg);
  LearnWeights *emitted = proto_aggregator_add (p->agg, from, msg->weights, msg_round, msg->comm_round, &refused);
  if (!refused && msg_round != agg_round)
    {
      /* S27: isValidContribution lets a future round's contribution in */
      char why[80];
      g_snprintf (why, sizeof why, "a contribution of round %u aggregated in round %u", msg->round, agg_round);
      pp_observe (p, out, PROTO_OBS_FOREIGN_ROUND, from, PROTO_MSG_PAYLOAD, msg->round, why);
    }
  if (emitted)
    {
      pp_resolve (p, out, emitted);
      pp_exchange_continue (p, now, out);
    }
}

static void
handle_signal_new_peer (ProtoPeer *p, DlTime now, ProtoNodeId newcomer, ProtoOutbox *out)
{
  if (newcomer == p->id)
    {
      /* `void this.handleSignalNewPeer(event)`: getPeers rejects, unhandled */
      pp_observe (p, out, PROTO_OBS_ERROR, newcomer, PROTO_MSG_SIGNAL_NEW_PEER, -1,
               "peers to connect contains our id (provider side)");
      node_exits (p, out, "unhandled rejection 'peers to connect contains our id'");
      return;
    }
  Serve s = { .newcomer = newcomer, .wait_round = p->round_finished_pending };
  if (p->cfg.robust_serve_after_round
      && (p->state == PROTO_PEER_LINKING || p->state == PROTO_PEER_WAIT_DECISION))
    s.wait_round = TRUE;   /* S13: the round in its connect phase ends first */
  if (newcomer == PROTO_SERVER && p->cfg.robust_checkpoint)
    {
      s.link_ready = TRUE;
      g_array_append_val (p->serves, s);
      pp_try_serve (p, out);
      return;
    }
  if (p->cfg.robust_sync_retry)
    for (guint i = 0; i < p->serves->len; i++)
      if (g_array_index (p->serves, Serve, i).newcomer == newcomer)
        {
          if (pp_find_link (p, newcomer))
            return;   /* a repeated request: one SharedModel is enough */
          /* S14a: a Retry's pool shutdown destroyed the link: start over */
          g_array_remove_index (p->serves, i);
          break;
        }
  gboolean known = pp_find_link (p, newcomer) != NULL;
  GArray *saved = g_array_copy (p->pending);  /* a sync getPeers does not disturb the round's */
  get_peers (p, now, out, &newcomer, 1, FALSE);
  g_array_unref (p->pending);
  p->pending = saved;
  s.link_ready = known;
  g_array_append_val (p->serves, s);
  pp_try_serve (p, out);
}

#define CONNECTION_FAIL_ERROR "training failed: ConnectionFail (client disconnected after connection failure)"

/* `await pool.shutdown()` (peer_pool.ts): race(all peers' destroy(), 1 s).
 * Peer.destroy (peer.ts) resolves on simple-peer's 'close', which a peer
 * already destroyed (its link closed by the other side, or failed) never
 * emits again: then the race takes the full second.  Links are destroyed at
 * once either way.  TRUE if the peer now waits out that second. */
static gboolean
begin_pool_shutdown (ProtoPeer *p, DlTime now, ProtoOutbox *out, gboolean then_fail)
{
  gboolean slow = FALSE;
  for (guint i = 0; i < p->pool->len; i++)
    slow |= pool_at (p, i)->state == PROTO_LINK_CLOSED || pool_at (p, i)->state == PROTO_LINK_FAILED;
  pp_shutdown_pool (p, out);
  if (!slow)
    return FALSE;
  set_nodes_self_only (p);
  p->shutdown_then_fail = then_fail;
  p->shutdown_deadline = dl_time_add (now, DL_S);
  pp_set_state (p, out, PROTO_PEER_POOL_SHUTDOWN);
  pp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
           "pool shutdown waits its 1 s cap: a destroyed link never emits 'close'");
  return TRUE;
}

static void
handle_message (ProtoPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->received[msg->type]++;
  if (!proto_peer_listens (p, msg->type, in->from))
    {
      pp_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  pp_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      p->id = msg->node;
      p->sync_needed = msg->joined_mid_training && p->cfg.model_sync;
      if (msg->wait_for_more && !p->enough_before_info && !p->cfg.ready_at_round_start)
        p->pause = PAUSE_PENDING;   /* pre-775's client does not read it */
      pp_begin_round (p, now, out);
      return;
    case PROTO_MSG_ENOUGH_PARTICIPANTS:
      if (p->state == PROTO_PEER_CONNECTING && p->pause != PAUSE_PENDING)
        {
          p->enough_before_info = TRUE;
          return;
        }
      p->pause = PAUSE_RESOLVED;
      pp_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "enough participants");
      if (p->state == PROTO_PEER_PAUSED_BEGIN)
        {
          p->pause = PAUSE_NONE;
          start_training (p, out);
        }
      else if (p->state == PROTO_PEER_PAUSED_END)
        {
          p->pause = PAUSE_NONE;
          pp_send_ready (p, out);
        }
      return;
    case PROTO_MSG_WAITING_FOR_MORE:
      if (p->pause != PAUSE_NONE && p->cfg.robust_listen)
        {
          /* S21: robust takes a second Waiting as what it says */
          p->pause = PAUSE_PENDING;
          pp_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, (int64_t) msg->nb_participants,
                      "not enough participants (again)");
          return;
        }
      if (p->pause != PAUSE_NONE)
        {
          /* setupServerCallbacks (client.ts): the listener throws */
          pp_observe (p, out, PROTO_OBS_REJECTED, PROTO_SERVER, (int32_t) msg->type, -1,
                   "Server sent multiple WaitingForMoreParticipants messages");
          node_exits (p, out, "uncaught 'Server sent multiple WaitingForMoreParticipants messages'");
          return;
        }
      p->pause = PAUSE_PENDING;
      pp_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1,
               p->cfg.participant_counts ? (int64_t) msg->nb_participants : -1, "not enough participants");
      return;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      handle_signal (p, msg, out);
      return;
    case PROTO_MSG_SIGNAL_NEW_PEER:
      handle_signal_new_peer (p, now, msg->node, out);
      return;
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
      if (p->cfg.robust_sync_retry && p->provider != PROTO_NO_NODE && p->provider != msg->node)
        {
          /* S12: re-targeted; a link to the old provider that is not up goes */
          Link *old = pp_find_link (p, p->provider);
          if (old && old->state != PROTO_LINK_UP)
            pp_drop_link (p, out, p->provider);
          g_array_set_size (p->pending, 0);
        }
      p->provider = msg->node;
      if (msg->node == PROTO_SERVER && p->cfg.robust_checkpoint)
        {
          /* robust: the coordinator serves its checkpoint over the stream */
          pp_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "the coordinator's checkpoint");
          pp_set_state (p, out, PROTO_PEER_SYNC_WAIT_MODEL);
          p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
          return;
        }
      pp_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "provider assigned");
      if (msg->node == p->id && p->cfg.robust_sync_retry)
        {
          /* robust: no trained model exists anywhere; start from our own */
          pp_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_SIGNAL_MODEL_PROVIDER, -1,
                      "no trained model to sync: starts from its own");
          p->provider = PROTO_NO_NODE;
          p->sync_needed = FALSE;
          p->sync_deadline = DL_TIME_NEVER;
          after_sync (p, out);
          return;
        }
      if (msg->node == p->id)
        {
          pp_observe (p, out, PROTO_OBS_SYNC_FAILED, msg->node, -1, -1, "told to sync from itself");
          fail (p, out, FALSE, "training failed: peers to connect contains our id (provider is self)");
          return;
        }
      get_peers (p, now, out, &msg->node, 1, FALSE);
      if (p->pending->len > 0)
        {
          pp_set_state (p, out, PROTO_PEER_SYNC_LINKING);
          /* getPeers has no timeout; robust bounds it (S12) */
          p->sync_deadline = p->cfg.robust_sync_retry ? dl_time_add (now, p->cfg.model_sync_timeout) : DL_TIME_NEVER;
        }
      else
        {
          pp_set_state (p, out, PROTO_PEER_SYNC_WAIT_MODEL);
          p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
        }
      return;
    case PROTO_MSG_SHARED_MODEL:
      if (msg->weights == NULL || learn_weights_len (msg->weights) != learn_weights_len (p->model))
        {
          pp_observe (p, out, PROTO_OBS_REJECTED, in->from, (int32_t) msg->type, -1, "model of the wrong size");
          return;
        }
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (msg->weights);
      learn_weights_unref (p->latest_model);
      p->latest_model = learn_weights_ref (msg->weights);
      p->sync_needed = FALSE;
      p->synced = TRUE;
      p->sync_deadline = DL_TIME_NEVER;
      pp_observe (p, out, PROTO_OBS_SYNC_DONE, in->from, -1, -1, NULL);
      after_sync (p, out);
      return;
    case PROTO_MSG_PEERS_FOR_ROUND:
      if (p->state == PROTO_PEER_PAUSED_END)
        {
          p->pause = PAUSE_NONE;   /* robust: the coordinator found enough */
          pp_observe (p, out, PROTO_OBS_PAUSE, PROTO_NO_NODE, -1, -1, "enough participants (a list came)");
        }
      handle_peers_for_round (p, now, msg, out);
      return;
    case PROTO_MSG_START_WEIGHT_SHARING:
      p->round_finished_pending = TRUE;
      pp_begin_exchange (p, now, out);
      return;
    case PROTO_MSG_RETRY_PEER_CONNECTIONS:
      if (p->state == PROTO_PEER_WAIT_PEERS || p->state == PROTO_PEER_DONE)
        {
          /* robust: a PeerIsReady again is harmless (S9) */
          pp_send_ready (p, out);
          return;
        }
      if (p->state == PROTO_PEER_PAUSED_END)
        {
          send_ready_paused (p, out);
          return;
        }
      if (p->state == PROTO_PEER_EXCHANGING)
        {
          /* robust (S17): a member left; what it sent may still arrive, so
           * the exchange gets aggregation_wait more, then is aborted */
          p->xchg_deadline = MIN (p->xchg_deadline, dl_time_add (now, p->cfg.aggregation_wait));
          p->xchg_cut = TRUE;
          pp_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_RETRY_PEER_CONNECTIONS, -1,
                      "a member left: the exchange ends within aggregation_wait");
          return;
        }
      if (begin_pool_shutdown (p, now, out, FALSE))
        return;
      set_nodes_self_only (p);
      pp_end_round_loop (p, out);
      return;
    case PROTO_MSG_CONNECTION_FAIL:
      if (begin_pool_shutdown (p, now, out, TRUE))
        return;
      fail (p, out, TRUE, CONNECTION_FAIL_ERROR);
      return;
    case PROTO_MSG_PAYLOAD:
      handle_payload (p, now, in->from, msg, out);
      return;
    case PROTO_MSG_CLIENT_CONNECTED:
    case PROTO_MSG_JOIN_ROUND:
    case PROTO_MSG_PEER_IS_READY:
    case PROTO_MSG_CONNECTIONS_READY:
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      break;  /* never listened for: proto_peer_listens said no */
    }
  g_assert_not_reached ();
}

/* robust: the coordinator has been silent for the wait timeout; a message
 * on its stream may be lost.  The peer says again where it is. */
static void
wait_expired (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  pp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1,
              "no word from the coordinator for the wait timeout: said again");
  switch (p->state)
    {
    case PROTO_PEER_CONNECTING:
      send_server (p, out, PROTO_MSG_CLIENT_CONNECTED);
      arm_wait (p);
      return;
    case PROTO_PEER_PAUSED_BEGIN:
      start_training (p, out);   /* still paused: it waits again before PeerIsReady */
      return;
    case PROTO_PEER_PAUSED_END:
      send_ready_paused (p, out);
      return;
    case PROTO_PEER_WAIT_PEERS:
    case PROTO_PEER_DONE:
      pp_send_ready (p, out);
      return;
    case PROTO_PEER_LINKING:
    case PROTO_PEER_WAIT_DECISION:
      /* as a Retry would */
      if (begin_pool_shutdown (p, now, out, FALSE))
        return;
      set_nodes_self_only (p);
      pp_end_round_loop (p, out);
      return;
    default:
      p->wait_deadline = DL_TIME_NEVER;
      return;
    }
}

static void
handle_deadline (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->wait_deadline <= now && waits_for_coordinator (p))
    {
      wait_expired (p, now, out);
      return;
    }
  if ((p->state == PROTO_PEER_SYNC_WAIT_PROVIDER || p->state == PROTO_PEER_SYNC_WAIT_MODEL
       || p->state == PROTO_PEER_SYNC_LINKING)
      && p->sync_deadline <= now)
    {
      p->sync_deadline = DL_TIME_NEVER;
      pp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1, "model sync timeout");
      if (p->cfg.robust_sync_retry)
        {
          /* S11, S12: ask again, for as long as the peer stays; the
           * coordinator names another provider or serves its checkpoint */
          if (p->provider != PROTO_NO_NODE && p->provider != PROTO_SERVER)
            {
              Link *old = pp_find_link (p, p->provider);
              if (old && old->state != PROTO_LINK_UP)
                pp_drop_link (p, out, p->provider);
            }
          g_array_set_size (p->pending, 0);
          p->provider = PROTO_NO_NODE;
          pp_begin_round (p, now, out);
          return;
        }
      pp_observe (p, out, PROTO_OBS_SYNC_FAILED, p->provider, -1, -1, "model sync timed out");
      fail (p, out, FALSE, p->state == PROTO_PEER_SYNC_WAIT_PROVIDER
                               ? "training failed: timed out waiting for SignalModelProvider"
                               : "training failed: timed out waiting for SharedModel");
      return;
    }
  if (p->cfg.ready_at_round_start && p->state == PROTO_PEER_WAIT_PEERS && p->sync_deadline <= now)
    {
      pp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1,
                  "Timeout waiting for the round's peer list: the round's nodes are this peer alone");
      set_nodes_self_only (p);
      pre775_train (p, out);
      return;
    }
  if (p->state == PROTO_PEER_POOL_SHUTDOWN && p->shutdown_deadline <= now)
    {
      p->shutdown_deadline = DL_TIME_NEVER;
      if (p->shutdown_then_fail)
        fail (p, out, TRUE, CONNECTION_FAIL_ERROR);
      else
        pp_end_round_loop (p, out);
      return;
    }
  if (p->state == PROTO_PEER_EXCHANGING && p->xchg_deadline <= now)
    {
      pp_abort_exchange (p, now, out, "no contribution for payload_timeout: the exchange is aborted");
      return;
    }
  if (p->state == PROTO_PEER_EXCHANGING && p->agg_wait_deadline <= now && p->cfg.robust_exchange_deadline)
    p->agg_wait_deadline = DL_TIME_NEVER;   /* robust does not break: a partial sum is no model */
  if (p->state == PROTO_PEER_EXCHANGING && p->agg_wait_deadline <= now)
    {
      p->agg_wait_deadline = DL_TIME_NEVER;
      p->xchg_broke = TRUE;
      pp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, p->xchg_c,
               p->xchg_c + 1 < proto_aggregator_n_comm_rounds (p->agg)
               ? "aggregation wait expired in comm round 0: break; round 0's result (never sent) ends the round"
               : "aggregation wait expired: break; the result is awaited with no limit");
    }
  if (p->loops_deadline > now)
    return;
  DlTime next = DL_TIME_NEVER;
  for (guint i = 0; i < p->pool->len; i++)
    {
      Link *l = pool_at (p, i);
      for (guint k = 0; k < l->loops->len; k++)
        {
          RecvLoop *rl = &g_array_index (l->loops, RecvLoop, k);
          if (rl->remaining > 0 && rl->deadline <= now)
            {
              rl->remaining--;
              rl->deadline = rl->remaining ? dl_time_add (now, p->cfg.payload_timeout) : DL_TIME_NEVER;
              pp_observe (p, out, PROTO_OBS_TIMER_FIRED, l->peer, PROTO_MSG_PAYLOAD, -1,
                       "payload receive timeout: one reception used up");
            }
          if (rl->remaining > 0)
            next = MIN (next, rl->deadline);
        }
    }
  p->loops_deadline = next;   /* exact again */
}

DlTime
proto_peer_next_deadline (const ProtoPeer *p)
{
  if (!p->connected)
    return DL_TIME_NEVER;
  DlTime t = DL_TIME_NEVER;
  if (p->state == PROTO_PEER_SYNC_WAIT_PROVIDER || p->state == PROTO_PEER_SYNC_WAIT_MODEL
      || p->state == PROTO_PEER_SYNC_LINKING
      || (p->cfg.ready_at_round_start && p->state == PROTO_PEER_WAIT_PEERS))
    t = MIN (t, p->sync_deadline);
  if (p->state == PROTO_PEER_EXCHANGING)
    t = MIN (t, p->xchg_deadline);
  if (waits_for_coordinator (p))
    t = MIN (t, p->wait_deadline);
  if (p->state == PROTO_PEER_EXCHANGING)
    t = MIN (t, p->agg_wait_deadline);
  if (p->state == PROTO_PEER_POOL_SHUTDOWN)
    t = MIN (t, p->shutdown_deadline);
  /* a lower bound: a wake-up with nothing due is harmless (the loops are
   * rescanned only then) */
  if (p->pool->len > 0)
    t = MIN (t, p->loops_deadline);
  return t;
}

void
proto_peer_handle (ProtoPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  DlTime before = proto_peer_next_deadline (p);
  p->now = now;
  switch (in->kind)
    {
    case PROTO_IN_START:
      if (p->state != PROTO_PEER_IDLE)
        break;
      p->connected = TRUE;
      send_server (p, out, PROTO_MSG_CLIENT_CONNECTED);
      pp_set_state (p, out, PROTO_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, now, in, out);
      break;
    case PROTO_IN_DEADLINE:
      if (p->connected)
        handle_deadline (p, now, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      if (p->state != PROTO_PEER_TRAINING || in->weights == NULL)
        {
          pp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, "training result ignored");
          break;
        }
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (in->weights);
      if (p->cfg.ready_at_round_start)
        pp_begin_exchange (p, now, out);   /* pre-775: no barrier after training */
      else
        pp_end_round_loop (p, out);
      break;
    case PROTO_IN_LINK_UP:
      if (p->connected)
        handle_link_up (p, now, in->from, out);
      break;
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
      {
        Link *l = pp_find_link (p, in->from);
        if (l && p->connected)
          {
            gboolean failed = in->kind == PROTO_IN_LINK_FAILED;
            l->state = failed ? PROTO_LINK_FAILED : PROTO_LINK_CLOSED;
            pp_observe (p, out, PROTO_OBS_LINK, in->from, -1, -1,
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
      if (!p->connected)
        break;
      pp_shutdown_pool (p, out);
      if (in->kind == PROTO_IN_LEAVE)
        proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      pp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
               in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      pp_set_state (p, out, PROTO_PEER_LEFT);
      break;
    }
  DlTime after = proto_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

ProtoPeer *
proto_peer_new (const ProtoConfig *config, LearnWeights *initial, DlRandom *rng)
{
  g_return_val_if_fail (initial != NULL, NULL);
  ProtoPeer *p = g_new0 (ProtoPeer, 1);
  p->cfg = *config;
  p->state = PROTO_PEER_IDLE;
  p->id = PROTO_NO_NODE;
  p->provider = PROTO_NO_NODE;
  p->model = learn_weights_ref (initial);
  p->pool = g_ptr_array_new_with_free_func (link_free);
  p->pool_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->pending = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->agg = proto_aggregator_new (config->aggregation, config->max_share_value, rng);
  proto_aggregator_set_strict (p->agg, config->robust_exact_round);
  p->serves = g_array_new (FALSE, FALSE, sizeof (Serve));
  p->sync_deadline = DL_TIME_NEVER;
  p->agg_wait_deadline = DL_TIME_NEVER;
  p->shutdown_deadline = DL_TIME_NEVER;
  p->loops_deadline = DL_TIME_NEVER;
  p->xchg_deadline = DL_TIME_NEVER;
  p->wait_deadline = DL_TIME_NEVER;
  g_return_val_if_fail (config->aggregation != PROTO_AGG_SECURE || rng != NULL, p);
  return p;
}

void
proto_peer_free (ProtoPeer *p)
{
  if (!p)
    return;
  g_hash_table_unref (p->pool_index);
  g_ptr_array_unref (p->pool);
  g_array_unref (p->pending);
  proto_aggregator_free (p->agg);
  g_clear_pointer (&p->promised, learn_weights_unref);
  g_clear_pointer (&p->xchg_result, learn_weights_unref);
  g_array_unref (p->serves);
  learn_weights_unref (p->model);
  learn_weights_unref (p->latest_model);
  g_free (p);
}

ProtoPeerState proto_peer_state (const ProtoPeer *p) { return p->state; }
ProtoNodeId proto_peer_id (const ProtoPeer *p) { return p->id; }
gboolean proto_peer_connected (const ProtoPeer *p) { return p->connected; }
guint proto_peer_rounds_done (const ProtoPeer *p) { return p->rounds_done; }
uint32_t proto_peer_agg_round (const ProtoPeer *p) { return proto_aggregator_round (p->agg); }
guint proto_peer_agg_comm_round (const ProtoPeer *p) { return proto_aggregator_comm_round (p->agg); }
LearnWeights *proto_peer_model (const ProtoPeer *p) { return p->model; }
LearnWeights *proto_peer_latest_model (const ProtoPeer *p) { return p->latest_model; }
gboolean proto_peer_synced (const ProtoPeer *p) { return p->synced; }
gboolean proto_peer_paused (const ProtoPeer *p) { return p->pause == PAUSE_PENDING; }
guint proto_peer_pool_size (const ProtoPeer *p) { return p->pool->len; }
const char *proto_peer_error (const ProtoPeer *p) { return p->error; }

guint
proto_peer_received_count (const ProtoPeer *p, ProtoMsgType type)
{
  return (unsigned) type < PROTO_MSG_N_TYPES ? p->received[type] : 0;
}

int
proto_peer_link_state (const ProtoPeer *p, ProtoNodeId other)
{
  Link *l = pp_find_link (p, other);
  return l ? (int) l->state : -1;
}
