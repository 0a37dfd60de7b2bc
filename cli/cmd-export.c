/* cmd-export.c — `dlsim export DB --format csv|jsonl [--table T] [-o DIR]`:
 * every table of a results database as files that pandas, R and
 * spreadsheets read directly, one file per table (DIR/TABLE.csv or
 * DIR/TABLE.jsonl).  This file parses the options and prints; the tables
 * and their formats are export/'s (export/export-tables.c). */
#include "config.h"

#include "cli/cli.h"
#include "export/export.h"
#include "results/res-query.h"

#include <stdio.h>

static void
say_written (const char *path, guint64 rows, gpointer data)
{
  (void) data;
  printf ("%s: %" G_GUINT64_FORMAT " rows\n", path, rows);
}

static void
say_failed (const char *message, gpointer data)
{
  (void) data;
  cli_error ("export", "%s", message);
}

int
cli_cmd_export (int argc, char **argv)
{
  g_autofree char *format = NULL, *table = NULL, *out = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "csv or jsonl (required)", "FORMAT" },
    { "table", 't', 0, G_OPTION_ARG_STRING, &table, "one table (default: every table)", "T" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the folder to write (default DB-export)", "DIR" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB --format csv|jsonl - tables as CSV or JSON lines");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Writes DIR/TABLE.csv or DIR/TABLE.jsonl for every table of DB (runs, params,\n"
      "peers, rounds, events, metrics, traffic, summary, expectations, violations,\n"
      "node_records), and runs_wide: one row per run, with every parameter (as\n"
      "written, and in SI units in a column named with the unit: network.latency_s)\n"
      "and every summary value but the per-peer ones, numbers as numbers.  CSV: a\n"
      "header row, NULL as an empty field, text quoted.  JSON lines: an object per\n"
      "row, NULL as null.  In pandas:\n"
      "  import pandas as pd\n"
      "  runs = pd.read_csv('DIR/runs_wide.csv')\n"
      "  runs.groupby('point_label')['final_accuracy'].mean()\n"
      "  events = pd.read_json('DIR/events.jsonl', lines=True)");
  if (!cli_parse_options ("export", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  ExportFormat fmt;
  if (!rest || g_strv_length (rest) != 1 || !export_format_from_name (format, &fmt))
    {
      cli_error ("export", "expected DB and --format csv|jsonl (dlsim export --help)");
      return CLI_EXIT_USAGE;
    }
  struct sqlite3 *db = cli_open_results ("export", rest[0]);
  if (!db)
    return CLI_EXIT_FAILURE;
  g_autofree char *dir = out ? g_strdup (out) : g_strdup_printf ("%s-export", rest[0]);
  ExportTablesOptions o = { .format = fmt, .table = table, .dir = dir, .written = say_written,
                            .failed = say_failed };
  ExportStatus st = export_tables (db, rest[0], &o);
  res_db_close_read (db);
  switch (st)
    {
    case EXPORT_DONE:
      return CLI_EXIT_OK;
    case EXPORT_NO_TABLE:
      return CLI_EXIT_USAGE;
    case EXPORT_FAILED:
      return CLI_EXIT_FAILURE;
    }
  return CLI_EXIT_FAILURE;
}
