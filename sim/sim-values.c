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

