/* export.h — a recorded run in formats other tools read (export/):
 * export-perfetto.c writes one run's events as Chrome trace-event JSON
 * for Perfetto (`dlsim trace --format perfetto`); export-scenario.c
 * rebuilds the scenario file that reproduces a run (`dlsim
 * export-scenario`, `dlsim shrink`).  They read the run through results/'
 * queries (res-query.h) and call no SQLite themselves. */
#pragma once

#include "protocol/proto-keys.h"

#include <glib.h>

G_BEGIN_DECLS

struct sqlite3;

/* Run `run` of db (opened for reading: res_db_open_read) as Chrome
 * trace-event JSON in path; peer (NULL: every node) and brief filter as
 * `dlsim trace` does.  FALSE with error if the events cannot be read or
 * the file cannot be written. */
gboolean export_perfetto (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, const char *path,
                          GError **error);

/* The text of a scenario file that reproduces run `run` of db (opened for
 * reading; db_name is how its header names the file): every resolved
 * value, the timeline, the seed the run used and, with with_expect, its
 * [expect] lines.  With timeline non-NULL the timeline lines go there as
 * "timeline.WHEN=ACTION" instead of into the text.  Relative paths are
 * made absolute (export_scenario_folder, export_scenario_path).  When
 * this build is not the one that recorded the run, the text says so and
 * *warning (if given; else NULL) is the line to tell the user.  NULL with
 * error (RES_ERROR_NOT_FOUND: "DB: no run N") if there is no such run. */
char *export_scenario_text (struct sqlite3 *db, const char *db_name, gint64 run, GPtrArray *timeline,
                            gboolean with_expect, char **warning, GError **error);

/* The folder a run's relative paths are taken from: the folder of its file
 * (made absolute against cwd), moved by its [scenario] dir (relative: to
 * the file's folder; NULL or empty: not moved).  NULL if file is "" (a run
 * recorded without a file). */
char *export_scenario_folder (const char *file, const char *dir, const char *cwd);

/* A key's value with its path, of the key table's form, made absolute
 * against folder (NULL: the value as it is, but for PATH_OR_HERE's empty
 * value, then ""); a value that is not a path as it is. */
char *export_scenario_path (ProtoKeyPath form, const char *value, const char *folder);

G_END_DECLS
