/* proto-machine-base.c — what the shared base does for a machine
 * (proto-machine.h): a state change with its PHASE observation, a send
 * with its SENT, and a message's books for a class that observes_messages.
 * A leaf beside proto-machine.c, which the message registry calls: these
 * call the outbox, which proto-machine.c must not (no cycle). */
#include "config.h"

#include "protocol/proto-machine.h"

void
proto_machine_base_enter (ProtoMachineBase *b, ProtoOutbox *out, guint state, DlTime deadline)
{
  b->state = state;
  b->deadline = deadline;
  proto_outbox_observe (out, PROTO_OBS_PHASE, b->state_names[state], (int32_t) b->round, PROTO_NO_NODE, -1, -1, "%s",
                        b->state_names[state]);
}

void
proto_machine_send (const ProtoMachineBase *b, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  proto_outbox_observe (out, PROTO_OBS_SENT, b->state_names[b->state], (int32_t) b->round, to, (int32_t) m->type, -1,
                        "%s", "");
  proto_outbox_send (out, to, via, m);
}

gboolean
_proto_machine_take_message (ProtoMachine *m, const ProtoInput *in, ProtoOutbox *out)
{
  ProtoMachineBase *b = m->impl;   /* a class that observes messages has a base (proto_machine_new) */
  g_return_val_if_fail (m->base != NULL && in->msg != NULL, FALSE);
  ProtoMsgType type = in->msg->type;
  gboolean taken = proto_machine_listens (m, type, in->from);
  if (taken && type < PROTO_MSG_N_TYPES)
    b->received[type]++;
  proto_outbox_observe (out, taken ? PROTO_OBS_RECEIVED : PROTO_OBS_DROPPED, b->state_names[b->state],
                        (int32_t) b->round, in->from, (int32_t) type, -1, "%s", "");
  return taken;
}
