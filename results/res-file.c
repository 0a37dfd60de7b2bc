/* res-file.c — the results database file: the schema and its upgrades,
 * opening and closing, the list of tables, deleting and merging runs
 * (res-db.h). */
#define _GNU_SOURCE 1   /* F_OFD_SETLK */
#include "config.h"

#include "results/res-db.h"
#include "results/res-db-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (res-error-quark, res_error)


static const char schema[] =
  "CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, scenario TEXT, point INTEGER,"
  " point_label TEXT, seed INTEGER, dlsim_version TEXT, protocol_version TEXT, started_at TEXT,"
  " wall_seconds REAL, sim_end_s REAL, outcome TEXT, file TEXT, mode TEXT DEFAULT 'sim');"
  "CREATE TABLE IF NOT EXISTS params (run_id INTEGER, key TEXT, value TEXT);"
  "CREATE TABLE IF NOT EXISTS peers (run_id INTEGER, peer TEXT, joined_s REAL, left_s REAL,"
  " outcome TEXT, rounds INTEGER, speed REAL, synced INTEGER, retries_received INTEGER,"
  " fails_received INTEGER, accuracy REAL, loss REAL, uplink_bps INTEGER, downlink_bps INTEGER);"
  "CREATE TABLE IF NOT EXISTS rounds (run_id INTEGER, round INTEGER, list_s REAL, start_s REAL,"
  " end_s REAL, participants INTEGER, retries INTEGER, excluded INTEGER);"
  /* `events` (the contract) is a view over:
   * - event_chunks: a run's events, CHUNK_ROWS to a row, as a JSON array of
   *   [t_s, node, kind, round, other, detail, state, msg, value]
   *   (res-writer.c), unfolded by json_each; seq is first_seq plus the
   *   row's index;
   * - event_rows: the events table of files written before schema 4, one
   *   row per event (new runs write none).
   * event_rows is clustered by (run_id, seq).  event_chunks is a rowid
   * table (files written before this change keep theirs WITHOUT ROWID, read the
   * same): rows arrive in key order, so inserting is an append and its
   * index keeps a run's chunks one range.  WITHOUT ROWID made each insert
   * compare the new key with cells whose record (the chunk's ~70 KB of
   * text) overflows, and SQLite copies such a record whole to compare it:
   * a sixth of the writer's time (docs/performance.md, "Recording"). */
  "CREATE TABLE IF NOT EXISTS event_rows (run_id INTEGER, seq INTEGER, t_s REAL, node TEXT, kind TEXT,"
  " round INTEGER, other TEXT, detail TEXT, state TEXT, msg TEXT, value INTEGER,"
  " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS event_chunks (run_id INTEGER, first_seq INTEGER, rows TEXT,"
  " PRIMARY KEY (run_id, first_seq));"
  "CREATE VIEW IF NOT EXISTS events AS"
  " SELECT run_id, seq, t_s, node, kind, round, other, detail, state, msg, value FROM event_rows"
  " UNION ALL SELECT c.run_id, c.first_seq + j.key, json_extract (j.value, '$[0]'),"
  " json_extract (j.value, '$[1]'), json_extract (j.value, '$[2]'), json_extract (j.value, '$[3]'),"
  " json_extract (j.value, '$[4]'), json_extract (j.value, '$[5]'), json_extract (j.value, '$[6]'),"
  " json_extract (j.value, '$[7]'), json_extract (j.value, '$[8]')"
  " FROM event_chunks c, json_each (c.rows) j;"
  "CREATE TABLE IF NOT EXISTS metrics (run_id INTEGER, t_s REAL, round INTEGER, peer TEXT, name TEXT,"
  " value REAL);"
  "CREATE TABLE IF NOT EXISTS traffic (run_id INTEGER, type TEXT, messages INTEGER, bytes INTEGER);"
  /* NUMERIC (schema 6): a value that reads as a number is stored as one
   * (INTEGER or REAL), other text as text, so tools reading the table get
   * numbers; no value (a model-less run's accuracy) is NULL */
  "CREATE TABLE IF NOT EXISTS summary (run_id INTEGER, key TEXT, value NUMERIC);"
  "CREATE TABLE IF NOT EXISTS expectations (run_id INTEGER, key TEXT, expected TEXT, actual TEXT,"
  " passed INTEGER);"
  /* a testbed node's own records (`dlsim node -o`), merged by `dlsim merge` */
  /* properties broken while the run executed (sim-props.h) */
  "CREATE TABLE IF NOT EXISTS violations (run_id INTEGER, t_s REAL, property TEXT, node TEXT,"
  " explanation TEXT);"
  "CREATE TABLE IF NOT EXISTS node_records (run_id INTEGER, seq INTEGER, line TEXT,"
  " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"

  "CREATE INDEX IF NOT EXISTS metrics_run ON metrics (run_id, name, round);"
  "CREATE INDEX IF NOT EXISTS params_run ON params (run_id, key);"
  "CREATE INDEX IF NOT EXISTS summary_run ON summary (run_id, key);"
  "CREATE INDEX IF NOT EXISTS peers_run ON peers (run_id);"
  "CREATE INDEX IF NOT EXISTS rounds_run ON rounds (run_id, round);";

static const char *const tables[] = {
  "runs", "params", "peers", "rounds", "events", "metrics", "traffic", "summary", "expectations",
  "violations", "node_records", NULL
};
/* the same with what stores `events` in its place */
static const char *const storage[] = {
  "runs", "params", "peers", "rounds", "event_rows", "event_chunks", "metrics", "traffic", "summary",
  "expectations", "violations", "node_records", NULL
};

gboolean
res_db_exec (ResDb *db, const char *sql, GError **error)
{
  char *msg = NULL;
  if (sqlite3_exec (db->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, msg ? msg : "?");
      sqlite3_free (msg);
      return FALSE;
    }
  return TRUE;
}

gboolean
res_db_has_table (sqlite3 *db, const char *in, const char *name, gboolean views)
{
  char *sql = sqlite3_mprintf ("SELECT 1 FROM %w.sqlite_master WHERE name = ?1 AND (type = 'table' OR (?2 AND type = 'view'))",
                               in);
  sqlite3_stmt *st = NULL;
  gboolean yes = FALSE;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
      sqlite3_bind_int (st, 2, views);
      yes = sqlite3_step (st) == SQLITE_ROW;
    }
  sqlite3_finalize (st);
  sqlite3_free (sql);
  return yes;
}

void
res_db_remove_files (const char *path)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  g_unlink (path);
  g_unlink (journal);
  g_unlink (wal);
  g_unlink (shm);
}

/* A writer's lock: one byte of the file past the bytes SQLite locks
 * (0x40000000 to 0x40000201), taken with an open file description lock,
 * so that SQLite's own locks on the file, in this process or another,
 * neither meet nor release it; the kernel drops it when the process ends,
 * however it ends.  SQLite alone lets one writer in at a time for a
 * transaction; a run holds its write transaction between its once-a-second
 * commits, so a second run's writes would wait for a gap that hardly
 * comes, and two runs that read the largest run id before either wrote
 * took the same ids. */
#define WRITER_LOCK_AT (0x40000000 + 4096)

/* The descriptor that holds the lock, -1 with error set, or -1 without
 * when the file system has no such locks (then SQLite's own locks are
 * all there is). */
static int
lock_writer (const char *path, void (*waiting) (const char *path), GError **error)
{
  int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path, g_strerror (e));
      return -1;
    }
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = WRITER_LOCK_AT, .l_len = 1 };
  if (fcntl (fd, F_OFD_SETLK, &fl) == 0)
    return fd;
  if (errno == EAGAIN || errno == EACCES)
    {
      if (waiting)
        waiting (path);
      int rc;
      while ((rc = fcntl (fd, F_OFD_SETLKW, &fl)) != 0 && errno == EINTR)
        ;
      if (rc == 0)
        return fd;
    }
  close (fd);
  return -1;
}

/* Has main's table a column of that name?  (No table: no column.) */
static gboolean
has_column (sqlite3 *db, const char *table, const char *column)
{
  sqlite3_stmt *st = NULL;
  gboolean yes = FALSE;
  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM pragma_table_info (?1) WHERE name = ?2", -1, &st, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (st, 1, table, -1, SQLITE_STATIC);
      sqlite3_bind_text (st, 2, column, -1, SQLITE_STATIC);
      yes = sqlite3_step (st) == SQLITE_ROW;
    }
  sqlite3_finalize (st);
  return yes;
}

/* The tables every dlsim results file has had since schema 1. */
static const char *const first_tables[] = {
  "runs", "params", "peers", "rounds", "metrics", "traffic", "summary", "expectations", NULL
};

/* Is the file one dlsim may write to: new (no tables and no schema
 * version), or dlsim's own with its tables?  dlsim does not add its
 * tables to another program's database, nor make a damaged file's missing
 * tables again (new runs would mix with rows left from the old ones). */
static gboolean
check_own_file (ResDb *db, int version, GError **error)
{
  if (version == 0)
    {
      sqlite3_stmt *st = NULL;
      g_autofree char *names = NULL;
      if (sqlite3_prepare_v2 (db->db, "SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master"
                                      " WHERE name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 6)", -1, &st, NULL)
              == SQLITE_OK
          && sqlite3_step (st) == SQLITE_ROW && sqlite3_column_text (st, 0))
        names = g_strdup ((const char *) sqlite3_column_text (st, 0));
      sqlite3_finalize (st);
      if (names)
        {
          g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA,
                       "%s is not a dlsim results database (it has %s): dlsim writes results only to a new"
                       " file or to one of its own", db->path, names);
          return FALSE;
        }
      return TRUE;
    }
  for (int i = 0; first_tables[i]; i++)
    if (!res_db_has_table (db->db, "main", first_tables[i], FALSE))
      {
        g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA,
                     "%s: a dlsim results database without its %s table (damaged, or not dlsim's): dlsim"
                     " does not write to it; read what is left, or write to a new file",
                     db->path, first_tables[i]);
        return FALSE;
      }
  return TRUE;
}

ResDb *
res_db_open (const char *path, GError **error)
{
  return res_db_open_wait (path, NULL, error);
}

/* While this process writes: WAL with synchronous = NORMAL, so that a
 * commit (a run's runs row, its once-a-second commits, its end) writes
 * to the log and waits on no disk: a short sweep spent half its wall
 * time in the fsyncs of a rollback journal's commits (issue 44).  A
 * commit is in the operating system's hands when COMMIT returns, so a
 * killed process loses nothing committed; a power loss may lose what
 * was committed since the last checkpoint (SQLite's automatic one, or
 * res_db_close's), never the file.  res_db_close switches the file back
 * to a rollback journal (that checkpoint, and one file at rest, which
 * read-only readers open as before).  A file a killed writer left in
 * WAL mode is recovered by the next writer's open. */
#define WRITER_PRAGMAS \
  "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -4096; PRAGMA temp_store = MEMORY;"

/* The connection to db->path, and the schema version the file holds
 * (0: a new file) */
static gboolean
open_connection (ResDb *db, int *version, GError **error)
{
  const char *path = db->path;
  /* one connection per process, used by one thread: no SQLite mutexes */
  if (sqlite3_open_v2 (path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                       NULL) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path, sqlite3_errmsg (db->db));
      return FALSE;
    }
  sqlite3_busy_timeout (db->db, RES_BUSY_TIMEOUT_MS);
  sqlite3_stmt *st = NULL;
  *version = 0;
  if (sqlite3_prepare_v2 (db->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: not a results database: %s", path,
                   sqlite3_errmsg (db->db));
      return FALSE;
    }
  if (sqlite3_step (st) == SQLITE_ROW)
    *version = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  return check_own_file (db, *version, error);
}

/* The file's schema brought from `version` to RES_SCHEMA_VERSION (or
 * made, version 0), in one transaction */
static gboolean
upgrade_schema (ResDb *db, int version, GError **error)
{
  /* Each step of an upgrade is decided here and made in the transaction
   * below, with the new user_version: a process killed in it leaves the
   * file as it was.  Each checks what it adds is not there yet (a file an
   * earlier dlsim left half upgraded, its ALTER done and its version not). */
  /* 2: version 1 had no runs.mode: every run in it was simulated */
  gboolean add_mode = version == 1 && !has_column (db->db, "runs", "mode");
  if (version == 1)
    version = 2;
  if (version == 2)
    version = 3;   /* 3 adds the node_records table, created below */
  /* 4: the events table becomes event_rows, under the events view, and
   * event_chunks is created (in the transaction below) */
  gboolean rename_events = version == 3 && res_db_has_table (db->db, "main", "events", FALSE);
  if (version == 3)
    version = 4;
  /* 5: each peer's rates (drawn per peer when a rate is a distribution),
   * two columns added in the transaction below */
  gboolean add_uplink = version == 4 && !has_column (db->db, "peers", "uplink_bps");
  gboolean add_downlink = version == 4 && !has_column (db->db, "peers", "downlink_bps");
  if (version == 4)
    version = 5;
  /* 6: summary.value NUMERIC instead of TEXT, its values converted as a new
   * run's are, '' (no value) NULL */
  gboolean retype_summary = version == 5;
  if (version == 5)
    version = 6;
  if (version != 0 && version != RES_SCHEMA_VERSION)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA,
                   "%s: results schema version %d, this dlsim writes version %d", db->path, version,
                   RES_SCHEMA_VERSION);
      return FALSE;
    }
  g_autofree char *pragma = g_strdup_printf ("PRAGMA user_version = %d;", RES_SCHEMA_VERSION);
  if (version == 0 && !res_db_exec (db, "PRAGMA page_size = 65536;", error))
    return FALSE;
  if (!res_db_exec (db, WRITER_PRAGMAS, error)
      || !res_db_exec (db, "BEGIN", error)
      || (add_mode && !res_db_exec (db, "ALTER TABLE runs ADD COLUMN mode TEXT DEFAULT 'sim'", error))
      || (rename_events && !res_db_exec (db, "ALTER TABLE events RENAME TO event_rows", error))
      || (add_uplink && !res_db_exec (db, "ALTER TABLE peers ADD COLUMN uplink_bps INTEGER", error))
      || (add_downlink && !res_db_exec (db, "ALTER TABLE peers ADD COLUMN downlink_bps INTEGER", error))
      || (retype_summary
          && !res_db_exec (db,
                           "DROP TABLE IF EXISTS summary_v6;"
                           " CREATE TABLE summary_v6 (run_id INTEGER, key TEXT, value NUMERIC);"
                           " INSERT INTO summary_v6 SELECT run_id, key, NULLIF (value, '') FROM summary ORDER BY rowid;"
                           " DROP TABLE summary; ALTER TABLE summary_v6 RENAME TO summary;",
                           error))
      || !res_db_exec (db, schema, error) || !res_db_exec (db, pragma, error)
      || !res_db_exec (db, "COMMIT", error))
    {
      res_db_exec (db, "ROLLBACK", NULL);
      return FALSE;
    }
  return TRUE;
}

ResDb *
res_db_open_wait (const char *path, void (*waiting) (const char *path), GError **error)
{
  ResDb *db = g_new0 (ResDb, 1);
  db->path = g_strdup (path);
  GError *lock_error = NULL;
  db->lock_fd = lock_writer (path, waiting, &lock_error);
  int version = 0;
  if (lock_error)
    g_propagate_error (error, lock_error);
  else if (open_connection (db, &version, error) && upgrade_schema (db, version, error))
    return db;
  res_db_close (db);
  return NULL;
}

ResDb *
res_db_open_part (const char *path, GError **error)
{
  ResDb *db = res_db_open_wait (path, NULL, error);
  if (!db)
    return NULL;
  /* the last connection's close would checkpoint the log into the file
   * and sync both: a serial tail of every sweep, for a file that the
   * sweep's process reads once and removes */
  sqlite3_db_config (db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  db->part = TRUE;
  return db;
}

ResDb *
res_db_open_explained (const char *path, void (*waiting) (const char *path), GError **error)
{
  g_autoptr (GError) local = NULL;
  ResDb *db = res_db_open_wait (path, waiting, &local);
  if (db)
    return db;
  g_autofree char *dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_set_error (error, local->domain, local->code, "%s: cannot create the database: the folder %s does not exist",
                 path, dir);
  else if (!g_file_test (path, G_FILE_TEST_EXISTS) && g_access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code,
                   "%s: cannot create the database: the folder %s is not writable (%s)", path, dir, g_strerror (e));
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS) && g_access (path, W_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code, "%s: cannot write the database: %s", path, g_strerror (e));
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS) && g_access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code,
                   "%s: cannot write the database: its folder %s is not writable (%s), and SQLite writes its "
                   "journal there", path, dir, g_strerror (e));
    }
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
}

/* Opens path read-write (never creating it) and reads its schema, which
 * rolls back a hot journal or recovers a killed writer's WAL: what a
 * read-only connection cannot do. */
static gboolean
roll_back_journal (const char *path, GError **error)
{
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_extended_result_codes (db, 1);
      sqlite3_busy_timeout (db, RES_BUSY_TIMEOUT_MS);
      rc = sqlite3_exec (db, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL);
    }
  if (rc != SQLITE_OK)
    g_set_error (error, RES_ERROR, RES_ERROR_SQLITE,
                 "%s: a run that was killed left its journal (%s-journal or %s-wal), which only a writer can"
                 " roll back or recover, and this file or its folder cannot be written (%s): make both writable,"
                 " then read it again",
                 path, path, path, db ? sqlite3_errmsg (db) : "out of memory");
  sqlite3_close (db);
  return rc == SQLITE_OK;
}

sqlite3 *
res_db_open_read (const char *path, GError **error)
{
  for (gboolean rolled_back = FALSE;; rolled_back = TRUE)
    {
      sqlite3 *db = NULL;
      if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        {
          g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path,
                       db ? sqlite3_errmsg (db) : "out of memory");
          sqlite3_close (db);
          return NULL;
        }
      sqlite3_extended_result_codes (db, 1);
      sqlite3_busy_timeout (db, RES_BUSY_TIMEOUT_MS);
      sqlite3_stmt *st = NULL;
      int rc = sqlite3_prepare_v2 (db, "SELECT COUNT(*) FROM runs", -1, &st, NULL);
      if (rc == SQLITE_OK)
        rc = sqlite3_step (st) == SQLITE_ROW ? SQLITE_OK : sqlite3_extended_errcode (db);
      sqlite3_finalize (st);
      if (rc == SQLITE_OK)
        return db;
      g_autofree char *msg = g_strdup (sqlite3_errmsg (db));
      sqlite3_close (db);
      if ((rc == SQLITE_READONLY_ROLLBACK || rc == SQLITE_READONLY_RECOVERY || rc == SQLITE_READONLY_CANTINIT)
          && !rolled_back)
        {
          if (!roll_back_journal (path, error))
            return NULL;
          continue;
        }
      if (rc == SQLITE_ERROR || rc == SQLITE_NOTADB)
        g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA, "%s: not a dlsim results database (%s)", path, msg);
      else
        g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path, msg);
      return NULL;
    }
}

static void
journal_at_rest (ResDb *db)
{
  /* back to a rollback journal (res_db_open_wait): checkpoints the log
   * into the file, syncs it and removes the log.  When another
   * connection holds the file (in WAL mode each holds a shared lock
   * while open), SQLite refuses at once, with no busy wait: the mode
   * stays WAL, and the last connection to close folds the log if it
   * may write, else the next writer's open does. */
  if (sqlite3_get_autocommit (db->db))
    sqlite3_exec (db->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
}

void
res_db_close (ResDb *db)
{
  if (!db)
    return;
  if (db->db)
    {
      if (!db->part)
        journal_at_rest (db);
      sqlite3_close (db->db);
    }
  if (db->lock_fd >= 0)
    close (db->lock_fd);
  g_free (db->path);
  g_free (db);
}

sqlite3 *
res_db_handle (ResDb *db)
{
  return db->db;
}

gint64
res_db_max_run_id (ResDb *db)
{
  sqlite3_stmt *st = NULL;
  gint64 id = 0;
  if (sqlite3_prepare_v2 (db->db, "SELECT COALESCE(MAX(run_id), 0) FROM runs", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    id = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return id;
}

gboolean
res_db_next_run_ids (ResDb *db, guint64 n, gint64 *first_id, GError **error)
{
  gint64 max = MAX (res_db_max_run_id (db), 0);
  n = MAX (n, 1);
  if ((guint64) (G_MAXINT64 - max) < n)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA,
                   "%s: its largest run id is %" G_GINT64_FORMAT ", and %" G_GUINT64_FORMAT
                   " more would pass 2^63 - 1, the largest id SQLite keeps: write them to another file",
                   db->path, max, n);
      return FALSE;
    }
  *first_id = max + 1;
  return TRUE;
}

const char *const *
res_db_table_names (void)
{
  return tables;
}

const char *const *
res_db_storage_names (void)
{
  return storage;
}

gboolean
res_db_delete_run (ResDb *db, gint64 run_id, GError **error)
{
  for (int i = 0; storage[i]; i++)
    {
      g_autofree char *sql = g_strdup_printf ("DELETE FROM %s WHERE run_id = %" G_GINT64_FORMAT, storage[i], run_id);
      if (!res_db_exec (db, sql, error))
        return FALSE;
    }
  return TRUE;
}

/* Detaches w, a worker's part (res_db_open_part) or a file like it, as it
 * is: this connection, the last one to close it, would otherwise
 * checkpoint its log into it and sync both, for a file about to be
 * removed. */
static void
detach_part (ResDb *db)
{
  sqlite3_db_config (db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  res_db_exec (db, "DETACH DATABASE w", NULL);
  sqlite3_db_config (db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
}

/* Is w's table t a WITHOUT ROWID table (event_rows, node_records, and
 * event_chunks in files written before it had a rowid)? */
static gboolean
without_rowid (sqlite3 *db, const char *t)
{
  sqlite3_stmt *st = NULL;
  gboolean yes = FALSE;
  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM w.sqlite_master WHERE type = 'table' AND name = ?1"
                              " AND sql LIKE '%WITHOUT ROWID'", -1, &st, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (st, 1, t, -1, SQLITE_STATIC);
      yes = sqlite3_step (st) == SQLITE_ROW;
    }
  sqlite3_finalize (st);
  return yes;
}

/* The ORDER BY that gives the rows of w's table t of one run in the
 * order they were written: their rowid's (a run_id index would give them
 * in its key's order: a run's summary or params would lose theirs),
 * except where the key is that order: a WITHOUT ROWID table's, (run_id,
 * seq), and event_chunks' (run_id, first_seq), whose chunks a run writes
 * in seq order (res-writer.c): sorting its rows by rowid would copy each
 * chunk's text through a sorter. */
static const char *
written_order (sqlite3 *db, const char *t)
{
  if (without_rowid (db, t))
    return "";
  if (strcmp (t, "event_chunks") == 0)
    return " ORDER BY run_id, first_seq";
  return " ORDER BY rowid";
}

/* Copies into db, in one transaction, the runs of the file other whose
 * ids `pick` (a SELECT of run ids from w.runs, other attached as w)
 * gives, with all their rows; out_runs: how many.  Each run's rows
 * come in the order they were written (written_order).  A file without tables (its worker was killed making it) gives none.
 * other is detached as it is (detach_part). */
static gboolean
copy_runs (ResDb *db, const char *other, const char *pick, guint *out_runs, GError **error)
{
  char *q = sqlite3_mprintf ("ATTACH DATABASE %Q AS w", other);
  gboolean ok = res_db_exec (db, q, error);
  sqlite3_free (q);
  if (!ok)
    return FALSE;
  guint n = 0;
  gboolean any = res_db_has_table (db->db, "w", "runs", FALSE);
  g_autofree char *make = g_strconcat ("CREATE TEMP TABLE pick AS ", pick, NULL);
  ok = res_db_exec (db, "BEGIN", error) && (!any || res_db_exec (db, make, error));
  for (guint i = 0; ok && any && storage[i]; i++)
    {
      if (!res_db_has_table (db->db, "w", storage[i], FALSE))
        continue;
      g_autofree char *ins = g_strdup_printf ("INSERT INTO main.%s SELECT * FROM w.%s"
                                              " WHERE run_id IN (SELECT run_id FROM temp.pick)%s", storage[i],
                                              storage[i], written_order (db->db, storage[i]));
      ok = res_db_exec (db, ins, error);
      if (ok && i == 0)
        n = (guint) sqlite3_changes (db->db);
    }
  ok = ok && (!any || res_db_exec (db, "DROP TABLE temp.pick", error)) && res_db_exec (db, "COMMIT", error);
  if (!ok)
    res_db_exec (db, "ROLLBACK", NULL);
  detach_part (db);
  if (ok && out_runs)
    *out_runs = n;
  return ok;
}

gboolean
res_db_merge_missing (ResDb *db, const char *other, guint *out_runs, GError **error)
{
  return copy_runs (db, other, "SELECT run_id FROM w.runs WHERE run_id NOT IN (SELECT run_id FROM main.runs)",
                    out_runs, error);
}

gboolean
res_db_adopt_finished (ResDb *db, const char *other, guint *out_runs, GError **error)
{
  /* finished (an outcome other than interrupted or error) and under an
   * id db does not have */
  return copy_runs (db, other, "SELECT run_id FROM w.runs WHERE outcome IS NOT NULL"
                               " AND outcome NOT IN ('interrupted', 'error')"
                               " AND run_id NOT IN (SELECT run_id FROM main.runs)", out_runs, error);
}

gboolean
res_db_hold_at_rest (ResDb *db)
{
  /* in WAL mode each open connection holds a shared lock on the file,
   * so the switch takes its exclusive lock only when no other connection
   * has the file open, and fails at once otherwise (no busy wait); under
   * locking_mode EXCLUSIVE the connection keeps that lock after it */
  sqlite3_stmt *st = NULL;
  gboolean at_rest = FALSE;
  if (res_db_exec (db, "PRAGMA locking_mode = EXCLUSIVE", NULL)
      && sqlite3_prepare_v2 (db->db, "PRAGMA journal_mode = DELETE", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    at_rest = g_strcmp0 ((const char *) sqlite3_column_text (st, 0), "delete") == 0;
  sqlite3_finalize (st);
  if (!at_rest)
    res_db_exec (db, "PRAGMA locking_mode = NORMAL", NULL);
  return at_rest;
}

void
res_db_release (ResDb *db)
{
  /* the exclusive lock goes at the next access after the change */
  res_db_exec (db, "PRAGMA locking_mode = NORMAL; SELECT COUNT(*) FROM sqlite_master", NULL);
}
