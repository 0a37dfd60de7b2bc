/* guest-msgs.h — the guest family's one message type (docs/guest.md), by
 * type byte; its codec and size: guest-msgs.c. */
#pragma once

#include "protocol/proto-message.h"

enum {
  /* a guest's message: `signal_data` its type name and its data as the
   * guest wrote them ("NAME DATA"), `key` the wire bytes it says it costs
   * (0: its length) */
  PROTO_MSG_GUEST = 52,
};
