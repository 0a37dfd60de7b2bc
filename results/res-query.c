/* res-query.c — the SQL of the questions the dlsim commands ask of a
 * results database (res-query.h): reports, traces, comparisons, check
 * reports.  Each function is one question; the commands print the
 * answers. */
#include "config.h"

#include "results/res-db-private.h"
#include "results/res-query.h"

#include <string.h>

void
res_init (void)
{
  sqlite3_config (SQLITE_CONFIG_MULTITHREAD);
}

void
res_db_close_read (sqlite3 *db)
{
  /* _v2: a cursor (ResRows) still open keeps the connection until it is
   * freed, rather than the close failing and the connection leaking */
  sqlite3_close_v2 (db);
}

/* A cursor over sql with its first parameter bound to run. */
static ResRows *
rows_of_run (sqlite3 *db, const char *sql, gint64 run)
{
  ResRows *r = _res_rows_prepare (db, sql);
  sqlite3_bind_int64 (_res_rows_stmt (r), 1, run);
  return r;
}

gboolean
res_db_run_exists (sqlite3 *db, gint64 id, gboolean *out_any, gint64 *out_min, gint64 *out_max)
{
  g_autoptr (ResRows) r = rows_of_run (db, "SELECT COUNT(*), (SELECT MIN(run_id) FROM runs),"
                                           " (SELECT MAX(run_id) FROM runs) FROM runs WHERE run_id = ?", id);
  gboolean ok = res_rows_next (r) && res_rows_int (r, 0) > 0;
  if (!ok)
    {
      *out_any = !res_rows_is_null (r, 1);
      *out_min = res_rows_int64 (r, 1);
      *out_max = res_rows_int64 (r, 2);
    }
  return ok;
}

ResRows *
res_db_report_runs (sqlite3 *db)
{
  return _res_rows_prepare (db,
      "SELECT r.run_id, r.scenario, r.point_label, r.seed, COALESCE(r.outcome, 'unfinished'),"
      " (SELECT value FROM summary s WHERE s.run_id = r.run_id AND key = 'rounds_completed'),"
      " (SELECT value FROM summary s WHERE s.run_id = r.run_id AND key = 'final_accuracy'),"
      " r.sim_end_s, r.wall_seconds FROM runs r ORDER BY r.run_id");
}

ResRows *
res_db_report_summary (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT key, value FROM summary WHERE run_id = ? AND key NOT LIKE 'peer.%'"
                          " ORDER BY rowid", run);
}

ResRows *
res_db_report_peers (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT peer, joined_s, left_s, outcome, rounds, speed, synced,"
                          " retries_received, fails_received FROM peers WHERE run_id = ?"
                          " ORDER BY CAST(SUBSTR(peer, 2) AS INTEGER)", run);
}

/* sql's parameters ?1 run, ?2 peer (NULL: none), ?3 brief. */
static ResRows *
rows_of_events (sqlite3 *db, const char *sql, gint64 run, const char *peer, gboolean brief)
{
  ResRows *r = rows_of_run (db, sql, run);
  sqlite3_stmt *st = _res_rows_stmt (r);
  if (peer)
    sqlite3_bind_text (st, 2, peer, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 2);
  sqlite3_bind_int (st, 3, brief);
  return r;
}

ResRows *
res_db_trace_events (sqlite3 *db, gint64 run, const char *peer, gboolean brief)
{
  return rows_of_events (db,
      "SELECT t_s, node, kind, round, other, detail, state, msg, value FROM events WHERE run_id = ?1"
      " AND (?2 IS NULL OR node = ?2 OR other = ?2) AND (?3 = 0 OR kind NOT IN ('sent', 'received'))"
      " ORDER BY t_s, seq", run, peer, brief);
}

ResRows *
res_db_trace_timeline (sqlite3 *db, gint64 run, const char *peer, gboolean brief)
{
  return rows_of_events (db,
      "SELECT t_s, node, kind, COALESCE(other, ''), COALESCE(detail, ''), COALESCE(msg, '')"
      " FROM events WHERE run_id = ?1 AND (?2 IS NULL OR node = ?2 OR other = ?2)"
      " AND (?3 = 0 OR kind NOT IN ('sent', 'received')) ORDER BY seq", run, peer, brief);
}

double
res_db_run_end_s (sqlite3 *db, gint64 run)
{
  g_autoptr (ResRows) r = rows_of_run (db, "SELECT COALESCE(sim_end_s, 0) FROM runs WHERE run_id = ?", run);
  return res_rows_next (r) ? res_rows_double (r, 0) : 0;
}

ResRows *
res_db_checked_runs (sqlite3 *db)
{
  return _res_rows_prepare (db, "SELECT run_id, COALESCE(file, scenario), COALESCE(point_label, ''), seed,"
                                " COALESCE(outcome, 'unfinished'), COALESCE(wall_seconds, 0) FROM runs"
                                " WHERE run_id IN (SELECT run_id FROM expectations) ORDER BY run_id");
}

ResRows *
res_db_failed_expectations (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT key, expected, COALESCE(actual, '(none)') FROM expectations"
                          " WHERE run_id = ? AND passed = 0", run);
}

ResRows *
res_db_compare_runs (sqlite3 *db, gint64 want)
{
  return rows_of_run (db, "SELECT run_id, COALESCE(mode, 'sim') FROM runs WHERE ?1 = 0 OR run_id = ?1"
                          " ORDER BY run_id", want);
}

/* The first column of the first row as text (transfer full; NULL: none). */
static char *
first_text (ResRows *r)
{
  char *v = NULL;
  if (res_rows_next (r) && res_rows_text (r, 0))
    v = g_strdup (res_rows_text (r, 0));
  res_rows_free (r);
  return v;
}

char *
res_db_summary_value (sqlite3 *db, gint64 run, const char *key)
{
  ResRows *r = rows_of_run (db, "SELECT value FROM summary WHERE run_id = ? AND key = ?", run);
  sqlite3_bind_text (_res_rows_stmt (r), 2, key, -1, SQLITE_TRANSIENT);
  return first_text (r);
}

char *
res_db_run_outcome (sqlite3 *db, gint64 run)
{
  return first_text (rows_of_run (db, "SELECT COALESCE(outcome, 'unfinished') FROM runs WHERE run_id = ?", run));
}

ResRows *
res_db_peer_facts (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT peer, COALESCE(outcome, '-'), rounds, retries_received, fails_received"
                          " FROM peers WHERE run_id = ?", run);
}

ResRows *
res_db_violation_keys (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT key FROM summary WHERE run_id = ? AND key LIKE 'violations.%'", run);
}

ResRows *
res_db_traffic_messages (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT type, messages FROM traffic WHERE run_id = ?", run);
}

ResRows *
res_db_finished_rounds (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT round, list_s, end_s FROM rounds WHERE run_id = ? AND end_s IS NOT NULL"
                          " ORDER BY round", run);
}

ResRows *
res_db_run_origin (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT COALESCE(file, ''), COALESCE(mode, 'sim'), seed, COALESCE(scenario, '') FROM runs"
                          " WHERE run_id = ?", run);
}

char *
res_db_param_value (sqlite3 *db, gint64 run, const char *key)
{
  ResRows *r = rows_of_run (db, "SELECT value FROM params WHERE run_id = ? AND key = ?", run);
  sqlite3_bind_text (_res_rows_stmt (r), 2, key, -1, SQLITE_TRANSIENT);
  return first_text (r);
}

ResRows *
res_db_run_params (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT key, value FROM params WHERE run_id = ? ORDER BY rowid", run);
}

ResRows *
res_db_explicit_expectations (sqlite3 *db, gint64 run)
{
  return rows_of_run (db, "SELECT key, expected FROM expectations WHERE run_id = ? AND expected NOT LIKE '%implicit%'"
                          " ORDER BY rowid", run);
}

ResRows *
res_db_export_table (sqlite3 *db, const char *name)
{
  /* rows in the order they were written: events by (run_id, seq) */
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s ORDER BY run_id%s", name,
                                          strcmp (name, "events") == 0 || strcmp (name, "node_records") == 0
                                            ? ", seq" : ", rowid");
  return _res_rows_prepare (db, sql);
}

ResRows *
res_db_run_outcomes (ResDb *db, gint64 from)
{
  g_autofree char *q = g_strdup_printf ("SELECT run_id, COALESCE(outcome, 'interrupted') FROM runs"
                                        " WHERE run_id >= %" G_GINT64_FORMAT, from);
  return _res_rows_prepare (db->db, q);
}

ResRows *
res_db_run_slot (ResDb *db, gint64 run)
{
  return rows_of_run (db->db, "SELECT scenario, point, seed, outcome FROM runs WHERE run_id = ?", run);
}
