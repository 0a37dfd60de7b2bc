/* gossip-msgs.h — the gossip family's message types, with its Kademlia
 * discovery's (gossip-dht.c), by type byte.  Their fields in ProtoMsg are
 * said beside each; their codec and sizes: gossip-msgs.c.  The family also
 * speaks the session layer's messages (protocol/session/session-msgs.h). */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_GOSSIP_TARGETS = 17,  /* peer -> S: the peers it drew for step `round` */
  PROTO_MSG_NEIGHBORS = 18,       /* S -> peer: its neighbours in step `round`'s contact graph */
  PROTO_MSG_GOSSIP_PAYLOAD = 19,  /* peer -> peer: its model (or `indices` of it), `degree`, and its kind
                                     in `comm_round` (ProtoGossipKind) */
  PROTO_MSG_GOSSIP_SAMPLE = 20,   /* S -> peer: candidates for an asynchronous step of its own */
  /* Kademlia discovery */
  PROTO_MSG_DHT_FIND_NODE = 28,   /* peer -> peer: the contacts closest to `key`, call `round` */
  PROTO_MSG_DHT_NODES = 29,       /* the answer: contacts (`peers`) for call `round`; from S, call 0:
                                     the bootstrap contacts */
};

/* A GossipPayload's kind (its comm_round field). */
typedef enum {
  PROTO_GOSSIP_STEP,    /* a step's exchange with a neighbour (`round`: the step) */
  PROTO_GOSSIP_PUSH,    /* asynchronous: mixed in by staleness, answered with a REPLY (`round`: the
                           sender's rounds done) */
  PROTO_GOSSIP_REPLY,   /* the answer to a push: mixed in by staleness, not answered (push-pull:
                           the mean the receiver took) */
  PROTO_GOSSIP_REPORT,  /* push-pull, peer -> coordinator: its value as a step begins (`round`: the
                           step), for the variance the coordinator records */
} ProtoGossipKind;
