/* res-query.h — the questions the dlsim commands ask of a results
 * database, one function each, with their SQL in res-query.c (merge's are
 * in res-merge.h).  A question with many rows returns a cursor
 * (res-rows.h) whose columns its comment lists in order; a question with
 * one answer returns it.  A `struct sqlite3 *db` is a handle from
 * res_db_open_read (or res_db_handle); a ResDb one the file being
 * written. */
#pragma once

#include "results/res-db.h"
#include "results/res-rows.h"

#include <glib.h>

G_BEGIN_DECLS

/* Once, before any thread opens a database: SQLite in multi-thread mode
 * (each connection used by one thread at a time). */
void res_init (void);

/* Closes a handle from res_db_open_read. */
void res_db_close_read (struct sqlite3 *db);

/* Is run `id` in db?  If not, out_any says whether db has runs at all and
 * out_min, out_max their ids. */
gboolean res_db_run_exists (struct sqlite3 *db, gint64 id, gboolean *out_any, gint64 *out_min, gint64 *out_max);

/* dlsim report: run_id, scenario, point_label, seed, outcome ('unfinished'
 * if none), the summary's rounds_completed and final_accuracy, sim_end_s,
 * wall_seconds; by run id. */
ResRows *res_db_report_runs (struct sqlite3 *db);
/* dlsim report --run: key, value of the run's summary but the per-peer
 * keys, in the order written. */
ResRows *res_db_report_summary (struct sqlite3 *db, gint64 run);
/* dlsim report --run: peer, joined_s, left_s, outcome, rounds, speed,
 * synced, retries_received, fails_received; p1, p2, ... in number order. */
ResRows *res_db_report_peers (struct sqlite3 *db, gint64 run);
/* dlsim trace: t_s, node, kind, round, other, detail, state, msg, value of
 * the run's events at or with `peer` (NULL: all), without sent and
 * received with `brief`; in time order. */
ResRows *res_db_trace_events (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief);

/* dlsim check --junit/--tap: the checked runs (those with expectation
 * rows): run_id, file (the scenario's name if none), point_label ('' if
 * none), seed, outcome ('unfinished' if none), wall_seconds (0 if none); by
 * run id. */
ResRows *res_db_checked_runs (struct sqlite3 *db);
/* The expectations of a run that failed: key, expected, actual ('(none)'
 * if none). */
ResRows *res_db_failed_expectations (struct sqlite3 *db, gint64 run);

/* dlsim compare: run_id, mode ('sim' if none) of run `want` (0: every
 * run), by run id. */
ResRows *res_db_compare_runs (struct sqlite3 *db, gint64 want);
/* A summary value of a run as text (transfer full; NULL: none). */
char *res_db_summary_value (struct sqlite3 *db, gint64 run, const char *key);
/* A run's outcome ('unfinished' if none; transfer full; NULL: no such run). */
char *res_db_run_outcome (struct sqlite3 *db, gint64 run);
/* A run's peers: peer, outcome ('-' if none), rounds, retries_received,
 * fails_received. */
ResRows *res_db_peer_facts (struct sqlite3 *db, gint64 run);
/* A run's summary keys violations.*: key. */
ResRows *res_db_violation_keys (struct sqlite3 *db, gint64 run);
/* A run's traffic: type, messages. */
ResRows *res_db_traffic_messages (struct sqlite3 *db, gint64 run);
/* A run's finished rounds: round, list_s, end_s; by round. */
ResRows *res_db_finished_rounds (struct sqlite3 *db, gint64 run);

/* dlsim trace --format perfetto: the run's sim_end_s (0 if none or no
 * such run). */
double res_db_run_end_s (struct sqlite3 *db, gint64 run);
/* dlsim trace --format perfetto: t_s, node, kind, other, detail, msg (''
 * for none) of the events res_db_trace_events keeps, in the order
 * recorded. */
ResRows *res_db_trace_timeline (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief);

/* dlsim export: every column of table `name` (res_db_table_names, or
 * runs_wide after res_db_make_wide), rows in the order written. */
ResRows *res_db_export_table (struct sqlite3 *db, const char *name);

/* dlsim export-scenario: file (''), mode ('sim'), seed, scenario ('') of
 * the run (no row: no such run). */
ResRows *res_db_run_origin (struct sqlite3 *db, gint64 run);
/* A params value of a run (transfer full; NULL: none). */
char *res_db_param_value (struct sqlite3 *db, gint64 run, const char *key);
/* A run's params: key, value, in the order written. */
ResRows *res_db_run_params (struct sqlite3 *db, gint64 run);
/* A run's expectations from its [expect] section (not the implicit ones):
 * key, expected ("OP VALUE"), in the order written. */
ResRows *res_db_explicit_expectations (struct sqlite3 *db, gint64 run);

/* dlsim run -j: each run's id from `from` on and its outcome
 * ('interrupted' if none). */
ResRows *res_db_run_outcomes (ResDb *db, gint64 from);
/* dlsim run --shard/--resume: scenario, point, seed, outcome of run `run`
 * (no row: no such run). */
ResRows *res_db_run_slot (ResDb *db, gint64 run);

G_END_DECLS
