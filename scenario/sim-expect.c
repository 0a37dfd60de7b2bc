/* sim-expect.c — the [expect] section: which summary keys it may name
 * (run, peer, property keys and the families' counters), its operators, and checking a value
 * (sim-scenario.h, sim-scenario-private.h). */
#include "config.h"

#include "scenario/sim-scenario-private.h"
#include "host/sim-props.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const summary_keys[] = {
  "outcome", "rounds_completed", "peers_finished", "peers_failed", "peers_hung", "retries",
  "exclusions", "model_syncs", "messages_dropped", "final_accuracy", "final_loss",
  "consensus_distance", "messages", "bytes", "busiest_uplink_bytes", "sim_time_s", NULL
};
static const char *const peer_keys[] = {
  "outcome", "rounds", "synced", "retries_received", "fails_received", "state", NULL
};

const char *
sim_op_name (SimOp op)
{
  static const char *const n[] = { "=", "!=", "<", "<=", ">", ">=" };
  return n[op];
}

gboolean
_sim_scenario_parse_expect_line (const char *file, const char *key, const char *value, SimExpect *out, GError **error)
{
  gboolean ok = FALSE;
  for (guint i = 0; summary_keys[i]; i++)
    ok |= strcmp (key, summary_keys[i]) == 0;
  ok |= proto_counter_lookup (key) != NULL;   /* a family's counter (ProtoCounter) */
  if (!ok && g_str_has_prefix (key, "violations."))
    {
      static const char *const props[] = { SIM_PROP_NAMES, NULL };
      for (guint i = 0; props[i]; i++)
        ok |= strcmp (key + 11, props[i]) == 0;
    }
  if (!ok && g_str_has_prefix (key, "metric."))
    {
      /* metric.NAME.STAT: NAME is whatever the family observes (its
       * README lists them); a name no run observed fails as missing */
      static const char *const stats[] = { "count", "sum", "mean", "median", "p90", "max", NULL };
      const char *dot = strrchr (key, '.');
      for (guint i = 0; dot > key + 7 && stats[i]; i++)
        ok |= strcmp (dot + 1, stats[i]) == 0;
    }
  if (!ok && g_str_has_prefix (key, "peer."))
    {
      const char *dot = strrchr (key, '.');
      const char *name = key + 5;
      if (dot > name && name[0] == 'p')
        for (guint i = 0; peer_keys[i]; i++)
          ok |= strcmp (dot + 1, peer_keys[i]) == 0;
    }
  if (!ok)
    {
      /* the property names come from SIM_PROP_NAMES, so that a property
       * added there is listed here too */
      static const char *const props[] = { SIM_PROP_NAMES, NULL };
      g_autofree char *names = g_strjoinv ("|", (char **) props);
      return _sim_scenario_fail_at (error, file, "expect", key,
                    "unknown key (expected a summary key such as outcome, rounds_completed, retries, "
                    "final_accuracy, peer.pN.outcome|rounds|synced|retries_received|fails_received|state, "
                    "metric.NAME.count|sum|mean|median|p90|max, or violations.%s)", names);
    }
  const char *v = value;
  SimOp op = SIM_OP_EQ;
  static const struct { const char *s; SimOp op; } ops[] = {
    { ">=", SIM_OP_GE }, { "<=", SIM_OP_LE }, { "!=", SIM_OP_NE }, { "=", SIM_OP_EQ },
    { ">", SIM_OP_GT }, { "<", SIM_OP_LT },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    if (g_str_has_prefix (v, ops[i].s))
      {
        op = ops[i].op;
        v += strlen (ops[i].s);
        break;
      }
  g_autofree char *val = g_strstrip (g_strdup (v));
  if (*val == '\0')
    return _sim_scenario_fail_at (error, file, "expect", key, "missing value (expected [OP] VALUE, e.g. >= 8)");
  double num;
  if (op != SIM_OP_EQ && op != SIM_OP_NE && !dl_parse_number (val, &num, NULL))
    return _sim_scenario_fail_at (error, file, "expect", key, "'%s': %s needs a number", val, sim_op_name (op));
  out->key = g_strdup (key);
  out->op = op;
  out->value = g_steal_pointer (&val);
  return TRUE;
}

gboolean
sim_expect_check (const SimExpect *e, const char *actual)
{
  double a, b;
  if (actual == NULL)
    return FALSE;
  gboolean numeric = dl_parse_number (actual, &a, NULL) && dl_parse_number (e->value, &b, NULL);
  if (!numeric)
    {
      int c = strcmp (actual, e->value);
      return e->op == SIM_OP_EQ ? c == 0 : e->op == SIM_OP_NE ? c != 0 : FALSE;
    }
  if (isnan (a))
    return FALSE;
  switch (e->op)
    {
    case SIM_OP_EQ: return fabs (a - b) <= 1e-9 * MAX (1.0, fabs (b));
    case SIM_OP_NE: return fabs (a - b) > 1e-9 * MAX (1.0, fabs (b));
    case SIM_OP_LT: return a < b;
    case SIM_OP_LE: return a <= b;
    case SIM_OP_GT: return a > b;
    case SIM_OP_GE: return a >= b;
    }
  return FALSE;
}
