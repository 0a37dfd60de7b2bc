/* res-wide.c — one row per run, as analysis tools want it (OMNeT++'s
 * scavetool gives its users the same): `temp.runs_wide`, which `dlsim
 * export` writes as runs_wide.csv / .jsonl.
 *
 * Its columns: run_id, scenario, point_label, seed, mode and outcome of
 * `runs`; every parameter as written (a plain number as a number), and
 * beside one written with a unit its value in SI units, in a column named
 * with the unit (network.latency_s, network.uplink_bps, model.size_bytes,
 * churn.arrival_rate_per_s); then every summary value but the per-peer
 * ones (the peers table has those), as stored: numbers as numbers.  A
 * distribution (`exponential(30min)`) has no SI column. */
#include "config.h"

#include "base/dl-units.h"
#include "results/res-db.h"

#include <sqlite3.h>
#include <string.h>

static const struct {
  DlUnitKind kind;
  const char *suffix;
} units[] = {
  { DL_UNIT_DURATION, "_s" },
  { DL_UNIT_RATE, "_bps" },
  { DL_UNIT_SIZE, "_bytes" },
  { DL_UNIT_PER_TIME, "_per_s" },
};

/* A parameter's value as a plain number (TRUE), or in SI units (*unit its
 * index in units[], -1: neither). */
static gboolean
param_number (const char *text, double *out, int *unit)
{
  *unit = -1;
  if (!text || !*text)
    return FALSE;
  if (dl_parse_number (text, out, NULL))
    return TRUE;
  for (gsize u = 0; u < G_N_ELEMENTS (units); u++)
    if (dl_parse_quantity (units[u].kind, text, out, NULL))
      {
        if (units[u].kind == DL_UNIT_DURATION)
          *out /= 1e9;   /* the base unit is ns */
        *unit = (int) u;
        return FALSE;
      }
  return FALSE;
}

static void
bind_number (sqlite3_stmt *st, int i, double v)
{
  if (v == (double) (gint64) v && v > -9e15 && v < 9e15)
    sqlite3_bind_int64 (st, i, (gint64) v);
  else
    sqlite3_bind_double (st, i, v);
}

static gboolean
sql_failed (sqlite3 *db, GError **error)
{
  g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "runs_wide: %s", sqlite3_errmsg (db));
  return FALSE;
}

/* The table's columns: name -> its 1-based column (cols), the names in
 * order, and parameter -> 1 + the unit of its SI column (the first unit
 * one of its values was written in). */
typedef struct {
  GHashTable *cols;
  GPtrArray *order;
  GHashTable *si_unit;
} Wide;

static const char *const run_cols[] = { "run_id", "scenario", "point_label", "seed", "mode", "outcome" };

static void
add_column (Wide *w, const char *name)
{
  if (g_hash_table_contains (w->cols, name))
    return;
  g_ptr_array_add (w->order, g_strdup (name));
  g_hash_table_insert (w->cols, g_strdup (name), GUINT_TO_POINTER (w->order->len));
}

static guint
column_of (Wide *w, const char *name)
{
  return name ? GPOINTER_TO_UINT (g_hash_table_lookup (w->cols, name)) : 0;
}

/* the parameters, in the order they were written, each followed by the
 * SI columns its values need */
static gboolean
add_param_columns (Wide *w, sqlite3 *db, GError **error)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "SELECT key, value FROM params ORDER BY run_id, rowid", -1, &st, NULL) != SQLITE_OK)
    return sql_failed (db, error);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *key = (const char *) sqlite3_column_text (st, 0);
      double v;
      int unit;
      if (!key)
        continue;
      add_column (w, key);
      param_number ((const char *) sqlite3_column_text (st, 1), &v, &unit);
      if (unit >= 0 && !g_hash_table_contains (w->si_unit, key))
        {
          g_autofree char *si = g_strconcat (key, units[unit].suffix, NULL);
          add_column (w, si);
          g_hash_table_insert (w->si_unit, g_strdup (key), GINT_TO_POINTER (unit + 1));
        }
    }
  sqlite3_finalize (st);
  return TRUE;
}

/* the summary's keys but the per-peer ones, in the order first written */
static gboolean
add_summary_columns (Wide *w, sqlite3 *db, GError **error)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "SELECT key FROM summary WHERE key NOT LIKE 'peer.%' AND key != 'outcome'"
                              " GROUP BY key ORDER BY MIN(rowid)", -1, &st, NULL) != SQLITE_OK)
    return sql_failed (db, error);
  while (sqlite3_step (st) == SQLITE_ROW)
    add_column (w, (const char *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  return TRUE;
}

/* CREATE the table with the columns; its INSERT statement's text (transfer full) */
static char *
create_table (Wide *w, sqlite3 *db, GError **error)
{
  g_autoptr (GString) create = g_string_new ("DROP TABLE IF EXISTS temp.runs_wide; CREATE TEMP TABLE runs_wide (");
  g_autoptr (GString) insert = g_string_new ("INSERT INTO temp.runs_wide VALUES (");
  for (guint i = 0; i < w->order->len; i++)
    {
      char *q = sqlite3_mprintf ("%s\"%w\"", i ? ", " : "", (const char *) w->order->pdata[i]);
      g_string_append (create, q);
      sqlite3_free (q);
      g_string_append (insert, i ? ",?" : "?");
    }
  g_string_append (create, ")");
  g_string_append (insert, ")");
  if (sqlite3_exec (db, create->str, NULL, NULL, NULL) != SQLITE_OK)
    {
      sql_failed (db, error);
      return NULL;
    }
  return g_string_free (g_steal_pointer (&insert), FALSE);
}

/* one run's parameters (PARAMS bound to it) into INS: each as written,
 * and in its SI column a value in its unit or a plain number (0) */
static void
bind_params (Wide *w, sqlite3_stmt *ins, sqlite3_stmt *params)
{
  while (sqlite3_step (params) == SQLITE_ROW)
    {
      const char *key = (const char *) sqlite3_column_text (params, 0);
      const char *text = (const char *) sqlite3_column_text (params, 1);
      guint col = column_of (w, key);
      if (!col || col <= G_N_ELEMENTS (run_cols))
        continue;
      double v;
      int unit;
      gboolean plain = param_number (text, &v, &unit);
      if (plain)
        bind_number (ins, (int) col, v);
      else
        sqlite3_bind_value (ins, (int) col, sqlite3_column_value (params, 1));
      int si = GPOINTER_TO_INT (g_hash_table_lookup (w->si_unit, key)) - 1;
      if (si >= 0 && (plain || unit == si))
        {
          g_autofree char *name = g_strconcat (key, units[si].suffix, NULL);
          bind_number (ins, (int) column_of (w, name), v);
        }
    }
  sqlite3_reset (params);
}

/* one run's summary values (SUM bound to it) into INS, as stored */
static void
bind_summary (Wide *w, sqlite3_stmt *ins, sqlite3_stmt *sum)
{
  while (sqlite3_step (sum) == SQLITE_ROW)
    {
      guint col = column_of (w, (const char *) sqlite3_column_text (sum, 0));
      if (col > G_N_ELEMENTS (run_cols))
        sqlite3_bind_value (ins, (int) col, sqlite3_column_value (sum, 1));
    }
  sqlite3_reset (sum);
}

/* a row per run, by the statement INSERT */
static gboolean
fill_rows (Wide *w, sqlite3 *db, const char *insert, GError **error)
{
  sqlite3_stmt *ins = NULL, *runs = NULL, *params = NULL, *sum = NULL;
  gboolean ok = sqlite3_prepare_v2 (db, insert, -1, &ins, NULL) == SQLITE_OK
                && sqlite3_prepare_v2 (db, "SELECT run_id, scenario, point_label, seed, COALESCE(mode, 'sim'), outcome"
                                           " FROM runs ORDER BY run_id", -1, &runs, NULL) == SQLITE_OK
                && sqlite3_prepare_v2 (db, "SELECT key, value FROM params WHERE run_id = ?", -1, &params, NULL)
                       == SQLITE_OK
                && sqlite3_prepare_v2 (db, "SELECT key, value FROM summary WHERE run_id = ?", -1, &sum, NULL)
                       == SQLITE_OK
                && sqlite3_exec (db, "SAVEPOINT wide", NULL, NULL, NULL) == SQLITE_OK;
  int rc = SQLITE_DONE;
  while (ok && (rc = sqlite3_step (runs)) == SQLITE_ROW)
    {
      sqlite3_clear_bindings (ins);
      for (int c = 0; c < (int) G_N_ELEMENTS (run_cols); c++)
        sqlite3_bind_value (ins, c + 1, sqlite3_column_value (runs, c));
      gint64 id = sqlite3_column_int64 (runs, 0);
      sqlite3_bind_int64 (params, 1, id);
      bind_params (w, ins, params);
      sqlite3_bind_int64 (sum, 1, id);
      bind_summary (w, ins, sum);
      ok = sqlite3_step (ins) == SQLITE_DONE;
      sqlite3_reset (ins);
    }
  if (ok && rc != SQLITE_DONE)
    ok = FALSE;
  if (!ok)
    sql_failed (db, error);
  sqlite3_exec (db, "RELEASE wide", NULL, NULL, NULL);
  sqlite3_finalize (ins);
  sqlite3_finalize (runs);
  sqlite3_finalize (params);
  sqlite3_finalize (sum);
  return ok;
}

gboolean
res_db_make_wide (sqlite3 *db, GError **error)
{
  g_autoptr (GHashTable) cols = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) si_unit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  Wide w = { cols, order, si_unit };
  for (gsize i = 0; i < G_N_ELEMENTS (run_cols); i++)
    add_column (&w, run_cols[i]);
  if (!add_param_columns (&w, db, error) || !add_summary_columns (&w, db, error))
    return FALSE;
  g_autofree char *insert = create_table (&w, db, error);
  return insert && fill_rows (&w, db, insert, error);
}
