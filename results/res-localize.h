/* res-localize.h — `dlsim explore --localize`'s curve, stored with the
 * found run it localizes (recorded as a run of its own): metrics rows
 * `localize.failure_ratio` and `localize.runs` at each cut's time (peer
 * NULL), summary rows `localize.certain` and `localize.decisive_s`, and
 * params `localize.decisive`, the decisive instant's events as text.
 * `dlsim plot DB localize` reads them back (plots/plot-localize.c). */
#pragma once

#include "results/res-db.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double t_s;            /* the cut */
  guint runs, failing;   /* runs made there, runs that failed as the found run did */
} ResLocalizePoint;

/* Writes the curve of run_id; decisive_s NAN and decisive NULL: the
 * failure never became certain.  FALSE with error on an SQLite error. */
gboolean res_localize_write (ResDb *db, gint64 run_id, const ResLocalizePoint *pts, guint n, double certain,
                             double decisive_s, const char *decisive, GError **error);

G_END_DECLS
