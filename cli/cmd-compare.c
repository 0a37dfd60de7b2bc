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
#include <string.h>

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

/* The columns' widths: the widest entry of each (at least the header's
 * and 22), so that a long key (violations.retries-before-exclusion) or
 * value does not push its row out of line. */
typedef struct {
  int what, a, b;
} Widths;

static void
widen (Widths *w, const char *what, const char *a, const char *b)
{
  w->what = MAX (w->what, (int) strlen (what));
  w->a = MAX (w->a, (int) strlen (a));
  w->b = MAX (w->b, (int) strlen (b));
}

static char *
duration_text (double v)
{
  return isnan (v) ? g_strdup ("-") : g_strdup_printf ("%.3f", v);
}

static Widths
widths_of (const ResComparison *c, const char *ha, const char *hb)
{
  Widths w = { 34, 22, 22 };
  widen (&w, "", ha, hb);
  const GPtrArray *tables[] = { c->facts, c->peers, c->messages };
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint i = 0; i < tables[t]->len; i++)
      {
        const ResCompareRow *r = tables[t]->pdata[i];
        widen (&w, r->what, r->a, r->b);
      }
  for (guint i = 0; i < c->durations->len; i++)
    {
      const ResCompareDuration *d = c->durations->pdata[i];
      g_autofree char *sa = duration_text (d->a), *sb = duration_text (d->b);
      widen (&w, d->what, sa, sb);
    }
  return w;
}

/* One line: the three columns and what follows, without trailing spaces. */
static void
print_line (const Widths *w, const char *what, const char *a, const char *b, const char *tail)
{
  g_autofree char *line = g_strdup_printf ("  %-*s %-*s %-*s%s", w->what, what, w->a, a, w->b, b, tail);
  g_strchomp (line);
  printf ("%s\n", line);
}

/* A row that differs says whether it counts: DIFFERS (judged), or
 * (differs, not judged), which leaves the verdict as it is. */
static void
print_rows (const Widths *w, const GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const ResCompareRow *r = rows->pdata[i];
      const char *mark = !res_compare_row_differs (r) ? "" : r->judged ? "  DIFFERS" : "  (differs, not judged)";
      /* names and values from the files */
      g_autofree char *what = cli_shown (r->what, FALSE), *a = cli_shown (r->a, FALSE), *b = cli_shown (r->b, FALSE);
      print_line (w, what, a, b, mark);
    }
}

static void
print_durations (const Widths *w, const GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const ResCompareDuration *d = rows->pdata[i];
      g_autofree char *sa = duration_text (d->a), *sb = duration_text (d->b);
      g_autofree char *ratio = !isnan (d->a) && !isnan (d->b) && d->a > 0 ? g_strdup_printf ("  ratio %.2f", d->b / d->a)
                                                                          : g_strdup ("");
      g_autofree char *what = cli_shown (d->what, FALSE);
      print_line (w, what, sa, sb, ratio);
    }
}

/* The rows shown but not judged whose values differ. */
static guint
unjudged_differences (const ResComparison *c)
{
  guint n = 0;
  const GPtrArray *tables[] = { c->facts, c->peers, c->messages };
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint i = 0; i < tables[t]->len; i++)
      {
        const ResCompareRow *r = tables[t]->pdata[i];
        n += !r->judged && res_compare_row_differs (r);
      }
  return n;
}

/* Prints the comparison; returns the number of discrete facts that differ. */
static guint
print_comparison (Side *s)
{
  g_autoptr (ResComparison) c = res_compare_runs (s[0].db, s[0].run, s[1].db, s[1].run);
  g_autofree char *ha = g_strdup_printf ("A: %s run %" G_GINT64_FORMAT, s[0].mode, s[0].run);
  g_autofree char *hb = g_strdup_printf ("B: %s run %" G_GINT64_FORMAT, s[1].mode, s[1].run);
  Widths w = widths_of (c, ha, hb);
  printf ("A = %s\nB = %s\n\n", s[0].path, s[1].path);
  print_line (&w, "", ha, hb, "");
  print_rows (&w, c->facts);
  printf ("\n");
  print_line (&w, "peer: outcome rounds retries fails", "", "", "");
  print_rows (&w, c->peers);
  printf ("\n");
  print_line (&w, "messages (not judged)", "", "", "");
  print_rows (&w, c->messages);
  printf ("\n");
  print_line (&w, "durations (not judged)", "", "", "");
  print_durations (&w, c->durations);
  guint differences = res_comparison_differences (c), shown = unjudged_differences (c);
  g_autofree char *also = shown ? g_strdup_printf ("; %u row%s not judged differ%s", shown, shown == 1 ? "" : "s",
                                                   shown == 1 ? "s" : "")
                                : g_strdup ("");
  printf ("\n%s%s\n", differences ? "discrete facts DIFFER" : "discrete facts agree", also);
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
      "accuracy.  A judged row that differs is marked DIFFERS, a row shown\n"
      "without judging (differs, not judged); the last line counts both.\n"
      "\n"
      "Exit status: 0 the discrete facts agree; 1 they differ (or a file or run\n"
      "cannot be read); 2 usage error.");
  if (!cli_parse_options ("compare", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
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
