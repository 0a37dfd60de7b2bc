/* pipe-msgs.h — the pipeline family's message types (Petals' inference
 * chain), by type byte.  Their fields in ProtoMsg are said beside each;
 * their codec and sizes: pipe-msgs.c.  The family also speaks the session
 * layer's signal (protocol/session/session-msgs.h). */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_PIPE_HELLO = 30,      /* peer -> S: `degree` its speed x 1000, `signal_data` its region */
  PROTO_MSG_PIPE_ROLE = 31,       /* S -> peer: its id `node`; `helper` TRUE: a server of blocks
                                     [`round`, `comm_round`); FALSE: a client */
  PROTO_MSG_PIPE_LOOKUP = 32,     /* client -> S: which servers are there now */
  PROTO_MSG_PIPE_SERVERS = 33,    /* S -> client: the live servers (`peers`) and for each four numbers in
                                     `indices`: first block, end block, speed x 1000, family code */
  PROTO_MSG_PIPE_PING = 34,       /* client -> server: `round` a sequence number */
  PROTO_MSG_PIPE_PONG = 35,       /* the answer, same `round` */
  PROTO_MSG_PIPE_STEP = 36,       /* client -> server: session `key`, step `round`, input hash `comm_round`,
                                     `nb_participants` tokens of hidden states (`weights`) through blocks
                                     [`degree`, `node`), and the servers after this one (`peers`, with
                                     their blocks as [start, end) pairs in `indices`: next-peer forwarding
                                     as Petals' next_servers; empty: none); `helper`: the hash alone, no
                                     hidden states (client_copy = hash) */
  PROTO_MSG_PIPE_PUSH = 37,       /* server -> server: the same for the next server of the chain (Petals'
                                     rpc_push), fire-and-forget; `peers` the rest of the chain */
  PROTO_MSG_PIPE_RESULT = 38,     /* server -> client: session `key`, step `round`, output hash `comm_round`
                                     computed from input hash `degree`, `nb_participants` tokens */
  PROTO_MSG_PIPE_CLOSE = 39,      /* client -> server: session `key` is over */
  PROTO_MSG_PIPE_NEED = 40,       /* server -> client: the full copy of step `round` of session `key`, please
                                     (client_copy = hash: its hash alone came, and no push matched it) */
};
