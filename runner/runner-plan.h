/* runner-plan.h — a sweep: every scenario file's points and repeats as a
 * list of jobs, the jobs a database lacks (--resume, and a shard K/N of
 * them), and running them, in order or in N worker processes that take the
 * next job from a shared counter (a work queue, each worker writing its own
 * database file with run ids assigned up front, merged at the end).
 * `dlsim run` and `dlsim check` (cli/cmd-run.c) parse their options into
 * it and print what it tells them; it prints nothing.
 *
 * Shape: RunnerPlan on the caller's memory, runner_plan_init /
 * runner_plan_clear. */
#pragma once

#include "results/res-db.h"
#include "runner/runner-progress.h"
#include "scenario/sim-scenario.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  SimScenario *scenario;   /* the plan's */
  SimPoint *point;
  guint64 seed;
  gint64 run_id;           /* set by runner_plan_select or runner_plan_execute */
  guint group;             /* its (scenario, point): runs of one point cost about the same */
} RunnerJob;

typedef struct {
  GPtrArray *scenarios;    /* SimScenario* */
  GArray *jobs;            /* RunnerJob, in order: file, point, repeat */
  gboolean ids_fixed;      /* runner_plan_select: run i of the full expansion is run i + 1 */
  /* What runner_plan_execute counted: the runs with no failed expectation
   * and those with one (interrupted runs are neither), and the runs by
   * outcome name (char* -> count in a pointer; with workers, the merged
   * database's runs from the first id on); errors: the runs that ended
   * in error (a guest that did not start, a database that failed), at
   * most one a process since a run's error stops its process's runs. */
  guint passed, failed, errors;
  GHashTable *outcomes;
} RunnerPlan;

void runner_plan_init (RunnerPlan *plan);
void runner_plan_clear (RunnerPlan *plan);

/* Appends path to out (transfer full strings) as given, or every *.ini
 * below it if it is a folder (sorted by name, recursively). */
gboolean runner_collect_files (const char *path, GPtrArray *out, GError **error);

/* The most runs one plan holds (every file, point and repeat): 40 MB of
 * jobs.  A sweep of 1 000 points x 1 000 000 repeats (10^9 runs) was
 * allocated whole before its first run. */
#define RUNNER_PLAN_MAX_RUNS 1000000u

/* Loads every file of files with the values sets ("section.key=value"
 * lines, NULL: none) and appends its jobs: each point, each repeat r, seed
 * (has_seed ? seed : the file's seed) + r.  only_expect: leaves out the
 * files without an [expect] section in any point.  FALSE at the first file
 * that does not load (nothing is run after a load error), or that would
 * take the plan past RUNNER_PLAN_MAX_RUNS. */
gboolean runner_plan_load (RunnerPlan *plan, GPtrArray *files, const char *const *sets, gboolean has_seed,
                           guint64 seed, gboolean only_expect, GError **error);

/* Leaves out the jobs db already has a finished copy of (the same
 * identity: res_run_identity), and removes from db the unfinished runs
 * (interrupted, error, killed) of the jobs it keeps: the runs about to be
 * done again replace them.  out_skipped: jobs left out; out_replaced: runs
 * removed. */
gboolean runner_plan_skip_done (RunnerPlan *plan, ResDb *db, guint *out_skipped, guint *out_replaced,
                                GError **error);

/* --shard K/N and --resume: run i of the full expansion (every file, point
 * and repeat, in order) is run i + 1 in every shard, so shards merge into
 * exactly the database of one unsharded run.  Keeps the jobs of shard k
 * (i mod n == k) that db lacks; with resume, an interrupted or unfinished
 * run is removed and done again (out_skipped: finished runs left out,
 * out_redone: runs removed to be done again).  A different run under one
 * of the ids, or without resume any run under one, is an error. */
gboolean runner_plan_select (RunnerPlan *plan, ResDb *db, guint k, guint n, gboolean resume, guint *out_skipped,
                             guint *out_redone, GError **error);

/* The files DB_PATH.workerK-PID that the -j workers of a killed sweep
 * left beside db (db_path: its file, opened for writing, so that no
 * living sweep writes to it or its workers' files): their finished runs
 * are copied into db (res_db_adopt_finished) and the files removed.
 * out_files: their names are appended (transfer full); out_runs: the runs
 * copied. */
gboolean runner_plan_adopt_orphans (ResDb *db, const char *db_path, GPtrArray *out_files, guint *out_runs,
                                    GError **error);

/* A job that ran to its end, told in the process that runs the plan. */
typedef struct {
  guint index;           /* in plan->jobs */
  SimOutcome outcome;
  guint checked;         /* expectations checked */
  GPtrArray *failed;     /* char*: the expectations that failed, as lines */
} RunnerJobDone;

typedef struct {
  const char *db_path;   /* db's file: workers write DB_PATH.workerK-PID next to it */
  guint workers;         /* processes at once (1: in this process) */
  gboolean no_events;    /* no events or metrics rows */
  /* Raised (by the caller's SIGINT handler, in every process): no job
   * starts after it, the jobs going end `interrupted`. */
  const volatile int *stop;
  /* Each run's wall-clock watchdog (sim_world_set_wall_limit; 0: none).
   * A run that reaches it ends `interrupted`, and its job counts as
   * failed, with the world's message as its failed line. */
  gint64 wall_limit_us;
  RunnerProgressMode progress_mode;
  gint64 progress_interval_us;
  /* A progress line is due (runner_progress_tick), or the last one
   * (runner_progress_finish): its text. */
  void (*line) (gpointer ud, const char *text, gboolean last);
  /* A job has ended (each job once, in the order their ends arrive). */
  void (*done) (gpointer ud, const RunnerJob *job, const RunnerJobDone *d);
  /* In a worker process: the error that stopped it. */
  void (*worker_error) (gpointer ud, const char *message);
  gpointer ud;
} RunnerExecOptions;

typedef enum {
  RUNNER_EXEC_OK,
  RUNNER_EXEC_ERROR,         /* error set: a run, the database, a worker or a merge failed */
  RUNNER_EXEC_INTERRUPTED,   /* *stop was raised: the finished runs are in db */
} RunnerExecStatus;

/* Runs every job of plan into db: run ids are the next free ones unless
 * runner_plan_select fixed them; with o->workers > 1, in that many forked
 * processes.  Counts plan->passed, failed and outcomes. */
RunnerExecStatus runner_plan_execute (RunnerPlan *plan, ResDb *db, const RunnerExecOptions *o, GError **error);

G_END_DECLS
