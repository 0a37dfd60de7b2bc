/* test-runner.c — runner/: the run sequence (scenario point -> build ->
 * world -> record) that run, check, explore, shrink and bench share.  A
 * small scenario runs into a results database and without one; the rows,
 * the counts and the result agree between two runs with one seed, the
 * interrupt flag ends a run as `interrupted`, and a taken run id fails
 * before any world is made.
 *
 * The sweep (runner-plan.c): a folder's files, points, repeats and seeds
 * as jobs, with --set and --seed; every job in exactly one shard, with the
 * unsharded run's id; --resume and the default run leave out what the
 * database has; execution in this process and in forked workers tells
 * each job once, with its failed expectations, and counts them.
 *
 * The sweep's progress (runner-progress.c), driven by a hand-held wall
 * clock: the ETA schedules the runs left on the workers and costs each by
 * its own point; the status line says runs done, the simulated time of the
 * runs going and the event rate; lines are due as each mode says. */
#include "config.h"

#include "results/res-query.h"
#include "runner/runner-plan.h"
#include "runner/runner-progress.h"
#include "runner/runner.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

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

/* ---- the sweep (runner-plan.c) ---- */

/* A folder of scenario files: a/a.ini (1 point, seed 5, no [expect]),
 * b.ini (2 points by a sweep, repeat 2, seed 10), c.txt (not a scenario),
 * z.ini (repeat 3, seed 1). */
typedef struct {
  char *dir;
  GPtrArray *files;
  char *db;
} PlanFixture;

static PlanFixture pf;

static void
put (const char *rel, const char *name, const char *count, guint seed, guint repeat, gboolean expect)
{
  g_autofree char *path = g_build_filename (pf.dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  ck_assert_int_eq (g_mkdir_with_parents (parent, 0755), 0);
  g_autofree char *text = g_strdup_printf ("[scenario]\nname = %s\nseed = %u\nrepeat = %u\n\n"
                                           "[protocol]\nmin_participants = 2\n\n[training]\nrounds = 2\n\n"
                                           "[model]\nkind = none\nsize = 100000\n\n[peers]\ncount = %s\n%s",
                                           name, seed, repeat, count, expect ? "\n[expect]\noutcome = completed\n" : "");
  ck_assert (g_file_set_contents (path, text, -1, NULL));
}

static void
plan_setup (void)
{
  pf.dir = g_dir_make_tmp ("dlsim-plan-XXXXXX", NULL);
  ck_assert_ptr_nonnull (pf.dir);
  put ("a/a.ini", "a", "3", 5, 1, FALSE);
  put ("b.ini", "b", "${3, 4}", 10, 2, TRUE);
  put ("c.txt", "c", "3", 1, 1, TRUE);
  put ("z.ini", "z", "3", 1, 3, TRUE);
  pf.files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (runner_collect_files (pf.dir, pf.files, &error), "%s", error ? error->message : "?");
  pf.db = g_build_filename (pf.dir, "p.db", NULL);
}

static void
plan_teardown (void)
{
  res_db_remove_files (pf.db);
  const char *rel[] = { "a/a.ini", "b.ini", "c.txt", "z.ini", "bad.ini", NULL };
  for (guint i = 0; rel[i]; i++)
    {
      g_autofree char *p = g_build_filename (pf.dir, rel[i], NULL);
      g_unlink (p);
    }
  g_autofree char *a = g_build_filename (pf.dir, "a", NULL);
  g_rmdir (a);
  g_rmdir (pf.dir);
  g_ptr_array_unref (pf.files);
  g_free (pf.db);
  g_free (pf.dir);
}

/* The folder's plan, with sets (NULL: none), a seed (< 0: the files'). */
static void
load_plan (RunnerPlan *plan, const char *const *sets, gint64 seed, gboolean only_expect)
{
  runner_plan_init (plan);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (runner_plan_load (plan, pf.files, sets, seed >= 0, seed >= 0 ? (guint64) seed : 0, only_expect, &error),
                 "%s", error ? error->message : "?");
}

static const RunnerJob *
job_at (const RunnerPlan *plan, guint i)
{
  return &g_array_index (plan->jobs, RunnerJob, i);
}

/* A folder gives its *.ini files, sorted, the subfolders' in their place;
 * a missing path is an error that names it. */
START_TEST (test_collect_folder)
{
  ck_assert_uint_eq (pf.files->len, 3);
  const char *want[] = { "a/a.ini", "b.ini", "z.ini" };
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *w = g_build_filename (pf.dir, want[i], NULL);
      ck_assert_str_eq (pf.files->pdata[i], w);
    }
  g_autoptr (GPtrArray) one = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *missing = g_build_filename (pf.dir, "nope.ini", NULL);
  ck_assert (!runner_collect_files (missing, one, &error));
  ck_assert (g_str_has_suffix (error->message, "nope.ini: no such file or directory"));
  ck_assert_uint_eq (one->len, 0);
}
END_TEST

/* Every file's points and repeats in order, each repeat r at the file's
 * seed + r, one group per point; only_expect leaves out a/a.ini. */
START_TEST (test_plan_load)
{
  RunnerPlan plan;
  load_plan (&plan, NULL, -1, FALSE);
  ck_assert_uint_eq (plan.scenarios->len, 3);
  /* a: 1; b: 2 points x 2 repeats; z: 3 repeats */
  ck_assert_uint_eq (plan.jobs->len, 8);
  const char *name[] = { "a", "b", "b", "b", "b", "z", "z", "z" };
  const guint64 seed[] = { 5, 10, 11, 10, 11, 1, 2, 3 };
  const guint point[] = { 0, 0, 0, 1, 1, 0, 0, 0 };
  const guint group[] = { 0, 1, 1, 2, 2, 3, 3, 3 };
  for (guint i = 0; i < 8; i++)
    {
      const RunnerJob *j = job_at (&plan, i);
      ck_assert_str_eq (j->scenario->name, name[i]);
      ck_assert_uint_eq (j->seed, seed[i]);
      ck_assert_uint_eq (j->point->index, point[i]);
      ck_assert_uint_eq (j->group, group[i]);
    }
  runner_plan_clear (&plan);

  load_plan (&plan, NULL, -1, TRUE);
  ck_assert_uint_eq (plan.scenarios->len, 2);
  ck_assert_uint_eq (plan.jobs->len, 7);
  ck_assert_str_eq (job_at (&plan, 0)->scenario->name, "b");
  runner_plan_clear (&plan);
}
END_TEST

/* --set reaches every file (a repeat of 2 everywhere), and --seed replaces
 * each file's base seed. */
START_TEST (test_plan_set_seed)
{
  const char *sets[] = { "scenario.repeat=2", NULL };
  RunnerPlan plan;
  load_plan (&plan, sets, 100, FALSE);
  ck_assert_uint_eq (plan.jobs->len, 2 + 4 + 2);
  const guint64 seed[] = { 100, 101, 100, 101, 100, 101, 100, 101 };
  for (guint i = 0; i < plan.jobs->len; i++)
    ck_assert_uint_eq (job_at (&plan, i)->seed, seed[i]);
  ck_assert_uint_eq (job_at (&plan, 7)->point->index, 0);
  ck_assert_str_eq (job_at (&plan, 7)->scenario->name, "z");
  runner_plan_clear (&plan);

  /* a swept value set by --set: one point per file */
  const char *one[] = { "peers.count=5", NULL };
  load_plan (&plan, one, -1, FALSE);
  ck_assert_uint_eq (plan.jobs->len, 1 + 2 + 3);
  runner_plan_clear (&plan);
}
END_TEST

/* A file that does not load stops the plan, with the loader's message. */
START_TEST (test_plan_load_error)
{
  put ("bad.ini", "bad", "many", 1, 1, FALSE);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  ck_assert (runner_collect_files (pf.dir, files, NULL));
  ck_assert_uint_eq (files->len, 4);
  RunnerPlan plan;
  runner_plan_init (&plan);
  g_autoptr (GError) error = NULL;
  ck_assert (!runner_plan_load (&plan, files, NULL, FALSE, 0, FALSE, &error));
  ck_assert_msg (strstr (error->message, "bad.ini") && strstr (error->message, "count"), "%s", error->message);
  runner_plan_clear (&plan);
}
END_TEST

/* Shards K/N of an empty database: every job of the full expansion in
 * exactly one shard, under id i + 1, the same job as unsharded. */
START_TEST (test_shards_partition)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (pf.db, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  RunnerPlan full;
  load_plan (&full, NULL, -1, FALSE);
  for (guint n = 1; n <= 5; n++)
    {
      g_autofree guint *seen = g_new0 (guint, full.jobs->len);
      for (guint k = 0; k < n; k++)
        {
          RunnerPlan plan;
          load_plan (&plan, NULL, -1, FALSE);
          guint skipped = 99, redone = 99;
          ck_assert (runner_plan_select (&plan, db, k, n, FALSE, &skipped, &redone, &error));
          ck_assert (plan.ids_fixed);
          ck_assert_uint_eq (skipped, 0);
          ck_assert_uint_eq (redone, 0);
          for (guint i = 0; i < plan.jobs->len; i++)
            {
              const RunnerJob *j = job_at (&plan, i);
              ck_assert (j->run_id >= 1 && j->run_id <= (gint64) full.jobs->len);
              guint at = (guint) j->run_id - 1;
              seen[at]++;
              const RunnerJob *u = job_at (&full, at);
              ck_assert_str_eq (j->scenario->name, u->scenario->name);
              ck_assert_uint_eq (j->point->index, u->point->index);
              ck_assert_uint_eq (j->seed, u->seed);
              ck_assert_uint_eq (j->group, u->group);
            }
          runner_plan_clear (&plan);
        }
      for (guint i = 0; i < full.jobs->len; i++)
        ck_assert_msg (seen[i] == 1, "n = %u: job %u in %u shards", n, i, seen[i]);
    }
  runner_plan_clear (&full);
  res_db_close (db);
}
END_TEST

/* Runs job i of plan into db under id i + 1 (interrupt: raised). */
static void
record_job (ResDb *db, const RunnerPlan *plan, guint i, gboolean interrupt)
{
  static volatile int raised = 1;
  const RunnerJob *j = job_at (plan, i);
  RunnerOptions o = { .db = db, .run_id = i + 1, .no_events = TRUE, .interrupt = interrupt ? &raised : NULL };
  RunnerResult r;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (runner_run_point (j->scenario, j->point, j->seed, &o, &r, &error), "%s",
                 error ? error->message : "?");
  runner_result_clear (&r);
}

/* --resume: the finished runs are left out, an interrupted one is removed
 * and done again, the rest kept; without --resume a run in the database
 * is an error, and so is another sweep's run under one of the ids. */
START_TEST (test_resume)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (pf.db, &error);
  ck_assert (db != NULL);
  RunnerPlan plan;
  load_plan (&plan, NULL, -1, FALSE);
  record_job (db, &plan, 0, FALSE);
  record_job (db, &plan, 2, FALSE);
  record_job (db, &plan, 5, TRUE);
  runner_plan_clear (&plan);

  load_plan (&plan, NULL, -1, FALSE);
  guint skipped = 0, redone = 0;
  ck_assert_msg (runner_plan_select (&plan, db, 0, 1, TRUE, &skipped, &redone, &error), "%s",
                 error ? error->message : "?");
  ck_assert_uint_eq (skipped, 2);
  ck_assert_uint_eq (redone, 1);
  const gint64 want[] = { 2, 4, 5, 6, 7, 8 };
  ck_assert_uint_eq (plan.jobs->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < plan.jobs->len; i++)
    ck_assert_int_eq (job_at (&plan, i)->run_id, want[i]);
  runner_plan_clear (&plan);

  /* the interrupted run 6 is gone: shard 1/2 (ids 2, 4, 6, 8) is free */
  load_plan (&plan, NULL, -1, FALSE);
  ck_assert (runner_plan_select (&plan, db, 1, 2, FALSE, NULL, NULL, &error));
  ck_assert_uint_eq (plan.jobs->len, 4);
  runner_plan_clear (&plan);

  /* shard 0/2 without --resume: run 1 is there */
  load_plan (&plan, NULL, -1, FALSE);
  ck_assert (!runner_plan_select (&plan, db, 0, 2, FALSE, NULL, NULL, &error));
  ck_assert_str_eq (error->message, "run 1 is already in the database: --resume runs what is missing");
  ck_assert_uint_eq (plan.jobs->len, 8);   /* unchanged */
  ck_assert (!plan.ids_fixed);
  g_clear_error (&error);
  runner_plan_clear (&plan);

  /* another sweep (seeds from 50): run 1 is not its run */
  load_plan (&plan, NULL, 50, FALSE);
  ck_assert (!runner_plan_select (&plan, db, 0, 1, TRUE, NULL, NULL, &error));
  ck_assert_msg (strstr (error->message, "run 1 of the database is another run (a, point 0, seed 5)"), "%s",
                 error->message);
  runner_plan_clear (&plan);
  res_db_close (db);
}
END_TEST

static gboolean
has_run (ResDb *db, gint64 id)
{
  g_autoptr (ResRows) st = res_db_run_slot (db, id);
  return res_rows_next (st);
}

/* A plan past RUNNER_PLAN_MAX_RUNS is refused when its file is loaded,
 * before its jobs are made, naming the file, the key and the bound: a
 * file alone (2 points x (MAX / 2 + 1)), and one that passes it with the
 * file before it (z.ini's MAX / 2, then 2 x MAX / 2). */
START_TEST (test_plan_bound)
{
  put ("big.ini", "big", "${3, 4}", 1, 1, FALSE);
  g_autofree char *path = g_build_filename (pf.dir, "big.ini", NULL);
  for (guint c = 0; c < 2; c++)
    {
      guint repeat = RUNNER_PLAN_MAX_RUNS / 2 + (c == 0);
      g_autofree char *set = g_strdup_printf ("scenario.repeat=%u", repeat);
      const char *sets[] = { set, NULL };
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
      if (c == 1)
        g_ptr_array_add (files, g_build_filename (pf.dir, "z.ini", NULL));
      g_ptr_array_add (files, g_strdup (path));
      RunnerPlan plan;
      runner_plan_init (&plan);
      g_autoptr (GError) error = NULL;
      ck_assert (!runner_plan_load (&plan, files, sets, FALSE, 0, FALSE, &error));
      g_autofree char *want = g_strdup_printf ("%s: [scenario] repeat = %u x 2 sweep points = %u runs%s: more than"
                                               " the %u runs one sweep may plan", path, repeat, 2 * repeat,
                                               c == 0 ? "" : " and the files before it 500000",
                                               RUNNER_PLAN_MAX_RUNS);
      ck_assert_msg (g_str_has_prefix (error->message, want), "%s", error->message);
      ck_assert_uint_eq (plan.jobs->len, c == 0 ? 0 : RUNNER_PLAN_MAX_RUNS / 2);
      runner_plan_clear (&plan);
    }
  g_unlink (path);
}
END_TEST

/* runner_plan_skip_done's jobs left out (replaced: the runs it removed) */
static guint
skip_done (RunnerPlan *plan, ResDb *db, guint *replaced)
{
  g_autoptr (GError) error = NULL;
  guint skipped = G_MAXUINT;
  gboolean ok = runner_plan_skip_done (plan, db, &skipped, replaced, &error);
  ck_assert_msg (ok, "%s", error ? error->message : "?");
  return skipped;
}

/* The default run leaves out the jobs whose identity the database has
 * finished (under any id), and says how many; an interrupted run of a
 * job it keeps is removed (the job replaces it). */
START_TEST (test_skip_done)
{
  guint replaced = G_MAXUINT;
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (pf.db, &error);
  ck_assert (db != NULL);
  RunnerPlan plan;
  load_plan (&plan, NULL, -1, FALSE);
  ck_assert_uint_eq (skip_done (&plan, db, &replaced), 0);   /* an empty database */
  ck_assert_uint_eq (replaced, 0);
  ck_assert_uint_eq (plan.jobs->len, 8);
  record_job (db, &plan, 1, FALSE);
  record_job (db, &plan, 7, FALSE);
  record_job (db, &plan, 4, TRUE);   /* interrupted: not finished */
  runner_plan_clear (&plan);

  /* another seed is another run: the interrupted run stays */
  load_plan (&plan, NULL, 40, FALSE);
  ck_assert_uint_eq (skip_done (&plan, db, &replaced), 0);
  ck_assert_uint_eq (replaced, 0);
  ck_assert (has_run (db, 5));
  runner_plan_clear (&plan);

  load_plan (&plan, NULL, -1, FALSE);
  ck_assert_uint_eq (skip_done (&plan, db, &replaced), 2);
  ck_assert_uint_eq (replaced, 1);
  ck_assert (!has_run (db, 5));   /* the interrupted run (job 4, id 5) is gone */
  ck_assert (has_run (db, 2) && has_run (db, 8));
  ck_assert_uint_eq (plan.jobs->len, 6);
  for (guint i = 0; i < plan.jobs->len; i++)
    {
      const RunnerJob *j = job_at (&plan, i);
      gboolean b1 = strcmp (j->scenario->name, "b") == 0 && j->point->index == 0 && j->seed == 10;
      gboolean z3 = strcmp (j->scenario->name, "z") == 0 && j->seed == 3;
      ck_assert (!b1 && !z3);
    }
  runner_plan_clear (&plan);
  res_db_close (db);
}
END_TEST

typedef struct {
  guint *told;          /* per job */
  guint n_failed_lines;
  guint lines;
  guint last_lines;
} Told;

static void
told_done (gpointer ud, const RunnerJob *job, const RunnerJobDone *d)
{
  Told *t = ud;
  t->told[d->index]++;
  ck_assert_int_eq (job->run_id, (gint64) d->index + 1);
  ck_assert_int_eq (d->outcome, SIM_OUTCOME_COMPLETED);
  if (strcmp (job->scenario->name, "a") != 0)
    {
      /* b and z: outcome and rounds_completed checked, the second fails */
      ck_assert_uint_eq (d->checked, 2);
      ck_assert_uint_eq (d->failed->len, 1);
      ck_assert_msg (g_str_has_prefix (d->failed->pdata[0], "rounds_completed: expected = 3, actual 2"), "%s",
                     (char *) d->failed->pdata[0]);
      t->n_failed_lines++;
    }
  else
    ck_assert_uint_eq (d->failed->len, 0);
}

static void
told_line (gpointer ud, const char *text, gboolean last)
{
  Told *t = ud;
  t->lines++;
  t->last_lines += last;
  if (last)
    ck_assert_msg (g_str_has_prefix (text, "8/8 runs, "), "%s", text);
}

/* Every job runs once, is told once with its failed expectations (over
 * the workers' pipe too) and is in the database under its id; the counts
 * say 1 passed (a: no expectation), 7 failed, 8 completed. */
START_TEST (test_execute)
{
  guint workers = (guint) _i;
  const char *sets[] = { "expect.rounds_completed=3", NULL };
  /* a has no [expect]: the set gives it one, so use it only for b and z */
  RunnerPlan plan;
  runner_plan_init (&plan);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) first = g_ptr_array_new ();
  g_ptr_array_add (first, pf.files->pdata[0]);
  ck_assert (runner_plan_load (&plan, first, NULL, FALSE, 0, FALSE, &error));
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_ptr_array_add (rest, pf.files->pdata[1]);
  g_ptr_array_add (rest, pf.files->pdata[2]);
  ck_assert (runner_plan_load (&plan, rest, sets, FALSE, 0, FALSE, &error));
  ck_assert_uint_eq (plan.jobs->len, 8);
  ResDb *db = res_db_open (pf.db, &error);
  ck_assert (db != NULL);
  g_autofree guint *told = g_new0 (guint, plan.jobs->len);
  Told t = { told, 0, 0, 0 };
  static volatile int stop;
  RunnerExecOptions o = { .db_path = pf.db, .workers = workers, .no_events = TRUE, .stop = &stop,
                          .progress_mode = RUNNER_PROGRESS_STATUS, .progress_interval_us = 0,
                          .line = told_line, .done = told_done, .ud = &t };
  ck_assert_int_eq (runner_plan_execute (&plan, db, &o, &error), RUNNER_EXEC_OK);
  for (guint i = 0; i < plan.jobs->len; i++)
    ck_assert_msg (told[i] == 1, "job %u told %u times", i, told[i]);
  ck_assert_uint_eq (t.n_failed_lines, 7);
  ck_assert_uint_eq (plan.passed, 1);
  ck_assert_uint_eq (plan.failed, 7);
  ck_assert_uint_eq (GPOINTER_TO_UINT (g_hash_table_lookup (plan.outcomes, "completed")), 8);
  ck_assert_uint_eq (g_hash_table_size (plan.outcomes), 1);
  /* interval 0: in this process, a status line after each of the first 7
   * runs and the last one; the workers' runs may all end before the
   * parent reads, and then no line is due, nor a last one */
  if (workers == 1)
    ck_assert_uint_eq (t.lines, 8);
  ck_assert_uint_eq (t.last_lines, t.lines > 0);
  res_db_close (db);
  /* the workers' files were merged and removed; the runs are all there */
  g_autofree char *w0 = g_strdup_printf ("%s.worker0-%d", pf.db, (int) getpid ());
  ck_assert (!g_file_test (w0, G_FILE_TEST_EXISTS));
  struct sqlite3 *rd = res_db_open_read (pf.db, &error);
  ck_assert (rd != NULL);
  for (gint64 id = 1; id <= 8; id++)
    {
      g_autofree char *outcome = res_db_run_outcome (rd, id);
      ck_assert_msg (outcome && strcmp (outcome, "completed") == 0, "run %" G_GINT64_FORMAT ": %s", id,
                     outcome ? outcome : "(none)");
    }
  res_db_close_read (rd);
  runner_plan_clear (&plan);
}
END_TEST

/* ---- the sweep's progress (runner-progress.c) ---- */

#define S(x) ((gint64) ((x) * 1e6))   /* wall-clock seconds as us */

START_TEST (eta_fewer_runs_than_workers)
{
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 9, NULL, 8, 0, 0);
  for (guint i = 0; i < 8; i++)
    runner_progress_job_start (p, i, S (100));
  ck_assert (runner_progress_eta_s (p, S (105)) < 0);   /* nothing timed yet */
  for (guint i = 0; i < 8; i++)
    runner_progress_job_end (p, i, S (111));
  runner_progress_job_start (p, 8, S (111));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (111)), 11, 1e-3);
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (116)), 6, 1e-3);
  /* late: the run going has outlasted its estimate: unknown, not 0 s */
  ck_assert (runner_progress_eta_s (p, S (130)) < 0);
}
END_TEST

/* No estimate, no number: before any run has ended, and while a run goes
 * past its estimate (the runs of 10 s, the second taking 40 s: the ETA
 * said "0 s" or, with a run waiting, "10 s" for all that time). */
START_TEST (eta_unknown)
{
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 3, NULL, 1, 0, 0);
  runner_progress_job_start (p, 0, S (0));
  g_autofree char *l0 = runner_progress_describe (p, S (5));
  ck_assert_msg (strstr (l0, ", ETA unknown; run 1 at"), "%s", l0);
  runner_progress_job_end (p, 0, S (10));
  runner_progress_job_start (p, 1, S (10));
  g_autofree char *l1 = runner_progress_describe (p, S (15));
  ck_assert_msg (strstr (l1, ", ETA 15 s; run 2 at"), "%s", l1);
  g_autofree char *l2 = runner_progress_describe (p, S (19));
  ck_assert_msg (strstr (l2, ", ETA 11 s; run 2 at"), "%s", l2);
  g_autofree char *l3 = runner_progress_describe (p, S (21));
  ck_assert_msg (strstr (l3, ", ETA unknown; run 2 at"), "%s", l3);
  ck_assert (runner_progress_eta_s (p, S (49)) < 0);
  runner_progress_job_end (p, 1, S (50));
  runner_progress_job_start (p, 2, S (50));
  /* the mean of 10 s and 40 s */
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (50)), 25, 1e-3);
}
END_TEST

/* A sweep whose second point costs ten times the first, one worker: the
 * last run is costed by its own point, not by the mean of all runs. */
START_TEST (eta_per_point)
{
  const guint group[] = { 0, 0, 1, 1 };
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 4, group, 1, 0, 0);
  runner_progress_job_start (p, 0, S (0));
  runner_progress_job_end (p, 0, S (1));
  runner_progress_job_start (p, 1, S (1));
  runner_progress_job_end (p, 1, S (2));
  /* the first run of point 1 is not timed yet: it and the last cost at
   * least what the costliest point timed did */
  runner_progress_job_start (p, 2, S (2));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (2)), 2, 1e-3);
  runner_progress_job_end (p, 2, S (12));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (12)), 10, 1e-3);
  runner_progress_job_start (p, 3, S (12));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (15)), 7, 1e-3);
}
END_TEST

/* Points that alternate, the costly one timed first: each waiting run
 * costs its own point's mean, 1 + 1 + 10 s (not the costliest point's 30
 * s, nor the mean run's 16.5 s). */
START_TEST (eta_waiting_by_point)
{
  const guint group[] = { 0, 1, 0, 0, 1 };
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 5, group, 1, 0, 0);
  runner_progress_job_start (p, 0, S (0));
  runner_progress_job_end (p, 0, S (1));
  runner_progress_job_start (p, 1, S (1));
  runner_progress_job_end (p, 1, S (11));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (11)), 12, 1e-3);
}
END_TEST

/* Two workers, five waiting runs of 2 s: the queue goes to the worker free
 * first: 2 + 2 + 2 on one, 2 + 2 on the other. */
START_TEST (eta_queue_on_workers)
{
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 6, NULL, 2, 0, 0);
  runner_progress_job_start (p, 0, S (0));
  runner_progress_job_end (p, 0, S (2));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (2)), 6, 1e-3);
  /* one running for 1 s already: 1 left there, then 2 + 2 on the other
   * and 2 + 2 after the 1 */
  runner_progress_job_start (p, 1, S (1));
  ck_assert_double_eq_tol (runner_progress_eta_s (p, S (2)), 5, 1e-3);
}
END_TEST

START_TEST (status_line)
{
  gint64 t0 = S (1000);
  g_autoptr (RunnerProgress) p = runner_progress_new (RUNNER_PROGRESS_NONE, 3, NULL, 2, 0, t0);
  runner_progress_job_start (p, 0, t0);
  runner_progress_job_sim (p, 0, 90 * DL_S, 1000000);
  runner_progress_job_end (p, 0, t0 + S (4));
  runner_progress_job_start (p, 1, t0 + S (4));
  runner_progress_job_sim (p, 1, 125 * DL_S, 1000000);
  g_autofree char *line = runner_progress_describe (p, t0 + S (5));
  ck_assert_str_eq (line, "1/3 runs, 5 s elapsed, ETA 4 s; run 2 at 2 min 05 s simulated; 0.4 M events/s");
  /* the rate is over the time since the last line; run 2 has 1 s of its
   * point's 4 left on one worker, run 3 4 s on the other */
  runner_progress_job_sim (p, 1, 200 * DL_S, 2000000);
  g_autofree char *again = runner_progress_describe (p, t0 + S (7));
  ck_assert_str_eq (again, "1/3 runs, 7 s elapsed, ETA 4 s; run 2 at 3 min 20 s simulated; 0.5 M events/s");
}
END_TEST

/* When a line is due: a terminal's twice a second, and always a last one
 * with the whole sweep's rate; a log's every interval but not once every
 * run has ended, and a last one only after one before (with interval 0,
 * when a run has ended since the last line); none with -q. */
START_TEST (lines_due)
{
  g_autoptr (RunnerProgress) line = runner_progress_new (RUNNER_PROGRESS_LINE, 2, NULL, 1, 0, S (0));
  ck_assert_int_eq (runner_progress_mode (line), RUNNER_PROGRESS_LINE);
  ck_assert_ptr_null (runner_progress_tick (line, S (0.4)));
  runner_progress_job_start (line, 0, S (0.1));
  runner_progress_job_sim (line, 0, 3 * DL_S, 4000000);
  g_autofree char *l1 = runner_progress_tick (line, S (0.5));
  ck_assert_str_eq (l1, "0/2 runs, 0 s elapsed, ETA unknown; run 1 at 3 s simulated; 8 M events/s");
  ck_assert_ptr_null (runner_progress_tick (line, S (0.9)));
  runner_progress_job_end (line, 0, S (2));
  runner_progress_job_start (line, 1, S (2));
  runner_progress_job_sim (line, 1, 1 * DL_S, 1000000);
  runner_progress_job_end (line, 1, S (4));
  /* a terminal's line also once all have ended: 1 M events in 3.5 s */
  g_autofree char *l2 = runner_progress_tick (line, S (4));
  ck_assert_str_eq (l2, "2/2 runs, 4 s elapsed; 0.286 M events/s");
  /* the last line: 5 M events over the sweep's 5 s */
  g_autofree char *l3 = runner_progress_finish (line, S (5));
  ck_assert_str_eq (l3, "2/2 runs, 5 s elapsed; 1 M events/s");

  /* a log, every 10 s */
  g_autoptr (RunnerProgress) log = runner_progress_new (RUNNER_PROGRESS_STATUS, 3, NULL, 1, S (10), S (0));
  runner_progress_job_start (log, 0, S (0));
  ck_assert_ptr_null (runner_progress_tick (log, S (9)));
  g_autofree char *s1 = runner_progress_tick (log, S (10));
  ck_assert_str_eq (s1, "0/3 runs, 10 s elapsed, ETA unknown; run 1 at 0 s simulated; 0 M events/s");
  ck_assert_ptr_null (runner_progress_tick (log, S (19)));
  runner_progress_job_end (log, 0, S (12));
  runner_progress_job_start (log, 1, S (12));
  runner_progress_job_end (log, 1, S (14));
  runner_progress_job_start (log, 2, S (14));
  runner_progress_job_end (log, 2, S (16));
  /* every run has ended: the last line says so, not the interval's */
  ck_assert_ptr_null (runner_progress_tick (log, S (30)));
  g_autofree char *s2 = runner_progress_finish (log, S (30));
  ck_assert_str_eq (s2, "3/3 runs, 30 s elapsed; 0 M events/s");

  /* a short sweep's log stays silent */
  g_autoptr (RunnerProgress) quiet_log = runner_progress_new (RUNNER_PROGRESS_STATUS, 1, NULL, 1, S (10), S (0));
  runner_progress_job_start (quiet_log, 0, S (0));
  runner_progress_job_end (quiet_log, 0, S (3));
  ck_assert_ptr_null (runner_progress_tick (quiet_log, S (3)));
  ck_assert_ptr_null (runner_progress_finish (quiet_log, S (3)));

  /* interval 0: a line when a run has ended since the last one */
  g_autoptr (RunnerProgress) each = runner_progress_new (RUNNER_PROGRESS_STATUS, 3, NULL, 1, 0, S (0));
  runner_progress_job_start (each, 0, S (0));
  ck_assert_ptr_null (runner_progress_tick (each, S (1)));
  runner_progress_job_end (each, 0, S (2));
  g_autofree char *e1 = runner_progress_tick (each, S (2));
  ck_assert_ptr_nonnull (e1);
  ck_assert (g_str_has_prefix (e1, "1/3 runs, 2 s elapsed, ETA 4 s"));
  ck_assert_ptr_null (runner_progress_tick (each, S (3)));
  runner_progress_job_start (each, 1, S (2));
  runner_progress_job_end (each, 1, S (4));
  g_autofree char *e2 = runner_progress_tick (each, S (4));
  ck_assert_ptr_nonnull (e2);
  g_autofree char *e3 = runner_progress_finish (each, S (6));
  ck_assert_ptr_nonnull (e3);

  /* -q */
  g_autoptr (RunnerProgress) none = runner_progress_new (RUNNER_PROGRESS_NONE, 1, NULL, 1, 0, S (0));
  runner_progress_job_start (none, 0, S (0));
  runner_progress_job_end (none, 0, S (1));
  ck_assert_ptr_null (runner_progress_tick (none, S (100)));
  ck_assert_ptr_null (runner_progress_finish (none, S (100)));
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

  TCase *pl = tcase_create ("plan");
  tcase_add_checked_fixture (pl, plan_setup, plan_teardown);
  tcase_set_timeout (pl, 120);
  tcase_add_test (pl, test_collect_folder);
  tcase_add_test (pl, test_plan_load);
  tcase_add_test (pl, test_plan_set_seed);
  tcase_add_test (pl, test_plan_load_error);
  tcase_add_test (pl, test_shards_partition);
  tcase_add_test (pl, test_resume);
  tcase_add_test (pl, test_skip_done);
  tcase_add_test (pl, test_plan_bound);
  tcase_add_loop_test (pl, test_execute, 1, 3);   /* in this process, then in 2 workers */
  suite_add_tcase (s, pl);

  TCase *pr = tcase_create ("progress");
  tcase_add_test (pr, eta_fewer_runs_than_workers);
  tcase_add_test (pr, eta_unknown);
  tcase_add_test (pr, eta_per_point);
  tcase_add_test (pr, eta_waiting_by_point);
  tcase_add_test (pr, eta_queue_on_workers);
  tcase_add_test (pr, status_line);
  tcase_add_test (pr, lines_due);
  suite_add_tcase (s, pr);
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
