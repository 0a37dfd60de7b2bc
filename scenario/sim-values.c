/* sim-values.c — the parsers of scenario values that are not units or
 * distributions (those are base/dl-units.h): whole numbers, probabilities,
 * region lists, and splitting a value at a separator outside parentheses
 * (sweep lists, timeline actions); the families' own (shares, on/off, a
 * pipeline's servers) are in protocol/.  A leaf of the loader: it calls no
 * other part of it (sim-scenario-private.h draws the layers). */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "scenario/sim-scenario-private.h"
#include "base/dl-units.h"
#include "protocol/proto-keys.h"

#include <math.h>
#include <string.h>

/* Splits at separators that are not inside parentheses. */
GPtrArray *
_sim_scenario_split_top (const char *s, char sep)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  int depth = 0;
  const char *start = s;
  for (const char *p = s;; p++)
    {
      if (*p == '(')
        depth++;
      else if (*p == ')')
        depth--;
      if (*p == '\0' || (*p == sep && depth == 0))
        {
          g_ptr_array_add (out, g_strstrip (g_strndup (start, (gsize) (p - start))));
          if (*p == '\0')
            break;
          start = p + 1;
        }
    }
  return out;
}

gboolean
_sim_scenario_parse_uint (const char *v, guint *out)
{
  return proto_key_parse_uint (v, out);
}

gboolean
_sim_scenario_parse_prob (const char *v, double *out, GError **error)
{
  if (!dl_parse_number (v, out, error))
    return FALSE;
  if (*out < 0 || *out > 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not a probability in [0, 1]", v);
      return FALSE;
    }
  return TRUE;
}

gboolean
_sim_scenario_parse_regions (const char *v, char ***names, guint **counts, guint *n, GError **error)
{
  g_autoptr (GPtrArray) parts = _sim_scenario_split_top (v, ',');
  g_autoptr (GPtrArray) nm = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) ct = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < parts->len; i++)
    {
      g_autofree char *t = g_strstrip (g_strdup (parts->pdata[i]));
      char *colon = strchr (t, ':');
      guint c = 0;
      if (colon)
        *colon = '\0';
      g_strstrip (t);
      if (!colon || !*t || !_sim_scenario_parse_uint (g_strstrip (colon + 1), &c) || c == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected NAME:COUNT, ... (a count of at least 1)",
                       (const char *) parts->pdata[i]);
          return FALSE;
        }
      for (guint j = 0; j < nm->len; j++)
        if (strcmp (nm->pdata[j], t) == 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "region '%s' appears twice", t);
            return FALSE;
          }
      g_ptr_array_add (nm, g_strdup (t));
      g_array_append_val (ct, c);
    }
  if (nm->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected NAME:COUNT, ...", v);
      return FALSE;
    }
  if (n)
    *n = nm->len;
  if (names)
    {
      g_ptr_array_add (nm, NULL);
      *names = (char **) g_ptr_array_free (g_steal_pointer (&nm), FALSE);
    }
  if (counts)
    *counts = (guint *) g_array_free (g_steal_pointer (&ct), FALSE);
  return TRUE;
}

gboolean
_sim_scenario_parse_stragglers (const char *v, double *share, double *factor, GError **error)
{
  *share = 0;
  *factor = 1;
  if (strcmp (v, "0") == 0)
    return TRUE;
  g_auto (GStrv) f = g_strsplit_set (v, " \t", -1);
  guint m = 0;
  const char *parts[3] = { NULL, NULL, NULL };
  for (guint i = 0; f[i]; i++)
    if (*f[i] && m < 3)
      parts[m++] = f[i];
  if (m == 2 && parts[1][0] == 'x' && dl_parse_number (parts[1] + 1, factor, NULL) && *factor >= 1)
    {
      gsize len = strlen (parts[0]);
      g_autofree char *num = g_strndup (parts[0], len - (len > 1 && parts[0][len - 1] == '%'));
      double x;
      if (dl_parse_number (num, &x, NULL) && isfinite (x))
        {
          x = parts[0][len - 1] == '%' ? x / 100 : x;
          if (x >= 0 && x <= 1)
            {
              *share = x;
              return TRUE;
            }
        }
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
               "'%s': expected SHARE xFACTOR with SHARE in [0, 1] (or 0%%..100%%) and FACTOR >= 1, e.g. 0.1 x8 or 10%% x8",
               v);
  return FALSE;
}
