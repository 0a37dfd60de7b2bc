/* cmd-export.c — `dlsim export DB --format csv|jsonl [--table T] [-o DIR]`:
 * every table of a results database as files that pandas, R and
 * spreadsheets read directly, one file per table (DIR/TABLE.csv or
 * DIR/TABLE.jsonl).
 *
 * CSV: a header row of the column names (times carry their unit: t_s,
 * joined_s, wall_seconds), numbers as SQLite prints them, text quoted by
 * libcsv (csv_fwrite), NULL as an empty field.  JSON lines: one object per
 * row built with json-glib, NULL as null, integers and reals as numbers. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-db.h"
#include "results/res-query.h"

#include <csv.h>
#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

static void
csv_row (FILE *f, ResRows *st, int n, gboolean header)
{
  for (int i = 0; i < n; i++)
    {
      if (i)
        fputc (',', f);
      if (header)
        {
          const char *name = res_rows_name (st, i);
          csv_fwrite (f, name, strlen (name));
          continue;
        }
      switch (res_rows_kind (st, i))
        {
        case RES_VALUE_NULL:
          break;
        case RES_VALUE_INTEGER:
        case RES_VALUE_FLOAT:
          fputs (res_rows_text (st, i), f);
          break;
        default:
          {
            const char *t = res_rows_text (st, i);
            csv_fwrite (f, t, (size_t) res_rows_bytes (st, i));
            (void) t;
          }
        }
    }
  fputc ('\n', f);
}

static void
json_row (FILE *f, ResRows *st, int n, JsonGenerator *gen)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  for (int i = 0; i < n; i++)
    {
      json_builder_set_member_name (b, res_rows_name (st, i));
      switch (res_rows_kind (st, i))
        {
        case RES_VALUE_NULL: json_builder_add_null_value (b); break;
        case RES_VALUE_INTEGER: json_builder_add_int_value (b, res_rows_int64 (st, i)); break;
        case RES_VALUE_FLOAT: json_builder_add_double_value (b, res_rows_double (st, i)); break;
        default: json_builder_add_string_value (b, res_rows_text (st, i)); break;
        }
    }
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  g_autofree char *line = json_generator_to_data (gen, NULL);
  fputs (line, f);
  fputc ('\n', f);
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
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("export", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || !format || (strcmp (format, "csv") != 0 && strcmp (format, "jsonl") != 0))
    {
      cli_error ("export", "expected DB and --format csv|jsonl (dlsim export --help)");
      return CLI_EXIT_USAGE;
    }
  struct sqlite3 *db = cli_open_results ("export", rest[0]);
  if (!db)
    return CLI_EXIT_FAILURE;
  /* the tables, and one row per run (res_db_make_wide) */
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (const char *const *t = res_db_table_names (); *t; t++)
    g_ptr_array_add (names, (gpointer) *t);
  g_ptr_array_add (names, (gpointer) "runs_wide");
  g_ptr_array_add (names, NULL);
  const char *const *all = (const char *const *) names->pdata;
  if ((!table || strcmp (table, "runs_wide") == 0) && !res_db_make_wide (db, &error))
    {
      cli_error ("export", "%s: %s", rest[0], error->message);
      res_db_close_read (db);
      return CLI_EXIT_FAILURE;
    }
  if (table)
    {
      gboolean known = FALSE;
      for (int i = 0; all[i]; i++)
        known |= strcmp (all[i], table) == 0;
      if (!known || !res_db_has_table (db, strcmp (table, "runs_wide") == 0 ? "temp" : "main", table, TRUE))
        {
          cli_error ("export", "%s: no table '%s'", rest[0], table);
          res_db_close_read (db);
          return CLI_EXIT_USAGE;
        }
    }
  g_autofree char *dir = out ? g_strdup (out) : g_strdup_printf ("%s-export", rest[0]);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      cli_error ("export", "%s: %s", dir, g_strerror (errno));
      res_db_close_read (db);
      return CLI_EXIT_FAILURE;
    }
  gboolean csv = strcmp (format, "csv") == 0;
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  int rc = CLI_EXIT_OK;
  for (int i = 0; all[i] && rc == CLI_EXIT_OK; i++)
    {
      if ((table && strcmp (table, all[i]) != 0)
          || !res_db_has_table (db, strcmp (all[i], "runs_wide") == 0 ? "temp" : "main", all[i], TRUE))
        continue;
      g_autofree char *path = g_strdup_printf ("%s/%s.%s", dir, all[i], format);
      FILE *f = fopen (path, "w");
      if (!f)
        {
          cli_error ("export", "%s: %s", path, g_strerror (errno));
          rc = CLI_EXIT_FAILURE;
          break;
        }
      ResRows *st = res_db_export_table (db, all[i]);
      int n = res_rows_n_columns (st);
      if (csv)
        csv_row (f, st, n, TRUE);
      guint64 rows = 0;
      while (res_rows_next (st))
        {
          if (csv)
            csv_row (f, st, n, FALSE);
          else
            json_row (f, st, n, gen);
          rows++;
        }
      gboolean failed = res_rows_failed (st);
      if (failed)
        {
          cli_error ("export", "%s: %s cannot be read after %" G_GUINT64_FORMAT " rows: %s", rest[0], all[i], rows,
                     res_rows_error (st));
          rc = CLI_EXIT_FAILURE;
        }
      res_rows_free (st);
      if (fclose (f) != 0)
        {
          cli_error ("export", "%s: %s", path, g_strerror (errno));
          rc = CLI_EXIT_FAILURE;
        }
      else if (failed)
        break;
      else
        printf ("%s: %" G_GUINT64_FORMAT " rows\n", path, rows);
    }
  res_db_close_read (db);
  return rc;
}
