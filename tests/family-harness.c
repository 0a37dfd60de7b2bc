/* family-harness.c — the other families' rules for the hand-held world
 * (family-harness.h over harness.c). */
#include "config.h"

#include "tests/family-harness.h"

/* every connected link comes up, one at a time, the connecting peer told
 * first; training ends in the order it started; a peer's end of session
 * is not the coordinator's business here (a crash: g->alive) */
static const HarnessRules family_rules = {
  .seed = 1,
};

GW *
gw_new (const ProtoConfig *cfg, guint n, gsize model_len)
{
  return harness_new (cfg, n, model_len, NULL, &family_rules);
}

GW *
gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs)
{
  return harness_new (cfg, n, model_len, envs, &family_rules);
}

void
gw_start_all (GW *g)
{
  for (guint i = 1; i <= g->n; i++)
    harness_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_START });
}

void
gw_hold (GW *g, ProtoMsgType type)
{
  harness_hold (g, type, PROTO_NO_NODE, PROTO_NO_NODE);
}

guint
gw_start_losing (GW *g, ProtoMsgType type, ProtoNodeId to)
{
  harness_hold (g, type, PROTO_NO_NODE, to);
  gw_start_all (g);
  harness_settle (g);
  guint n = harness_drop (g, type, to);
  harness_unhold (g);
  return n;
}

ProtoMachine *
gw_peer (GW *g, guint i)
{
  return g->m[i];
}
