/* run-progress.h — what `dlsim run` and `dlsim check` say while a sweep
 * goes: a line rewritten in place on a terminal, or status lines on stderr
 * for logs (batch jobs, Slurm, `| tee`), as OMNeT++'s Cmdenv prints them.
 *
 * CliProgress is _new/_free.  Its per-job table lives in shared memory so
 * that forked workers (-j) write their run's start, simulated time, events
 * and end into it and the parent reads them.  Every entry point takes the
 * wall clock `now_us` (g_get_monotonic_time, the same clock in every
 * process) as an argument: the tests drive it by hand.  Wall-clock time is
 * only ever printed, never recorded in results. */
#pragma once

#include "base/dl-time.h"

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef enum {
  CLI_PROGRESS_NONE,     /* -q */
  CLI_PROGRESS_LINE,     /* stdout is a terminal: one line rewritten in place */
  CLI_PROGRESS_STATUS,   /* otherwise: a status line on stderr every interval, and a last one */
} CliProgressMode;

typedef struct _CliProgress CliProgress;

/* n_jobs runs in order; group[i] names run i's sweep point (runs of one
 * point cost about the same wall time, whatever their seed); workers run
 * at once.  Lines go to out, prefixed "dlsim CMD: " in STATUS mode.
 * interval_us: between status lines (0: after every finished run). */
CliProgress *cli_progress_new (const char *cmd, CliProgressMode mode, guint n_jobs, const guint *group, guint workers,
                               gint64 interval_us, FILE *out);
void cli_progress_free (CliProgress *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliProgress, cli_progress_free)

/* The interval between status lines: DLSIM_PROGRESS_INTERVAL seconds
 * (a decimal number >= 0) if set and valid, else 10 s. */
gint64 cli_progress_interval_from_env (void);

/* A worker (or the sequential loop) reports on job i. */
void cli_progress_job_start (CliProgress *p, guint job, gint64 now_us);
void cli_progress_job_sim (CliProgress *p, guint job, DlTime sim_now, guint64 events);
void cli_progress_job_end (CliProgress *p, guint job, gint64 now_us);

/* Wall-clock seconds until the last run ends, or < 0 before any run has
 * ended.  Each run that is left costs the mean of the finished runs of its
 * point (a point not timed yet: the costliest point timed); a running run
 * has what it already spent taken off; runs that wait go to the worker free
 * first, in order.  So a sweep whose points grow, or whose last runs are
 * fewer than the workers, is not taken for the mean run times the runs
 * left over every worker. */
double cli_progress_eta_s (const CliProgress *p, gint64 now_us);

/* The text of a status line at now_us (transfer full). */
char *cli_progress_describe (CliProgress *p, gint64 now_us);

/* Prints a line if one is due (LINE: twice a second; STATUS: every
 * interval). */
void cli_progress_tick (CliProgress *p, gint64 now_us);
/* Before printing something else on out's terminal line (LINE mode). */
void cli_progress_clear_line (CliProgress *p);
/* The end of the sweep: LINE ends its line; STATUS prints a last line if
 * it printed any before (a short sweep stays silent). */
void cli_progress_finish (CliProgress *p, gint64 now_us);

G_END_DECLS
