/* test-runner.c — runner/: the run sequence (scenario point -> build ->
 * world -> record) that run, check, explore, shrink and bench share.  A
 * small scenario runs into a results database and without one; the rows,
 * the counts and the result agree between two runs with one seed, the
 * interrupt flag ends a run as `interrupted`, and a taken run id fails
 * before any world is made. */
#include "config.h"

#include "results/res-query.h"
#include "runner/runner.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

/* 3 peers, 2 rounds, weights as a size only: a run of a few ms */
static const char scenario_text[] =
  "[scenario]\nname = runner-test\nseed = 7\n\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 100000\n\n"
  "[peers]\ncount = 3\n\n"
  "[expect]\noutcome = completed\nrounds_completed = 2\n";

typedef struct {
  char *dir, *ini, *db;
  SimScenario *s;
} Fixture;

static Fixture f;

static void
setup (void)
{
  f.dir = g_dir_make_tmp ("dlsim-runner-XXXXXX", NULL);
  ck_assert_ptr_nonnull (f.dir);
  f.ini = g_build_filename (f.dir, "runner-test.ini", NULL);
  f.db = g_build_filename (f.dir, "r.db", NULL);
  ck_assert (g_file_set_contents (f.ini, scenario_text, -1, NULL));
  g_autoptr (GError) error = NULL;
  f.s = sim_scenario_load (f.ini, NULL, &error);
  ck_assert_msg (f.s != NULL, "%s", error ? error->message : "?");
}

static void
teardown (void)
{
  sim_scenario_free (f.s);
  res_db_remove_files (f.db);
  g_unlink (f.ini);
  g_rmdir (f.dir);
  g_free (f.ini);
  g_free (f.db);
  g_free (f.dir);
}

/* the summary of a run as "key=value" lines */
static char *
summary_of (struct sqlite3 *db, gint64 run)
{
  GString *o = g_string_new (NULL);
  g_autoptr (ResRows) r = res_db_report_summary (db, run);
  while (res_rows_next (r))
    g_string_append_printf (o, "%s=%s\n", res_rows_text (r, 0), res_rows_text (r, 1));
  return g_string_free (o, FALSE);
}

START_TEST (test_record_twice)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.db, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  const SimPoint *p = f.s->points->pdata[0];
  RunnerOptions o = { .db = db };
  RunnerResult a, b;
  ck_assert_msg (runner_run_point (f.s, p, 7, &o, &a, &error), "%s", error ? error->message : "?");
  ck_assert_msg (runner_run_point (f.s, p, 7, &o, &b, &error), "%s", error ? error->message : "?");
  ck_assert (a.ran && b.ran);
  ck_assert_int_eq (a.run_id, 1);
  ck_assert_int_eq (b.run_id, 2);
  ck_assert_int_eq (a.result.outcome, SIM_OUTCOME_COMPLETED);
  ck_assert_uint_eq (a.result.rounds_completed, 2);
  /* one seed, one run: the same result and the same summary rows */
  ck_assert_int_eq (a.result.end, b.result.end);
  ck_assert_uint_eq (a.result.events, b.result.events);
  ck_assert_uint_eq (a.result.messages, b.result.messages);
  ck_assert_uint_eq (a.result.bytes, b.result.bytes);
  /* both expectations checked, none failed */
  ck_assert_uint_eq (a.checked, 2);
  ck_assert_uint_eq (a.failed->len, 0);
  ck_assert (a.wall_seconds >= 0);
  runner_result_clear (&a);
  runner_result_clear (&b);
  res_db_close (db);

  struct sqlite3 *rd = res_db_open_read (f.db, &error);
  ck_assert_msg (rd != NULL, "%s", error ? error->message : "?");
  g_autofree char *s1 = summary_of (rd, 1), *s2 = summary_of (rd, 2);
  ck_assert (strstr (s1, "rounds_completed=2\n") != NULL);
  ck_assert_str_eq (s1, s2);
  g_autofree char *o1 = res_db_run_outcome (rd, 1);
  ck_assert_str_eq (o1, "completed");
  /* events were recorded (not --no-events) */
  g_autoptr (ResRows) ev = res_db_trace_events (rd, 1, NULL, FALSE);
  ck_assert (res_rows_next (ev));
  g_clear_pointer (&ev, res_rows_free);
  res_db_close_read (rd);
}
END_TEST

/* A failing expectation comes back as a line. */
START_TEST (test_failed_expectation)
{
  g_autoptr (GError) error = NULL;
  const char *sets[] = { "expect.rounds_completed=3", NULL };
  g_autoptr (SimScenario) s = sim_scenario_load (f.ini, sets, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "?");
  ResDb *db = res_db_open (f.db, &error);
  ck_assert (db != NULL);
  RunnerOptions o = { .db = db, .no_events = TRUE };
  RunnerResult r;
  ck_assert (runner_run_point (s, s->points->pdata[0], 7, &o, &r, &error));
  ck_assert_uint_eq (r.failed->len, 1);
  ck_assert_msg (g_str_has_prefix (r.failed->pdata[0], "rounds_completed: expected = 3, actual 2"), "%s",
                 (char *) r.failed->pdata[0]);
  runner_result_clear (&r);
  res_db_close (db);
  struct sqlite3 *rd = res_db_open_read (f.db, &error);
  g_autoptr (ResRows) ev = res_db_trace_events (rd, 1, NULL, FALSE);
  ck_assert (!res_rows_next (ev));   /* no events rows */
  ck_assert (!res_rows_failed (ev));
  g_clear_pointer (&ev, res_rows_free);
  res_db_close_read (rd);
}
END_TEST

typedef struct {
  guint observations, facts;
} Counts;

static void
count_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *obs)
{
  (void) t, (void) node, (void) obs;
  ((Counts *) ud)->observations++;
}

static void
count_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  (void) t, (void) node, (void) other, (void) kind, (void) detail;
  ((Counts *) ud)->facts++;
}

/* Without a database the observations go to the caller's recorder. */
START_TEST (test_recorder_only)
{
  Counts c[2] = { { 0 } };
  RunnerResult r[2];
  for (int i = 0; i < 2; i++)
    {
      SimRecorder rec = { count_observation, count_fact, NULL, NULL, &c[i], NULL };
      RunnerOptions o = { .recorder = &rec };
      g_autoptr (GError) error = NULL;
      ck_assert_msg (runner_run_point (f.s, f.s->points->pdata[0], 7, &o, &r[i], &error), "%s",
                     error ? error->message : "?");
      ck_assert_int_eq (r[i].run_id, 0);
      ck_assert_uint_eq (r[i].checked, 0);
    }
  ck_assert_uint_gt (c[0].observations, 0);
  ck_assert_uint_gt (c[0].facts, 0);
  ck_assert_uint_eq (c[0].observations, c[1].observations);
  ck_assert_uint_eq (c[0].facts, c[1].facts);
  ck_assert_uint_eq (r[0].result.events, r[1].result.events);
  ck_assert (!g_file_test (f.db, G_FILE_TEST_EXISTS));
  runner_result_clear (&r[0]);
  runner_result_clear (&r[1]);
}
END_TEST

/* A raised interrupt flag: outcome interrupted, recorded as such, nothing
 * checked. */
START_TEST (test_interrupted)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.db, &error);
  ck_assert (db != NULL);
  static volatile int flag = 1;
  RunnerOptions o = { .db = db, .interrupt = &flag };
  RunnerResult r;
  ck_assert (runner_run_point (f.s, f.s->points->pdata[0], 7, &o, &r, &error));
  ck_assert_int_eq (r.result.outcome, SIM_OUTCOME_INTERRUPTED);
  ck_assert_uint_eq (r.checked, 0);
  runner_result_clear (&r);
  res_db_close (db);
  struct sqlite3 *rd = res_db_open_read (f.db, &error);
  g_autofree char *outcome = res_db_run_outcome (rd, 1);
  ck_assert_str_eq (outcome, "interrupted");
  res_db_close_read (rd);
}
END_TEST

/* A run id the database has: an error before any world runs. */
START_TEST (test_taken_id)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.db, &error);
  ck_assert (db != NULL);
  RunnerOptions o = { .db = db, .run_id = 5, .no_events = TRUE };
  RunnerResult r;
  ck_assert (runner_run_point (f.s, f.s->points->pdata[0], 7, &o, &r, &error));
  runner_result_clear (&r);
  ck_assert (!runner_run_point (f.s, f.s->points->pdata[0], 7, &o, &r, &error));
  ck_assert (error != NULL);
  ck_assert (!r.ran);
  runner_result_clear (&r);
  res_db_close (db);
}
END_TEST

static Suite *
runner_suite (void)
{
  Suite *s = suite_create ("runner");
  TCase *tc = tcase_create ("run");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_record_twice);
  tcase_add_test (tc, test_failed_expectation);
  tcase_add_test (tc, test_recorder_only);
  tcase_add_test (tc, test_interrupted);
  tcase_add_test (tc, test_taken_id);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  res_init ();
  SRunner *sr = srunner_create (runner_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
