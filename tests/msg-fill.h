/* msg-fill.h — for the tests: a message of any type with every field it
 * carries set to something other than its default (test-message.c's round
 * trips, test-protocol.c's drop rule).  Shape: the message is the caller's;
 * proto_msg_clear releases it. */
#pragma once

#include "protocol/proto-message.h"

void fill_msg (ProtoMsg *m, ProtoMsgType t);

/* A family may fill its own types in a file of its own under tests/
 * (msg-fill-fedavg.c), so that msg-fill.c names no family that can be
 * taken out (tools/family-diff): its filler sets the fields of a type it
 * knows and returns TRUE, or returns FALSE; MSG_FILL_REGISTER (filler) in
 * that file adds it before main runs (a constructor). */
typedef gboolean (*MsgFillFunc) (ProtoMsg *m, ProtoMsgType t);
void msg_fill_register (MsgFillFunc f);
#define MSG_FILL_REGISTER(f)                                                                                           \
  static void f##_register (void) __attribute__ ((constructor));                                                       \
  static void f##_register (void)                                                                                      \
  {                                                                                                                    \
    msg_fill_register (f);                                                                                             \
  }
