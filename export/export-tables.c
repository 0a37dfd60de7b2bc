/* export-tables.c — `dlsim export`: every table of a results database as
 * files that pandas, R and spreadsheets read directly, one file per table
 * (DIR/TABLE.csv or DIR/TABLE.jsonl), and runs_wide, one row per run
 * (res_db_make_wide).  The rows come through results/' queries
 * (res_db_export_table); this file calls no SQLite itself.
 *
 * CSV: a header row of the column names (times carry their unit: t_s,
 * joined_s, wall_seconds), numbers as SQLite prints them, text quoted by
 * libcsv (csv_fwrite), NULL as an empty field.  JSON lines: one object per
 * row built with json-glib, NULL as null, integers and reals as numbers. */
#include "config.h"

#include "export/export.h"
#include "results/res-db.h"
#include "results/res-query.h"

#include <csv.h>
#include <errno.h>
#include <stdarg.h>
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

const char *const *
export_table_names (void)
{
  static const char *names[32];
  if (!names[0])
    {
      guint n = 0;
      for (const char *const *t = res_db_table_names (); *t; t++)
        {
          g_assert (n < G_N_ELEMENTS (names) - 2);
          names[n++] = *t;
        }
      names[n++] = "runs_wide";
      names[n] = NULL;
    }
  return names;
}

gboolean
export_format_from_name (const char *name, ExportFormat *out)
{
  if (name && strcmp (name, "csv") == 0)
    *out = EXPORT_CSV;
  else if (name && strcmp (name, "jsonl") == 0)
    *out = EXPORT_JSONL;
  else
    return FALSE;
  return TRUE;
}

static const char *
format_ext (ExportFormat format)
{
  switch (format)
    {
    case EXPORT_CSV:
      return "csv";
    case EXPORT_JSONL:
      return "jsonl";
    }
  g_assert_not_reached ();
}

/* runs_wide is a temporary view (res_db_make_wide); the others are tables */
static gboolean
present (struct sqlite3 *db, const char *name)
{
  return res_db_has_table (db, strcmp (name, "runs_wide") == 0 ? "temp" : "main", name, TRUE);
}

/* says one error through o->failed */
static void G_GNUC_PRINTF (2, 3)
fail (const ExportTablesOptions *o, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (o->failed)
    o->failed (msg, o->data);
}

ExportStatus
export_tables (struct sqlite3 *db, const char *db_path, const ExportTablesOptions *o)
{
  const char *const *all = export_table_names ();
  const char *table = o->table;
  g_autoptr (GError) error = NULL;
  if ((!table || strcmp (table, "runs_wide") == 0) && !res_db_make_wide (db, &error))
    {
      fail (o, "%s: %s", db_path, error->message);
      return EXPORT_FAILED;
    }
  if (table)
    {
      gboolean known = FALSE;
      for (int i = 0; all[i]; i++)
        known |= strcmp (all[i], table) == 0;
      if (!known || !present (db, table))
        {
          fail (o, "%s: no table '%s'", db_path, table);
          return EXPORT_NO_TABLE;
        }
    }
  if (g_mkdir_with_parents (o->dir, 0755) != 0)
    {
      fail (o, "%s: %s", o->dir, g_strerror (errno));
      return EXPORT_FAILED;
    }
  const char *ext = format_ext (o->format);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  for (int i = 0; all[i]; i++)
    {
      if ((table && strcmp (table, all[i]) != 0) || !present (db, all[i]))
        continue;
      g_autofree char *name = g_strdup_printf ("%s.%s", all[i], ext);
      g_autofree char *path = g_build_filename (o->dir, name, NULL);   /* "DIR/" gives no "//" */
      FILE *f = fopen (path, "w");
      if (!f)
        {
          fail (o, "%s: %s", path, g_strerror (errno));
          return EXPORT_FAILED;
        }
      ResRows *st = res_db_export_table (db, all[i]);
      int n = res_rows_n_columns (st);
      if (o->format == EXPORT_CSV)
        csv_row (f, st, n, TRUE);
      guint64 rows = 0;
      while (res_rows_next (st))
        {
          if (o->format == EXPORT_CSV)
            csv_row (f, st, n, FALSE);
          else
            json_row (f, st, n, gen);
          rows++;
        }
      gboolean failed = res_rows_failed (st);
      if (failed)
        fail (o, "%s: %s cannot be read after %" G_GUINT64_FORMAT " rows: %s", db_path, all[i], rows,
              res_rows_error (st));
      res_rows_free (st);
      if (fclose (f) != 0)
        {
          fail (o, "%s: %s", path, g_strerror (errno));
          return EXPORT_FAILED;
        }
      if (failed)
        return EXPORT_FAILED;
      if (o->written)
        o->written (path, rows, o->data);
    }
  return EXPORT_DONE;
}
