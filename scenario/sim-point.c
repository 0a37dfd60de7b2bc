/* sim-point.c — the scenario loader's bottom layer: a sweep point's
 * resolved value of a key, whether the file or a --set gave it, where a
 * value comes from (the file's path or "--set ARG") and the error that
 * names file, section and key.  Every other part of the loader
 * (sim-scenario.c, sim-build.c, sim-keys.c, sim-expect.c) calls these; this
 * file calls none of them (sim-scenario-private.h draws the layers). */
#include "config.h"

#include "scenario/sim-scenario-private.h"

#include <stdarg.h>
#include <string.h>

gboolean
_sim_scenario_fail_at (GError **error, const char *file, const char *section, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (key)
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: [%s] %s: %s", file, section, key, msg);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: [%s]: %s", file, section, msg);
  return FALSE;
}

const char *
_sim_scenario_origin (const SimScenario *s, const char *section, const char *key)
{
  if (!s->set_by || !section || !key)
    return s->path;
  g_autofree char *full = g_strdup_printf ("%s.%s", section, key);
  const char *o = g_hash_table_lookup (s->set_by, full);
  return o ? o : s->path;
}

const char *
_sim_scenario_point_value (const SimPoint *p, const char *section, const char *key)
{
  g_autofree char *full = g_strdup_printf ("%s.%s", section, key);
  for (guint i = 0; i < p->keys->len; i++)
    if (strcmp (p->keys->pdata[i], full) == 0)
      return p->values->pdata[i];
  return NULL;
}

gboolean
_sim_scenario_point_given (const SimPoint *p, const char *section, const char *key)
{
  g_autofree char *full = g_strdup_printf ("%s.%s", section, key);
  return g_hash_table_contains (p->given, full);
}
