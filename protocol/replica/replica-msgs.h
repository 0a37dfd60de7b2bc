/* replica-msgs.h — the replicated coordinator's message types (the session
 * layer and Raft; README.md), by type byte.  Their fields in ProtoMsg are
 * said beside each; their codec and sizes: replica-msgs.c. */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_SESSION_RESUME = 41,   /* peer -> S (a new stream): resume my session; `sess_ack` the last
                                      message of the coordinator's I hold */
  PROTO_MSG_SESSION_RESUMED = 42,  /* S -> peer: resumed; `sess_ack` the last of yours applied, `round`
                                      the last number it gave a message to you; `helper`: no, your
                                      session was closed (you are gone for the coordinator) */
  PROTO_MSG_RAFT_VOTE = 43,        /* replica -> replica: RequestVote, term `round`, last log index `key`
                                      and term `comm_round` */
  PROTO_MSG_RAFT_VOTE_REPLY = 44,  /* term `round`, `helper` granted */
  PROTO_MSG_RAFT_APPEND = 45,      /* AppendEntries: term `round`, prev index `key` and term `comm_round`,
                                      leader commit `degree`; one entry or none (a heartbeat): its
                                      fields in `indices` (proto-replica.h) and its message `inner` */
  PROTO_MSG_RAFT_APPEND_REPLY = 46,/* term `round`, `helper` success, match index `key` */
};
