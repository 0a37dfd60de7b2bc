/* res-merge.h — what `dlsim merge` asks of results databases (res-merge.c):
 * copying another file's runs in, and reading node databases. */
#pragma once

#include "results/res-db.h"
#include "results/res-rows.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean renumber;    /* a different run under an id the output has: append it under a new id */
  gboolean any_build;   /* merge runs of another build (provenance.build) too */
  /* called for each renumbered run (may be NULL) */
  void (*renumbered) (const char *path, gint64 from, gint64 to, gpointer data);
  /* called when an input of an older schema (version `from`) was upgraded
   * in place before its runs were read (may be NULL) */
  void (*upgraded) (const char *path, int from, gpointer data);
  gpointer data;
} ResMergeOptions;

/* Copies every run of the results database `path` that is not a node run
 * into out, with every row of every table, in one savepoint: on an error
 * nothing of that file is merged (and no run of it is told renumbered).
 * An input of an older schema is upgraded in place first, as `dlsim run
 * -o` does; one whose run ids are not each one whole number is refused.  A run whose identity out already has
 * under its id is counted in skipped; the copied ones in merged.  Errors:
 * another build (without any_build), a different run under an id out has
 * (without renumber), no id left, or SQLite's. */
gboolean res_db_merge_runs (ResDb *out, const char *path, const ResMergeOptions *o, guint *merged, guint *skipped,
                            GError **error);

/* The node runs (mode 'node') of a database: run_id, scenario, point,
 * seed, outcome. */
ResRows *res_db_node_runs (struct sqlite3 *db);
/* A node run's recorded lines (node_records): line; in order. */
ResRows *res_db_node_lines (struct sqlite3 *db, gint64 run);
/* The run that node databases with this merge.source param were merged
 * as, or 0 if none. */
gint64 res_db_merged_as (ResDb *out, const char *source);

G_END_DECLS
