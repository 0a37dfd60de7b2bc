/* res-db-private.h — shared by res-file.c (the file) and res-db.c (a run's
 * recording). */
#pragma once

#include "results/res-db.h"

#include <sqlite3.h>

struct ResDb {
  sqlite3 *db;
  char *path;
  int lock_fd;   /* holds the writers' lock (res-file.c, WRITER_LOCK_AT); -1: none */
};

/* Runs SQL; on failure sets error with the file's path and SQLite's message. */
gboolean res_db_exec (ResDb *db, const char *sql, GError **error);
