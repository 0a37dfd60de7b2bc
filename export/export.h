/* export.h — a recorded run in formats other tools read (export/):
 * export-perfetto.c writes one run's events as Chrome trace-event JSON
 * for Perfetto (`dlsim trace --format perfetto`).  It reads the run
 * through results/' queries (res-query.h) and calls no SQLite itself. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct sqlite3;

/* Run `run` of db (opened for reading: res_db_open_read) as Chrome
 * trace-event JSON in path; peer (NULL: every node) and brief filter as
 * `dlsim trace` does.  FALSE with error if the events cannot be read or
 * the file cannot be written. */
gboolean export_perfetto (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, const char *path,
                          GError **error);

G_END_DECLS
