/* testbed-host-rules.c — the timeline's rules in one testbed process
 * (testbed-host-private.h): drop and delay rules on what it sends, as the
 * simulator matches them, and a peer's slow and link-fail rules.  A leaf:
 * it says what a rule asks; testbed-host.c does it. */
#include "config.h"

#include "testbed/testbed-host-private.h"

#include <string.h>

typedef struct {
  int msg_type;
  char label[33];   /* as the world's rules (sim-world-private.h) */
  ProtoNodeId node;
  gboolean from;
  guint count;
  DlTime delay;
  gboolean drop;
} Rule;

void
_testbed_host_rules_init (TestbedHostRules *r)
{
  r->rules = g_array_new (FALSE, FALSE, sizeof (Rule));
  r->never = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->slow = 1;
}

void
_testbed_host_rules_clear (TestbedHostRules *r)
{
  g_clear_pointer (&r->rules, g_array_unref);
  g_clear_pointer (&r->never, g_hash_table_unref);
}

void
_testbed_host_rules_add (TestbedHostRules *r, ProtoNodeId self, gboolean is_peer, const SimAction *a)
{
  if (a->kind == SIM_ACT_SLOW)
    {
      if (is_peer && a->a == self)
        r->slow *= a->value > 0 ? a->value : 1;   /* as sim-churn.c: from the next training on */
      return;
    }
  if (a->kind == SIM_ACT_LINK_FAIL)
    {
      if (is_peer && (a->a == self || a->b == self))
        g_hash_table_add (r->never, GUINT_TO_POINTER (a->a == self ? a->b : a->a));
      return;
    }
  g_return_if_fail (a->kind == SIM_ACT_DROP || a->kind == SIM_ACT_DELAY);
  Rule rule = { .msg_type = a->msg_type, .node = a->a, .from = a->value == 1, .count = a->count ? a->count : 1,
                .delay = a->delay, .drop = a->kind == SIM_ACT_DROP };
  memcpy (rule.label, a->msg_label, sizeof rule.label);
  g_array_append_val (r->rules, rule);
}

gboolean
_testbed_host_rules_take (TestbedHostRules *r, ProtoNodeId from, ProtoNodeId to, const ProtoMsg *msg,
                          gboolean drop, DlTime *delay)
{
  for (guint i = 0; i < r->rules->len; i++)
    {
      Rule *rule = &g_array_index (r->rules, Rule, i);
      if (rule->drop != drop || rule->count == 0 || rule->msg_type != (int) msg->type
          || (rule->label[0] && !proto_msg_label_is (msg, rule->label)))
        continue;
      /* as in the simulator: drop rules match the receiver unless `from`;
       * delay rules match the sender unless `from` (then the receiver) */
      ProtoNodeId who = drop ? (rule->from ? from : to) : (rule->from ? to : from);
      if (rule->node != who)
        continue;
      rule->count--;
      if (delay)
        *delay = rule->delay;
      return TRUE;
    }
  return FALSE;
}

gboolean
_testbed_host_rules_never (const TestbedHostRules *r, ProtoNodeId other)
{
  return g_hash_table_contains (r->never, GUINT_TO_POINTER (other));
}
