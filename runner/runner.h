/* runner.h — the sequence that runs one scenario point, written once:
 * scenario point -> build -> world -> record.  `dlsim run` and `dlsim
 * check` (through runner-plan.c's sweep), `dlsim explore` and `dlsim
 * shrink` (explore/explore-search.c, explore/explore-shrink.c) and `dlsim
 * bench scale` and `bench record` (bench/bench-run.c) call it; the commands
 * parse and print.
 *
 * Shape: RunnerOptions on the caller's stack; runner_run_point or
 * runner_run_config fills a RunnerResult (runner_result_clear). */
#pragma once

#include "results/res-db.h"
#include "scenario/sim-scenario.h"
#include "sim/sim-world.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  /* Record into db (the runs row, then every observation, then the
   * outcome); NULL: no database. */
  ResDb *db;
  gint64 run_id;              /* with db: the run's id; 0: the next free one */
  gboolean no_events;         /* with db: no events or metrics rows (res_run_set_events) */
  gboolean no_wall;           /* with db: runs.wall_seconds 0 (the caller times more than the run) */
  /* Without db: where the observations go (NULL: nowhere). */
  const SimRecorder *recorder;
  const volatile int *interrupt;   /* sim_world_set_interrupt (NULL: none) */
  gint64 wall_limit_us;            /* sim_world_set_wall_limit (0: none) */
  SimProgressFn progress;          /* sim_world_set_progress (NULL: none) */
  gpointer progress_data;
} RunnerOptions;

typedef struct {
  /* The world's result; metrics is NULL (the world's tally is gone). */
  SimResult result;
  gint64 run_id;              /* with db: the id the run was recorded under */
  double wall_seconds;        /* from the world's start to its last row written */
  gint64 end_us;              /* g_get_monotonic_time () at that moment */
  double writer_cpu_seconds;  /* with db: the writer thread's CPU time (res_run_writer_cpu_seconds) */
  /* With db: the expectations that failed (char* lines) and how many were
   * checked; an interrupted run checks none (its outcome is recorded as
   * `interrupted`). */
  GPtrArray *failed;
  guint checked;
  /* The world ran to its end: the fields above are set, even when its rows
   * could not all be written (the run then returns FALSE). */
  gboolean ran;
} RunnerResult;

void runner_result_clear (RunnerResult *r);

/* Builds point p of s for seed (sim_scenario_build), then runs it as
 * runner_run_config does.  FALSE (error set) if the point cannot be
 * built, the world cannot be made or the database cannot be written
 * (out->ran says whether the world ran); runner_result_clear (out) in
 * every case. */
gboolean runner_run_point (const SimScenario *s, const SimPoint *p, guint64 seed, const RunnerOptions *o,
                           RunnerResult *out, GError **error);

/* Runs the world of cfg to its end; with o->db, records it as run `p` of
 * `s` with this seed (res_run_begin … res_run_finish).  A world that
 * cannot be made leaves its runs row with outcome `error`. */
gboolean runner_run_config (const SimWorldConfig *cfg, const SimScenario *s, const SimPoint *p, guint64 seed,
                            const RunnerOptions *o, RunnerResult *out, GError **error);

G_END_DECLS
