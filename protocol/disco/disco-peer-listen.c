/* disco-peer-listen.c — the DISCO peer's drop rule: which message types it
 * listens for in each state (_disco_peer_listens; disco-peer-private.h).  A message
 * nobody listens for is dropped, as DISCO's one-shot listeners drop it. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-peer-private.h"
#include "protocol/disco/disco-msgs.h"

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
 * pool peer whose receive loop is active.  Nothing once disconnected.
 *
 * The tables hold a flag per type byte (PROTO_MSG_TYPE_LIMIT of them), so
 * they take any type a family declares. */
static const guint8 one_shot[DISCO_PEER_N_STATES][PROTO_MSG_TYPE_LIMIT] = {
  [DISCO_PEER_CONNECTING] = { [PROTO_MSG_WELCOME] = 1 },
  [DISCO_PEER_SYNC_WAIT_PROVIDER] = { [PROTO_MSG_SYNC_PROVIDER] = 1 },
  [DISCO_PEER_SYNC_WAIT_MODEL] = { [PROTO_MSG_SYNC_MODEL] = 1 },
  [DISCO_PEER_WAIT_PEERS] = { [PROTO_MSG_ROUND_PEERS] = 1 },
  [DISCO_PEER_WAIT_DECISION] = { [DISCO_MSG_START_WEIGHT_SHARING] = 1,
                                 [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1,
                                 [DISCO_MSG_CONNECTION_FAIL] = 1 },
};
static const guint8 persistent[PROTO_MSG_TYPE_LIMIT] = {
  [PROTO_MSG_SIGNAL] = 1, [DISCO_MSG_SIGNAL_NEW_PEER] = 1, [DISCO_MSG_WAITING_FOR_MORE] = 1,
};

/* robust adds (proto-config.h): Retry and Fail while linking and while
 * waiting for the list (S8, S9, S24); Retry during the exchange (S17: a
 * member left); a new provider while syncing (S12); and a finished peer
 * that stays is a helper, waiting in `done` for lists (S20). */
static const guint8 robust_extra[DISCO_PEER_N_STATES][PROTO_MSG_TYPE_LIMIT] = {
  [DISCO_PEER_SYNC_LINKING] = { [PROTO_MSG_SYNC_PROVIDER] = 1 },
  [DISCO_PEER_SYNC_WAIT_MODEL] = { [PROTO_MSG_SYNC_PROVIDER] = 1 },
  [DISCO_PEER_WAIT_PEERS] = { [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1, [DISCO_MSG_CONNECTION_FAIL] = 1 },
  [DISCO_PEER_LINKING] = { [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1, [DISCO_MSG_CONNECTION_FAIL] = 1 },
  [DISCO_PEER_EXCHANGING] = { [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1 },
  [DISCO_PEER_PAUSED_END] = { [PROTO_MSG_ROUND_PEERS] = 1, [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1,
                              [DISCO_MSG_CONNECTION_FAIL] = 1 },
  [DISCO_PEER_DONE] = { [PROTO_MSG_ROUND_PEERS] = 1, [DISCO_MSG_RETRY_PEER_CONNECTIONS] = 1,
                        [DISCO_MSG_CONNECTION_FAIL] = 1 },
};

gboolean
_disco_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const DiscoPeer *p = impl;
  if (!p->base.connected || type >= PROTO_MSG_TYPE_LIMIT)
    return FALSE;
  if (one_shot[p->base.state][type])
    return type != PROTO_MSG_SYNC_MODEL || from == p->provider;
  if (disco_config (&p->cfg)->robust_listen && robust_extra[p->base.state][type])
    return p->base.state != DISCO_PEER_DONE || p->helper;
  if (persistent[type])
    return TRUE;
  if (type == DISCO_MSG_ROUND_STALENESS)   /* robust, async and mixed: right after a list */
    return disco_config (&p->cfg)->robust_listen
           && (p->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC || p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED);
  if (type == DISCO_MSG_ENOUGH_PARTICIPANTS)
    return p->pause == PAUSE_PENDING || p->base.state == DISCO_PEER_CONNECTING;
  if (type == DISCO_MSG_PAYLOAD)
    {
      Link *l = _disco_peer_find_link (p, from);
      return l != NULL && _disco_peer_loop_active (l);
    }
  return FALSE;
}

