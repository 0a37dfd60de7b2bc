/* cmd-report.c — `dlsim report` (a table of the runs in a results database)
 * and `dlsim trace` (the readable protocol timeline of one run). */
#include "config.h"

#include "cli/cli.h"
#include "export/export.h"
#include "results/res-db.h"
#include "results/res-query.h"

#include <stdio.h>
#include <string.h>

static gboolean
run_exists (const char *cmd, struct sqlite3 *db, const char *path, gint64 id)
{
  gboolean any = FALSE;
  gint64 lo = 0, hi = 0;
  gboolean ok = res_db_run_exists (db, id, &any, &lo, &hi);
  if (!ok)
    {
      if (!any)
        cli_error (cmd, "%s has no runs", path);
      else
        cli_error (cmd, "run %" G_GINT64_FORMAT " is not in %s (runs %lld..%lld)", id, path, (long long) lo,
                   (long long) hi);
    }
  return ok;
}

/* A column's text as printed (cli_shown), or dflt for NULL or empty; an
 * escaped copy lives until the next call for the same column. */
static const char *
text_or (ResRows *st, int col, const char *dflt)
{
  static char *shown[32];
  const char *t = res_rows_text (st, col);
  if (!t || !*t)
    return dflt;
  if (cli_is_shown (t))
    return t;
  g_assert (col >= 0 && col < (int) G_N_ELEMENTS (shown));
  g_free (shown[col]);
  shown[col] = cli_shown (t, FALSE);
  return shown[col];
}

int
cli_cmd_report (int argc, char **argv)
{
  gint64 run = 0;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "details of one run: summary and peers", "ID" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB - summary table of runs");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Prints one line per run: id, scenario, sweep point, seed, outcome, rounds\n"
      "completed, final accuracy, simulated time and wall time. With --run ID,\n"
      "the run's summary keys and its peers.");
  if (!cli_parse_options ("report", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!rest || !rest[0] || rest[1])
    {
      cli_error ("report", "expected one results database (dlsim report --help)");
      return CLI_EXIT_USAGE;
    }
  struct sqlite3 *db = cli_open_results ("report", rest[0]);
  if (!db)
    return CLI_EXIT_FAILURE;
  ResRows *st = NULL;
  int rc = CLI_EXIT_OK;
  if (run == 0)
    {
      st = res_db_report_runs (db);
      printf ("%5s  %-28s %-11s %6s  %-11s %6s %8s %12s %9s  %s\n", "run", "scenario", "outcome", "seed",
              "", "rounds", "accuracy", "sim time", "wall", "point");
      guint n = 0;
      while (res_rows_next (st))
        {
          printf ("%5lld  %-28.28s %-11s %6lld  %-11s %6s %8s %11.3fs %8.3fs  %s\n",
                  (long long) res_rows_int64 (st, 0), text_or (st, 1, "?"), text_or (st, 4, "?"),
                  (long long) res_rows_int64 (st, 3), "", text_or (st, 5, "-"), text_or (st, 6, "-"),
                  res_rows_double (st, 7), res_rows_double (st, 8), text_or (st, 2, ""));
          n++;
        }
      if (n == 0)
        printf ("(no runs)\n");
    }
  else if (run_exists ("report", db, rest[0], run))
    {
      st = res_db_report_summary (db, run);
      printf ("run %" G_GINT64_FORMAT "\n", run);
      while (res_rows_next (st))
        printf ("  %-20s %s\n", text_or (st, 0, "?"), text_or (st, 1, "-"));
      res_rows_free (st);
      st = res_db_report_peers (db, run);
      printf ("\n  %-6s %10s %10s %-10s %6s %6s %6s %7s %5s\n", "peer", "joined", "left", "outcome",
              "rounds", "speed", "synced", "retries", "fails");
      while (res_rows_next (st))
        {
          char left[32] = "-";
          if (!res_rows_is_null (st, 2))
            g_snprintf (left, sizeof left, "%.3fs", res_rows_double (st, 2));
          printf ("  %-6s %9.3fs %10s %-10s %6d %6.3g %6s %7d %5d\n", text_or (st, 0, "?"),
                  res_rows_double (st, 1), left, text_or (st, 3, "?"), res_rows_int (st, 4),
                  res_rows_double (st, 5), res_rows_int (st, 6) ? "yes" : "no",
                  res_rows_int (st, 7), res_rows_int (st, 8));
        }
    }
  else
    rc = CLI_EXIT_FAILURE;
  res_rows_free (st);
  res_db_close_read (db);
  return rc;
}

/* --format perfetto: run RUN's events as trace-event JSON in OUT.
 * Returns the exit status. */
static int
write_perfetto (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, const char *out)
{
  g_autoptr (GError) error = NULL;
  if (!export_perfetto (db, run, peer, brief, out, &error))
    {
      cli_error ("trace", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  return CLI_EXIT_OK;
}

/* The line of the event ST is at: its time, node, state and what
 * happened ("enters STATE" for a phase). */
static void
print_event (ResRows *st)
{
  const char *kind = text_or (st, 2, "?"), *other = text_or (st, 4, NULL), *msg = text_or (st, 7, NULL);
  const char *detail = text_or (st, 5, NULL);
  if (strcmp (kind, "phase") == 0 && detail)
    {
      printf ("%12.6fs  %-5s %-22s enters %s\n", res_rows_double (st, 0), text_or (st, 1, "?"),
              text_or (st, 6, ""), detail);
      return;
    }
  GString *what = g_string_new (kind);
  if (msg)
    g_string_append_printf (what, " %s", msg);
  if (other)
    {
      const char *prep = strcmp (kind, "sent") == 0 ? "to" : strcmp (kind, "received") == 0
                         || strcmp (kind, "dropped") == 0 ? "from" : "with";
      g_string_append_printf (what, " %s %s", prep, other);
    }
  if (!res_rows_is_null (st, 3))
    g_string_append_printf (what, " (round %d)", res_rows_int (st, 3));
  if (!res_rows_is_null (st, 8) && strcmp (kind, "retry") == 0)
    g_string_append_printf (what, " counter=%lld", (long long) res_rows_int64 (st, 8));
  if (detail)
    g_string_append_printf (what, ": %s", detail);
  printf ("%12.6fs  %-5s %-22s %s\n", res_rows_double (st, 0), text_or (st, 1, "?"),
          text_or (st, 6, ""), what->str);
  g_string_free (what, TRUE);
}

/* The text timeline: run RUN's events (of PEER, without the messages
 * if BRIEF), a line each, or a line saying there are none.  Returns the
 * exit status. */
static int
print_trace (struct sqlite3 *db, const char *path, gint64 run, const char *peer, gboolean brief)
{
  ResRows *st = res_db_trace_events (db, run, peer, brief);
  guint n = 0;
  while (res_rows_next (st))
    {
      print_event (st);
      n++;
    }
  gboolean failed = res_rows_failed (st);
  if (failed)
    cli_error ("trace", "%s: run %" G_GINT64_FORMAT "'s events cannot be read after %u of them: %s", path, run, n,
               res_rows_error (st));
  else if (n == 0)
    printf ("(no events%s%s)\n", peer ? " for " : "", peer ? peer : "");
  res_rows_free (st);
  return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int
cli_cmd_trace (int argc, char **argv)
{
  gint64 run = 0;
  g_autofree char *peer = NULL;
  gboolean brief = FALSE;
  g_autofree char *format = NULL, *out = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "the run to show (required)", "ID" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "text (default) or perfetto: Chrome trace-event JSON for ui.perfetto.dev (needs -o)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "with --format perfetto: the JSON file", "FILE" },
    { "peer", 0, 0, G_OPTION_ARG_STRING, &peer, "only what happened at or with this node (pN or S)", "NAME" },
    { "brief", 0, 0, G_OPTION_ARG_NONE, &brief, "leave out messages sent and received (keep drops, phases, timers...)", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB --run ID - protocol timeline of one run");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Prints the run's timeline, one line per event: simulated time, node, the\n"
      "state it was in, and what happened: messages sent, received or dropped by\n"
      "the drop rule, phase changes, timers, retries, exclusions, syncs, errors,\n"
      "and world facts (joins, crashes, links up or failed, lost messages).");
  if (!cli_parse_options ("trace", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!rest || !rest[0] || rest[1] || run <= 0)
    {
      cli_error ("trace", "expected a results database and --run ID (dlsim trace --help)");
      return CLI_EXIT_USAGE;
    }
  if (format && strcmp (format, "text") != 0 && (strcmp (format, "perfetto") != 0 || !out))
    {
      cli_error ("trace", "--format text, or --format perfetto -o FILE.json");
      return CLI_EXIT_USAGE;
    }
  struct sqlite3 *db = cli_open_results ("trace", rest[0]);
  if (!db)
    return CLI_EXIT_FAILURE;
  if (!run_exists ("trace", db, rest[0], run))
    {
      res_db_close_read (db);
      return CLI_EXIT_FAILURE;
    }
  int rc = format && strcmp (format, "perfetto") == 0 ? write_perfetto (db, run, peer, brief, out)
                                                      : print_trace (db, rest[0], run, peer, brief);
  res_db_close_read (db);
  return rc;
}
