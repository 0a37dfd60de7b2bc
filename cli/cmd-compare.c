/* cmd-compare.c — `dlsim compare A.db B.db`: two runs side by side (a
 * simulated one and a testbed one, typically), and whether their discrete
 * facts agree (a difference makes the exit status 1).  results/'
 * res-compare.c picks the runs and makes the rows (res-compare.h says what
 * is compared and judged); this file parses the command line and prints
 * them, with the ratio B/A of the round durations. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-compare.h"
#include "results/res-query.h"

#include <math.h>
#include <stdio.h>

typedef struct {
  const char *path;
  struct sqlite3 *db;
  gint64 run;
  char *mode;
} Side;

/* Picks the run: the one given, or the only one in the file. */
static gboolean
pick_run (Side *s, gint64 want, const char *opt)
{
  guint n = res_compare_pick_run (s->db, want, &s->run, &s->mode);
  if (n == 0)
    {
      if (want)
        cli_error ("compare", "%s: no run %" G_GINT64_FORMAT, s->path, want);
      else
        cli_error ("compare", "%s has no runs", s->path);
      return FALSE;
    }
  if (n > 1)
    {
      cli_error ("compare", "%s has %u runs: choose one with %s ID", s->path, n, opt);
      return FALSE;
    }
  return TRUE;
}

static void
print_rows (const GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const ResCompareRow *r = rows->pdata[i];
      const char *mark = !res_compare_row_differs (r) ? "" : r->judged ? "  DIFFERS" : "  (differs)";
      /* names and values from the files */
      g_autofree char *what = cli_shown (r->what, FALSE), *a = cli_shown (r->a, FALSE), *b = cli_shown (r->b, FALSE);
      printf ("  %-34s %-22s %-22s%s\n", what, a, b, mark);
    }
}

static void
print_durations (const GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const ResCompareDuration *d = rows->pdata[i];
      g_autofree char *sa = isnan (d->a) ? g_strdup ("-") : g_strdup_printf ("%.3f", d->a);
      g_autofree char *sb = isnan (d->b) ? g_strdup ("-") : g_strdup_printf ("%.3f", d->b);
      g_autofree char *what = cli_shown (d->what, FALSE);
      printf ("  %-34s %-22s %-22s", what, sa, sb);
      if (!isnan (d->a) && !isnan (d->b) && d->a > 0)
        printf ("  ratio %.2f", d->b / d->a);
      printf ("\n");
    }
}

/* Prints the comparison; returns the number of discrete facts that differ. */
static guint
print_comparison (Side *s)
{
  g_autoptr (ResComparison) c = res_compare_runs (s[0].db, s[0].run, s[1].db, s[1].run);
  g_autofree char *ha = g_strdup_printf ("A: %s run %" G_GINT64_FORMAT, s[0].mode, s[0].run);
  g_autofree char *hb = g_strdup_printf ("B: %s run %" G_GINT64_FORMAT, s[1].mode, s[1].run);
  printf ("A = %s\nB = %s\n\n", s[0].path, s[1].path);
  printf ("  %-34s %-22s %-22s\n", "", ha, hb);
  print_rows (c->facts);
  printf ("\n  %-34s %-22s %-22s\n", "peer: outcome rounds retries fails", "", "");
  print_rows (c->peers);
  printf ("\n  %-34s %-22s %-22s\n", "messages", "", "");
  print_rows (c->messages);
  printf ("\n");
  print_durations (c->durations);
  guint differences = res_comparison_differences (c);
  printf ("\n%s\n", differences ? "discrete facts DIFFER" : "discrete facts agree");
  return differences;
}

int
cli_cmd_compare (int argc, char **argv)
{
  gint64 run_a = 0, run_b = 0;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run-a", 0, 0, G_OPTION_ARG_INT64, &run_a, "the run of A.db (default: its only run)", "ID" },
    { "run-b", 0, 0, G_OPTION_ARG_INT64, &run_b, "the run of B.db (default: its only run)", "ID" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("A.db B.db - two runs side by side");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Prints two runs side by side (typically the simulator's and the testbed's\n"
      "run of one scenario file).\n"
      "\n"
      "Discrete facts, judged: the run's outcome, rounds completed, retries,\n"
      "exclusions, model syncs, the violations of each property both runs checked,\n"
      "and each peer's outcome, rounds, retries and fails received.  Shown only: messages per type, round durations (median and p90\n"
      "of the round period, end to end from round 2 on, and of the exchange,\n"
      "PeersForRound to the last aggregation) with their ratio B/A, and the final\n"
      "accuracy.\n"
      "\n"
      "Exit status: 0 the discrete facts agree; 1 they differ (or a file or run\n"
      "cannot be read); 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("compare", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 2)
    {
      cli_error ("compare", "expected two results databases (dlsim compare --help)");
      return CLI_EXIT_USAGE;
    }
  Side s[2] = { { .path = rest[0] }, { .path = rest[1] } };
  int rc = CLI_EXIT_FAILURE;
  for (int i = 0; i < 2; i++)
    if (!(s[i].db = cli_open_results ("compare", s[i].path))
        || !pick_run (&s[i], i == 0 ? run_a : run_b, i == 0 ? "--run-a" : "--run-b"))
      goto out;

  rc = print_comparison (s) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
out:
  for (int i = 0; i < 2; i++)
    {
      res_db_close_read (s[i].db);
      g_free (s[i].mode);
    }
  return rc;
}
