/* res-merge.c — the SQL of `dlsim merge` (cli/cmd-merge.c): copies the runs
 * of another results database into one, skipping those already there (the
 * same identity: scenario, point, seed, dlsim version, start time, file,
 * mode) and refusing, or with renumber appending under new ids, a
 * different run under an id the output has; and the questions merge asks
 * of node databases (`dlsim node -o`). */
#include "config.h"

#include "results/res-db-private.h"
#include "results/res-merge.h"

#include <string.h>

static gboolean
table_columns (sqlite3 *db, const char *table, GString *cols, GString *select_cols)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA main.table_info(%s)", table);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *c = (const char *) sqlite3_column_text (st, 1);
      g_string_append_printf (cols, "%s%s", cols->len ? ", " : "", c);
      g_string_append_printf (select_cols, "%s%s", select_cols->len ? ", " : "",
                              strcmp (c, "run_id") == 0 ? "?1" : c);
    }
  sqlite3_finalize (st);
  return cols->len > 0;
}

/* Copies run `from` of src as run `to` of main. */
static gboolean
copy_run (sqlite3 *db, gint64 from, gint64 to)
{
  const char *const *tables = res_db_storage_names ();
  /* an input older than schema 4 keeps its events in a table named events */
  gboolean old_events = !res_db_has_table (db, "src", "event_chunks", FALSE);
  for (int i = 0; tables[i]; i++)
    {
      const char *src_table = tables[i];
      if (old_events && strcmp (tables[i], "event_rows") == 0)
        src_table = "events";
      else if (old_events && strcmp (tables[i], "event_chunks") == 0)
        continue;
      g_autoptr (GString) cols = g_string_new (NULL), sel = g_string_new (NULL);
      if (!table_columns (db, tables[i], cols, sel))
        return FALSE;
      g_autofree char *sql = g_strdup_printf ("INSERT INTO main.%s (%s) SELECT %s FROM src.%s WHERE run_id = ?2",
                                              tables[i], cols->str, sel->str, src_table);
      sqlite3_stmt *st = NULL;
      if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        {
          /* an older input may lack a table (node_records before schema 3) */
          if (strstr (sqlite3_errmsg (db), "no such table"))
            continue;
          return FALSE;
        }
      sqlite3_bind_int64 (st, 1, to);
      sqlite3_bind_int64 (st, 2, from);
      int rc = sqlite3_step (st);
      sqlite3_finalize (st);
      if (rc != SQLITE_DONE)
        return FALSE;
    }
  return TRUE;
}

#define IDENTITY "COALESCE(scenario,'') || '|' || COALESCE(point,'') || '|' || COALESCE(seed,'') || '|' ||" \
                 " COALESCE(dlsim_version,'') || '|' || COALESCE(started_at,'') || '|' || COALESCE(file,'') || '|' ||" \
                 " COALESCE(mode,'sim')"

/* The builds (provenance.build) of the runs of one side, comma-separated. */
static char *
builds_of (sqlite3 *db, const char *schema)
{
  g_autofree char *sql = g_strdup_printf ("SELECT group_concat(DISTINCT p.value) FROM %s.params p JOIN %s.runs r"
                                          " ON r.run_id = p.run_id WHERE p.key = 'provenance.build'"
                                          " AND COALESCE(r.mode, 'sim') != 'node'", schema, schema);
  sqlite3_stmt *st = NULL;
  char *v = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW
      && sqlite3_column_text (st, 0))
    v = g_strdup ((const char *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  return v;
}

/* Results of different builds do not mix silently. */
static gboolean
check_same_build (sqlite3 *db, const char *path, const ResMergeOptions *o, GError **error)
{
  g_autofree char *in_build = builds_of (db, "src"), *out_build = builds_of (db, "main");
  if (o->any_build || !in_build || !out_build || strcmp (in_build, out_build) == 0)
    return TRUE;
  g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s comes from build %s, the output from %s: results of "
               "different builds do not mix (--any-build merges them anyway)", path, in_build, out_build);
  return FALSE;
}

/* The largest run id of both files: a renumbered run never takes an id
 * another run keeps. */
static gint64
last_run_id (sqlite3 *db)
{
  gint64 last = 0;
  sqlite3_stmt *mx = NULL;
  sqlite3_prepare_v2 (db, "SELECT MAX((SELECT COALESCE(MAX(run_id), 0) FROM main.runs),"
                          " (SELECT COALESCE(MAX(run_id), 0) FROM src.runs))", -1, &mx, NULL);
  if (sqlite3_step (mx) == SQLITE_ROW)
    last = sqlite3_column_int64 (mx, 0);
  sqlite3_finalize (mx);
  return last;
}

/* What merge_plain does with the input's runs: copy run from[i] as
 * to[i]; conflicts: the ids the output has for different runs. */
typedef struct {
  GArray *from, *to, *conflicts;
} MergePlan;

/* Each run of the input (its id and identity, and the identity of the
 * output's run of that id, ST's row) to the plan, or skipped: already
 * merged.  FALSE: a renumbered run would pass the largest id. */
static gboolean
plan_runs (sqlite3_stmt *st, sqlite3 *db, const char *path, const ResMergeOptions *o, MergePlan *plan,
           guint *skipped, GError **error)
{
  /* next: the last id taken, until a run is renumbered (none past 2^63 - 1) */
  gint64 next = last_run_id (db);
  gboolean ids_left = next < G_MAXINT64;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 0);
      const char *mine = (const char *) sqlite3_column_text (st, 1);
      const char *theirs = (const char *) sqlite3_column_text (st, 2);
      if (!theirs)
        {
          g_array_append_val (plan->from, id);
          g_array_append_val (plan->to, id);
        }
      else if (strcmp (mine, theirs) == 0)
        (*skipped)++;   /* already merged */
      else if (o->renumber && !ids_left)
        {
          g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: run %" G_GINT64_FORMAT " would take an id past "
                       "2^63 - 1, the largest SQLite keeps: nothing merged from this file", path, id);
          return FALSE;
        }
      else if (o->renumber)
        {
          next++;
          ids_left = next < G_MAXINT64;
          g_array_append_val (plan->from, id);
          g_array_append_val (plan->to, next);
        }
      else
        g_array_append_val (plan->conflicts, id);
    }
  return TRUE;
}

/* The error naming the first ten conflicting ids. */
static void
set_conflicts_error (const char *path, GArray *conflicts, GError **error)
{
  g_autoptr (GString) ids = g_string_new (NULL);
  for (guint i = 0; i < conflicts->len && i < 10; i++)
    g_string_append_printf (ids, "%s%" G_GINT64_FORMAT, i ? ", " : "", g_array_index (conflicts, gint64, i));
  g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: run%s %s%s already in the output as different runs "
               "(another scenario, seed, build or start): nothing merged from this file; --renumber appends "
               "them under new ids", path, conflicts->len > 1 ? "s" : "", ids->str,
               conflicts->len > 10 ? ", ..." : "");
}

/* The plan's runs copied, then the renumbered ones told: once every run of
 * the file is in, never a notice for a file then rolled back. */
static gboolean
copy_planned (sqlite3 *db, const char *path, const ResMergeOptions *o, const MergePlan *plan, GError **error)
{
  for (guint i = 0; i < plan->from->len; i++)
    if (!copy_run (db, g_array_index (plan->from, gint64, i), g_array_index (plan->to, gint64, i)))
      {
        g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s: nothing merged from this file", path,
                     sqlite3_errmsg (db));
        return FALSE;
      }
  for (guint i = 0; o->renumbered && i < plan->from->len; i++)
    if (g_array_index (plan->from, gint64, i) != g_array_index (plan->to, gint64, i))
      o->renumbered (path, g_array_index (plan->from, gint64, i), g_array_index (plan->to, gint64, i), o->data);
  return TRUE;
}

/* Merges the runs of `path` (attached as src) that are not node runs. */
static gboolean
merge_plain (sqlite3 *db, const char *path, const ResMergeOptions *o, guint *merged, guint *skipped, GError **error)
{
  if (!check_same_build (db, path, o, error))
    return FALSE;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "SELECT s.run_id, " IDENTITY ", (SELECT " IDENTITY " FROM main.runs m"
                              " WHERE m.run_id = s.run_id) FROM src.runs s WHERE COALESCE(s.mode, 'sim') != 'node'"
                              " ORDER BY s.run_id", -1, &st, NULL) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: its runs table cannot be read as a dlsim results"
                   " database's (%s): nothing merged from this file", path, sqlite3_errmsg (db));
      sqlite3_finalize (st);
      return FALSE;
    }
  g_autoptr (GArray) from = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) conflicts = g_array_new (FALSE, FALSE, sizeof (gint64));
  MergePlan plan = { from, to, conflicts };
  gboolean ok = plan_runs (st, db, path, o, &plan, skipped, error);
  sqlite3_finalize (st);
  if (ok && conflicts->len)
    {
      set_conflicts_error (path, conflicts, error);
      return FALSE;
    }
  if (!ok || !copy_planned (db, path, o, &plan, error))
    return FALSE;
  *merged += from->len;
  return TRUE;
}

/* The input's run ids: each a whole number, each one run.  (A dlsim file's
 * runs.run_id is its INTEGER PRIMARY KEY; a file made otherwise may hold
 * text, whose rows no run_id = N finds, or one id twice.) */
static gboolean
check_run_ids (sqlite3 *db, const char *path, GError **error)
{
  sqlite3_stmt *st = NULL;
  gboolean ok = TRUE;
  if (sqlite3_prepare_v2 (db, "SELECT quote (run_id) FROM src.runs WHERE typeof (run_id) != 'integer' LIMIT 1", -1,
                          &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: its runs table has run_id %s, not a whole number:"
                   " nothing merged from this file", path, (const char *) sqlite3_column_text (st, 0));
      ok = FALSE;
    }
  g_clear_pointer (&st, sqlite3_finalize);
  if (ok && sqlite3_prepare_v2 (db, "SELECT run_id, COUNT(*) FROM src.runs GROUP BY run_id HAVING COUNT(*) > 1"
                                    " ORDER BY run_id LIMIT 1", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: its runs table has %d rows with run_id %" G_GINT64_FORMAT
                   " (a run id names one run): nothing merged from this file", path, sqlite3_column_int (st, 1),
                   (gint64) sqlite3_column_int64 (st, 0));
      ok = FALSE;
    }
  sqlite3_finalize (st);
  return ok;
}

/* The input's results schema version (PRAGMA user_version), -1 if it
 * cannot be read. */
static int
input_version (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (db);
  return v;
}

/* An input written by an older dlsim (schema 1 to 5) is upgraded in place
 * first, as `dlsim run -o` upgrades its output: schema 1 has no runs.mode,
 * which the merge's questions read. */
static gboolean
upgrade_input (const char *path, const ResMergeOptions *o, GError **error)
{
  int v = input_version (path);
  if (v < 1 || v >= RES_SCHEMA_VERSION)
    return TRUE;
  g_autoptr (ResDb) up = res_db_open (path, error);
  if (!up)
    {
      g_prefix_error (error, "%s is a results file of schema %d, which merge upgrades in place first: ", path, v);
      return FALSE;
    }
  if (o->upgraded)
    o->upgraded (path, v, o->data);
  return TRUE;
}

gboolean
res_db_merge_runs (ResDb *out, const char *path, const ResMergeOptions *o, guint *merged, guint *skipped,
                   GError **error)
{
  sqlite3 *db = out->db;
  if (!upgrade_input (path, o, error))
    return FALSE;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "ATTACH DATABASE ? AS src", -1, &st, NULL);
  sqlite3_bind_text (st, 1, path, -1, SQLITE_STATIC);
  int arc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (arc != SQLITE_DONE)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path, sqlite3_errmsg (db));
      return FALSE;
    }
  sqlite3_exec (db, "SAVEPOINT merge_file", NULL, NULL, NULL);
  gboolean ok = check_run_ids (db, path, error) && merge_plain (db, path, o, merged, skipped, error);
  if (ok)
    sqlite3_exec (db, "RELEASE merge_file", NULL, NULL, NULL);
  else
    sqlite3_exec (db, "ROLLBACK TO merge_file; RELEASE merge_file", NULL, NULL, NULL);
  sqlite3_exec (db, "DETACH DATABASE src", NULL, NULL, NULL);
  return ok;
}

ResRows *
res_db_node_runs (sqlite3 *db)
{
  return _res_rows_prepare (db, "SELECT run_id, scenario, point, seed, outcome FROM runs WHERE mode = 'node'");
}

ResRows *
res_db_node_lines (sqlite3 *db, gint64 run)
{
  ResRows *r = _res_rows_prepare (db, "SELECT line FROM node_records WHERE run_id = ? ORDER BY seq");
  sqlite3_bind_int64 (_res_rows_stmt (r), 1, run);
  return r;
}

gint64
res_db_merged_as (ResDb *out, const char *source)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (out->db, "SELECT run_id FROM params WHERE key = 'merge.source' AND value = ?", -1, &st, NULL);
  sqlite3_bind_text (st, 1, source, -1, SQLITE_STATIC);
  gint64 run = sqlite3_step (st) == SQLITE_ROW ? sqlite3_column_int64 (st, 0) : 0;
  sqlite3_finalize (st);
  return run;
}
