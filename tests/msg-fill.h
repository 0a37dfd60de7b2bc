/* msg-fill.h — for the tests: a message of any type with every field it
 * carries set to something other than its default (test-message.c's round
 * trips, test-protocol.c's drop rule).  Shape: the message is the caller's;
 * proto_msg_clear releases it. */
#pragma once

#include "protocol/proto-message.h"

void fill_msg (ProtoMsg *m, ProtoMsgType t);
/* TRUE if a type carries weights: its class's example sets some (a
 * model message of any family, and the session's SharedModel) */
gboolean msg_carries_weights (ProtoMsgType t);

/* Each type is filled by its class's example (ProtoMsgClass.example,
 * protocol/proto-msg-class.h), in its family's -msgs.c, so that
 * msg-fill.c names no family that can be taken out (tools/family-diff)
 * and a family's types need no file under tests/; a type without one
 * (a bare type) is left as proto_msg_init makes it. */
