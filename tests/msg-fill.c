/* msg-fill.c — a message of every type with its fields set (msg-fill.h). */
#include "config.h"

#include "tests/msg-fill.h"
#include "protocol/proto-msg-class.h"

void
fill_msg (ProtoMsg *m, ProtoMsgType t)
{
  proto_msg_init (m, t);
  const ProtoMsgClass *k = proto_msg_class_of (t);
  if (k && k->example)
    k->example (m);
}

gboolean
msg_carries_weights (ProtoMsgType t)
{
  ProtoMsg m;
  fill_msg (&m, t);
  gboolean w = m.weights != NULL;
  proto_msg_clear (&m);
  return w;
}
