/* hier-msgs.h — the hierarchical family's message types, with its
 * clustering by measured latency (hier-latency.c), by type byte.  Their
 * fields in ProtoMsg are said beside each; their codec and sizes:
 * hier-msgs.c.  The family also speaks the session layer's admission and
 * signalling messages (protocol/session/session-msgs.h). */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_HIER_HELLO = 21,      /* peer -> S: `degree` its score, `signal_data` its region, `helper` NAT */
  PROTO_MSG_HIER_CLUSTER = 22,    /* S -> peer: its cluster's `peers`, election epoch `round`, head `node`
                                     (PROTO_NO_NODE: an election is on) */
  PROTO_MSG_HIER_CANDIDACY = 23,  /* peer -> S: for epoch `round`, score `degree`, `helper` eligible */
  PROTO_MSG_HIER_HEADS = 24,      /* S -> heads: the heads tree, version `round`, of `degree` heads:
                                     this head's parent `node` (PROTO_NO_NODE: the top), the top
                                     heads it exchanges with (`peers`, at the top), its children
                                     (`indices`), and `key` a head to sync from (any other, finished
                                     clusters included; PROTO_NO_NODE if none) */
  PROTO_MSG_HIER_UPDATE = 25,     /* member -> head: its model, `degree` 1, `round` the head's round */
  PROTO_MSG_HIER_AGG = 26,        /* head -> heads: its cluster's mean of `degree` updates, `round` */
  PROTO_MSG_HIER_RESULT = 27,     /* head -> member: the round's global model */
  /* clustering by measured latency (hier-coord.c) */
  PROTO_MSG_HIER_PROBE = 47,      /* S -> peer: measure the round trip to each landmark in `peers` (probe
                                     `round` + i for the i-th), and open links to the peers in `indices`
                                     (they will probe you: you are their landmark) */
  PROTO_MSG_HIER_PING = 48,       /* peer -> landmark, over a link: probe `round` */
  PROTO_MSG_HIER_PONG = 49,       /* the answer, same `round` */
  PROTO_MSG_HIER_RTT = 50,        /* peer -> S: probe `round` to landmark `node` took `key` ns
                                     (G_MAXUINT64: no link to it) */
};
