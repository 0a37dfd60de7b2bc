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

gboolean
plot_summary (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error)
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
  guint left_out = 0;
  g_autoptr (GArray) all = plot_load_finished_runs (db, &left_out);
  if (all->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "%s has no %sruns", db_name, left_out ? "finished " : "");
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (gint64));
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

  /* x: --x, else the first swept key with numbers (or durations) */
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

  g_autoptr (GArray) lines = plot_lines_new ();
  gboolean has[MAX_PANELS] = { FALSE };
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

  for (guint m = 0; m < ny; m++)
    if (!has[m])
      return no_values (db, db_name, ys[m], o->where, error);

  /* a row per x: x, each panel's mean, each panel's 95 % half width, each
   * panel's number of runs (seeds) */
  double xmin = INFINITY, xmax = -INFINITY;
  guint nmin[MAX_PANELS], nmax[MAX_PANELS], n_points = 0, empty[MAX_PANELS] = { 0 };
  for (guint m = 0; m < ny; m++)
    nmin[m] = G_MAXUINT, nmax[m] = 0;
  for (guint k = 0; k < lines->len; k++)
    {
      PlotLine *l = &g_array_index (lines, PlotLine, k);
      g_array_sort (l->points, cmp_point);
      g_string_append_printf (s, "$line%u << EOD\n", k);
      for (guint j = 0; j < l->points->len; j++)
        {
          Point *p = &g_array_index (l->points, Point, j);
          n_points++;
          xmin = MIN (xmin, p->x);
          xmax = MAX (xmax, p->x);
          g_string_append_printf (s, "%.10g", p->x);   /* 0.06, not 0.059999999999999998 */
          for (guint m = 0; m < ny; m++)
            g_string_append_printf (s, p->n[m] ? " %.10g" : " NaN", p->n[m] ? p->sum[m] / p->n[m] : 0);
          for (guint m = 0; m < ny; m++)
            g_string_append_printf (s, p->n[m] ? " %.10g" : " NaN", plot_ci95 (p->sum[m], p->sumsq[m], p->n[m]));
          for (guint m = 0; m < ny; m++)
            {
              g_string_append_printf (s, " %u", p->n[m]);
              empty[m] += p->n[m] == 0;
              if (p->n[m])
                {
                  nmin[m] = MIN (nmin[m], p->n[m]);
                  nmax[m] = MAX (nmax[m], p->n[m]);
                }
            }
          g_string_append_c (s, '\n');
        }
      g_string_append (s, "EOD\n");
    }
  guint rows = ny <= 2 ? 1 : (ny + 1) / 2, cols = ny == 1 ? 1 : 2;
  plot_terminal (s, o->output, cols == 1 ? 800 : 1300, rows == 1 ? 520 : 350 * rows);
  g_string_append (s, "set datafile missing 'NaN'\nset key inside top left box opaque\n");
  g_autofree char *note = plot_left_out_note (left_out);
  /* bars only where a point has seeds to spread */
  guint most = 0;
  for (guint m = 0; m < ny; m++)
    most = MAX (most, nmax[m]);
  const char *stat = most > 1 ? "mean over seeds, bars: 95 % confidence interval" : "1 seed a point, no interval";
  g_autofree char *title = plot_quotef ("%s: by %s%s%s (%s%s)", db_name, bykey ? bykey : "all runs",
                                        o->where ? ", " : "", o->where ? o->where : "", stat, note);
  g_string_append_printf (s, "set multiplot layout %u,%u title %s\n", rows, cols, title);
  if (xmin > 0 && xmax / xmin >= 10)
    g_string_append (s, "set logscale x\n");
  {
    g_autofree char *xv = plot_param (db, g_array_index (runs, gint64, 0), xkey);
    g_autofree char *xl = plot_axis_label (xkey, plot_value_unit (xv));
    g_string_append_printf (s, "set xlabel %s\n", xl);
  }
  for (guint m = 0; m < ny; m++)
    {
      g_autofree char *yl = plot_axis_label (ys[m], plot_key_unit (ys[m]));
      /* what the panel draws: the points without a value are said */
      g_autofree char *pts = empty[m] ? g_strdup_printf (", %u of %u points", n_points - empty[m], n_points) : g_strdup ("");
      g_autofree char *qy = !has[m] ? plot_quote (ys[m])
                            : nmin[m] == nmax[m] ? plot_quotef ("%s (%u seed%s a point%s)", ys[m], nmax[m], nmax[m] == 1 ? "" : "s", pts)
                                                 : plot_quotef ("%s (%u to %u seeds a point: n at each%s)", ys[m], nmin[m], nmax[m], pts);
      g_string_append_printf (s, "set title %s\n", qy);
      g_string_append_printf (s, "set ylabel %s\n", yl);
      if (!has[m])
        {
          g_string_append_printf (s, "set xrange [%.17g:%.17g]\nset yrange [0:1]\n"
                                     "set label 1 \"no run has this key\" at graph 0.5,0.5 center\nunset key\n"
                                     "plot -1 notitle\nunset label 1\nset autoscale\n"
                                     "set key inside top left box opaque\n", xmin, xmax > xmin ? xmax : xmin + 1);
          continue;
        }
      g_string_append (s, "set yrange [0:*]\nset offsets 0, 0, graph 0.45, 0\nplot ");
      for (guint k = 0; k < lines->len; k++)
        {
          g_autofree char *q = plot_quote (g_array_index (lines, PlotLine, k).value);
          g_autofree char *style = plot_series_style (k, lines->len);
          g_string_append_printf (s, "%s$line%u using 1:%u:%u with yerrorlines %s title %s", k ? ", " : "", k,
                                  m + 2, ny + m + 2, style, q);
          if (nmin[m] != nmax[m])
            g_string_append_printf (s, ", $line%u using 1:%u:(sprintf('n=%%d', $%u)) with labels offset 0,0.8 "
                                       "font ',8' notitle", k, m + 2, 2 * ny + m + 2);
        }
      g_string_append (s, "\nset autoscale y\n");
    }
  g_string_append (s, "unset multiplot\n");
  return TRUE;
}
