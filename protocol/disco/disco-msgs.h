/* disco-msgs.h — DISCO's message types (its decentralized protocol, #1110,
 * and robust's RoundStaleness), by type byte.  Their fields in ProtoMsg are
 * said beside each; their codec and sizes: disco-msgs.c.  The gossip,
 * hierarchical and pipeline families reuse DISCO's admission and signalling
 * messages (ClientConnected, NewNodeInfo, PeerIsReady, SignalForPeer...). */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_CLIENT_CONNECTED = 0,
  PROTO_MSG_NEW_NODE_INFO = 1,       /* S -> peer: its id `node`, `wait_for_more`, `nb_participants`,
                                        `joined_mid_training` */
  PROTO_MSG_JOIN_ROUND = 2,
  PROTO_MSG_PEER_IS_READY = 3,       /* `helper` (robust only): on the wire only when set */
  PROTO_MSG_PEERS_FOR_ROUND = 4,     /* S -> peer: the round's `peers`, aggregation `round` */
  PROTO_MSG_CONNECTIONS_READY = 5,
  PROTO_MSG_START_WEIGHT_SHARING = 6,
  PROTO_MSG_RETRY_PEER_CONNECTIONS = 7,
  PROTO_MSG_CONNECTION_FAIL = 8,
  PROTO_MSG_WAITING_FOR_MORE = 9,    /* `nb_participants` */
  PROTO_MSG_ENOUGH_PARTICIPANTS = 10, /* `nb_participants` */
  PROTO_MSG_SIGNAL_FOR_PEER = 11,    /* `node` the destination (to S) or source (from S), `signal`,
                                        `signal_data` (NULL in the simulator) */
  PROTO_MSG_MODEL_SYNC_REQUEST = 12,
  PROTO_MSG_SIGNAL_MODEL_PROVIDER = 13, /* `node` the provider */
  PROTO_MSG_SIGNAL_NEW_PEER = 14,    /* `node` the newcomer */
  PROTO_MSG_SHARED_MODEL = 15,       /* `weights` */
  PROTO_MSG_PAYLOAD = 16,            /* `node` the recipient, `round`, `comm_round`, `weights` */
  /* robust with straggler_policy = async or mixed */
  PROTO_MSG_ROUND_STALENESS = 51,    /* S -> listed peer, after PeersForRound: for round `round`, every
                                        listed peer (`peers`, itself included) and its staleness
                                        (`indices`: rounds since the list it was last in) */
};
