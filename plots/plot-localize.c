/* plot-localize.c — `dlsim plot DB localize`: the failure ratio against
 * the cut t of `dlsim explore --localize -o DB` (explore/explore-localize.c):
 * the share of runs that fail as the found run did when every random
 * stream is re-seeded at t.  A dashed line marks the ratio counted as
 * certain, an arrow the decisive event; a second panel zooms on the time
 * before it (a failure found by a stall watch comes long after its
 * cause).  Read through results/ (res_plot_metric_values) and the run's
 * summary and params. */
#include "config.h"

#include "plots/plot-private.h"
#include "results/res-plot.h"

#include <math.h>
#include <string.h>

/* the curve as a datablock: t_s, ratio, runs; *t_max its last cut */
static guint
curve_block (GString *s, sqlite3 *db, gint64 run, double *t_max)
{
  g_autoptr (ResRows) r = res_plot_metric_values (db, run, "localize.failure_ratio");
  g_autoptr (ResRows) n = res_plot_metric_values (db, run, "localize.runs");
  guint rows = 0;
  g_string_append (s, "$curve << EOD\n");
  while (res_rows_next (r))
    {
      double runs = res_rows_next (n) ? res_rows_double (n, 2) : NAN;
      *t_max = res_rows_double (r, 0);
      g_string_append_printf (s, "%.9f %.6f %.0f\n", res_rows_double (r, 0), res_rows_double (r, 2), runs);
      rows++;
    }
  g_string_append (s, "EOD\n");
  return rows;
}

/* one panel over [0, x_max] */
static void
panel (GString *s, double x_max, double certain, double decisive_s, const char *title)
{
  g_autofree char *t = plot_quote (title);
  g_string_append_printf (s, "set title %s\nset xrange [0:%.9g]\nset yrange [-0.02:1.05]\n", t, x_max);
  g_string_append (s, "set xlabel 'cut t: the found run up to t, every random stream re-seeded after (s)'\n"
                      "set ylabel 'failure ratio'\nset key inside bottom right opaque\nunset arrow\n");
  if (!isnan (decisive_s))
    g_string_append_printf (s, "set arrow 1 from %.9g, graph 0 to %.9g, graph 1 nohead lc rgb '#c0392b' dt 2 lw 2\n",
                            decisive_s, decisive_s);
  g_string_append_printf (s, "plot $curve using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#2c3e50' "
                             "title 'failure ratio', %.6g with lines dt 3 lc rgb '#7f8c8d' title 'certain (%.2f)'",
                          certain, certain);
  if (!isnan (decisive_s))
    g_string_append (s, ", NaN with lines dt 2 lw 2 lc rgb '#c0392b' title 'decisive event'");
  g_string_append_c (s, '\n');
}

gboolean
plot_localize (GString *s, sqlite3 *db, const char *db_name, const RunInfo *r, const PlotOptions *o,
               GError **error)
{
  double t_max = 0;
  if (curve_block (s, db, r->id, &t_max) == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "%s: run %" G_GINT64_FORMAT " has no localize curve (dlsim explore "
                      "--localize FILE -o DB records one)", db_name, r->id);
  double certain = plot_summary_value (db, r->id, "localize.certain");
  double decisive_s = plot_summary_value (db, r->id, "localize.decisive_s");
  g_autofree char *what = plot_param (db, r->id, "localize.decisive");
  gboolean zoom = !isnan (decisive_s) && decisive_s > 0 && 4 * decisive_s < t_max;
  plot_terminal (s, o->output, 1200, zoom ? 900 : 500);
  g_autofree char *head = plot_quotef ("%s (seed %" G_GUINT64_FORMAT "): when did the failure become likely?",
                                       r->scenario, r->seed);
  g_string_append_printf (s, "set multiplot layout %d,1 title %s font ',12'\nset grid\n", zoom ? 2 : 1, head);
  g_autofree char *first = what ? g_strndup (what, strcspn (what, ";")) : NULL;
  g_autofree char *title = isnan (decisive_s)
                             ? g_strdup ("never certain before the failure")
                             : g_strdup_printf ("decisive at %.4f s: %s%s", decisive_s, first ? first : "?",
                                                what && strchr (what, ';') ? " ..." : "");
  panel (s, t_max, isnan (certain) ? 0.9 : certain, decisive_s, title);
  if (zoom)
    panel (s, 2 * decisive_s, isnan (certain) ? 0.9 : certain, decisive_s, "the same, up to twice the decisive time");
  g_string_append (s, "unset multiplot\n");
  return TRUE;
}
