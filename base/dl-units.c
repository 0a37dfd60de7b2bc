/* dl-units.c — parsers for numbers with units (durations, rates, sizes,
 * counts per time).  Durations are computed in integer nanoseconds; only the
 * fractional part of a term goes through a double, which is exact to well
 * below a nanosecond for every unit up to hours. */
#include "config.h"

#include "base/dl-units.h"
#include "base/dl-error.h"

#include <math.h>
#include <string.h>

const char *
dl_unit_kind_name (DlUnitKind kind)
{
  switch (kind)
    {
    case DL_UNIT_NUMBER: return "number";
    case DL_UNIT_DURATION: return "duration";
    case DL_UNIT_RATE: return "rate";
    case DL_UNIT_SIZE: return "size";
    case DL_UNIT_PER_TIME: return "count per time";
    }
  return "?";
}

/* Copies text without surrounding blanks; NULL-safe. */
static char *
dup_trimmed (const char *text)
{
  return g_strstrip (g_strdup (text ? text : ""));
}

gboolean
dl_parse_number (const char *text, double *out, GError **error)
{
  g_autofree char *s = dup_trimmed (text);
  char *end = NULL;
  if (*s == '\0')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "empty value where a number was expected");
      return FALSE;
    }
  double v = g_ascii_strtod (s, &end);
  if (end == s || *end != '\0')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "'%s' is not a number", s);
      return FALSE;
    }
  if (!isfinite (v))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s' is not a finite number", s);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
dl_parse_int64 (const char *text, int64_t *out, GError **error)
{
  g_autofree char *s = dup_trimmed (text);
  g_autoptr (GError) local = NULL;
  gint64 v = 0;
  if (!g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64, &v, &local))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "'%s' is not a whole number", s);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Reads an unsigned decimal "123" or "1.25" at *p; splits it into integer and
 * fraction.  Returns FALSE if there is no digit. */
static gboolean
read_decimal (const char **p, uint64_t *int_part, double *frac, gboolean *overflow)
{
  const char *s = *p;
  uint64_t ip = 0;
  gboolean any = FALSE;
  *overflow = FALSE;
  while (g_ascii_isdigit (*s))
    {
      unsigned d = (unsigned) (*s - '0');
      if (ip > (UINT64_MAX - d) / 10)
        *overflow = TRUE;
      else
        ip = ip * 10 + d;
      s++;
      any = TRUE;
    }
  double f = 0.0;
  if (*s == '.')
    {
      double scale = 0.1;
      s++;
      while (g_ascii_isdigit (*s))
        {
          f += scale * (double) (*s - '0');
          scale /= 10.0;
          s++;
          any = TRUE;
        }
    }
  if (!any)
    return FALSE;
  *int_part = ip;
  *frac = f;
  *p = s;
  return TRUE;
}

static const char *
read_word (const char **p, char *buf, gsize len)
{
  const char *s = *p;
  gsize n = 0;
  while (*s == ' ' || *s == '\t')
    s++;
  while ((g_ascii_isalpha (*s) || *s == '/' ) && n + 1 < len)
    buf[n++] = *s++;
  buf[n] = '\0';
  *p = s;
  return buf;
}

static const struct { const char *name; DlTime ns; } duration_units[] = {
  { "ns", DL_NS }, { "us", DL_US }, { "ms", DL_MS }, { "s", DL_S },
  { "m", DL_MIN }, { "min", DL_MIN }, { "h", DL_H },
};

gboolean
dl_parse_duration (const char *text, DlTime *out_ns, GError **error)
{
  g_autofree char *s = dup_trimmed (text);
  const char *p = s;
  DlTime total = 0;
  int terms = 0;

  if (strcmp (s, "0") == 0)
    {
      *out_ns = 0;
      return TRUE;
    }
  if (*s == '\0')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE,
                   "empty value where a duration was expected (e.g. 250ms, 1.5s, 2min)");
      return FALSE;
    }
  if (*s == '-')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': a duration cannot be negative", s);
      return FALSE;
    }
  while (*p != '\0')
    {
      uint64_t ip;
      double frac;
      gboolean overflow;
      char unit[8];
      if (!read_decimal (&p, &ip, &frac, &overflow))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_PARSE,
                       "'%s' is not a duration (expected e.g. 250ms, 1.5s, 2min, 1m30s)", s);
          return FALSE;
        }
      read_word (&p, unit, sizeof unit);
      DlTime scale = 0;
      for (gsize i = 0; i < G_N_ELEMENTS (duration_units); i++)
        if (strcmp (unit, duration_units[i].name) == 0)
          scale = duration_units[i].ns;
      if (scale == 0 && (strcmp (unit, "e") == 0 || strcmp (unit, "E") == 0)
          && (g_ascii_isdigit (*p) || *p == '+' || *p == '-'))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_UNIT,
                       "'%s': a duration takes no exponent (e or E): write the number out with a unit, e.g. "
                       "1000s or 2h (at most about 292 years)", s);
          return FALSE;
        }
      if (scale == 0)
        {
          if (unit[0] == '\0')
            g_set_error (error, DL_ERROR, DL_ERROR_UNIT,
                         "'%s': duration without a unit (expected ns, us, ms, s, min or h, e.g. 1.5s)", s);
          else
            g_set_error (error, DL_ERROR, DL_ERROR_UNIT,
                         "'%s': unknown duration unit '%s' (expected ns, us, ms, s, min or h)", s, unit);
          return FALSE;
        }
      /* every sum checked before it is made: ip x scale, its fraction
       * (below scale), the total */
      DlTime part = (DlTime) llround (frac * (double) scale);
      if (overflow || ip > (uint64_t) ((DL_TIME_NEVER - 1 - part) / scale))
        goto too_large;
      DlTime term = (DlTime) ip * scale + part;
      if (total > DL_TIME_NEVER - 1 - term)
        goto too_large;
      total += term;
      terms++;
      while (*p == ' ' || *p == '\t')
        p++;
    }
  g_assert (terms > 0);
  *out_ns = total;
  return TRUE;

too_large:
  g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': duration too large (limit about 292 years)", s);
  return FALSE;
}

/* Parses "<number><unit>" where the unit comes from a table; bare numbers are
 * allowed when bare_scale > 0. */
typedef struct { const char *name; double scale; } UnitScale;

static gboolean
parse_scaled (const char *what, const char *expected, const UnitScale *units,
              gsize n_units, double bare_scale, const char *text, double *out,
              GError **error)
{
  g_autofree char *s = dup_trimmed (text);
  char *end = NULL;
  if (*s == '\0')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE,
                   "empty value where a %s was expected (%s)", what, expected);
      return FALSE;
    }
  double v = g_ascii_strtod (s, &end);
  if (end == s || !isfinite (v))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "'%s' is not a %s (%s)", s, what, expected);
      return FALSE;
    }
  if (v < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': a %s cannot be negative", s, what);
      return FALSE;
    }
  while (*end == ' ' || *end == '\t')
    end++;
  if (*end == '\0')
    {
      if (bare_scale > 0 || v == 0)
        {
          *out = v * bare_scale;
          return TRUE;
        }
      g_set_error (error, DL_ERROR, DL_ERROR_UNIT, "'%s': %s without a unit (%s)", s, what, expected);
      return FALSE;
    }
  for (gsize i = 0; i < n_units; i++)
    if (strcmp (end, units[i].name) == 0)
      {
        *out = v * units[i].scale;
        return TRUE;
      }
  g_set_error (error, DL_ERROR, DL_ERROR_UNIT, "'%s': unknown %s unit '%s' (%s)", s, what, end, expected);
  return FALSE;
}

static const UnitScale rate_units[] = {
  { "bps", 1 }, { "kbps", 1e3 }, { "Kbps", 1e3 }, { "Mbps", 1e6 }, { "Gbps", 1e9 },
};

gboolean
dl_parse_rate (const char *text, uint64_t *out_bps, GError **error)
{
  double v;
  if (!parse_scaled ("rate", "expected bps, kbps, Mbps or Gbps, e.g. 20Mbps",
                     rate_units, G_N_ELEMENTS (rate_units), 0, text, &v, error))
    return FALSE;
  if (v >= 1.8e19)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': rate too large", text);
      return FALSE;
    }
  *out_bps = (uint64_t) llround (v);
  return TRUE;
}

static const UnitScale size_units[] = {
  { "B", 1 }, { "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
  { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
};

gboolean
dl_parse_size (const char *text, uint64_t *out_bytes, GError **error)
{
  double v;
  if (!parse_scaled ("size", "expected B, KB, MB, GB, KiB, MiB or GiB, e.g. 4KiB",
                     size_units, G_N_ELEMENTS (size_units), 1, text, &v, error))
    return FALSE;
  if (v >= 1.8e19)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': size too large", text);
      return FALSE;
    }
  *out_bytes = (uint64_t) llround (v);
  return TRUE;
}

static const UnitScale per_time_units[] = {
  { "/ns", 1e9 }, { "/us", 1e6 }, { "/ms", 1e3 }, { "/s", 1 },
  { "/min", 1.0 / 60 }, { "/m", 1.0 / 60 }, { "/h", 1.0 / 3600 },
};

gboolean
dl_parse_per_time (const char *text, double *out_per_s, GError **error)
{
  return parse_scaled ("count per time", "expected /s, /min or /h, e.g. 2/min",
                       per_time_units, G_N_ELEMENTS (per_time_units), 0, text,
                       out_per_s, error);
}

gboolean
dl_parse_quantity (DlUnitKind kind, const char *text, double *out, GError **error)
{
  switch (kind)
    {
    case DL_UNIT_NUMBER:
      return dl_parse_number (text, out, error);
    case DL_UNIT_DURATION:
      {
        DlTime t;
        if (!dl_parse_duration (text, &t, error))
          return FALSE;
        *out = (double) t;
        return TRUE;
      }
    case DL_UNIT_RATE:
      {
        uint64_t r;
        if (!dl_parse_rate (text, &r, error))
          return FALSE;
        *out = (double) r;
        return TRUE;
      }
    case DL_UNIT_SIZE:
      {
        uint64_t b;
        if (!dl_parse_size (text, &b, error))
          return FALSE;
        *out = (double) b;
        return TRUE;
      }
    case DL_UNIT_PER_TIME:
      return dl_parse_per_time (text, out, error);
    }
  g_return_val_if_reached (FALSE);
}
