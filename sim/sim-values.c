/* sim-values.c — the parsers of scenario values that are not units or
 * distributions (those are base/dl-units.h): whole numbers, probabilities,
 * shares ("10%"), on/off, region lists (sim-scenario-private.h). */
#include "config.h"

#include "sim/sim-scenario.h"
#include "sim/sim-scenario-private.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>


gboolean
parse_uint (const char *v, guint *out)
{
  guint64 x;
  if (!g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT32, &x, NULL))
    return FALSE;
  *out = (guint) x;
  return TRUE;
}

gboolean
parse_prob (const char *v, double *out, GError **error)
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

/* Checks one value against its kind (used at load time for every key). */
gboolean
parse_share (const char *v, double *out, GError **error)
{
  g_autofree char *t = g_strstrip (g_strdup (v));
  gsize len = strlen (t);
  gboolean percent = len > 0 && t[len - 1] == '%';
  if (percent)
    t[len - 1] = '\0';
  char *end = NULL;
  double x = g_ascii_strtod (t, &end);
  if (*t && end && *end == '\0' && isfinite (x))
    {
      if (percent)
        x /= 100;
      if (x > 0 && x <= 1)
        {
          *out = x;
          return TRUE;
        }
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected a share in (0, 1] or a percentage 1%%..100%%", v);
  return FALSE;
}

gboolean
parse_regions (const char *v, char ***names, guint **counts, guint *n, GError **error)
{
  g_autoptr (GPtrArray) parts = split_top (v, ',');
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
      if (!colon || !*t || !parse_uint (g_strstrip (colon + 1), &c) || c == 0)
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
parse_on_off (const char *v, gboolean *out, GError **error)
{
  if (strcmp (v, "on") == 0 || strcmp (v, "yes") == 0 || strcmp (v, "true") == 0)
    return *out = TRUE, TRUE;
  if (strcmp (v, "off") == 0 || strcmp (v, "no") == 0 || strcmp (v, "false") == 0)
    return *out = FALSE, TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected on or off", v);
  return FALSE;
}


gboolean
parse_servers (const char *v, guint *count, guint *n_ranges, guint16 *starts, guint16 *ends, GError **error)
{
  guint n = 0;
  if (!strchr (v, '-') && parse_uint (v, &n))
    {
      if (count)
        *count = n;
      if (n_ranges)
        *n_ranges = 0;
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (v, ",", -1);
  guint k = 0;
  for (guint i = 0; parts[i]; i++)
    {
      g_strstrip (parts[i]);
      char *dash = strchr (parts[i], '-');
      guint a = 0, b = 0;
      if (!dash || dash == parts[i])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "'%s': expected a count of servers or block ranges FIRST-LAST, e.g. 0-39, 40-79", parts[i]);
          return FALSE;
        }
      *dash = '\0';
      if (!parse_uint (parts[i], &a) || !parse_uint (dash + 1, &b))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s-%s': a range is two block numbers, FIRST-LAST",
                       parts[i], dash + 1);
          return FALSE;
        }
      if (b < a)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "range %u-%u is empty (its last block is before its first)",
                       a, b);
          return FALSE;
        }
      if (k >= PROTO_PIPE_MAX_RANGES || b >= G_MAXUINT16)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "at most %u ranges of blocks below %u",
                       PROTO_PIPE_MAX_RANGES, G_MAXUINT16);
          return FALSE;
        }
      if (starts)
        starts[k] = (guint16) a;
      if (ends)
        ends[k] = (guint16) (b + 1);
      k++;
    }
  if (count)
    *count = k;
  if (n_ranges)
    *n_ranges = k;
  return TRUE;
}
