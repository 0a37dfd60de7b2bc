/* runner-progress.h — how far a sweep is: the runs done, the ETA, the
 * simulated time of the runs going and the event rate, as the text of a
 * status line, and when such a line is due.  What `dlsim run` and `dlsim
 * check` print while a sweep goes (a line rewritten in place on a
 * terminal, or status lines for logs, as OMNeT++'s Cmdenv prints them);
 * the caller writes the text, this module never prints.
 *
 * RunnerProgress is _new/_free.  Its per-job table lives in shared memory
 * so that forked workers (runner_plan_execute's -j) write their run's
 * start, simulated time, events and end into it and the parent reads them.
 * Every entry point takes the wall clock `now_us` (g_get_monotonic_time,
 * the same clock in every process) as an argument: the tests drive it by
 * hand.  Wall-clock time is only ever shown, never recorded in results. */
#pragma once

#include "base/dl-time.h"

#include <glib.h>

G_BEGIN_DECLS

/* When a line is due (runner_progress_tick, runner_progress_finish). */
typedef enum {
  RUNNER_PROGRESS_NONE,     /* never (-q) */
  RUNNER_PROGRESS_LINE,     /* a terminal's line: twice a second, and a last one */
  RUNNER_PROGRESS_STATUS,   /* a log: every interval, and a last one if any was due before */
} RunnerProgressMode;

typedef struct _RunnerProgress RunnerProgress;

/* n_jobs runs in order; group[i] names run i's sweep point (runs of one
 * point cost about the same wall time, whatever their seed; NULL: one
 * point); workers run at once.  interval_us: between status lines (0:
 * after every finished run).  now_us: the sweep's start. */
RunnerProgress *runner_progress_new (RunnerProgressMode mode, guint n_jobs, const guint *group, guint workers,
                                     gint64 interval_us, gint64 now_us);
void runner_progress_free (RunnerProgress *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunnerProgress, runner_progress_free)

/* The mode: RUNNER_PROGRESS_NONE if the shared table could not be made. */
RunnerProgressMode runner_progress_mode (const RunnerProgress *p);

/* The interval between status lines: DLSIM_PROGRESS_INTERVAL seconds
 * (a decimal number >= 0) if set and valid, else 10 s. */
gint64 runner_progress_interval_from_env (void);

/* A worker (or the sequential loop) reports on job i. */
void runner_progress_job_start (RunnerProgress *p, guint job, gint64 now_us);
void runner_progress_job_sim (RunnerProgress *p, guint job, DlTime sim_now, guint64 events);
void runner_progress_job_end (RunnerProgress *p, guint job, gint64 now_us);

/* Wall-clock seconds until the last run ends, or < 0 (unknown) before any
 * run has ended or while a running run has spent more than its estimate.  Each run that is left costs the mean of the finished runs of its
 * point (a point not timed yet: the costliest point timed); a running run
 * has what it already spent taken off; runs that wait go to the worker free
 * first, in order.  So a sweep whose points grow, or whose last runs are
 * fewer than the workers, is not taken for the mean run times the runs
 * left over every worker. */
double runner_progress_eta_s (const RunnerProgress *p, gint64 now_us);

/* The text of a status line at now_us (transfer full): "D/N runs, T
 * elapsed, ETA T; run I at T, ... simulated; R M events/s", the rate since
 * the last text; "ETA unknown" when runner_progress_eta_s has none. */
char *runner_progress_describe (RunnerProgress *p, gint64 now_us);

/* The text of the line due at now_us (transfer full), or NULL if none is:
 * LINE twice a second; STATUS every interval (0: when a run has ended
 * since the last line), never once every run has ended (the last line
 * says that). */
char *runner_progress_tick (RunnerProgress *p, gint64 now_us);

/* The text of the sweep's last line, with the whole sweep's rate
 * (transfer full), or NULL: NONE, or STATUS that gave no line before (a
 * short sweep stays silent). */
char *runner_progress_finish (RunnerProgress *p, gint64 now_us);

G_END_DECLS
