/* test-cli.c — cli/: the sweep's progress (run-progress.c) driven by a
 * hand-held wall clock: the ETA schedules the runs left on the workers
 * and costs each by its own point, and the status line says runs done,
 * the simulated time of the runs going and the event rate. */
#include "config.h"

#include "cli/run-progress.h"

#include <check.h>
#include <math.h>
#include <string.h>

#define S(x) ((gint64) ((x) * 1e6))   /* wall-clock seconds as us */

/* 9 runs of one point on 8 workers, 11 s each: when the first 8 end, the
 * ninth has just started and has 11 s to go (the mean times the runs left
 * over the sweep's throughput said 11 / 8 * 1 = 1 s). */
START_TEST (eta_fewer_runs_than_workers)
{
  g_autoptr (CliProgress) p = cli_progress_new ("run", CLI_PROGRESS_NONE, 9, NULL, 8, 0, stderr);
  for (guint i = 0; i < 8; i++)
    cli_progress_job_start (p, i, S (100));
  ck_assert (cli_progress_eta_s (p, S (105)) < 0);   /* nothing timed yet */
  for (guint i = 0; i < 8; i++)
    cli_progress_job_end (p, i, S (111));
  cli_progress_job_start (p, 8, S (111));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (111)), 11, 1e-3);
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (116)), 6, 1e-3);
  /* late: nothing left but the run going, not a negative time */
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (130)), 0, 1e-3);
}
END_TEST

/* A sweep whose second point costs ten times the first, one worker: the
 * last run is costed by its own point, not by the mean of all runs. */
START_TEST (eta_per_point)
{
  const guint group[] = { 0, 0, 1, 1 };
  g_autoptr (CliProgress) p = cli_progress_new ("run", CLI_PROGRESS_NONE, 4, group, 1, 0, stderr);
  cli_progress_job_start (p, 0, S (0));
  cli_progress_job_end (p, 0, S (1));
  cli_progress_job_start (p, 1, S (1));
  cli_progress_job_end (p, 1, S (2));
  /* the first run of point 1 is not timed yet: it and the last cost at
   * least what the costliest point timed did */
  cli_progress_job_start (p, 2, S (2));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (2)), 2, 1e-3);
  cli_progress_job_end (p, 2, S (12));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (12)), 10, 1e-3);
  cli_progress_job_start (p, 3, S (12));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (15)), 7, 1e-3);
}
END_TEST

/* Two workers, five waiting runs of 2 s: the queue goes to the worker free
 * first: 2 + 2 + 2 on one, 2 + 2 on the other. */
START_TEST (eta_queue_on_workers)
{
  g_autoptr (CliProgress) p = cli_progress_new ("run", CLI_PROGRESS_NONE, 6, NULL, 2, 0, stderr);
  cli_progress_job_start (p, 0, S (0));
  cli_progress_job_end (p, 0, S (2));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (2)), 6, 1e-3);
  /* one running for 1 s already: 1 left there, then 2 + 2 on the other
   * and 2 + 2 after the 1 */
  cli_progress_job_start (p, 1, S (1));
  ck_assert_double_eq_tol (cli_progress_eta_s (p, S (2)), 5, 1e-3);
}
END_TEST

START_TEST (status_line)
{
  g_autoptr (CliProgress) p = cli_progress_new ("run", CLI_PROGRESS_NONE, 3, NULL, 2, 0, stderr);
  gint64 t0 = g_get_monotonic_time ();
  cli_progress_job_start (p, 0, t0);
  cli_progress_job_sim (p, 0, 90 * DL_S, 1000000);
  cli_progress_job_end (p, 0, t0 + S (4));
  cli_progress_job_start (p, 1, t0 + S (4));
  cli_progress_job_sim (p, 1, 125 * DL_S, 1000000);
  g_autofree char *line = cli_progress_describe (p, t0 + S (5));
  ck_assert_msg (strstr (line, "1/3 runs, 5 s elapsed, ETA 4 s; run 2 at 2 min 05 s simulated; 0.4 M events/s"),
                 "%s", line);
  /* the rate is over the time since the last line */
  cli_progress_job_sim (p, 1, 200 * DL_S, 2000000);
  g_autofree char *again = cli_progress_describe (p, t0 + S (7));
  ck_assert_msg (strstr (again, "; 0.5 M events/s"), "%s", again);
}
END_TEST

static Suite *
cli_suite (void)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tcase_create ("progress");
  tcase_add_test (tc, eta_fewer_runs_than_workers);
  tcase_add_test (tc, eta_per_point);
  tcase_add_test (tc, eta_queue_on_workers);
  tcase_add_test (tc, status_line);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (cli_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
