/* test-results-compare.c — `dlsim compare`'s questions (res-compare.c):
 * the nearest-rank quantile, which run of a file is picked, the round
 * periods and exchanges of a run, the union of keys in peer order, and
 * the rows of two runs with the differences that count.  A tcase of
 * tests/test-results (test-results.h). */
#include "config.h"

#include "tests/test-results.h"
#include "results/res-compare.h"
#include "results/res-db.h"
#include "results/res-query.h"

#include <check.h>
#include <math.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

static GArray *
doubles (const double *v, guint n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_vals (a, v, n);
  return a;
}

START_TEST (test_compare_quantile)
{
  static const double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  static const double three[] = { 1, 2, 3 };
  static const double one[] = { 7 };
  g_autoptr (GArray) a = doubles (ten, 10);
  g_autoptr (GArray) b = doubles (three, 3);
  g_autoptr (GArray) c = doubles (one, 1);
  g_autoptr (GArray) none = doubles (NULL, 0);
  /* nearest rank: the ceil(q n)-th smallest */
  ck_assert_double_eq (res_compare_quantile (a, 0.5), 5);
  ck_assert_double_eq (res_compare_quantile (a, 0.9), 9);
  ck_assert_double_eq (res_compare_quantile (a, 0.91), 10);
  ck_assert_double_eq (res_compare_quantile (a, 1), 10);
  ck_assert_double_eq (res_compare_quantile (a, 0), 1);
  ck_assert_double_eq (res_compare_quantile (b, 0.5), 2);
  ck_assert_double_eq (res_compare_quantile (b, 0.9), 3);
  ck_assert_double_eq (res_compare_quantile (c, 0.5), 7);
  ck_assert_double_eq (res_compare_quantile (c, 0.9), 7);
  ck_assert (isnan (res_compare_quantile (none, 0.5)));
}
END_TEST

/* A fixture's file with n empty runs (their ids into ids, if given),
 * opened to read. */
static sqlite3 *
empty_runs (Fixture *f, guint n, gint64 *ids)
{
  fixture_init (f);
  g_autoptr (GError) error = NULL;
  ResDb *w = res_db_open (f->path, &error);
  ck_assert_msg (w, "%s", error ? error->message : "");
  for (guint k = 0; k < n; k++)
    {
      ResRun *run = res_run_begin (w, 0, &f->scenario, &f->point, 1, &error);
      ck_assert_msg (run, "%s", error ? error->message : "");
      if (ids)
        ids[k] = res_run_id (run);
      res_run_abort (run, NULL);
    }
  res_db_close (w);
  sqlite3 *db = res_db_open_read (f->path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  return db;
}

/* Runs sql on the file at path (the tests' own rows). */
static void
exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  char *err = NULL;
  ck_assert (sqlite3_open (path, &db) == SQLITE_OK);
  ck_assert_msg (sqlite3_exec (db, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql, err ? err : "");
  sqlite3_close (db);
}

START_TEST (test_compare_pick_run)
{
  Fixture f;
  gint64 ids[3];
  sqlite3 *db = empty_runs (&f, 3, ids);
  gint64 run = -1;
  char *mode = NULL;
  /* every run: three, the first one's id */
  ck_assert_uint_eq (res_compare_pick_run (db, 0, &run, &mode), 3);
  ck_assert_int_eq (run, ids[0]);
  ck_assert_str_eq (mode, "sim");
  g_clear_pointer (&mode, g_free);
  /* the one asked for */
  ck_assert_uint_eq (res_compare_pick_run (db, ids[1], &run, &mode), 1);
  ck_assert_int_eq (run, ids[1]);
  g_clear_pointer (&mode, g_free);
  exec (f.path, "UPDATE runs SET mode = 'testbed' WHERE run_id = 3");
  ck_assert_uint_eq (res_compare_pick_run (db, 3, &run, &mode), 1);
  ck_assert_int_eq (run, 3);
  ck_assert_str_eq (mode, "testbed");
  g_clear_pointer (&mode, g_free);
  /* none */
  run = -1;
  ck_assert_uint_eq (res_compare_pick_run (db, 9, &run, &mode), 0);
  ck_assert_int_eq (run, -1);
  ck_assert_ptr_null (mode);
  exec (f.path, "DELETE FROM runs");
  ck_assert_uint_eq (res_compare_pick_run (db, 0, &run, &mode), 0);
  res_db_close_read (db);
  fixture_clear (&f);
}
END_TEST

START_TEST (test_compare_durations)
{
  Fixture f;
  sqlite3 *db = empty_runs (&f, 1, NULL);
  /* rounds 1-3 end at 10, 20, 35; 4 never ends; 5 ends at 60 (no period:
   * 4 is missing); round 2 has no list_s (no exchange); another run's
   * round is not counted; given out of order */
  exec (f.path, "INSERT INTO rounds (run_id, round, list_s, end_s) VALUES (1, 3, 31, 35), (1, 1, 4, 10), (1, 2, NULL, 20),"
            " (1, 4, 40, NULL), (1, 5, 50, 60), (2, 6, 0, 1000)");
  g_autoptr (GArray) period = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) exchange = g_array_new (FALSE, FALSE, sizeof (double));
  res_compare_durations (db, 1, period, exchange);
  ck_assert_uint_eq (period->len, 2);
  ck_assert_double_eq (g_array_index (period, double, 0), 10);
  ck_assert_double_eq (g_array_index (period, double, 1), 15);
  /* exchanges 6, 4, 10, sorted */
  ck_assert_uint_eq (exchange->len, 3);
  ck_assert_double_eq (g_array_index (exchange, double, 0), 4);
  ck_assert_double_eq (g_array_index (exchange, double, 1), 6);
  ck_assert_double_eq (g_array_index (exchange, double, 2), 10);
  res_db_close_read (db);
  fixture_clear (&f);
}
END_TEST

START_TEST (test_compare_union_keys)
{
  g_autoptr (GHashTable) a = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) b = g_hash_table_new (g_str_hash, g_str_equal);
  const char *ka[] = { "p10", "p2", "S", "p1" }, *kb[] = { "p2", "p3", "Payload" };
  for (guint i = 0; i < G_N_ELEMENTS (ka); i++)
    g_hash_table_add (a, (gpointer) ka[i]);
  for (guint i = 0; i < G_N_ELEMENTS (kb); i++)
    g_hash_table_add (b, (gpointer) kb[i]);
  g_autoptr (GPtrArray) keys = res_compare_union_keys (a, b);
  static const char *const want[] = { "Payload", "S", "p1", "p2", "p3", "p10" };
  ck_assert_uint_eq (keys->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < keys->len; i++)
    ck_assert_str_eq (keys->pdata[i], want[i]);
}
END_TEST

static const ResCompareRow *
find_row (const GPtrArray *rows, const char *what)
{
  for (guint i = 0; i < rows->len; i++)
    if (strcmp (((const ResCompareRow *) rows->pdata[i])->what, what) == 0)
      return rows->pdata[i];
  ck_abort_msg ("no row %s", what);
  return NULL;
}

START_TEST (test_compare_rows)
{
  Fixture f;
  sqlite3 *db = empty_runs (&f, 2, NULL);
  exec (f.path, "INSERT INTO summary (run_id, key, value) VALUES (1, 'rounds_completed', 3), (2, 'rounds_completed', 3),"
            " (1, 'retries', 0), (2, 'retries', 1), (1, 'final_accuracy', 0.5), (2, 'final_accuracy', 0.75),"
            " (1, 'violations.progress', 0), (2, 'violations.progress', 1), (2, 'violations.agreement', 1)");
  exec (f.path, "INSERT INTO peers (run_id, peer, outcome, rounds, retries_received, fails_received) VALUES"
            " (1, 'p1', 'finished', 3, 0, 0), (2, 'p1', 'finished', 3, 0, 0), (1, 'p2', 'finished', 3, 0, 0),"
            " (2, 'p2', 'hung', 2, 1, 0), (2, 'p10', 'finished', 3, 0, 0)");
  exec (f.path, "INSERT INTO traffic (run_id, type, messages, bytes) VALUES (1, 'Payload', 6, 1), (2, 'Payload', 7, 1),"
            " (2, 'Leave', 1, 1)");
  exec (f.path, "INSERT INTO rounds (run_id, round, list_s, end_s) VALUES (1, 1, 0, 10), (1, 2, 10, 30), (2, 1, 0, 5)");
  g_autoptr (ResComparison) c = res_compare_runs (db, 1, db, 2);
  /* facts: outcome, the four judged summary keys, the two violations, final_accuracy */
  ck_assert_uint_eq (c->facts->len, 8);
  ck_assert_str_eq (((const ResCompareRow *) c->facts->pdata[0])->what, "outcome");
  ck_assert_str_eq (((const ResCompareRow *) c->facts->pdata[7])->what, "final_accuracy");
  const ResCompareRow *r = find_row (c->facts, "retries");
  ck_assert (r->judged && res_compare_row_differs (r));
  r = find_row (c->facts, "rounds_completed");
  ck_assert (r->judged && !res_compare_row_differs (r));
  r = find_row (c->facts, "exclusions");
  ck_assert_str_eq (r->a, "-");
  /* a property only one run checked is shown, not judged */
  r = find_row (c->facts, "violations.agreement");
  ck_assert (!r->judged && res_compare_row_differs (r));
  ck_assert_str_eq (r->a, "-");
  r = find_row (c->facts, "violations.progress");
  ck_assert (r->judged && res_compare_row_differs (r));
  r = find_row (c->facts, "final_accuracy");
  ck_assert (!r->judged && res_compare_row_differs (r));
  /* peers, in number order; one absent */
  ck_assert_uint_eq (c->peers->len, 3);
  ck_assert_str_eq (((const ResCompareRow *) c->peers->pdata[2])->what, "p10");
  r = find_row (c->peers, "p10");
  ck_assert_str_eq (r->a, "absent");
  ck_assert_str_eq (r->b, "finished 3 0 0");
  r = find_row (c->peers, "p2");
  ck_assert_str_eq (r->b, "hung 2 1 0");
  r = find_row (c->messages, "Payload");
  ck_assert (!r->judged && res_compare_row_differs (r));
  ck_assert_str_eq (r->a, "6");
  r = find_row (c->messages, "Leave");
  ck_assert_str_eq (r->a, "0");
  ck_assert_str_eq (r->b, "1");
  /* judged and different: retries, violations.progress, p2, p10 */
  ck_assert_uint_eq (res_comparison_differences (c), 4);
  /* durations: period and exchange, median and p90 */
  ck_assert_uint_eq (c->durations->len, 4);
  const ResCompareDuration *d = c->durations->pdata[0];
  ck_assert_str_eq (d->what, "round period median (s)");
  ck_assert_double_eq (d->a, 20);
  ck_assert (isnan (d->b));
  d = c->durations->pdata[3];
  ck_assert_str_eq (d->what, "exchange p90 (s)");
  ck_assert_double_eq (d->a, 20);
  ck_assert_double_eq (d->b, 5);
  res_db_close_read (db);
  fixture_clear (&f);
}
END_TEST

void
test_results_compare_add (TCase *tc)
{
  tcase_add_test (tc, test_compare_quantile);
  tcase_add_test (tc, test_compare_pick_run);
  tcase_add_test (tc, test_compare_durations);
  tcase_add_test (tc, test_compare_union_keys);
  tcase_add_test (tc, test_compare_rows);
}
