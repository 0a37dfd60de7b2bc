/* proto-input.h — what a driver feeds a protocol machine. */
#pragma once

#include "protocol/proto-message.h"

G_BEGIN_DECLS

typedef enum {
  PROTO_IN_START,          /* peer: the stream to the coordinator is open */
  PROTO_IN_MESSAGE,        /* msg from `from` (via the stream or a link) */
  PROTO_IN_DEADLINE,       /* the time asked for by next_deadline() has come */
  PROTO_IN_TRAINING_DONE,  /* peer: local training finished with `weights` */
  PROTO_IN_LINK_UP,        /* peer: the link to `from` is open */
  PROTO_IN_LINK_FAILED,    /* peer: the link to `from` will never open */
  PROTO_IN_LINK_CLOSED,    /* peer: the open link to `from` died */
  PROTO_IN_STREAM_CLOSED,  /* coordinator: `from`'s stream closed; peer: the coordinator's */
  PROTO_IN_LEAVE,          /* peer: the user closes the client (Disco.close) */
} ProtoInputKind;

typedef struct {
  ProtoInputKind kind;
  ProtoNodeId from;
  ProtoVia via;
  const ProtoMsg *msg;      /* MESSAGE (borrowed) */
  LearnWeights *weights;    /* TRAINING_DONE (borrowed; the machine takes a reference) */
} ProtoInput;

G_END_DECLS
