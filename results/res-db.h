/* res-db.h — the results database (SCENARIO-FORMAT.md §3): one SQLite file
 * for a run or a sweep.  A run's `runs` row is written first (outcome NULL)
 * and its outcome last, so an interrupted run is visible as such.  Events
 * and metrics stream in through prepared statements in batched
 * transactions; nothing reads the database during a run.
 *
 * Shape: res_db_open / res_db_close; res_run_begin / res_run_finish. */
#pragma once

#include "scenario/sim-scenario.h"
#include "host/sim-types.h"

#include <glib.h>

G_BEGIN_DECLS

#define RES_SCHEMA_VERSION 6   /* 2: runs.mode (sim | testbed | node); 3: node_records; 4: events a view
                                  over event_chunks and event_rows; 5: peers.uplink_bps and
                                  downlink_bps; 6: summary.value NUMERIC (numbers stored as
                                  numbers).  Older files are upgraded */

#define RES_ERROR (res_error_quark ())
GQuark res_error_quark (void);
typedef enum { RES_ERROR_SQLITE, RES_ERROR_SCHEMA, RES_ERROR_NOT_FOUND } ResErrorCode;

typedef struct ResDb ResDb;

/* How long every opener waits for another process's lock (a writer commits
 * once a second; docs/user-guide.md says commands wait up to 60 s). */
#define RES_BUSY_TIMEOUT_MS 60000

/* Opens (creating the schema if the file is new) a results database to
 * write it.  One process writes a file at a time: an opener waits until
 * the process that has it open to write closes it (or dies), so that two
 * runs into one file take turns instead of taking the same run ids.  The
 * first gets the file at once. */
ResDb *res_db_open (const char *path, GError **error);
/* The same; if another process has the file, waiting (path) is called
 * once before waiting for it (e.g. to say so). */
ResDb *res_db_open_wait (const char *path, void (*waiting) (const char *path), GError **error);
/* res_db_open_wait for a command that writes path; when it fails because
 * of the folder or the file, the error says which and why (SQLite says
 * "unable to open database file" for a missing folder and a read-only one
 * alike): a folder that does not exist or is not writable, a file that is
 * not writable, a file whose folder is not (SQLite writes its journal
 * there).  Otherwise the error is res_db_open_wait's. */
ResDb *res_db_open_explained (const char *path, void (*waiting) (const char *path), GError **error);
/* Opens a results database to read it (transfer full: res_db_close_read).  It
 * waits up to RES_BUSY_TIMEOUT_MS for a writer's lock.  A journal that a
 * killed writer left (a hot journal) is rolled back first, which needs
 * write access to the file and its folder; without it the error says so.
 * A file without a `runs` table is not a results database
 * (RES_ERROR_SCHEMA). */
struct sqlite3 *res_db_open_read (const char *path, GError **error);
/* Opens a -j worker's part of a sweep's file (runner/), as res_db_open,
 * but its close leaves the file as it is, in WAL mode with its log: no
 * checkpoint, no sync, no return to a rollback journal.  The sweep's
 * process copies the part's runs from it (res_db_merge_missing, which
 * reads the log) and removes it; a killed sweep's parts are read the
 * same way (res_db_adopt_finished). */
ResDb *res_db_open_part (const char *path, GError **error);
/* Returns the file to its rollback journal now and keeps it locked for
 * this connection alone (SQLite's exclusive locking mode) until
 * res_db_release: TRUE.  When another connection, a reader's or a
 * writer's, has the file open, SQLite refuses the switch at once
 * (nothing waits): FALSE, and the file stays in WAL mode, unlocked. */
gboolean res_db_hold_at_rest (ResDb *db);
/* Ends res_db_hold_at_rest's lock. */
void res_db_release (ResDb *db);
/* Closes db; a file opened to write (not a part) returns to its rollback
 * journal first (its log folded in and synced, the log removed), unless
 * another connection, a reader's or a writer's, has it open: then SQLite
 * refuses the switch at once (nothing waits) and the file stays in WAL
 * mode, with its log, for the next writer to fold. */
void res_db_close (ResDb *db);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResDb, res_db_close)
/* The underlying sqlite3 handle, for report queries (transfer none). */
struct sqlite3 *res_db_handle (ResDb *db);
gint64 res_db_max_run_id (ResDb *db);
/* The first of n free run ids after the file's largest, in first_id; an
 * error (RES_ERROR_SCHEMA) if they would pass the largest id, 2^63 - 1. */
gboolean res_db_next_run_ids (ResDb *db, guint64 n, gint64 *first_id, GError **error);

typedef struct ResRun ResRun;

/* A run's identity (transfer full): the SHA-256 of the build, the
 * scenario file's text, every resolved value of its point (after --set; the
 * base seed and the repeat count left out) and the seed it runs with.  Two
 * runs with one identity give the same rows (apart from wall times).  It is
 * the params row provenance.run_identity. */
char *res_run_identity (const SimScenario *s, const SimPoint *p, guint64 seed);
/* The identities of the finished runs in db (those with an outcome other
 * than interrupted or error), as a set (transfer full). */
GHashTable *res_db_finished_identities (ResDb *db);
/* Removes, in one transaction, every row of the runs in db that did not
 * finish (interrupted, error, or no outcome: killed) and whose identity is
 * in the set `identities` (char*): runs about to be run again replace
 * them.  out_removed: how many runs. */
gboolean res_db_delete_unfinished (ResDb *db, GHashTable *identities, guint *out_removed, GError **error);

/* Writes the runs row (outcome NULL) and the params rows.  run_id 0: the
 * next free id. */
ResRun *res_run_begin (ResDb *db, gint64 run_id, const SimScenario *s, const SimPoint *p,
                       guint64 seed, GError **error);
/* The recorder that streams this run's observations into the database. */
SimRecorder res_run_recorder (ResRun *run);
/* Without events, only runs, params, peers, rounds, traffic, summary and
 * expectations are written (no events or metrics rows). */
void res_run_set_events (ResRun *run, gboolean events);
/* The peers' results, [1..n] (borrowed until res_run_finish): the
 * world's (runner/) or the testbed's. */
void res_run_set_peers (ResRun *run, const SimPeerResult *peers, guint n);
/* runs.mode: "sim" (the default) or "testbed". */
gboolean res_run_set_mode (ResRun *run, const char *mode, GError **error);
/* One more params row (before any event is recorded), e.g. how the
 * testbed's network was made. */
gboolean res_run_add_param (ResRun *run, const char *key, const char *value, GError **error);
gint64 res_run_id (const ResRun *run);
/* Waits until every recorded row is written (the writer thread is idle). */
void res_run_drain (ResRun *run);
/* CPU seconds the run's writer thread has used so far (for `dlsim bench
 * record`; never part of a result). */
double res_run_writer_cpu_seconds (const ResRun *run);
/* Writes peers, rounds, traffic, summary and expectations, then the outcome.
 * out_failed: expectations that failed (array of char* lines), may be NULL. */
gboolean res_run_finish (ResRun *run, const SimResult *result, double wall_seconds,
                         GPtrArray *out_failed, guint *out_checked, GError **error);
/* Abandons a run (e.g. interrupted): commits what was recorded; the outcome
 * stays NULL unless `outcome` is given. */
void res_run_abort (ResRun *run, const char *outcome);

/* Is there a table (or, with views, a view) `name` in the database `in`
 * ("main", or an attached one)? */
gboolean res_db_has_table (struct sqlite3 *db, const char *in, const char *name, gboolean views);
/* Removes a results file and its journal, and the WAL and shared-memory
 * files an earlier dlsim (WAL mode) may have left. */
void res_db_remove_files (const char *path);

/* Every table (or view: events) with a run_id column that users read,
 * NULL-terminated. */
const char *const *res_db_table_names (void);
/* The same, with the tables that store `events` (event_rows, event_chunks)
 * in its place: what to copy or delete. */
const char *const *res_db_storage_names (void);

/* Makes temp.runs_wide in db (a results database, possibly read-only):
 * one row per run, its parameters (as written, and in SI units in a column
 * named with the unit) and its summary values but the per-peer ones
 * (res-wide.c). */
gboolean res_db_make_wide (struct sqlite3 *db, GError **error);

/* Removes every row of a run (an interrupted run that --resume redoes). */
gboolean res_db_delete_run (ResDb *db, gint64 run_id, GError **error);

/* Copies into db, in one transaction, every run of another results
 * database whose run id db lacks, with all its rows, each run's in the
 * order they were written (a sweep's end: a worker's part); out_runs:
 * how many. */
gboolean res_db_merge_missing (ResDb *db, const char *other_path, guint *out_runs, GError **error);
/* Copies into db, in one transaction, the finished runs (not interrupted,
 * not error, no outcome: not finished) of a worker's file that a killed
 * sweep left, whose run ids db lacks, with all their rows; out_runs: how
 * many.  A file without tables (its worker was killed making it) gives
 * none. */
gboolean res_db_adopt_finished (ResDb *db, const char *other_path, guint *out_runs, GError **error);

G_END_DECLS
