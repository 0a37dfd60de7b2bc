/* res-compare.h — `dlsim compare A.db B.db`'s questions (cli/cmd-compare.c
 * prints the answers): which run of a file to compare, and the rows of two
 * runs side by side, with whether each difference counts.
 *
 * Discrete facts (judged: a difference counts): the run's outcome, rounds
 * completed, retries, exclusions, model syncs, the violations of each
 * property (violations.NAME; judged when both runs checked it), and for
 * each peer its outcome, rounds, retries and fails received.  Shown, not
 * judged: final accuracy, message counts per type, and round durations
 * (the median and p90 of the round period, end to end, and of the
 * exchange, PeersForRound to the last aggregation). */
#pragma once

#include "results/res-db.h"

#include <glib.h>

G_BEGIN_DECLS

struct sqlite3;

/* How many runs of db match `want` (0: every run); *out_run and *out_mode
 * (transfer full; 'sim' if none) are the first one's when there is one.
 * Exactly one is a run to compare. */
guint res_compare_pick_run (struct sqlite3 *db, gint64 want, gint64 *out_run, char **out_mode);

/* A row: what is compared, A's value and B's, and whether a difference
 * counts. */
typedef struct {
  char *what, *a, *b;
  gboolean judged;
} ResCompareRow;

/* Whether the row's two values differ (and, for differences(), count). */
gboolean res_compare_row_differs (const ResCompareRow *r);

/* Quantiles of a duration on either side (NAN: no such durations). */
typedef struct {
  char *what;                  /* "round period median (s)" */
  double a, b;
} ResCompareDuration;

typedef struct {
  GPtrArray *facts;            /* ResCompareRow: outcome, summary facts, violations.NAME, final_accuracy */
  GPtrArray *peers;            /* ResCompareRow: each peer, "outcome rounds retries fails" ("absent") */
  GPtrArray *messages;         /* ResCompareRow: messages per type, not judged */
  GPtrArray *durations;        /* ResCompareDuration: round period and exchange, median and p90 */
} ResComparison;

/* Run a of db_a beside run b of db_b. */
ResComparison *res_compare_runs (struct sqlite3 *db_a, gint64 a, struct sqlite3 *db_b, gint64 b);
/* The judged rows that differ. */
guint res_comparison_differences (const ResComparison *c);
void res_comparison_free (ResComparison *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResComparison, res_comparison_free)

/* The pieces, for tests: */
/* Nearest-rank quantile q of sorted (doubles); NAN when empty. */
double res_compare_quantile (const GArray *sorted, double q);
/* A run's round periods (end_s of round k minus end_s of round k-1, for
 * consecutive finished rounds) and exchanges (end_s - list_s), each
 * sorted, appended to period and exchange. */
void res_compare_durations (struct sqlite3 *db, gint64 run, GArray *period, GArray *exchange);
/* The keys of a and b (sets or maps with string keys), each once, sorted
 * (peer names by number: p2 before p10); the strings are the tables'. */
GPtrArray *res_compare_union_keys (GHashTable *a, GHashTable *b);

G_END_DECLS
