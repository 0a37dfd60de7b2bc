/* disco-msgs.h — DISCO's own message types (its decentralized protocol,
 * #1110, and robust's RoundStaleness), by type byte.  Their fields in
 * ProtoMsg are said beside each; their codec and sizes: disco-msgs.c.  Its
 * admission, signalling and model-sync messages (ClientConnected,
 * NewNodeInfo, PeerIsReady, PeersForRound, SignalForPeer...) are the
 * session layer's, which the other families speak too:
 * protocol/session/session-msgs.h, included here. */
#pragma once

#include "protocol/session/session-msgs.h"

enum {
  DISCO_MSG_JOIN_ROUND = 2,
  DISCO_MSG_CONNECTIONS_READY = 5,
  DISCO_MSG_START_WEIGHT_SHARING = 6,
  DISCO_MSG_RETRY_PEER_CONNECTIONS = 7,
  DISCO_MSG_CONNECTION_FAIL = 8,
  DISCO_MSG_WAITING_FOR_MORE = 9,    /* `nb_participants` */
  DISCO_MSG_ENOUGH_PARTICIPANTS = 10, /* `nb_participants` */
  DISCO_MSG_SIGNAL_NEW_PEER = 14,    /* `node` the newcomer */
  DISCO_MSG_PAYLOAD = 16,            /* `node` the recipient, `round`, `comm_round`, `weights` */
  /* robust with straggler_policy = async or mixed */
  DISCO_MSG_ROUND_STALENESS = 51,    /* S -> listed peer, after PeersForRound: for round `round`, every
                                        listed peer (`peers`, itself included) and its staleness
                                        (`indices`: rounds since the list it was last in) */
};
