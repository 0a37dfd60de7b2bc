/* sim-net-rules.c — the timeline's delay and drop rules (sim-churn.c
 * adds them) as the network applies them to a message: the delay rule that
 * holds it, the drop rule that takes it, each counting down its uses, and
 * a dropped message's kind as the timeline names it.
 *
 * A leaf under sim-net.c (sim-world-private.h draws the world's files):
 * it calls only sim-net-msg.c's view of a message and protocol/'s
 * messages. */
#include "config.h"

#include "sim/sim-world-private.h"

DlTime
_sim_net_rules_take_delay (SimWorld *w, ProtoNodeId from, ProtoNodeId to, const Msg *m)
{
  ProtoMsg tmp;
  const ProtoMsg *msg = w->delay_rules->len ? sim_net_msg_view (m, &tmp) : NULL;
  for (guint i = 0; i < w->delay_rules->len; i++)
    {
      Rule *r = &g_array_index (w->delay_rules, Rule, i);
      /* delay rules: `from` FALSE matches the sender, TRUE the receiver */
      if (r->count > 0 && r->node == (r->from ? to : from) && r->msg_type == (int) msg->type
          && (!r->label[0] || proto_msg_label_is (msg, r->label)))
        {
          r->count--;
          return r->delay;
        }
    }
  return 0;
}

gboolean
_sim_net_rules_take_drop (SimWorld *w, ProtoNodeId from, ProtoNodeId to, const ProtoMsg *msg)
{
  for (guint i = 0; i < w->drop_rules->len; i++)
    {
      Rule *r = &g_array_index (w->drop_rules, Rule, i);
      if (r->count > 0 && r->node == (r->from ? from : to) && r->msg_type == (int) msg->type
          && (!r->label[0] || proto_msg_label_is (msg, r->label)))
        {
          r->count--;
          return TRUE;
        }
    }
  return FALSE;
}

/* A dropped message as the timeline names it: its type, and its kind
 * where its type has kinds ("Guest:Push"). */
const char *
_sim_net_rules_kind_name (const ProtoMsg *msg, char buf[64])
{
  const char *type = proto_msg_type_name (msg->type);
  gsize len = 0;
  const char *label = proto_msg_label (msg, &len);
  if (!label)
    return type;
  g_snprintf (buf, 64, "%s:%.*s", type, (int) MIN (len, 32), label);
  return buf;
}
