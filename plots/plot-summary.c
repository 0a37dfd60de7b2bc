/* plot-summary.c — the `summary` figure: any summary keys (one panel each,
 * --y KEY,KEY...) against a swept parameter (--x), one line per value of
 * another (--by KEY, or per combination of --by KEY,KEY...), mean over the
 * runs of each point with its 95 % confidence interval as an error bar
 * (the seeds behind each point in the title, or at the point when they
 * differ); --where KEY=VALUE,...
 * keeps only the runs with those parameters.  It names no family: the
 * pipeline's figures are its metric.NAME.STAT keys, DISCO's its retries or
 * bytes.
 *
 * Shape: plot_summary appends the script for the runs it keeps. */
#include "config.h"

#include "plots/plot-private.h"
#include "results/res-plot.h"

#include <math.h>
#include <string.h>

#define MAX_PANELS 6

typedef struct {
  double x;
  double sum[MAX_PANELS], sumsq[MAX_PANELS];
  guint n[MAX_PANELS];
} Point;

static gint
cmp_point (gconstpointer a, gconstpointer b)
{
  double x = ((const Point *) a)->x, y = ((const Point *) b)->x;
  return (x > y) - (x < y);
}

/* Does run `id` have every KEY=VALUE of `where`? */
static gboolean
kept (sqlite3 *db, gint64 id, char **where)
{
  for (guint i = 0; where && where[i]; i++)
    {
      const char *eq = strchr (where[i], '=');
      g_autofree char *key = g_strndup (where[i], (gsize) (eq - where[i]));
      g_autofree char *v = plot_param (db, id, key);
      if (!v || strcmp (v, eq + 1) != 0)
        return FALSE;
    }
  return TRUE;
}

/* The run's line: its values of the --by keys (KEY,KEY...), joined. */
static gboolean
by_value (sqlite3 *db, gint64 id, const char *bykey, char **out, GError **error)
{
  if (!bykey)
    {
      *out = g_strdup ("all runs");
      return TRUE;
    }
  g_auto (GStrv) keys = g_strsplit (bykey, ",", -1);
  GString *v = g_string_new (NULL);
  for (guint i = 0; keys[i]; i++)
    {
      g_autofree char *x = plot_param (db, id, g_strstrip (keys[i]));
      if (!x)
        {
          g_string_free (v, TRUE);
          return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no parameter %s (--by)", id, keys[i]);
        }
      g_string_append_printf (v, "%s%s", i ? ", " : "", x);
    }
  *out = g_string_free (v, FALSE);
  return TRUE;
}

/* --y KEY drew nothing: an error naming KEY and the file's numeric keys */
static gboolean
no_values (sqlite3 *db, const char *db_name, const char *key, const char *where, GError **error)
{
  g_autoptr (GString) numeric = g_string_new (NULL);
  gboolean known = FALSE;
  g_autoptr (ResRows) r = res_plot_summary_keys (db);
  while (res_rows_next (r))
    {
      known |= strcmp (res_rows_text (r, 0), key) == 0;
      if (res_rows_int (r, 1))
        g_string_append_printf (numeric, "%s%s", numeric->len ? ", " : "", res_rows_text (r, 0));
    }
  if (known)
    return plot_fail (error, PLOT_ERROR_USAGE, "--y %s: no finished run of %s%s%s has a number for it; the keys with "
                      "numbers: %s (and peer.pN.*)", key, db_name, where ? " with " : "", where ? where : "",
                      numeric->str);
  return plot_fail (error, PLOT_ERROR_USAGE, "--y %s: no such summary key in %s; the keys with numbers: %s (and "
                    "peer.pN.*)", key, db_name, numeric->str);
}

/* --y into *out_ys (its ny keys, stripped) and --where into *out_where
 * (NULL without one), both transfer full.  FALSE with error on a
 * refusal. */
static gboolean
split_options (const PlotOptions *o, GStrv *out_ys, guint *out_ny, GStrv *out_where, GError **error)
{
  if (!o->y || !*o->y)
    return plot_fail (error, PLOT_ERROR_USAGE, "summary needs --y KEY[,KEY...]: summary keys to draw "
                      "(e.g. metric.step_latency_s.median)");
  g_auto (GStrv) ys = g_strsplit (o->y, ",", -1);
  guint ny = g_strv_length (ys);
  if (ny == 0 || ny > MAX_PANELS)
    return plot_fail (error, PLOT_ERROR_USAGE, "--y takes 1 to %u summary keys, not %u", MAX_PANELS, ny);
  for (guint i = 0; i < ny; i++)
    {
      g_strstrip (ys[i]);
      if (!*ys[i])
        return plot_fail (error, PLOT_ERROR_USAGE, "--y has an empty key");
    }
  g_auto (GStrv) where = o->where && *o->where ? g_strsplit (o->where, ",", -1) : NULL;
  for (guint i = 0; where && where[i]; i++)
    {
      g_strstrip (where[i]);
      if (!strchr (where[i], '=') || where[i][0] == '=')
        return plot_fail (error, PLOT_ERROR_USAGE, "--where takes KEY=VALUE,..., not '%s'", where[i]);
    }
  *out_ys = g_steal_pointer (&ys);
  *out_ny = ny;
  *out_where = g_steal_pointer (&where);
  return TRUE;
}

/* The ids of all's runs that --where keeps into runs, a copy of a run
 * once.  FALSE with error when none is kept. */
static gboolean
keep_runs (sqlite3 *db, const char *db_name, const PlotOptions *o, char **where, GArray *all, GArray *runs,
           GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < all->len; i++)
    {
      gint64 id = g_array_index (all, RunInfo, i).id;
      /* a copy of a run counts once */
      if (kept (db, id, where) && !plot_seen_run (seen, db, &g_array_index (all, RunInfo, i)))
        g_array_append_val (runs, id);
    }
  if (runs->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "no run of %s has %s", db_name, o->where);
  return TRUE;
}

/* The x axis (--x, else the first swept key with numbers or durations)
 * and the lines (--by, else the first other swept key; NULL: one line)
 * into *out_x and *out_by (transfer full).  FALSE with error when there
 * is no x. */
static gboolean
choose_keys (sqlite3 *db, const char *db_name, const PlotOptions *o, GArray *all, GArray *runs, char **out_x,
             char **out_by, GError **error)
{
  g_autoptr (GPtrArray) swept = plot_swept_keys (all);
  g_autofree char *xkey = g_strdup (o->x);
  for (guint i = 0; i < swept->len && !xkey; i++)
    {
      g_autofree char *v = plot_param (db, g_array_index (runs, gint64, 0), swept->pdata[i]);
      double d;
      if (plot_numeric (v, &d))
        xkey = g_strdup (swept->pdata[i]);
    }
  if (!xkey)
    return plot_fail (error, PLOT_ERROR_USAGE, "%s sweeps no numeric key: name the x axis with --x KEY", db_name);
  g_autofree char *bykey = g_strdup (o->by);
  for (guint i = 0; i < swept->len && !bykey; i++)
    if (strcmp (swept->pdata[i], xkey) != 0)
      bykey = g_strdup (swept->pdata[i]);
  *out_x = g_steal_pointer (&xkey);
  *out_by = g_steal_pointer (&bykey);
  return TRUE;
}

/* Every run's values of the ny keys ys into the point of its line at its
 * x; has[m] when a run has a value of ys[m].  FALSE with error on a run
 * without a number at x or without a --by key. */
static gboolean
gather_points (sqlite3 *db, GArray *runs, const char *xkey, const char *bykey, char **ys, guint ny, GArray *lines,
               gboolean *has, GError **error)
{
  for (guint i = 0; i < runs->len; i++)
    {
      gint64 id = g_array_index (runs, gint64, i);
      g_autofree char *xv = plot_param (db, id, xkey);
      double x;
      if (!plot_numeric (xv, &x))
        return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT ": %s is '%s', not a number, a duration or a rate",
                          id, xkey, xv ? xv : "(absent)");
      g_autofree char *byv = NULL;
      if (!by_value (db, id, bykey, &byv, error))
        return FALSE;
      Point *pt = plot_point_at (lines, byv, x, sizeof (Point));
      for (guint m = 0; m < ny; m++)
        {
          double v = plot_summary_value (db, id, ys[m]);
          if (isnan (v))
            continue;
          pt->sum[m] += v;
          pt->sumsq[m] += v * v;
          pt->n[m]++;
          has[m] = TRUE;
        }
    }
  return TRUE;
}

/* What the data rows tell the panels: the x range, the fewest and most
 * runs behind a point with a value, the points and each panel's points
 * without a value */
typedef struct {
  double xmin, xmax;
  guint nmin[MAX_PANELS], nmax[MAX_PANELS], n_points, empty[MAX_PANELS];
} Extent;

/* A data block per line, a row per x: x, each panel's mean, each
 * panel's 95 % half width, each panel's number of runs (seeds); ext from
 * the rows */
static void
write_data (GString *s, GArray *lines, guint ny, Extent *ext)
{
  *ext = (Extent) { .xmin = INFINITY, .xmax = -INFINITY };
  for (guint m = 0; m < ny; m++)
    ext->nmin[m] = G_MAXUINT, ext->nmax[m] = 0;
  for (guint k = 0; k < lines->len; k++)
    {
      PlotLine *l = &g_array_index (lines, PlotLine, k);
      g_array_sort (l->points, cmp_point);
      g_string_append_printf (s, "$line%u << EOD\n", k);
      for (guint j = 0; j < l->points->len; j++)
        {
          Point *p = &g_array_index (l->points, Point, j);
          ext->n_points++;
          ext->xmin = MIN (ext->xmin, p->x);
          ext->xmax = MAX (ext->xmax, p->x);
          g_string_append_printf (s, "%.10g", p->x);   /* 0.06, not 0.059999999999999998 */
          for (guint m = 0; m < ny; m++)
            g_string_append_printf (s, p->n[m] ? " %.10g" : " NaN", p->n[m] ? p->sum[m] / p->n[m] : 0);
          for (guint m = 0; m < ny; m++)
            g_string_append_printf (s, p->n[m] ? " %.10g" : " NaN", plot_ci95 (p->sum[m], p->sumsq[m], p->n[m]));
          for (guint m = 0; m < ny; m++)
            {
              g_string_append_printf (s, " %u", p->n[m]);
              ext->empty[m] += p->n[m] == 0;
              if (p->n[m])
                {
                  ext->nmin[m] = MIN (ext->nmin[m], p->n[m]);
                  ext->nmax[m] = MAX (ext->nmax[m], p->n[m]);
                }
            }
          g_string_append_c (s, '\n');
        }
      g_string_append (s, "EOD\n");
    }
}

/* The figure's terminal (a panel per key, two a row), title and x axis */
static void
write_head (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, gint64 first_run, guint left_out,
            guint ny, const char *xkey, const char *bykey, const Extent *ext)
{
  guint rows = ny <= 2 ? 1 : (ny + 1) / 2, cols = ny == 1 ? 1 : 2;
  plot_terminal (s, o->output, cols == 1 ? 800 : 1300, rows == 1 ? 520 : 350 * rows);
  g_string_append (s, "set datafile missing 'NaN'\nset key inside top left box opaque\n");
  g_autofree char *note = plot_left_out_note (left_out);
  /* bars only where a point has seeds to spread */
  guint most = 0;
  for (guint m = 0; m < ny; m++)
    most = MAX (most, ext->nmax[m]);
  const char *stat = most > 1 ? "mean over seeds, bars: 95 % confidence interval" : "1 seed a point, no interval";
  g_autofree char *title = plot_quotef ("%s: by %s%s%s (%s%s)", db_name, bykey ? bykey : "all runs",
                                        o->where ? ", " : "", o->where ? o->where : "", stat, note);
  g_string_append_printf (s, "set multiplot layout %u,%u title %s\n", rows, cols, title);
  if (ext->xmin > 0 && ext->xmax / ext->xmin >= 10)
    g_string_append (s, "set logscale x\n");
  g_autofree char *xv = plot_param (db, first_run, xkey);
  g_autofree char *xl = plot_axis_label (xkey, plot_value_unit (xv));
  g_string_append_printf (s, "set xlabel %s\n", xl);
}

/* Panel m, of key y: its title and axis, and a line per value of --by
 * (has: a run has a value of y; an empty panel that says so otherwise) */
static void
write_panel (GString *s, guint m, const char *y, gboolean has, guint ny, GArray *lines, const Extent *ext)
{
  guint nmin = ext->nmin[m], nmax = ext->nmax[m], n_points = ext->n_points, empty = ext->empty[m];
  g_autofree char *yl = plot_axis_label (y, plot_key_unit (y));
  /* what the panel draws: the points without a value are said */
  g_autofree char *pts = empty ? g_strdup_printf (", %u of %u points", n_points - empty, n_points) : g_strdup ("");
  g_autofree char *qy = !has ? plot_quote (y)
                        : nmin == nmax ? plot_quotef ("%s (%u seed%s a point%s)", y, nmax, nmax == 1 ? "" : "s", pts)
                                       : plot_quotef ("%s (%u to %u seeds a point: n at each%s)", y, nmin, nmax, pts);
  g_string_append_printf (s, "set title %s\n", qy);
  g_string_append_printf (s, "set ylabel %s\n", yl);
  if (!has)
    {
      g_string_append_printf (s, "set xrange [%.17g:%.17g]\nset yrange [0:1]\n"
                                 "set label 1 \"no run has this key\" at graph 0.5,0.5 center\nunset key\n"
                                 "plot -1 notitle\nunset label 1\nset autoscale\n"
                                 "set key inside top left box opaque\n", ext->xmin,
                              ext->xmax > ext->xmin ? ext->xmax : ext->xmin + 1);
      return;
    }
  g_string_append (s, "set yrange [0:*]\nset offsets 0, 0, graph 0.45, 0\nplot ");
  for (guint k = 0; k < lines->len; k++)
    {
      g_autofree char *q = plot_quote (g_array_index (lines, PlotLine, k).value);
      g_autofree char *style = plot_series_style (k, lines->len);
      g_string_append_printf (s, "%s$line%u using 1:%u:%u with yerrorlines %s title %s", k ? ", " : "", k,
                              m + 2, ny + m + 2, style, q);
      if (nmin != nmax)
        g_string_append_printf (s, ", $line%u using 1:%u:(sprintf('n=%%d', $%u)) with labels offset 0,0.8 "
                                   "font ',8' notitle", k, m + 2, 2 * ny + m + 2);
    }
  g_string_append (s, "\nset autoscale y\n");
}

gboolean
plot_summary (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error)
{
  g_auto (GStrv) ys = NULL;
  g_auto (GStrv) where = NULL;
  guint ny = 0;
  if (!split_options (o, &ys, &ny, &where, error))
    return FALSE;
  guint left_out = 0;
  g_autoptr (GArray) all = plot_load_finished_runs (db, &left_out);
  if (all->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "%s has no %sruns", db_name, left_out ? "finished " : "");
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *xkey = NULL;
  g_autofree char *bykey = NULL;
  if (!keep_runs (db, db_name, o, where, all, runs, error)
      || !choose_keys (db, db_name, o, all, runs, &xkey, &bykey, error))
    return FALSE;
  g_autoptr (GArray) lines = plot_lines_new ();
  gboolean has[MAX_PANELS] = { FALSE };
  if (!gather_points (db, runs, xkey, bykey, ys, ny, lines, has, error))
    return FALSE;
  for (guint m = 0; m < ny; m++)
    if (!has[m])
      return no_values (db, db_name, ys[m], o->where, error);
  Extent ext;
  write_data (s, lines, ny, &ext);
  write_head (s, db, db_name, o, g_array_index (runs, gint64, 0), left_out, ny, xkey, bykey, &ext);
  for (guint m = 0; m < ny; m++)
    write_panel (s, m, ys[m], has[m], ny, lines, &ext);
  g_string_append (s, "unset multiplot\n");
  return TRUE;
}
