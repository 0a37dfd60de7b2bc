/* export.h — recorded runs in formats other tools read (export/):
 * export-perfetto.c writes one run's events as Chrome trace-event JSON
 * for Perfetto (`dlsim trace --format perfetto`); export-tables.c writes
 * every table of a results database as CSV or JSON lines (`dlsim
 * export`); export-check.c the checked runs as JUnit XML and TAP (`dlsim
 * check --junit --tap`); export-scenario.c rebuilds the scenario file
 * that reproduces a run (`dlsim export-scenario`, `dlsim shrink`).  They
 * read through results/' queries (res-query.h) and call no SQLite
 * themselves. */
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

typedef enum {
  EXPORT_CSV,     /* a header row, NULL as an empty field, text quoted (libcsv) */
  EXPORT_JSONL,   /* an object per row, NULL as null, numbers as numbers */
} ExportFormat;

/* "csv" or "jsonl"; FALSE for anything else (NULL too). */
gboolean export_format_from_name (const char *name, ExportFormat *out);

/* What `dlsim export` may write: every table of the schema
 * (res_db_table_names), then runs_wide (NULL-terminated; static). */
const char *const *export_table_names (void);

typedef enum {
  EXPORT_DONE,
  EXPORT_NO_TABLE,   /* table names nothing export_table_names lists, or nothing in the database */
  EXPORT_FAILED,     /* runs_wide cannot be made, dir or a file cannot be written, rows cannot be read */
} ExportStatus;

typedef struct {
  ExportFormat format;
  const char *table;   /* one of export_table_names (); NULL: every one the database has */
  const char *dir;     /* made if missing; DIR/TABLE.csv or DIR/TABLE.jsonl */
  /* each file written in full, with its rows (NULL: nothing said) */
  void (*written) (const char *path, guint64 rows, gpointer data);
  /* each error, in the order met, as "WHAT: why" (NULL: nothing said) */
  void (*failed) (const char *message, gpointer data);
  gpointer data;
} ExportTablesOptions;

/* Writes the tables of db (opened for reading, from db_path: the errors
 * name it) as o says; runs_wide (a temporary view: res_db_make_wide) is
 * made first when o->table is NULL or runs_wide.  Stops at the first
 * error (a file being written is closed; a table whose rows cannot be
 * read after some were written keeps them). */
ExportStatus export_tables (struct sqlite3 *db, const char *db_path, const ExportTablesOptions *o);

/* The checked runs of db_path (runs with expectation rows, in run order)
 * as JUnit XML in junit and/or TAP version 13 in tap (either may be NULL;
 * both NULL: nothing is read).  FALSE (error set) if the database cannot
 * be read or a file cannot be written. */
gboolean export_check_reports (const char *db_path, const char *junit, const char *tap, GError **error);
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
