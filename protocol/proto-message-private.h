/* proto-message-private.h — the tables proto-message.c (names, encoding)
 * and proto-message-decode.c share. */
#pragma once

#include "protocol/proto-message.h"

/* a type's name ("PeersForRound"), and the GVariant type of its fields
 * (the first member is the type byte) */
extern const char *const proto_msg_type_names[PROTO_MSG_N_TYPES];
extern const char *const proto_msg_wire_types[PROTO_MSG_N_TYPES];
