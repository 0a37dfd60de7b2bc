/* sim-trace.c — parsing availability traces (see sim-trace.h). */
#include "config.h"

#include "scenario/sim-trace.h"

#include <math.h>
#include <string.h>

static gboolean
parse_seconds (const char *s, DlTime *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (*s == '\0' || end == s || *end != '\0' || !isfinite (v) || v < 0 || v > 9e9)
    return FALSE;
  *out = (DlTime) llround (v * 1e9);
  return TRUE;
}

gboolean
sim_trace_parse_peer (const char *s, guint *out)
{
  guint64 v = 0;
  if (s[0] == 'p')
    s++;
  if (!g_ascii_string_to_unsigned (s, 10, 1, G_MAXUINT32 - 1, &v, NULL))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static gint
cmp_join (gconstpointer a, gconstpointer b)
{
  const SimTraceEntry *x = a, *y = b;
  if (x->join != y->join)
    return x->join < y->join ? -1 : 1;
  return x->peer < y->peer ? -1 : x->peer > y->peer;
}

static gint
cmp_peer_join (gconstpointer a, gconstpointer b)
{
  const SimTraceEntry *x = a, *y = b;
  if (x->peer != y->peer)
    return x->peer < y->peer ? -1 : 1;
  if (x->join != y->join)
    return x->join < y->join ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

gboolean
sim_trace_check (GArray *trace, const char *name, GError **error)
{
  /* a peer's intervals, in time order, must not overlap: each return
   * begins at or after the leave before it */
  g_array_sort (trace, cmp_peer_join);
  for (guint i = 1; i < trace->len; i++)
    {
      const SimTraceEntry *a = &g_array_index (trace, SimTraceEntry, i - 1);
      const SimTraceEntry *b = &g_array_index (trace, SimTraceEntry, i);
      if (a->peer == b->peer && (a->leave == DL_TIME_NEVER || b->join < a->leave))
        {
          const SimTraceEntry *later = a->line > b->line ? a : b, *earlier = later == a ? b : a;
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "%s:%u: peer p%u is online from %g s, which overlaps its interval on line %u "
                       "(a peer's intervals must not overlap)",
                       name, later->line, later->peer, later->join / 1e9, earlier->line);
          return FALSE;
        }
    }
  g_array_sort (trace, cmp_join);
  return TRUE;
}

typedef struct {
  const char *name;
  GArray *out;
  guint records;
} TraceLoad;

static gboolean
trace_record (gpointer ud, char **f, guint n, gsize line, GError **error)
{
  TraceLoad *t = ud;
  gboolean first = t->records++ == 0;
  SimTraceEntry e = { .leave = DL_TIME_NEVER };
  gboolean peer_ok = n >= 1 && sim_trace_parse_peer (f[0], &e.peer);
  if (first && !peer_ok)
    return TRUE;   /* a header: only the first record may be one */
  const char *why = NULL;
  if (n < 2 || n > 3)
    why = "expected peer,join,leave";
  else if (!peer_ok)
    why = "the peer must be pN or N with N >= 1";
  else if (!parse_seconds (f[1], &e.join))
    why = "join must be a number of seconds >= 0";
  else if (n == 3 && *f[2] && g_ascii_strcasecmp (f[2], "never") != 0 && g_ascii_strcasecmp (f[2], "inf") != 0
           && !parse_seconds (f[2], &e.leave))
    why = "leave must be a number of seconds >= 0, empty, or never";
  else if (e.leave != DL_TIME_NEVER && e.leave <= e.join)
    why = "leave must come after join";
  if (why)
    {
      g_autofree char *joined = g_strjoinv (",", f);
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s:%zu: '%s': %s", t->name, line, joined, why);
      return FALSE;
    }
  e.line = (guint) MIN (line, G_MAXUINT);
  g_array_append_val (t->out, e);
  return TRUE;
}

gboolean
sim_trace_read_csv (const char *name, const char *text, gsize len, DlCsvRecord record, gpointer ud, GError **error)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) local = NULL;
  if (!text)
    {
      if (!g_file_get_contents (name, &contents, &len, &local))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s", name, local->message);
          return FALSE;
        }
      text = contents;   /* its whole length: a NUL is an error, not its end */
    }
  if (dl_csv_parse (text, len, name, record, ud, &local))
    return TRUE;
  if (local->domain == SIM_ERROR)
    g_propagate_error (error, g_steal_pointer (&local));
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s", local->message);
  return FALSE;
}

/* text NULL: the file `name` */
static GArray *
trace_parse (const char *text, gsize len, const char *name, GError **error)
{
  TraceLoad t = { name, g_array_new (FALSE, FALSE, sizeof (SimTraceEntry)), 0 };
  if (!sim_trace_read_csv (name, text, len, trace_record, &t, error) || !sim_trace_check (t.out, name, error))
    {
      g_array_unref (t.out);
      return NULL;
    }
  return t.out;
}

GArray *
sim_trace_parse (const char *text, const char *name, GError **error)
{
  return trace_parse (text, strlen (text), name, error);
}

GArray *
sim_trace_load (const char *path, GError **error)
{
  return trace_parse (NULL, 0, path, error);
}
