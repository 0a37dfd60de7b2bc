/* cmd-plot.c — `dlsim plot DB KIND`: a figure from a results database. */
#include "config.h"

#include "cli/cli.h"
#include "plots/plot.h"
#include "results/res-query.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

/* DB-KIND.png, in the current folder (transfer full) */
static char *
default_output (const char *db_path, const char *kind)
{
  g_autofree char *base = g_path_get_basename (db_path);
  if (g_str_has_suffix (base, ".db"))
    base[strlen (base) - 3] = '\0';
  return g_strdup_printf ("%s-%s.png", base, kind);
}

/* Runs SCRIPT through gnuplot into OUTPUT, and says OUTPUT.  Returns the
 * exit status. */
static int
render_figure (const char *script, const char *output)
{
  /* a gnuplot that cannot open its output keeps the terminal's and writes
   * the figure's bytes to stdout: find out first, and say why */
  gboolean existed = g_file_test (output, G_FILE_TEST_EXISTS);
  FILE *f = g_fopen (output, "ab");
  if (!f)
    {
      int e = errno;
      cli_error ("plot", "%s: cannot write the figure: %s", output, g_strerror (e));
      return CLI_EXIT_FAILURE;
    }
  fclose (f);
  g_autoptr (GError) error = NULL;
  if (!plot_render (script, &error))
    {
      if (!existed)
        g_unlink (output);
      cli_error ("plot", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  printf ("%s\n", output);
  return CLI_EXIT_OK;
}

/* plot --help's summary */
static const char PLOT_SUMMARY[] =
  "KIND is one of:\n"
  "  convergence   test accuracy and loss by round or time, one line per value of\n"
  "                --by KEY, mean over seeds with a 95% confidence band\n"
  "  timeline      one run: a row per peer, a bar per protocol phase, markers for\n"
  "                join, leave, crash, Retry, Fail and dropped messages\n"
  "  rounds        one run: connect and exchange time per round, retries\n"
  "  participants  one run: participants per round, peers online over time\n"
  "  traffic       one run: messages and bytes per round and message type\n"
  "  scaling       every run: messages per round, bytes, busiest uplink, round\n"
  "                duration, time to --target accuracy and final accuracy against\n"
  "                --x KEY, one line per value of --by KEY (e.g. protocol.family),\n"
  "                mean over seeds with 95% confidence error bars\n"
  "  summary       every run (or those --where KEY=VALUE,...): the summary keys\n"
  "                --y KEY,... (e.g. metric.step_latency_s.median) against --x KEY,\n"
  "                one line per value of --by KEY (or combination of --by KEY,KEY),\n"
  "                mean over the runs of each point with 95% confidence error bars\n"
  "  localize      one run recorded by dlsim explore --localize -o DB: the failure\n"
  "                ratio against the cut t, the decisive event marked\n"
  "The format follows the output's extension (.png or .svg). gnuplot runs\n"
  "through a pipe; set DLSIM_GNUPLOT to use another gnuplot program.";

int
cli_cmd_plot (int argc, char **argv)
{
  g_autofree char *by = NULL, *x = NULL, *output = NULL, *y = NULL, *where = NULL;
  gint64 run = 0;
  double target = 0;
  gboolean script_only = FALSE;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, "convergence, scaling, summary: one line per value of this parameter (default: the swept key; scaling, summary: the swept key that is not on x)", "KEY" },
    { "x", 0, 0, G_OPTION_ARG_STRING, &x, "convergence: x axis, time or round (default round); scaling, summary: the parameter on x, a number or a duration (default peers.count if swept, else the first numeric swept key)", "AXIS" },
    { "y", 0, 0, G_OPTION_ARG_STRING, &y, "summary: the summary keys to draw, one panel each (1 to 6, comma-separated)", "KEY,..." },
    { "where", 0, 0, G_OPTION_ARG_STRING, &where, "summary: only the runs with these parameters", "KEY=VALUE,..." },
    { "target", 0, 0, G_OPTION_ARG_DOUBLE, &target, "scaling: the accuracy of the time-to-accuracy panel (default 0.85)", "ACC" },
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "timeline, rounds, participants, traffic, localize: the run (default: the only run)", "ID" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "FILE.png or FILE.svg (default DB-KIND.png)", "FILE" },
    { "script", 0, 0, G_OPTION_ARG_NONE, &script_only, "print the gnuplot script instead of running gnuplot", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB KIND - draw a figure with gnuplot");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, PLOT_SUMMARY);
  if (!cli_parse_options ("plot", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!rest || !rest[0] || !rest[1] || rest[2])
    {
      cli_error ("plot", "expected a results database and a kind (dlsim plot --help)");
      return CLI_EXIT_USAGE;
    }
  const char *db_path = rest[0], *kind = rest[1];
  struct sqlite3 *db = cli_open_results ("plot", db_path);
  if (!db)
    return CLI_EXIT_FAILURE;
  if (!output)
    output = default_output (db_path, kind);
  PlotOptions o = { .kind = kind, .by = by, .x = x, .run = run, .output = output, .target = target, .y = y,
                    .where = where };
  g_autoptr (GError) error = NULL;
  g_autofree char *script = plot_script (db, db_path, &o, &error);
  res_db_close_read (db);
  if (!script)
    {
      cli_error ("plot", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  if (script_only)
    {
      fputs (script, stdout);
      return CLI_EXIT_OK;
    }
  return render_figure (script, output);
}
