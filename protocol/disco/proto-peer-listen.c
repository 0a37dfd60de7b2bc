/* proto-peer-listen.c — the DISCO peer's drop rule: which message types it
 * listens for in each state (proto_peer_listens; proto-peer.h).  A message
 * nobody listens for is dropped, as DISCO's one-shot listeners drop it. */
#include "config.h"

#include "protocol/disco/proto-peer.h"
#include "protocol/disco/proto-peer-private.h"

/* the tables are bit sets over the message types */
G_STATIC_ASSERT (PROTO_MSG_N_TYPES <= 64);

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
#define BIT(t) (G_GUINT64_CONSTANT (1) << (t))
static const guint64 one_shot[PROTO_PEER_N_STATES] = {
  [PROTO_PEER_CONNECTING] = BIT (PROTO_MSG_NEW_NODE_INFO),
  [PROTO_PEER_SYNC_WAIT_PROVIDER] = BIT (PROTO_MSG_SIGNAL_MODEL_PROVIDER),
  [PROTO_PEER_SYNC_WAIT_MODEL] = BIT (PROTO_MSG_SHARED_MODEL),
  [PROTO_PEER_WAIT_PEERS] = BIT (PROTO_MSG_PEERS_FOR_ROUND),
  [PROTO_PEER_WAIT_DECISION] = BIT (PROTO_MSG_START_WEIGHT_SHARING)
                               | BIT (PROTO_MSG_RETRY_PEER_CONNECTIONS)
                               | BIT (PROTO_MSG_CONNECTION_FAIL),
};
static const guint64 persistent = BIT (PROTO_MSG_SIGNAL_FOR_PEER) | BIT (PROTO_MSG_SIGNAL_NEW_PEER)
                                  | BIT (PROTO_MSG_WAITING_FOR_MORE);

/* robust adds (proto-config.h): Retry and Fail while linking and while
 * waiting for the list (S8, S9, S24); Retry during the exchange (S17: a
 * member left); a new provider while syncing (S12); and a finished peer
 * that stays is a helper, waiting in `done` for lists (S20). */
static const guint64 robust_extra[PROTO_PEER_N_STATES] = {
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
  if (type == PROTO_MSG_ROUND_STALENESS)   /* robust, async and mixed: right after a list */
    return p->cfg.robust_listen
           && (p->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC || p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED);
  if (type == PROTO_MSG_ENOUGH_PARTICIPANTS)
    return p->pause == PAUSE_PENDING || p->state == PROTO_PEER_CONNECTING;
  if (type == PROTO_MSG_PAYLOAD)
    {
      Link *l = pp_find_link (p, from);
      return l != NULL && pp_loop_active (l);
    }
  return FALSE;
}

