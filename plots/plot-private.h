/* plot-private.h — shared by the figure kinds: plot.c (convergence,
 * timeline, rounds, participants, traffic), plot-scaling.c (scaling),
 * plot-summary.c (summary) and
 * their helpers (plot-util.c, a leaf: it calls none of the figure files). */
#pragma once

#include "plots/plot.h"

G_BEGIN_DECLS

/* gnuplot's terminal and output for FILE.png or FILE.svg, w x h pixels. */
void plot_terminal (GString *s, const char *output, int w, int h);
/* (transfer full) t as a gnuplot string constant that runs nothing: in
 * double quotes, ` and @ as octal escapes (no `command`, no @macro), a
 * quote and a backslash escaped, a control character (newline, ESC, C1)
 * as a space, invalid UTF-8 as U+FFFD.  Every text that reaches gnuplot from a
 * file, a database or the command line (titles, labels, keys, tics, file
 * names) goes through it; the terminals are noenhanced, so it is drawn as
 * it is. */
char *plot_quote (const char *t);
/* Does plot_quote keep t as it is (UTF-8, no control byte)?  A file
 * name must: gnuplot would write another file. */
gboolean plot_text_is_plain (const char *t);
/* (transfer full) plot_quote of the formatted text. */
char *plot_quotef (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
gboolean plot_fail (GError **error, PlotErrorCode code, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

typedef struct {
  gint64 id;
  char *scenario;
  char *label;
  guint64 seed;
  char *outcome;
  double sim_end;
  gboolean finished;   /* not a row an interrupted, killed or failed run left */
} RunInfo;

/* (transfer full) every run of the file, by id (RunInfo). */
GArray *plot_load_runs (sqlite3 *db);
/* (transfer full) the runs that finished, by id (RunInfo): a figure over
 * many runs (a mean over seeds) leaves out the rows a Ctrl-C, a kill or
 * an error left; out_left_out: how many. */
GArray *plot_load_finished_runs (sqlite3 *db, guint *out_left_out);
/* (transfer full) ", N unfinished runs left out" for a title ("" if none) */
char *plot_left_out_note (guint left_out);
/* (transfer full) a panel title's count of what it draws: ", N seeds a
 * point" (or ", N to M seeds a point: n at each"), and ", K of P points"
 * when only K of its P points have a value; "" if none has (has FALSE). */
char *plot_seeds_note (gboolean has, guint nmin, guint nmax, guint drawn, guint points);
/* The run with this id, or the only one (id 0); NULL with an error. */
const RunInfo *plot_pick_run (GArray *runs, gint64 id, const char *db_name, GError **error);
/* (transfer full) a run's params value, NULL if it has none. */
char *plot_param (sqlite3 *db, gint64 run, const char *key);

/* a run's summary value as a number, NAN if absent or not a number */
double plot_summary_value (sqlite3 *db, gint64 run, const char *key);
/* (transfer full) the keys the runs sweep, from their point labels */
GPtrArray *plot_swept_keys (GArray *runs);
/* a params value as a number: a plain number, or a duration in seconds */
gboolean plot_numeric (const char *v, double *out);

/* A line of a figure: its --by value and its points (the caller's struct,
 * whose first member is `double x`), in a GArray of PlotLine. */
typedef struct {
  char *value;
  GArray *points;
} PlotLine;
/* (transfer full) an empty GArray of PlotLine */
GArray *plot_lines_new (void);
/* The point at x of the line named value, made (zeroed but x) if new. */
gpointer plot_point_at (GArray *lines, const char *value, double x, gsize point_size);

/* Has an earlier run of seen been the same run (the same
 * provenance.run_identity; for a file written before identities, the same
 * scenario, point and seed)?  Adds this one.  A mean over seeds counts a
 * copy of a run (dlsim run --again, or a sweep run twice by an older
 * dlsim) once. */
gboolean plot_seen_run (GHashTable *seen, sqlite3 *db, const RunInfo *r);

/* Line k of n's style: "lc C dt D pt P ps S lw W", a colour, dash type and
 * point type of its own (open marks), earlier lines wider with larger
 * marks, so that lines with the same data drawn over each other stay
 * visible. (transfer full) */
char *plot_series_style (guint k, guint n);
/* Line k's colour ("rgb '#...'"), for a band drawn under it. */
const char *plot_series_colour (guint k);
/* The unit of a params value on an axis: "s" (a duration), "per s" (a
 * rate per time), "count" (a whole number), or NULL. */
const char *plot_value_unit (const char *v);
/* The unit of a summary key, by its name (_s: s, bytes, accuracy,
 * loss, counts), or NULL. */
const char *plot_key_unit (const char *key);
/* (transfer full) "KEY (UNIT)", or KEY without a unit, through plot_quote */
char *plot_axis_label (const char *key, const char *unit);
/* Student's t for a two-sided 95 % interval of a mean of n values (NAN
 * under 2), and that interval's half width from a sum and a sum of
 * squares (0 under 2 values). */
double plot_t95 (guint n);
double plot_ci95 (double sum, double sumsq, guint n);
/* Is run's time wall-clock time (runs.mode testbed or node)? */
gboolean plot_run_is_wall_clock (sqlite3 *db, gint64 run);
/* The unit of a time axis that spans span_s seconds: its divisor, 1
 * (seconds) or 3600 (hours, past 3 h). */
double plot_time_div (double span_s);
/* The time axis' label: simulated or wall-clock time, in seconds (div 1)
 * or hours (div 3600). */
const char *plot_time_label (gboolean wall_clock, double div);

/* plot-mean.c: a run's metric at each time, one definition (its opening
 * comment): a step at every time it changes, by time. */
typedef struct {
  double t;
  double mean;
} PlotStep;
/* (transfer full) GArray of PlotStep; end: the run's sim_end_s */
GArray *plot_mean_steps (sqlite3 *db, gint64 run, const char *metric, double end);
/* The mean at time t (the last step at or before it), NAN before any. */
double plot_mean_at (GArray *steps, double t);

/* plot-scaling.c */
gboolean plot_scaling (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error);
/* plot-localize.c */
gboolean plot_localize (GString *s, sqlite3 *db, const char *db_name, const RunInfo *r, const PlotOptions *o,
                        GError **error);
/* plot-summary.c */
gboolean plot_summary (GString *s, sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error);

G_END_DECLS
