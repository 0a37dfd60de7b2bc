/* plot.c — gnuplot scripts for the five figure kinds, data inline.
 *
 * convergence: per group (a params key), the mean over runs of the peers'
 * test accuracy (top) and loss (bottom) by round (the peers that evaluated
 * the round) or by time (plot-mean.c: the peers there or finished at that
 * time, each one's latest value, as the summary's final_accuracy), with
 * a 95% Student-t confidence band over the runs (seeds).
 * timeline: one run, one row per peer, a bar per protocol phase, markers for
 * join, leave, crash, Retry, Fail and dropped messages.
 * rounds: per round, the connect phase (list -> start) and the exchange
 * (start -> end) stacked, retries on the right axis.
 * participants: participants per round; peers online over time.
 * traffic: messages per round per type; bytes per round per type (messages
 * times the type's mean size in the run).
 * scaling (plot-scaling.c): six measures against a swept parameter, one
 * line per design; the helpers are plot-util.c's. */
#include "config.h"

#include "plots/plot-private.h"
#include "results/res-plot.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

const char *const plot_kinds[] = { "convergence", "timeline", "rounds", "participants", "traffic", "scaling",
                                   "summary", "localize", NULL };

/* ---------------------------------------------------------------- convergence */

typedef struct {
  char *value;          /* the group's value of the key */
  GArray *runs;         /* const RunInfo * */
} Group;

static void
group_clear (gpointer p)
{
  Group *g = p;
  g_free (g->value);
  g_array_unref (g->runs);
}

/* Per run: the mean over the peers that evaluated each round of their
 * value (x = round), or the run's metric at each grid time as
 * plot_mean_steps defines it (x = time). */
static GArray *
run_curve (sqlite3 *db, const RunInfo *run, const char *metric, gboolean by_time, const double *grid, guint n_grid)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (double));
  if (by_time)
    {
      g_autoptr (GArray) steps = plot_mean_steps (db, run->id, metric, run->sim_end);
      g_array_set_size (out, n_grid);
      for (guint g = 0; g < n_grid; g++)
        g_array_index (out, double, g) = plot_mean_at (steps, grid[g]);
      return out;
    }
  g_autoptr (ResRows) st = res_plot_metric_by_round (db, run->id, metric);
  while (res_rows_next (st))
    {
      int r = res_rows_int (st, 0);
      if (r < 1 || r > 100000)
        continue;
      while (out->len < (guint) r)
        {
          double nan = NAN;
          g_array_append_val (out, nan);
        }
      g_array_index (out, double, r - 1) = res_rows_double (st, 1);
    }
  return out;
}

/* Appends a datablock "x mean lo hi" over the runs' curves. */
static guint
mean_ci_block (GString *s, const char *name, GPtrArray *curves, const double *xs, double div, guint n)
{
  guint rows = 0;
  g_string_append_printf (s, "$%s << EOD\n", name);
  for (guint i = 0; i < n; i++)
    {
      double sum = 0, sum2 = 0;
      guint k = 0;
      for (guint c = 0; c < curves->len; c++)
        {
          GArray *cv = curves->pdata[c];
          if (i < cv->len && !isnan (g_array_index (cv, double, i)))
            {
              double v = g_array_index (cv, double, i);
              sum += v;
              sum2 += v * v;
              k++;
            }
        }
      if (k == 0)
        continue;
      double mean = sum / k, half = 0;
      if (k > 1)
        {
          double var = MAX (0.0, (sum2 - k * mean * mean) / (k - 1));
          half = gsl_cdf_tdist_Pinv (0.975, (double) (k - 1)) * sqrt (var / k);
        }
      g_string_append_printf (s, "%.9g %.9g %.9g %.9g %u\n", xs[i] / div, mean, mean - half, mean + half, k);
      rows++;
    }
  g_string_append (s, "EOD\n");
  return rows;
}

/* The scenario the groups' runs share, or "N scenarios" (transfer full). */
static char *
scenarios_of (GArray *gs)
{
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const char *one = NULL;
  for (guint gi = 0; gi < gs->len; gi++)
    {
      GArray *runs = g_array_index (gs, Group, gi).runs;
      for (guint k = 0; k < runs->len; k++)
        {
          one = g_array_index (runs, const RunInfo *, k)->scenario;
          g_hash_table_add (names, (gpointer) one);
        }
    }
  guint n = g_hash_table_size (names);
  return n == 1 ? g_strdup (one) : g_strdup_printf ("%u scenarios", n);
}

/* The grouping key when --by names none: the single swept key, else the
 * scenario (transfer full). */
static char *
group_key (GArray *runs)
{
  g_autofree char *first = NULL;
  gboolean single = TRUE;
  for (guint i = 0; i < runs->len; i++)
    {
      const char *l = g_array_index (runs, RunInfo, i).label;
      if (!*l || strchr (l, ','))
        {
          single = FALSE;
          break;
        }
      g_autofree char *k = g_strndup (l, (gsize) (strchr (l, '=') ? strchr (l, '=') - l : (long) strlen (l)));
      if (!first)
        first = g_strdup (k);
      else if (strcmp (first, k) != 0)
        single = FALSE;
    }
  return single && first ? g_strdup (first) : g_strdup ("scenario.name");
}

/* The runs grouped by their value of KEY (Group, in the order first met;
 * a copy of a seed counts once; runs without KEY are left out), and the
 * latest end of a grouped run in *max_t (transfer full). */
static GArray *
group_runs (sqlite3 *db, GArray *runs, const char *key, double *max_t)
{
  GArray *gs = g_array_new (FALSE, TRUE, sizeof (Group));
  g_array_set_clear_func (gs, group_clear);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < runs->len; i++)
    {
      RunInfo *r = &g_array_index (runs, RunInfo, i);
      if (plot_seen_run (seen, db, r))
        continue;   /* a copy: one seed counts once */
      g_autofree char *v = plot_param (db, r->id, key);
      if (strcmp (key, "scenario.name") == 0 && (!v || !*v))
        {
          g_free (v);
          v = g_strdup (r->scenario);
        }
      if (!v)
        continue;
      Group *g = NULL;
      for (guint k = 0; k < gs->len; k++)
        if (strcmp (g_array_index (gs, Group, k).value, v) == 0)
          g = &g_array_index (gs, Group, k);
      if (!g)
        {
          Group ng = { g_strdup (v), g_array_new (FALSE, FALSE, sizeof (const RunInfo *)) };
          g_array_append_val (gs, ng);
          g = &g_array_index (gs, Group, gs->len - 1);
        }
      g_array_append_val (g->runs, r);
      *max_t = MAX (*max_t, r->sim_end);
    }
  return gs;
}

/* Per group and metric (accuracy, loss): a datablock of the mean and its
 * band at the N points XS, and its clause in PLOTS[m].  Returns the most
 * runs a group has. */
static guint
group_blocks (GString *s, sqlite3 *db, GArray *gs, const char *key, gboolean by_time, const double *xs, guint n,
              double div, GString *plots[2])
{
  const char *metrics[2] = { "accuracy", "loss" };
  guint max_repeats = 0;
  for (guint gi = 0; gi < gs->len; gi++)
    {
      Group *g = &g_array_index (gs, Group, gi);
      max_repeats = MAX (max_repeats, g->runs->len);
      for (int m = 0; m < 2; m++)
        {
          GPtrArray *curves = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
          for (guint k = 0; k < g->runs->len; k++)
            g_ptr_array_add (curves, run_curve (db, g_array_index (g->runs, const RunInfo *, k), metrics[m], by_time, xs, n));
          char name[32];
          g_snprintf (name, sizeof name, "%s%u", metrics[m], gi);
          guint rows = mean_ci_block (s, name, curves, xs, div, n);
          g_ptr_array_unref (curves);
          if (rows == 0)
            continue;
          g_autofree char *label = plot_quotef ("%s = %s", key, g->value);
          g_autofree char *style = plot_series_style (gi, gs->len);
          /* a mark every few points on a dense time axis, not a solid row of them */
          g_string_append_printf (plots[m], "%s$%s using 1:3:4 with filledcurves fs transparent solid 0.18 noborder"
                                  " lc %s notitle, $%s using 1:2 with linespoints %s pi %u title %s",
                                  plots[m]->len ? ", " : "", name, plot_series_colour (gi), name, style, MAX (rows / 12, 1),
                                  label);
        }
    }
  return max_repeats;
}

/* The two panels, accuracy over loss, under TITLE. */
static void
accuracy_loss_panels (GString *s, const char *title, const char *xlabel, gboolean by_time, GString *const plots[2])
{
  g_string_append_printf (s, "set multiplot layout 2,1 title %s font ',12'\n", title);
  g_string_append_printf (s, "set xlabel \"%s\"\n", xlabel);
  /* which peers a point is the mean of: the definition the summary's
   * final_accuracy shares (plot-mean.c), or those of a round */
  const char *over = by_time ? "of the latest values of the peers there or finished"
                             : "over the peers that evaluated the round";
  g_string_append_printf (s, "set ylabel \"test accuracy (fraction correct)\\nmean %s\"\nset yrange [*:1]\n", over);
  g_string_append_printf (s, "plot %s\n", plots[0]->str);
  g_string_append_printf (s, "set ylabel \"test loss (cross-entropy, nats)\\nmean %s\"\nset yrange [*:*]\n", over);
  g_string_append_printf (s, "plot %s\n", plots[1]->len ? plots[1]->str : "NaN notitle");
  g_string_append (s, "unset multiplot\n");
}

static gboolean
convergence (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error)
{
  guint left_out = 0;
  g_autoptr (GArray) runs = plot_load_finished_runs (db, &left_out);
  if (runs->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "%s has no %sruns", db_name, left_out ? "finished " : "");
  gboolean by_time = g_strcmp0 (o->x, "time") == 0;
  if (o->x && !by_time && g_strcmp0 (o->x, "round") != 0)
    return plot_fail (error, PLOT_ERROR_USAGE, "--x must be time or round, not '%s'", o->x);
  /* the grouping key: --by, else the single swept key, else the scenario */
  g_autofree char *key = o->by ? g_strdup (o->by) : group_key (runs);
  double max_t = 0;
  g_autoptr (GArray) gs = group_runs (db, runs, key, &max_t);
  if (gs->len == 0)
    return plot_fail (error, PLOT_ERROR_USAGE, "no run in %s has the parameter '%s' (see dlsim report)", db_name, key);
  guint n_metrics = 0, max_round = 0;
  g_autoptr (ResRows) acc = res_plot_accuracy_extent (db);
  if (res_rows_next (acc))
    {
      n_metrics = (guint) res_rows_int (acc, 0);
      max_round = (guint) res_rows_int (acc, 1);
    }
  if (n_metrics == 0)
    return plot_fail (error, PLOT_ERROR_DATA,
                 "%s has no accuracy metrics: runs with model kind none train nothing (and runs "
                 "with --no-events record none)", db_name);
  guint n = by_time ? 120 : max_round;
  g_autofree double *xs = g_new (double, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    xs[i] = by_time ? max_t * (i + 1) / n : (double) (i + 1);

  g_autofree char *scenarios = scenarios_of (gs);
  plot_terminal (s, o->output, 1200, 900);
  GString *plots[2] = { g_string_new (NULL), g_string_new (NULL) };
  /* the testbed's times are wall-clock seconds: so if every run is one */
  gboolean wall = runs->len > 0;
  double div = by_time ? plot_time_div (max_t) : 1;
  for (guint i = 0; i < runs->len; i++)
    wall &= plot_run_is_wall_clock (db, g_array_index (runs, RunInfo, i).id);
  guint max_repeats = group_blocks (s, db, gs, key, by_time, xs, n, div, plots);
  g_autofree char *note = plot_left_out_note (left_out);
  /* a band only where there are seeds to spread: one seed is no interval */
  g_autofree char *seeds = max_repeats > 1 ? g_strdup_printf ("mean over up to %u seeds, 95%% confidence band", max_repeats)
                                           : g_strdup ("1 seed, no confidence band");
  g_autofree char *title = plot_quotef ("%s: test accuracy and loss by %s, one line per %s (%s%s)", scenarios,
                                        by_time ? (wall ? "wall-clock time" : "simulated time") : "round", key, seeds,
                                        note);
  accuracy_loss_panels (s, title, by_time ? plot_time_label (wall, div) : "round", by_time, plots);
  g_string_free (plots[0], TRUE);
  g_string_free (plots[1], TRUE);
  return TRUE;
}

/* ---------------------------------------------------------------- timeline */

static const struct { const char *state; int cat; } state_cats[] = {
  { "training", 0 }, { "wait-peers-for-round", 1 }, { "linking", 2 }, { "sync-linking", 2 },
  { "wait-start-retry-fail", 3 }, { "exchanging", 4 }, { "sync-wait-provider", 5 },
  { "sync-wait-model", 5 }, { "paused-before-training", 6 }, { "paused-before-ready", 6 },
  { "connecting", 7 },
};
static const char *const cat_names[] = {
  "training", "waiting for list", "linking", "waiting for start", "exchanging", "syncing", "paused", "connecting",
};
static const char *const cat_colours[] = {
  "#4e79a7", "#f28e2b", "#e15759", "#b07aa1", "#59a14f", "#76b7b2", "#bab0ac", "#edc948",
};

static int
state_cat (const char *st)
{
  for (gsize i = 0; i < G_N_ELEMENTS (state_cats); i++)
    if (strcmp (st, state_cats[i].state) == 0)
      return state_cats[i].cat;
  return -1;
}

static int
peer_row (GPtrArray *peers, const char *name)
{
  for (guint i = 0; i < peers->len; i++)
    if (strcmp (peers->pdata[i], name) == 0)
      return (int) i + 1;
  return 0;
}

static gint
cmp_peer (gconstpointer a, gconstpointer b)
{
  const char *x = *(char *const *) a, *y = *(char *const *) b;
  return (int) g_ascii_strtoll (x + 1, NULL, 10) - (int) g_ascii_strtoll (y + 1, NULL, 10);
}

static GPtrArray *
load_peers (sqlite3 *db, gint64 run)
{
  GPtrArray *p = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (ResRows) st = res_plot_event_peers (db, run);
  while (res_rows_next (st))
    g_ptr_array_add (p, g_strdup (res_rows_text (st, 0)));
  g_ptr_array_sort (p, cmp_peer);
  return p;
}

static void
title_line (GString *s, const RunInfo *r, const char *what)
{
  g_autofree char *title = plot_quotef ("%s%s%s%s, run %" G_GINT64_FORMAT " (seed %" G_GUINT64_FORMAT ", %s): %s",
                                        r->scenario, *r->label ? " [" : "", r->label, *r->label ? "]" : "", r->id,
                                        r->seed, r->outcome, what);
  g_string_append_printf (s, "set title %s font ',12'\n", title);
}

enum { N_MARKS = 7 };
static const char *const mark_names[N_MARKS] = { "join", "leave", "crash", "Retry", "Fail", "dropped message",
                                                 "property violated" };
static const char *const mark_style[N_MARKS] = {
  "pt 9 ps 1.6 lc rgb '#2ca02c'", "pt 11 ps 1.6 lc rgb '#555555'", "pt 2 ps 2 lw 2 lc rgb '#d62728'",
  "pt 6 ps 1.3 lw 2 lc rgb '#ff7f0e'", "pt 5 ps 1.4 lc rgb '#8b0000'", "pt 7 ps 0.45 lc rgb 'black'",
  "pt 3 ps 2.2 lw 2 lc rgb '#9400d3'",
};

/* The mark (an index of mark_names) an event of KIND about message MSG
 * makes, or -1; *in is its peer's session (0 not seen, 1 joined, 2
 * gone), which it updates. */
static int
event_mark (const char *kind, const char *msg, int *in)
{
  /* one join and one leave mark a session: the testbed records a
   * join when the process starts and when it reaches the coordinator,
   * a leave and a disconnect when it goes */
  int was = *in, mk = -1;
  if (strcmp (kind, "join") == 0)
    {
      mk = was == 1 ? -1 : 0;
      *in = 1;
    }
  else if (strcmp (kind, "leave") == 0 || strcmp (kind, "disconnect") == 0)
    {
      mk = was == 2 ? -1 : 1;
      *in = 2;
    }
  else if (strcmp (kind, "crash") == 0)
    {
      mk = 2;
      *in = 2;
    }
  else if ((strcmp (kind, "received") == 0 || strcmp (kind, "dropped") == 0)
           && strcmp (msg, "RetryPeerConnections") == 0)
    mk = 3;
  else if ((strcmp (kind, "received") == 0 || strcmp (kind, "dropped") == 0)
           && strcmp (msg, "ConnectionFail") == 0)
    mk = 4;
  else if (strcmp (kind, "dropped") == 0)
    mk = 5;
  else if (strcmp (kind, "violation") == 0)
    mk = 6;
  return mk;
}

/* Reads run R's events into a bar per phase in BLOCKS (one per category,
 * "x row half-width half-height" in DIV units, the last phase of each
 * peer open until END) and a point per mark in MARKS. */
static void
read_events (sqlite3 *db, const RunInfo *r, GPtrArray *peers, double div, double end, GString **blocks,
             GString **marks)
{
  /* open phase per peer */
  g_autofree double *since = g_new (double, peers->len + 1);
  g_autofree int *cat = g_new (int, peers->len + 1);
  g_autofree int *in = g_new0 (int, peers->len + 1);   /* 0 not seen, 1 joined, 2 gone */
  for (guint i = 0; i <= peers->len; i++)
    cat[i] = -1;
  g_autoptr (ResRows) st = res_plot_events (db, r->id);
  while (res_rows_next (st))
    {
      double t = res_rows_double (st, 0) / div;
      const char *node = res_rows_text (st, 1);
      const char *kind = res_rows_text (st, 2);
      const char *detail = res_rows_text (st, 3);
      const char *msg = res_rows_text (st, 4);
      int row = node ? peer_row (peers, node) : 0;
      if (row == 0)
        continue;
      if (strcmp (kind, "phase") == 0 || strcmp (kind, "leave") == 0 || strcmp (kind, "crash") == 0
          || strcmp (kind, "disconnect") == 0)
        {
          if (cat[row] >= 0 && t > since[row])
            g_string_append_printf (blocks[cat[row]], "%.9g %d %.9g 0.35\n", (since[row] + t) / 2, row,
                                    (t - since[row]) / 2);
          cat[row] = strcmp (kind, "phase") == 0 ? state_cat (detail) : -1;
          since[row] = t;
        }
      int mk = event_mark (kind, msg, &in[row]);
      if (mk >= 0)
        g_string_append_printf (marks[mk], "%.9g %d\n", t, row);
    }
  for (guint row = 1; row <= peers->len; row++)
    if (cat[row] >= 0 && end > since[row])
      g_string_append_printf (blocks[cat[row]], "%.9g %u %.9g 0.35\n", (since[row] + end) / 2, row,
                              (end - since[row]) / 2);
}

/* The figure's frame: its size (a row per peer), title and axes, a
 * ytic per peer. */
static void
timeline_axes (GString *s, sqlite3 *db, const RunInfo *r, GPtrArray *peers, double div, const PlotOptions *o)
{
  int height = 260 + 28 * (int) peers->len;
  plot_terminal (s, o->output, 1400, MIN (height, 4000));
  title_line (s, r, "peer phases");
  g_string_append_printf (s, "set xlabel '%s'\nset ylabel 'peer'\nset yrange [0.3:*] reverse\n"
                             "set offsets 0, 0, 0.5, 0.5\nset ytics (", plot_time_label (plot_run_is_wall_clock (db, r->id), div));
  for (guint i = 0; i < peers->len; i++)
    {
      g_autofree char *peer = plot_quote (peers->pdata[i]);
      g_string_append_printf (s, "%s%s %u", i ? ", " : "", peer, i + 1);
    }
  g_string_append (s, ")\nset grid noytics\n");
}

/* The datablocks of BLOCKS and MARKS (freed) and the plot of the
 * nonempty ones. */
static void
timeline_plot (GString *s, GString **blocks, GString **marks)
{
  GString *plot = g_string_new (NULL);
  for (gsize c = 0; c < G_N_ELEMENTS (cat_names); c++)
    {
      g_string_append_printf (s, "$phase%zu << EOD\n%sEOD\n", c, blocks[c]->str);
      if (blocks[c]->len)
        g_string_append_printf (plot, "%s$phase%zu using 1:2:3:4 with boxxyerror fs solid 0.85 noborder lc rgb '%s' title '%s'",
                                plot->len ? ", " : "", c, cat_colours[c], cat_names[c]);
      g_string_free (blocks[c], TRUE);
    }
  for (int m = 0; m < N_MARKS; m++)
    {
      g_string_append_printf (s, "$mark%d << EOD\n%sEOD\n", m, marks[m]->str);
      if (marks[m]->len)
        g_string_append_printf (plot, "%s$mark%d using 1:2 with points %s title '%s'", plot->len ? ", " : "", m,
                                mark_style[m], mark_names[m]);
      g_string_free (marks[m], TRUE);
    }
  g_string_append_printf (s, "plot %s\n", plot->len ? plot->str : "NaN notitle");
  g_string_free (plot, TRUE);
}

static gboolean
timeline (GString *s, sqlite3 *db, const RunInfo *r, const PlotOptions *o, GError **error)
{
  g_autoptr (GPtrArray) peers = load_peers (db, r->id);
  double div = plot_time_div (r->sim_end), end = r->sim_end / div;   /* seconds or hours */
  if (peers->len == 0)
    return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no recorded events (recorded with --no-events?)", r->id);
  GString *blocks[G_N_ELEMENTS (cat_names)];
  for (gsize c = 0; c < G_N_ELEMENTS (cat_names); c++)
    blocks[c] = g_string_new (NULL);
  GString *marks[N_MARKS];
  for (int m = 0; m < N_MARKS; m++)
    marks[m] = g_string_new (NULL);
  read_events (db, r, peers, div, end, blocks, marks);
  timeline_axes (s, db, r, peers, div, o);
  timeline_plot (s, blocks, marks);
  return TRUE;
}

/* ---------------------------------------------------------------- rounds */

static gboolean
rounds (GString *s, sqlite3 *db, const RunInfo *r, const PlotOptions *o, GError **error)
{
  g_autoptr (ResRows) st = res_plot_round_times (db, r->id);
  GString *data = g_string_new (NULL);
  guint n = 0;
  int max_y2 = 0;
  while (res_rows_next (st))
    {
      max_y2 = MAX (max_y2, MAX (res_rows_int (st, 4), res_rows_int (st, 5)));
      double list = res_rows_is_null (st, 1) ? NAN : res_rows_double (st, 1);
      double start = res_rows_is_null (st, 2) ? NAN : res_rows_double (st, 2);
      double end = res_rows_is_null (st, 3) ? NAN : res_rows_double (st, 3);
      double connect = !isnan (start) ? start - list : (!isnan (end) ? 0 : (isnan (list) ? 0 : r->sim_end - list));
      double exchange = !isnan (end) ? end - (isnan (start) ? list : start) : 0;
      g_string_append_printf (data, "%d %.9g %.9g %d %d\n", res_rows_int (st, 0), connect, exchange,
                              res_rows_int (st, 4), res_rows_int (st, 5));
      n++;
    }
  if (n == 0)
    {
      g_string_free (data, TRUE);
      return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no rounds (the coordinator never listed one)", r->id);
    }
  plot_terminal (s, o->output, 1200, 700);
  title_line (s, r, "round durations");
  g_string_append_printf (s, "$rounds << EOD\n%sEOD\n", data->str);
  g_string_free (data, TRUE);
  g_string_append (s, "set xlabel 'round'\nset ylabel 'duration (s)'\nset y2label 'retries and exclusions'\n"
                      "set y2tics\nset ytics nomirror\nset boxwidth 0.7\nset style fill solid 0.8 noborder\n"
                      "set xrange [0.3:*]\nset yrange [0:*]\n");
  g_string_append_printf (s, "set y2range [0:%d]\n", max_y2 + 1);
  g_string_append (s, "plot $rounds using 1:($2+$3) with boxes lc rgb '#59a14f' title 'exchange (start to end)', "
                      "$rounds using 1:2 with boxes lc rgb '#b07aa1' title 'connect (list to start)', "
                      "$rounds using 1:($4 > 0 ? $4 : NaN) axes x1y2 with points pt 6 ps 1.5 lw 2 lc rgb '#ff7f0e' title 'retries', "
                      "$rounds using 1:($5 > 0 ? $5 : NaN) axes x1y2 with points pt 2 ps 1.5 lw 2 lc rgb '#d62728' title 'exclusions'\n");
  return TRUE;
}

/* ---------------------------------------------------------------- participants */

static gboolean
participants (GString *s, sqlite3 *db, const RunInfo *r, const PlotOptions *o, GError **error)
{
  GString *per_round = g_string_new (NULL), *online = g_string_new (NULL);
  double div = plot_time_div (r->sim_end);   /* seconds or hours */
  g_autoptr (ResRows) pr = res_plot_round_participants (db, r->id);
  while (res_rows_next (pr))
    g_string_append_printf (per_round, "%d %d\n", res_rows_int (pr, 0), res_rows_int (pr, 1));
  g_autoptr (ResRows) st = res_plot_presence_events (db, r->id);
  int count = 0;
  /* the peers online: a join counts once however often it is recorded
   * (the testbed: process started, then connected), and so a leave */
  g_autoptr (GHashTable) on = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_string_append (online, "0 0\n");
  while (res_rows_next (st))
    {
      const char *node = res_rows_text (st, 2);
      gboolean join = strcmp (res_rows_text (st, 1), "join") == 0;
      if (join ? !g_hash_table_add (on, g_strdup (node)) : !g_hash_table_remove (on, node))
        continue;
      count += join ? 1 : -1;
      g_string_append_printf (online, "%.9g %d\n", res_rows_double (st, 0) / div, count);
    }
  g_string_append_printf (online, "%.9g %d\n", r->sim_end / div, count);
  if (per_round->len == 0 && count == 0 && online->len < 12)
    {
      g_string_free (per_round, TRUE);
      g_string_free (online, TRUE);
      return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no rounds and no peer events", r->id);
    }
  plot_terminal (s, o->output, 1200, 900);
  g_string_append_printf (s, "$rounds << EOD\n%sEOD\n$online << EOD\n%sEOD\n", per_round->str, online->str);
  gboolean have_rounds = per_round->len > 0;
  g_string_free (per_round, TRUE);
  g_string_free (online, TRUE);
  g_autofree char *title = plot_quotef ("%s, run %" G_GINT64_FORMAT " (seed %" G_GUINT64_FORMAT ", %s): participants",
                                        r->scenario, r->id, r->seed, r->outcome);
  g_string_append_printf (s, "set multiplot layout 2,1 title %s font ',12'\n", title);
  g_string_append (s, "set xlabel 'round'\nset ylabel 'peers in the round'\nset yrange [0:*]\n");
  g_string_append_printf (s, "plot %s\n", have_rounds ? "$rounds using 1:2 with linespoints pt 7 lw 2 lc rgb '#4e79a7' title 'participants'"
                                                      : "NaN title 'no round started'");
  g_string_append_printf (s, "set xlabel '%s'\nset ylabel 'peers online'\n"
                             "plot $online using 1:2 with steps lw 2 lc rgb '#59a14f' title 'online peers'\n"
                             "unset multiplot\n", plot_time_label (plot_run_is_wall_clock (db, r->id), div));
  return TRUE;
}

/* ---------------------------------------------------------------- traffic */

/* The two panels, messages and bytes, of the series p1 and p2 (empty: the
 * run recorded no sent message events, though its traffic table counts
 * some: an empty figure that says so, as gnuplot cannot scale a log axis
 * to no points). */
static void
traffic_panels (GString *s, const char *p1, const char *p2, int max_round)
{
  g_string_append (s, "set xlabel 'round'\nset ylabel 'messages sent'\nset logscale y\n");
  g_string_append_printf (s, "set xrange [0.5:%d.5]\n", MAX (max_round, 1));
  if (!*p1)
    g_string_append (s, "unset key\nset yrange [1:10]\n"
                        "set label 1 'no sent message events recorded in this run' at graph 0.5, graph 0.5 center\n");
  g_string_append_printf (s, "plot %s\n", *p1 ? p1 : "NaN notitle");
  g_string_append (s, "set ylabel 'bytes sent (messages x mean size)'\nset format y '%.0s%cB'\n");
  g_string_append_printf (s, "plot %s\nunset multiplot\n", *p2 ? p2 : "NaN notitle");
}

static gboolean
traffic (GString *s, sqlite3 *db, const RunInfo *r, const PlotOptions *o, GError **error)
{
  g_autoptr (GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (ResRows) tr = res_plot_traffic_types (db, r->id);
  while (res_rows_next (tr))
    {
      g_ptr_array_add (types, g_strdup (res_rows_text (tr, 0)));
      double sz = res_rows_double (tr, 1);
      g_array_append_val (sizes, sz);
    }
  if (types->len == 0)
    {
      g_array_unref (sizes);
      return plot_fail (error, PLOT_ERROR_DATA, "run %" G_GINT64_FORMAT " has no traffic", r->id);
    }
  plot_terminal (s, o->output, 1300, 900);
  /* the run's last round: a message a family tags with the round after it
   * (a closing message) is sent at the end of the last one */
  int last = res_plot_last_round (db, r->id, G_MAXINT);
  GString *p1 = g_string_new (NULL), *p2 = g_string_new (NULL);
  int max_round = 0;
  for (guint t = 0; t < types->len; t++)
    {
      g_autoptr (ResRows) st = res_plot_sent_per_round (db, r->id, types->pdata[t], last);
      g_string_append_printf (s, "$t%u << EOD\n", t);
      gboolean any = FALSE;
      int prev = 0;
      while (res_rows_next (st))
        {
          double n = res_rows_double (st, 1);
          int round = res_rows_int (st, 0);
          /* a round without such messages breaks the line (a blank line):
           * zero has no place on the log axis, and a line across it lies */
          if (any && round > prev + 1)
            g_string_append_c (s, '\n');
          g_string_append_printf (s, "%d %.0f %.9g\n", round, n, n * g_array_index (sizes, double, t));
          any = TRUE;
          prev = round;
          max_round = MAX (max_round, round);
        }
      g_string_append (s, "EOD\n");
      if (!any)
        continue;
      /* colours repeat after 8: vary dash and point type too */
      g_autofree char *type = plot_quote (types->pdata[t]);
      g_string_append_printf (p1, "%s$t%u using 1:2 with linespoints pt %u ps 0.8 lw 2 dt %u lc %u title %s",
                              p1->len ? ", " : "", t, t % 13 + 1, t / 8 + 1, t + 1, type);
      g_string_append_printf (p2, "%s$t%u using 1:3 with linespoints pt %u ps 0.8 lw 2 dt %u lc %u title %s",
                              p2->len ? ", " : "", t, t % 13 + 1, t / 8 + 1, t + 1, type);
    }
  g_array_unref (sizes);
  g_autofree char *title = plot_quotef ("%s, run %" G_GINT64_FORMAT " (seed %" G_GUINT64_FORMAT ", %s): traffic per round",
                                        r->scenario, r->id, r->seed, r->outcome);
  g_string_append_printf (s, "set multiplot layout 2,1 title %s font ',12'\n", title);
  traffic_panels (s, p1->str, p2->str, max_round);
  g_string_free (p1, TRUE);
  g_string_free (p2, TRUE);
  return TRUE;
}

/* ---------------------------------------------------------------- entry points */

char *
plot_script (sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error)
{
  gboolean known = FALSE;
  for (guint i = 0; plot_kinds[i]; i++)
    known |= g_strcmp0 (o->kind, plot_kinds[i]) == 0;
  if (!known)
    {
      plot_fail (error, PLOT_ERROR_USAGE, "unknown plot kind '%s' (expected convergence, timeline, rounds, "
            "participants, traffic, scaling, summary or localize)", o->kind ? o->kind : "");
      return NULL;
    }
  if (!g_str_has_suffix (o->output, ".png") && !g_str_has_suffix (o->output, ".svg"))
    {
      plot_fail (error, PLOT_ERROR_USAGE, "-o %s: the output must end in .png or .svg", o->output);
      return NULL;
    }
  if (!plot_text_is_plain (o->output))
    {
      plot_fail (error, PLOT_ERROR_USAGE, "-o: the output's name must be UTF-8 without control characters");
      return NULL;
    }
  GString *s = g_string_new ("# dlsim plot: generated gnuplot script\n");
  gboolean ok;
  if (strcmp (o->kind, "convergence") == 0)
    ok = convergence (s, db, db_name, o, error);
  else if (strcmp (o->kind, "scaling") == 0)
    ok = plot_scaling (s, db, db_name, o, error);
  else if (strcmp (o->kind, "summary") == 0)
    ok = plot_summary (s, db, db_name, o, error);
  else
    {
      g_autoptr (GArray) runs = plot_load_runs (db);
      const RunInfo *r = plot_pick_run (runs, o->run, db_name, error);
      if (!r)
        ok = FALSE;
      else if (strcmp (o->kind, "timeline") == 0)
        ok = timeline (s, db, r, o, error);
      else if (strcmp (o->kind, "rounds") == 0)
        ok = rounds (s, db, r, o, error);
      else if (strcmp (o->kind, "participants") == 0)
        ok = participants (s, db, r, o, error);
      else if (strcmp (o->kind, "localize") == 0)
        ok = plot_localize (s, db, db_name, r, o, error);
      else
        ok = traffic (s, db, r, o, error);
    }
  if (!ok)
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  g_string_append (s, "set output\n");
  return g_string_free (s, FALSE);
}

gboolean
plot_render (const char *script, GError **error)
{
  const char *prog = g_getenv ("DLSIM_GNUPLOT");
  if (!prog || !*prog)
    prog = DL_GNUPLOT;
  g_autofree char *path = g_find_program_in_path (prog);
  if (!path)
    return plot_fail (error, PLOT_ERROR_GNUPLOT, "gnuplot not found ('%s'): install it (apt-get install gnuplot-nox)"
                 " or set DLSIM_GNUPLOT", prog);
  /* the figure goes to its file (`set output`): never to our stdout */
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = g_strconcat (quoted, " >/dev/null", NULL);
  FILE *pipe = popen (cmd, "w");
  if (!pipe)
    return plot_fail (error, PLOT_ERROR_GNUPLOT, "could not start %s", path);
  gboolean written = fputs (script, pipe) >= 0;
  int status = pclose (pipe);
  if (!written || status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return plot_fail (error, PLOT_ERROR_GNUPLOT, "gnuplot failed (exit status %d); its messages are above",
                 WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return TRUE;
}
