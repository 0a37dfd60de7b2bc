/* res-db-private.h — shared by res-file.c (the file) and res-db.c (a run's
 * recording). */
#pragma once

#include "results/res-db.h"
#include "results/res-rows.h"

#include <sqlite3.h>

struct ResDb {
  sqlite3 *db;
  char *path;
  int lock_fd;   /* holds the writers' lock (res-file.c, WRITER_LOCK_AT); -1: none */
  gboolean part; /* a worker's part of a sweep (res_db_open_part): closed as it is */
};

/* Runs SQL; on failure sets error with the file's path and SQLite's message. */
gboolean res_db_exec (ResDb *db, const char *sql, GError **error);

/* res-rows.c: a cursor over st (taken; NULL: no rows), or over sql
 * prepared on db (no rows if it cannot be). */
ResRows *_res_rows_new (sqlite3 *db, sqlite3_stmt *st);
ResRows *_res_rows_prepare (sqlite3 *db, const char *sql);
/* The statement, to bind its parameters before the first res_rows_next. */
sqlite3_stmt *_res_rows_stmt (ResRows *rows);
