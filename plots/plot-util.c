/* plot-util.c — what the figure kinds share (plot-private.h): the error
 * domain, gnuplot quoting and terminals, the runs of a file, styles, units
 * and intervals.  A leaf: plot.c, plot-summary.c and plot-scaling.c call
 * it, and it calls none of them. */
#include "config.h"

#include "plots/plot-private.h"
#include "base/dl-units.h"
#include "protocol/proto-machine.h"
#include "results/res-plot.h"
#include "results/res-query.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

G_DEFINE_QUARK (plot - error - quark, plot_error)

void
plot_terminal (GString *s, const char *output, int w, int h)
{
  /* noenhanced: text is drawn as it is (no _ ^ { } @ & ~ markup), so a
   * name from a file needs no escape beyond plot_quote's */
  if (g_str_has_suffix (output, ".svg"))
    g_string_append_printf (s, "set terminal svg size %d,%d dynamic noenhanced font 'Sans,11' background rgb 'white'\n", w, h);
  else
    g_string_append_printf (s, "set terminal pngcairo size %d,%d noenhanced font 'Sans,10'\n", w, h);
  g_autofree char *q = plot_quote (output);
  g_string_append_printf (s, "set output %s\n", q);
  g_string_append (s, "set grid lc rgb '#dddddd'\nset key outside right top box opaque\n");
}

/* The one way text reaches gnuplot's commands: a double-quoted string in
 * which gnuplot's scanner meets no character it acts on.  A backquote
 * (a command) and @ (a macro) are written as octal escapes, \140 and \100,
 * which gnuplot turns back into the character after the scan; a quote and
 * a backslash are escaped; a control character would end the command
 * (newline) or reach the terminal (ESC): it becomes a space.  Single quotes would not
 * do: gnuplot's scanner ends 'a''''b' at the third quote. */
char *
plot_quote (const char *t)
{
  g_autofree char *valid = g_utf8_make_valid (t ? t : "", -1);
  GString *s = g_string_new ("\"");
  for (const char *p = valid; *p; p++)
    {
      unsigned char c = (unsigned char) *p;
      /* a C1 control (U+0080..U+009F: 0xc2 0x80..0x9f) too: pango draws
       * it as a box as high as the figure */
      if (c == 0xc2 && (unsigned char) p[1] >= 0x80 && (unsigned char) p[1] < 0xa0)
        {
          g_string_append_c (s, ' ');
          p++;
        }
      else if (c == '"' || c == '\\')
        {
          g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
      else if (c == '`')
        g_string_append (s, "\\140");
      else if (c == '@')
        g_string_append (s, "\\100");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_c (s, ' ');
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

gboolean
plot_text_is_plain (const char *t)
{
  if (!g_utf8_validate (t, -1, NULL))
    return FALSE;
  for (const char *p = t; *p; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

char *
plot_quotef (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *t = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return plot_quote (t);
}

gboolean
plot_fail (GError **error, PlotErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *m = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, PLOT_ERROR, code, m);
  return FALSE;
}

static void
run_info_clear (gpointer p)
{
  RunInfo *r = p;
  g_free (r->scenario);
  g_free (r->label);
  g_free (r->outcome);
}

static GArray *
load_runs (sqlite3 *db, gboolean finished_only, guint *out_left_out)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (RunInfo));
  g_array_set_clear_func (a, run_info_clear);
  guint left_out = 0;
  g_autoptr (ResRows) rows = res_plot_runs (db);
  while (res_rows_next (rows))
    {
      RunInfo r = { res_rows_int64 (rows, 0), g_strdup (res_rows_text (rows, 1)), g_strdup (res_rows_text (rows, 2)),
                    (guint64) res_rows_int64 (rows, 3), g_strdup (res_rows_text (rows, 4)), res_rows_double (rows, 5),
                    res_rows_int (rows, 6) != 0 };
      if (finished_only && !r.finished)
        {
          run_info_clear (&r);
          left_out++;
          continue;
        }
      g_array_append_val (a, r);
    }
  if (out_left_out)
    *out_left_out = left_out;
  return a;
}

GArray *
plot_load_runs (sqlite3 *db)
{
  return load_runs (db, FALSE, NULL);
}

GArray *
plot_load_finished_runs (sqlite3 *db, guint *out_left_out)
{
  return load_runs (db, TRUE, out_left_out);
}

char *
plot_left_out_note (guint left_out)
{
  if (left_out == 0)
    return g_strdup ("");
  return g_strdup_printf (", %u unfinished run%s left out", left_out, left_out == 1 ? "" : "s");
}

char *
plot_seeds_note (gboolean has, guint nmin, guint nmax, guint drawn, guint points)
{
  if (!has)
    return g_strdup ("");
  GString *n = g_string_new (NULL);
  if (nmin == nmax)
    g_string_append_printf (n, ", %u seed%s a point", nmax, nmax == 1 ? "" : "s");
  else
    g_string_append_printf (n, ", %u to %u seeds a point: n at each", nmin, nmax);
  if (drawn < points)
    g_string_append_printf (n, ", %u of %u points", drawn, points);
  return g_string_free (n, FALSE);
}

const RunInfo *
plot_pick_run (GArray *runs, gint64 id, const char *db_name, GError **error)
{
  if (runs->len == 0)
    {
      plot_fail (error, PLOT_ERROR_DATA, "%s has no runs", db_name);
      return NULL;
    }
  if (id == 0)
    {
      if (runs->len == 1)
        return &g_array_index (runs, RunInfo, 0);
      plot_fail (error, PLOT_ERROR_USAGE, "%s has %u runs: choose one with --run ID (dlsim report %s)", db_name,
            runs->len, db_name);
      return NULL;
    }
  for (guint i = 0; i < runs->len; i++)
    if (g_array_index (runs, RunInfo, i).id == id)
      return &g_array_index (runs, RunInfo, i);
  plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " is not in %s (runs %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ")",
        id, db_name, g_array_index (runs, RunInfo, 0).id, g_array_index (runs, RunInfo, runs->len - 1).id);
  return NULL;
}

char *
plot_param (sqlite3 *db, gint64 run, const char *key)
{
  return res_db_param_value (db, run, key);
}

gboolean
plot_seen_run (GHashTable *seen, sqlite3 *db, const RunInfo *r)
{
  char *id = plot_param (db, r->id, "provenance.run_identity");
  if (!id)
    id = g_strdup_printf ("%s\037%s\037%" G_GUINT64_FORMAT, r->scenario ? r->scenario : "",
                          r->label, r->seed);
  return !g_hash_table_add (seen, id);
}

double
plot_summary_value (sqlite3 *db, gint64 run, const char *key)
{
  g_autofree char *t = res_db_summary_value (db, run, key);
  double v = NAN;
  if (t)
    {
      char *end = NULL;
      double d = g_ascii_strtod (t, &end);
      if (end && end != t && *end == '\0')
        v = d;
    }
  return v;
}

GPtrArray *
plot_swept_keys (GArray *runs)
{
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < runs->len; i++)
    {
      g_auto (GStrv) parts = g_strsplit (g_array_index (runs, RunInfo, i).label, ", ", -1);
      for (guint k = 0; parts[k]; k++)
        {
          char *eq = strchr (parts[k], '=');
          if (!eq)
            continue;
          g_autofree char *key = g_strndup (parts[k], (gsize) (eq - parts[k]));
          gboolean seen = FALSE;
          for (guint j = 0; j < keys->len && !seen; j++)
            seen = strcmp (keys->pdata[j], key) == 0;
          if (!seen)
            g_ptr_array_add (keys, g_steal_pointer (&key));
        }
    }
  return keys;
}

gboolean
plot_numeric (const char *v, double *out)
{
  if (!v)
    return FALSE;
  char *end = NULL;
  double d = g_ascii_strtod (v, &end);
  if (end && end != v && *end == '\0' && isfinite (d))
    {
      *out = d;
      return TRUE;
    }
  /* a duration (50ms) reads as seconds */
  DlTime t;
  if (dl_parse_duration (v, &t, NULL))
    {
      *out = dl_time_to_s (t);
      return TRUE;
    }
  /* a rate per time (2/min, churn.arrival_rate) reads as per second */
  if (strchr (v, '/') && dl_parse_per_time (v, &d, NULL) && isfinite (d))
    {
      *out = d;
      return TRUE;
    }
  return FALSE;
}

static void
line_clear (gpointer p)
{
  PlotLine *l = p;
  g_free (l->value);
  g_array_unref (l->points);
}

GArray *
plot_lines_new (void)
{
  GArray *lines = g_array_new (FALSE, TRUE, sizeof (PlotLine));
  g_array_set_clear_func (lines, line_clear);
  return lines;
}

gpointer
plot_point_at (GArray *lines, const char *value, double x, gsize point_size)
{
  PlotLine *line = NULL;
  for (guint k = 0; k < lines->len && !line; k++)
    if (strcmp (g_array_index (lines, PlotLine, k).value, value) == 0)
      line = &g_array_index (lines, PlotLine, k);
  if (!line)
    {
      PlotLine l = { g_strdup (value), g_array_new (FALSE, TRUE, point_size) };
      g_array_append_val (lines, l);
      line = &g_array_index (lines, PlotLine, lines->len - 1);
    }
  for (guint k = 0; k < line->points->len; k++)
    {
      double *px = (double *) (void *) (line->points->data + k * point_size);
      if (*px == x)
        return px;
    }
  g_array_set_size (line->points, line->points->len + 1);
  double *px = (double *) (void *) (line->points->data + (line->points->len - 1) * point_size);
  *px = x;
  return px;
}

/* ---------------------------------------------------------------- styles, units, intervals */

char *
plot_series_style (guint k, guint n)
{
  /* open point types (circle, square, triangle, diamond, triangle down,
   * pentagon) then crosses: an open mark shows one of another type drawn
   * over it; 9 point types, 5 dash types and 8 colours cycle with
   * different periods */
  static const int pts[] = { 6, 4, 8, 12, 10, 14, 2, 1, 3 };
  guint rank = n > k ? n - 1 - k : 0;   /* the first lines are drawn first: widest, largest marks */
  double spread = n > 1 ? (double) rank / (double) (n - 1) : 0;
  return g_strdup_printf ("lc %s dt %u pt %d ps %.2f lw %.2f", plot_series_colour (k), k % 5 + 1,
                          pts[k % G_N_ELEMENTS (pts)], 1.0 + 1.2 * spread, 1.5 + 2.0 * spread);
}

const char *
plot_series_colour (guint k)
{
  /* strong colours that stay apart in print (no pale yellow) */
  static const char *const c[] = { "rgb '#1f77b4'", "rgb '#d62728'", "rgb '#2ca02c'", "rgb '#9467bd'",
                                   "rgb '#ff7f0e'", "rgb '#17becf'", "rgb '#8c564b'", "rgb '#e377c2'" };
  return c[k % G_N_ELEMENTS (c)];
}

const char *
plot_value_unit (const char *v)
{
  if (!v)
    return NULL;
  char *end = NULL;
  double d = g_ascii_strtod (v, &end);
  if (end && end != v && *end == '\0')
    return isfinite (d) && d == floor (d) && !strpbrk (v, ".eE") ? "count" : NULL;
  DlTime t;
  if (dl_parse_duration (v, &t, NULL))
    return "s";
  if (strchr (v, '/') && dl_parse_per_time (v, &d, NULL))
    return "per s";
  return NULL;
}

const char *
plot_key_unit (const char *key)
{
  if (g_str_has_suffix (key, "_s") || strstr (key, "_s."))
    return "s";
  if (strstr (key, "bytes"))
    return "bytes";
  if (strstr (key, "accuracy"))
    return "fraction correct";
  if (strstr (key, "loss"))
    return "nats";
  if (strstr (key, "_bps"))
    return "bit/s";
  static const char *const counts[] = { "messages", "retries", "exclusions", "rounds", "peers_", "violations.",
                                        "model_syncs", NULL };
  for (guint i = 0; counts[i]; i++)
    if (strstr (key, counts[i]))
      return "count";
  if (proto_counter_lookup (key))   /* a family's counter (ProtoCounter) */
    return "count";
  return NULL;
}

char *
plot_axis_label (const char *key, const char *unit)
{
  return unit ? plot_quotef ("%s (%s)", key, unit) : plot_quote (key);
}

double
plot_t95 (guint n)
{
  /* two-sided 95 %, n - 1 degrees of freedom */
  static const double t[] = { 0, 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
                              2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                              2.064, 2.060, 2.056, 2.052, 2.048, 2.045 };
  if (n < 2)
    return NAN;
  return n < G_N_ELEMENTS (t) ? t[n] : 1.96;
}

double
plot_ci95 (double sum, double sumsq, guint n)
{
  if (n < 2)
    return 0;
  double mean = sum / n;
  double var = (sumsq - n * mean * mean) / (n - 1);
  return var > 0 ? plot_t95 (n) * sqrt (var / n) : 0;
}

gboolean
plot_run_is_wall_clock (sqlite3 *db, gint64 run)
{
  g_autofree char *m = res_plot_run_mode (db, run);
  return m && (strcmp (m, "testbed") == 0 || strcmp (m, "node") == 0);
}

double
plot_time_div (double span_s)
{
  /* past 3 hours, seconds read as 90 000: hours */
  return span_s > 3 * 3600 ? 3600 : 1;
}

const char *
plot_time_label (gboolean wall_clock, double div)
{
  if (div == 3600)
    return wall_clock ? "wall-clock time since the start of the run (h)" : "simulated time (h)";
  return wall_clock ? "wall-clock time since the start of the run (s)" : "simulated time (s)";
}
