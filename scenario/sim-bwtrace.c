/* sim-bwtrace.c — parsing bandwidth traces (see sim-bwtrace.h): a leaf
 * that reads a file into rows (peers are named as in availability traces,
 * sim-trace.h); the world applies them (sim-net.c). */
#include "config.h"

#include "scenario/sim-bwtrace.h"
#include "scenario/sim-trace.h"
#include "base/dl-error.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

static const char *const columns[] = { "peer", "time", "uplink", "downlink" };

/* seconds (a bare number) or a duration; why set on failure */
static gboolean
parse_time (const char *s, DlTime *out, char **why)
{
  if (s[0] == '-')
    return (*why = g_strdup_printf ("'%s' is negative (times count from the start of the run)", s), FALSE);
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (*s && end != s && *end == '\0')
    {
      if (!isfinite (v) || v > 9e9)
        return (*why = g_strdup_printf ("'%s' is not a time (at most 9e9 seconds)", s), FALSE);
      *out = (DlTime) llround (v * 1e9);
      return TRUE;
    }
  g_autoptr (GError) e = NULL;
  if (!dl_parse_duration (s, out, &e))
    return (*why = e->code == DL_ERROR_PARSE
                   ? g_strdup_printf ("'%s' is neither a number of seconds nor a duration (e.g. 30s, 2min, 1m30s)", s)
                   : g_strdup (e->message), FALSE);
  return TRUE;
}

static gboolean
parse_rate (const char *s, uint64_t *out, char **why)
{
  g_autoptr (GError) e = NULL;
  if (!dl_parse_rate (s, out, &e))
    return (*why = g_strdup (e->message), FALSE);
  if (*out < 1000 || *out >= 1000000000000000u)
    return (*why = g_strdup_printf ("'%s': a rate must be from 1kbps to below 1000000Gbps (1e15 bit/s)", s), FALSE);
  return TRUE;
}

typedef struct {
  const char *name;
  GArray *out;
  gboolean header;        /* the header has been read */
  GHashTable *last;       /* peer -> 1 + index in out of its latest row */
} BwLoad;

static gboolean
bw_record (gpointer ud, char **f, guint n, gsize line, GError **error)
{
  BwLoad *b = ud;
  g_autofree char *joined = g_strjoinv (",", f);
  g_autofree char *why = NULL;
  int col = -1;   /* the column at fault, or -1: the row */
  if (!b->header)
    {
      gboolean ok = n == G_N_ELEMENTS (columns);
      for (guint i = 0; ok && i < n; i++)
        ok = g_ascii_strcasecmp (f[i], columns[i]) == 0;
      if (!ok)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "%s:%zu: '%s': expected the header peer,time,uplink,downlink first", b->name, line, joined);
          return FALSE;
        }
      b->header = TRUE;
      return TRUE;
    }
  SimRateChange r = { .line = (guint) MIN (line, G_MAXUINT) };
  if (n != G_N_ELEMENTS (columns))
    why = g_strdup_printf ("%u fields: expected 4, peer,time,uplink,downlink", n);
  else if (col = 0, !sim_trace_parse_peer (f[0], &r.peer))
    why = g_strdup_printf ("'%s' is not a peer (pN or N with N >= 1)", f[0]);
  else if (col = 1, !parse_time (f[1], &r.at, &why))
    ;
  else if (col = 2, !parse_rate (f[2], &r.up_bps, &why))
    ;
  else if (col = 3, !parse_rate (f[3], &r.down_bps, &why))
    ;
  else
    {
      col = 1;
      guint prev = GPOINTER_TO_UINT (g_hash_table_lookup (b->last, GUINT_TO_POINTER (r.peer)));
      const SimRateChange *p = prev ? &g_array_index (b->out, SimRateChange, prev - 1) : NULL;
      if (p && r.at <= p->at)
        why = g_strdup_printf ("%g s is not after the %g s of p%u's row on line %u (a peer's rows go in time order)",
                               r.at / 1e9, p->at / 1e9, r.peer, p->line);
    }
  if (why)
    {
      if (col >= 0)
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s:%zu: '%s': column %d (%s): %s", b->name, line, joined,
                     col + 1, columns[col], why);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s:%zu: '%s': %s", b->name, line, joined, why);
      return FALSE;
    }
  g_array_append_val (b->out, r);
  g_hash_table_insert (b->last, GUINT_TO_POINTER (r.peer), GUINT_TO_POINTER (b->out->len));
  return TRUE;
}

/* text NULL: the file `name` */
static GArray *
bw_parse (const char *text, gsize len, const char *name, GError **error)
{
  BwLoad b = { name, g_array_new (FALSE, FALSE, sizeof (SimRateChange)), FALSE,
               g_hash_table_new (g_direct_hash, g_direct_equal) };
  gboolean ok = sim_trace_read_csv (name, text, len, bw_record, &b, error);
  g_hash_table_unref (b.last);
  if (ok && !b.header)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: no header line (expected peer,time,uplink,downlink)",
                   name);
      ok = FALSE;
    }
  if (!ok)
    g_clear_pointer (&b.out, g_array_unref);
  return b.out;
}

GArray *
sim_bwtrace_parse (const char *text, gsize len, const char *name, GError **error)
{
  return bw_parse (text, len, name, error);
}

GArray *
sim_bwtrace_load (const char *path, GError **error)
{
  return bw_parse (NULL, 0, path, error);
}
