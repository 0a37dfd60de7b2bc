/* res-violations.h — the property violations of one run (sim-props.h) on
 * their way into the results database: the `violations` table, the summary
 * keys violations.NAME, and the implicit expectation that a scenario with
 * an [expect] section breaks no property it does not declare
 * (`[expect] violations.progress >= 1` pins a known failure).
 *
 * Shape: res_violations_new / res_violations_free. */
#pragma once

#include "scenario/sim-scenario.h"
#include "host/sim-types.h"

#include <sqlite3.h>

G_BEGIN_DECLS

typedef struct ResViolations ResViolations;

ResViolations *res_violations_new (void);
void res_violations_free (ResViolations *v);
void res_violations_add (ResViolations *v, DlTime t, const char *property, const char *node, const char *explanation);
/* Writes the violations rows of run_id.  FALSE on an SQLite error. */
gboolean res_violations_write (ResViolations *v, sqlite3 *db, gint64 run_id);
/* The summary values: violations.NAME -> count (transfer full), in order. */
void res_violations_summary (const SimResult *res, GPtrArray *keys, GPtrArray *values);
/* Properties broken but not named in any expectation of the point: a line
 * each ("violations.NAME: N, not expected (first: ...)") into out_failed,
 * and a row each in expectations.  Only for points with an [expect]. */
gboolean res_violations_check (ResViolations *v, const SimResult *res, const SimPoint *point, sqlite3 *db,
                               gint64 run_id, GPtrArray *out_failed, guint *checked);

G_END_DECLS
