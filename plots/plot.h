/* plot.h — figures from a results database, drawn by gnuplot.
 *
 * plot_script builds a complete gnuplot script (terminal, output, data
 * inline as datablocks, plot commands); plot_render writes it into a pipe to
 * gnuplot (popen).  No temporary files.  The output format follows the
 * output file's extension: .png (pngcairo) or .svg. */
#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

#define PLOT_ERROR (plot_error_quark ())
GQuark plot_error_quark (void);
typedef enum { PLOT_ERROR_USAGE, PLOT_ERROR_DATA, PLOT_ERROR_GNUPLOT } PlotErrorCode;

typedef struct {
  const char *kind;     /* convergence | timeline | rounds | participants | traffic | scaling | summary | localize */
  const char *by;       /* convergence, scaling: group by this params key (NULL: the swept key) */
  const char *x;        /* convergence: "time" or "round"; scaling: the params key on x */
  double target;        /* scaling: the accuracy of "time to accuracy" (0: 0.85) */
  gint64 run;           /* timeline, rounds, participants, traffic (0: the only run) */
  const char *output;   /* .png or .svg */
  const char *y;        /* summary: the summary keys to draw, comma-separated */
  const char *where;    /* summary: KEY=VALUE,... the runs must have (NULL: all) */
} PlotOptions;

extern const char *const plot_kinds[];

/* (transfer full) the gnuplot script, or NULL with an error. */
char *plot_script (sqlite3 *db, const char *db_name, const PlotOptions *o, GError **error);
/* Runs gnuplot (DLSIM_GNUPLOT or the configured program) on the script. */
gboolean plot_render (const char *script, GError **error);

G_END_DECLS
