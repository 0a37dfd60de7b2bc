/* res-plot.c — the SQL of the questions `dlsim plot` asks (res-plot.h):
 * a metric's values with the peers' departures, from which plots/ builds
 * the mean at each time (plots/plot-mean.c), the runs with whether each
 * finished, and the rows each figure draws (plots/plot.c,
 * plot-scaling.c). */
#include "config.h"

#include "results/res-db-private.h"
#include "results/res-plot.h"

/* a statement whose first parameter is the run */
static ResRows *
prepare_run (sqlite3 *db, const char *sql, gint64 run)
{
  ResRows *r = _res_rows_prepare (db, sql);
  sqlite3_bind_int64 (_res_rows_stmt (r), 1, run);
  return r;
}

ResRows *
res_plot_metric_values (sqlite3 *db, gint64 run, const char *name)
{
  ResRows *r = prepare_run (db, "SELECT t_s, peer, value FROM metrics WHERE run_id = ? AND name = ?"
                                " AND value IS NOT NULL ORDER BY t_s, rowid", run);
  sqlite3_bind_text (_res_rows_stmt (r), 2, name, -1, SQLITE_TRANSIENT);
  return r;
}

ResRows *
res_plot_peer_ends (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT peer, left_s, COALESCE(outcome, '') FROM peers WHERE run_id = ?", run);
  return r;
}

ResRows *
res_plot_runs (sqlite3 *db)
{
  return _res_rows_prepare (db, "SELECT run_id, COALESCE(scenario, '?'), COALESCE(point_label, ''), seed,"
                                " COALESCE(outcome, 'unfinished'), COALESCE(sim_end_s, 0),"
                                " outcome IS NOT NULL AND outcome NOT IN ('interrupted', 'error')"
                                " FROM runs ORDER BY run_id");
}

ResRows *
res_plot_summary_keys (sqlite3 *db)
{
  return _res_rows_prepare (db, "SELECT key, MAX(typeof (value) IN ('integer', 'real')) FROM summary"
                                " WHERE key NOT LIKE 'peer.%' GROUP BY key ORDER BY key");
}

ResRows *
res_plot_round_ends (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT end_s FROM rounds WHERE run_id = ? AND end_s IS NOT NULL ORDER BY round", run);
  return r;
}

char *
res_plot_run_mode (sqlite3 *db, gint64 run)
{
  g_autoptr (ResRows) r = prepare_run (db, "SELECT mode FROM runs WHERE run_id = ?", run);
  return res_rows_next (r) ? g_strdup (res_rows_text (r, 0)) : NULL;
}

ResRows *
res_plot_round_times (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT round, list_s, start_s, end_s, retries, excluded FROM rounds WHERE run_id = ?"
                                " ORDER BY round", run);
  return r;
}

ResRows *
res_plot_round_participants (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT round, participants FROM rounds WHERE run_id = ? AND participants IS NOT NULL"
                                " ORDER BY round", run);
  return r;
}

ResRows *
res_plot_presence_events (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT t_s, kind, COALESCE(node, '') FROM events WHERE run_id = ? AND state = 'world'"
                                " AND kind IN ('join', 'leave', 'crash', 'disconnect') ORDER BY seq", run);
  return r;
}

ResRows *
res_plot_event_peers (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT DISTINCT node FROM events WHERE run_id = ? AND node GLOB 'p[0-9]*'", run);
  return r;
}

ResRows *
res_plot_events (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT t_s, node, kind, COALESCE(detail, ''), COALESCE(msg, '') FROM events"
                                " WHERE run_id = ? ORDER BY seq", run);
  return r;
}

ResRows *
res_plot_metric_by_round (sqlite3 *db, gint64 run, const char *name)
{
  ResRows *r = prepare_run (db, "SELECT round, AVG(value) FROM metrics WHERE run_id = ? AND name = ?"
                                " AND value IS NOT NULL GROUP BY round ORDER BY round", run);
  sqlite3_bind_text (_res_rows_stmt (r), 2, name, -1, SQLITE_TRANSIENT);
  return r;
}

ResRows *
res_plot_accuracy_extent (sqlite3 *db)
{
  return _res_rows_prepare (db, "SELECT COUNT(*), COALESCE(MAX(round), 0) FROM metrics WHERE name = 'accuracy'"
                                " AND value IS NOT NULL");
}

ResRows *
res_plot_traffic_types (sqlite3 *db, gint64 run)
{
  ResRows *r = prepare_run (db, "SELECT type, CAST(bytes AS REAL) / messages FROM traffic WHERE run_id = ? AND messages > 0"
                                " ORDER BY bytes DESC", run);
  return r;
}

int
res_plot_last_round (sqlite3 *db, gint64 run, int none)
{
  g_autoptr (ResRows) r = prepare_run (db, "SELECT MAX(round) FROM rounds WHERE run_id = ?", run);
  return res_rows_next (r) && !res_rows_is_null (r, 0) ? res_rows_int (r, 0) : none;
}

ResRows *
res_plot_sent_per_round (sqlite3 *db, gint64 run, const char *type, int last)
{
  ResRows *r = prepare_run (db, "SELECT MIN(round, ?3), COUNT(*) FROM events WHERE run_id = ?1 AND kind = 'sent'"
                                " AND msg = ?2 AND round IS NOT NULL GROUP BY 1 ORDER BY 1", run);
  sqlite3_bind_text (_res_rows_stmt (r), 2, type, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (_res_rows_stmt (r), 3, last);
  return r;
}
