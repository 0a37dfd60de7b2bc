/* fedavg-msgs.h — the fedavg family's message types, by type byte.  Their
 * fields in ProtoMsg are said beside each; their codec and sizes:
 * fedavg-msgs.c.  All travel on the client<->server stream. */
#pragma once

#include "protocol/proto-message.h"

enum {
  PROTO_MSG_FED_HELLO = 96,   /* client -> S: it is in the pool; `key`: its training samples */
  PROTO_MSG_FED_MODEL = 97,   /* S -> client: train on the global `weights` for round `round` */
  PROTO_MSG_FED_UPDATE = 98,  /* client -> S: its trained `weights` for round `round`, `key`: its
                                 samples (the average's weight) */
  PROTO_MSG_FED_DONE = 99,    /* S -> client: training is over after `round` rounds; `weights`:
                                 the final global model */
};

/* TRUE for the types a client sends the server (FedHello, FedUpdate):
 * what both servers listen for, from anyone */
gboolean fedavg_msgs_to_server (ProtoMsgType type);
