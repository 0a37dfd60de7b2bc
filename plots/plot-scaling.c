/* plot-scaling.c — the `scaling` figure: how designs compare as a parameter
 * grows (issue #15's implosion comparison).  One line per value of --by (a
 * params key, e.g. protocol.family), x = a numeric params key (e.g.
 * peers.count), mean over the runs (seeds) of each point, in six panels:
 *
 *   messages per round     summary messages / rounds_completed
 *   bytes on the wire      summary bytes
 *   busiest uplink         summary busiest_uplink_bytes (the most one peer sent)
 *   round period           median over rounds of end - previous end (rounds
 *                          table): training included, one measure for all
 *   time to accuracy       the first time the run's test accuracy (the
 *                          mean of plot-mean.c: the peers there or
 *                          finished, each one's latest) reached --target;
 *                          runs that never reached it are left out
 *   final accuracy         summary final_accuracy
 *
 * Each point is the mean over the seeds with its 95 % confidence interval
 * as an error bar (on a log axis cut at the smallest seed's value), the
 * seeds behind each point in the panel's title, or at each point when
 * they differ.
 *
 * Shape: plot_scaling appends the script for every run of the file. */
#include "config.h"

#include "plots/plot-private.h"
#include "results/res-plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_METRICS 6

static const char *const units[N_METRICS] = { "count", "bytes", "bytes", "s", "s", "fraction correct" };
static const char *const titles[N_METRICS] = {
  "messages per round", "bytes on the wire", "busiest uplink (bytes one peer sent)",
  "round period (s, median end to end)", NULL /* time to target: built */, "final test accuracy",
};
static const gboolean log_y[N_METRICS] = { TRUE, TRUE, TRUE, TRUE, TRUE, FALSE };

typedef struct {
  double x;
  double sum[N_METRICS], sumsq[N_METRICS], min[N_METRICS];
  guint n[N_METRICS];
  guint runs;
} Point;

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The median round period: the time between consecutive round ends
 * (rounds table), training included, the same measure for every family
 * (the hierarchical family's coordinator sees no round begin). */
static double
median_round (sqlite3 *db, gint64 run)
{
  g_autoptr (GArray) d = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (ResRows) r = res_plot_round_ends (db, run);
  double prev = NAN;
  while (res_rows_next (r))
    {
      double e = res_rows_double (r, 0);
      if (!isnan (prev) && e > prev)
        {
          double v = e - prev;
          g_array_append_val (d, v);
        }
      prev = e;
    }
  if (d->len == 0)
    return NAN;
  qsort (d->data, d->len, sizeof (double), cmp_double);
  guint m = d->len / 2;
  return d->len % 2 ? g_array_index (d, double, m)
                    : (g_array_index (d, double, m - 1) + g_array_index (d, double, m)) / 2;
}

/* The first time the run's accuracy (plot_mean_steps) reached target. */
static double
time_to_accuracy (sqlite3 *db, const RunInfo *run, double target)
{
  g_autoptr (GArray) steps = plot_mean_steps (db, run->id, "accuracy", run->sim_end);
  for (guint i = 0; i < steps->len; i++)
    if (g_array_index (steps, PlotStep, i).mean >= target)
      return g_array_index (steps, PlotStep, i).t;
  return NAN;
}

static gint
cmp_point (gconstpointer a, gconstpointer b)
{
  return cmp_double (&((const Point *) a)->x, &((const Point *) b)->x);
}

/* The x axis (--x, else peers.count if swept, else the first swept key
 * with numbers) and the lines (--by, else the first other swept key,
 * else one line) into *out_x and *out_by (transfer full).  FALSE with
 * error when there is no x. */
static gboolean
choose_keys (sqlite3 *db, const char *db_name, const PlotOptions *o, GArray *runs, char **out_x, char **out_by,
             GError **error)
{
  g_autoptr (GPtrArray) swept = plot_swept_keys (runs);
  g_autofree char *xkey = g_strdup (o->x);
  if (!xkey)
    for (guint i = 0; i < swept->len && !xkey; i++)
      if (strcmp (swept->pdata[i], "peers.count") == 0)
        xkey = g_strdup ("peers.count");
  if (!xkey)
    for (guint i = 0; i < swept->len && !xkey; i++)
      {
        g_autofree char *v = plot_param (db, g_array_index (runs, RunInfo, 0).id, swept->pdata[i]);
        double d;
        if (plot_numeric (v, &d))
          xkey = g_strdup (swept->pdata[i]);
      }
  if (!xkey)
    return plot_fail (error, PLOT_ERROR_USAGE, "%s sweeps no numeric key: name the x axis with --x KEY "
                      "(a params key such as peers.count)", db_name);
  g_autofree char *bykey = g_strdup (o->by);
  if (!bykey)
    for (guint i = 0; i < swept->len && !bykey; i++)
      if (strcmp (swept->pdata[i], xkey) != 0)
        bykey = g_strdup (swept->pdata[i]);
  if (!bykey)
    bykey = g_strdup ("scenario.name");
  *out_x = g_steal_pointer (&xkey);
  *out_by = g_steal_pointer (&bykey);
  return TRUE;
}

/* Every run's six values into the point of its line (its value of
 * bykey) at its x; a copy of a run counts once.  FALSE with error on a
 * run without a number at x or without bykey. */
static gboolean
gather_points (sqlite3 *db, GArray *runs, const char *xkey, const char *bykey, double target, GArray *lines,
               GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < runs->len; i++)
    {
      if (plot_seen_run (seen, db, &g_array_index (runs, RunInfo, i)))
        continue;   /* a copy: one seed counts once */
      gint64 id = g_array_index (runs, RunInfo, i).id;
      g_autofree char *xv = plot_param (db, id, xkey);
      double x;
      if (!plot_numeric (xv, &x))
        return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT ": %s is '%s', not a number, a duration or a rate", id, xkey,
                          xv ? xv : "(absent)");
      g_autofree char *byv = strcmp (bykey, "scenario.name") == 0
                             ? g_strdup (g_array_index (runs, RunInfo, i).scenario) : plot_param (db, id, bykey);
      if (!byv)
        return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no parameter %s (--by)", id, bykey);
      Point *pt = plot_point_at (lines, byv, x, sizeof (Point));
      double rounds = plot_summary_value (db, id, "rounds_completed");
      double v[N_METRICS] = {
        plot_summary_value (db, id, "messages") / (rounds > 0 ? rounds : NAN),
        plot_summary_value (db, id, "bytes"),
        plot_summary_value (db, id, "busiest_uplink_bytes"),
        median_round (db, id),
        time_to_accuracy (db, &g_array_index (runs, RunInfo, i), target),
        plot_summary_value (db, id, "final_accuracy"),
      };
      pt->runs++;
      for (guint m = 0; m < N_METRICS; m++)
        if (!isnan (v[m]))
          {
            pt->min[m] = pt->n[m] ? MIN (pt->min[m], v[m]) : v[m];
            pt->sum[m] += v[m];
            pt->sumsq[m] += v[m] * v[m];
            pt->n[m]++;
          }
    }
  return TRUE;
}

/* What the data rows tell the panels: the x range, whether a panel has
 * a mean, the fewest and most seeds behind a point with one, the points
 * and each panel's points without a mean */
typedef struct {
  double xmin, xmax;
  gboolean has[N_METRICS];
  guint nmin[N_METRICS], nmax[N_METRICS], n_points, empty[N_METRICS];
} Extent;

/* A point's data row: x, the six means, the runs that reached the
 * target and the runs (columns 8, 9), then the six bars' lower ends
 * (10-15), their upper ends (16-21) and the seeds behind each mean
 * (22-27); what it adds to ext */
static void
write_point (GString *s, const Point *p, Extent *ext)
{
  ext->n_points++;
  ext->xmin = MIN (ext->xmin, p->x);
  ext->xmax = MAX (ext->xmax, p->x);
  g_string_append_printf (s, "%.17g", p->x);
  double mean[N_METRICS];
  for (guint m = 0; m < N_METRICS; m++)
    {
      mean[m] = p->n[m] ? p->sum[m] / p->n[m] : NAN;
      /* a log axis cannot show zero or less */
      if (log_y[m] && !(mean[m] > 0))
        mean[m] = NAN;
      ext->has[m] |= !isnan (mean[m]);
      ext->empty[m] += isnan (mean[m]);
      if (!isnan (mean[m]))
        {
          ext->nmin[m] = MIN (ext->nmin[m], p->n[m]);
          ext->nmax[m] = MAX (ext->nmax[m], p->n[m]);
        }
      g_string_append_printf (s, isnan (mean[m]) ? " NaN" : " %.10g", mean[m]);
    }
  g_string_append_printf (s, " %u %u", p->n[4], p->runs);
  for (guint side = 0; side < 2; side++)
    for (guint m = 0; m < N_METRICS; m++)
      {
        double h = plot_ci95 (p->sum[m], p->sumsq[m], p->n[m]);
        double e = side ? mean[m] + h : mean[m] - h;
        if (!side && log_y[m] && !(e > 0))
          e = p->min[m] > 0 ? MIN (p->min[m], mean[m]) : mean[m];
        g_string_append_printf (s, isnan (e) ? " NaN" : " %.10g", e);
      }
  for (guint m = 0; m < N_METRICS; m++)
    g_string_append_printf (s, " %u", p->n[m]);
  g_string_append_c (s, '\n');
}

/* A data block per line, a row per x (write_point), into s; ext from
 * the rows */
static void
write_data (GString *s, GArray *lines, Extent *ext)
{
  *ext = (Extent) { .xmin = INFINITY, .xmax = -INFINITY };
  for (guint m = 0; m < N_METRICS; m++)
    ext->nmin[m] = G_MAXUINT;
  for (guint k = 0; k < lines->len; k++)
    {
      PlotLine *l = &g_array_index (lines, PlotLine, k);
      g_array_sort (l->points, cmp_point);
      g_string_append_printf (s, "$line%u << EOD\n", k);
      for (guint j = 0; j < l->points->len; j++)
        write_point (s, &g_array_index (l->points, Point, j), ext);
      g_string_append (s, "EOD\n");
    }
}

/* The figure's terminal, title and x axis */
static void
write_head (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, gint64 first_run, guint left_out,
            const char *xkey, const char *bykey, const Extent *ext)
{
  plot_terminal (s, o->output, 1300, 1050);
  g_string_append (s, "set datafile missing 'NaN'\nset key inside top left box opaque\n");
  g_autofree char *note = plot_left_out_note (left_out);
  /* bars only where a point has seeds to spread */
  guint most = 0;
  for (guint m = 0; m < N_METRICS; m++)
    most = MAX (most, ext->nmax[m]);
  const char *stat = most > 1 ? "mean over seeds, bars: 95 % confidence interval" : "1 seed a point, no interval";
  g_autofree char *title = plot_quotef ("%s: by %s (%s%s)", db_name, bykey, stat, note);
  g_string_append_printf (s, "set multiplot layout 3,2 title %s\n", title);
  if (ext->xmin > 0 && ext->xmax / ext->xmin >= 10)
    g_string_append (s, "set logscale x\n");
  g_autofree char *xv = plot_param (db, first_run, xkey);
  g_autofree char *xl = plot_axis_label (xkey, plot_value_unit (xv));
  g_string_append_printf (s, "set xlabel %s\n", xl);
}

/* Panel m: its title and axis, and a line per value of --by (an empty
 * panel that says so when no point has a mean) */
static void
write_panel (GString *s, guint m, GArray *lines, const Extent *ext, double target)
{
  g_string_append (s, log_y[m] ? "set logscale y\n" : "unset logscale y\n");
  g_autofree char *seeds = plot_seeds_note (ext->has[m], ext->nmin[m], ext->nmax[m], ext->n_points - ext->empty[m],
                                            ext->n_points);
  if (titles[m])
    g_string_append_printf (s, "set title \"%s%s\"\n", titles[m], seeds);
  else
    g_string_append_printf (s, "set title \"time to %.2f accuracy (s; runs that reached it%s)\"\n", target, seeds);
  g_string_append_printf (s, "set ylabel \"%s\"\n", units[m]);
  if (!ext->has[m])
    {
      /* nothing to draw (model none has no accuracy): an empty panel that says so */
      g_string_append_printf (s, "set xrange [%.17g:%.17g]\nset yrange [0:1]\nunset logscale y\n"
                                 "set label 1 \"no data in these runs\" at graph 0.5,0.5 center\nunset key\n"
                                 "plot -1 notitle\nunset label 1\nset autoscale\n"
                                 "set key inside top left box opaque\n", ext->xmin,
                              ext->xmax > ext->xmin ? ext->xmax : ext->xmin + 1);
      return;
    }
  if (m == N_METRICS - 1)
    g_string_append (s, "set yrange [0:1]\n");
  g_string_append (s, "plot ");
  for (guint k = 0; k < lines->len; k++)
    {
      g_autofree char *q = plot_quote (g_array_index (lines, PlotLine, k).value);
      g_autofree char *style = plot_series_style (k, lines->len);
      g_string_append_printf (s, "%s$line%u using 1:%u:%u:%u with yerrorlines %s title %s", k ? ", " : "", k,
                              m + 2, m + 10, m + 16, style, q);
      if (ext->nmin[m] != ext->nmax[m])
        g_string_append_printf (s, ", $line%u using 1:%u:(sprintf('n=%%d', $%u)) with labels offset 0,0.8 "
                                   "font ',8' notitle", k, m + 2, m + 22);
    }
  g_string_append_c (s, '\n');
  if (m == N_METRICS - 1)
    g_string_append (s, "set autoscale y\n");
}

gboolean
plot_scaling (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error)
{
  guint left_out = 0;
  g_autoptr (GArray) runs = plot_load_finished_runs (db, &left_out);
  if (runs->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "%s has no %sruns", db_name, left_out ? "finished " : "");
  double target = o->target > 0 ? o->target : 0.85;
  if (!(target <= 1))
    return plot_fail (error, PLOT_ERROR_USAGE, "--target must be an accuracy in (0, 1], not %g", target);
  g_autofree char *xkey = NULL;
  g_autofree char *bykey = NULL;
  if (!choose_keys (db, db_name, o, runs, &xkey, &bykey, error))
    return FALSE;
  g_autoptr (GArray) lines = plot_lines_new ();
  if (!gather_points (db, runs, xkey, bykey, target, lines, error))
    return FALSE;
  Extent ext;
  write_data (s, lines, &ext);
  write_head (s, db, db_name, o, g_array_index (runs, RunInfo, 0).id, left_out, xkey, bykey, &ext);
  for (guint m = 0; m < N_METRICS; m++)
    write_panel (s, m, lines, &ext, target);
  g_string_append (s, "unset multiplot\n");
  return TRUE;
}
