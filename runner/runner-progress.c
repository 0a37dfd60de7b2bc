/* runner-progress.c — progress of a sweep, for a terminal or a log
 * (runner-progress.h).  A leaf: it knows jobs by index and point group,
 * never the scenario or the simulator, and it returns text, never prints.
 * The ETA was the mean run time times the runs left divided over nothing:
 * with 9 runs on 8 workers it said "1 s" when the ninth had just started
 * 11 s of work, and a sweep whose later points are larger was always late;
 * runner_progress_eta_s schedules the runs left on the workers instead.
 * A run that outlasts its estimate left it at 0 s: the ETA said "0 s" for
 * the 40 s such a run still took, and "1 s" with 17 s to go; it says
 * "unknown" now, as before any run has ended. */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include "config.h"

#include "runner/runner-progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
  gint64 start_us;   /* 0: not started */
  gint64 end_us;     /* 0: not ended */
  gint64 sim_now;    /* DlTime reached */
  guint64 events;
} Job;

struct _RunnerProgress {
  RunnerProgressMode mode;
  guint n_jobs, workers, n_groups;
  guint *group;
  Job *jobs;              /* shared memory: n_jobs */
  gsize jobs_bytes;
  gint64 interval_us;
  gint64 t0_us, last_us;  /* the sweep's start, the last text given */
  guint64 last_events;    /* events at the last line */
  guint last_done;        /* runs ended at the last line */
  gboolean printed;       /* STATUS: a line was due */
};

RunnerProgress *
runner_progress_new (RunnerProgressMode mode, guint n_jobs, const guint *group, guint workers, gint64 interval_us,
                     gint64 now_us)
{
  RunnerProgress *p = g_new0 (RunnerProgress, 1);
  p->mode = mode;
  p->n_jobs = n_jobs;
  p->workers = MAX (workers, 1);
  p->group = g_new0 (guint, MAX (n_jobs, 1));
  for (guint i = 0; i < n_jobs; i++)
    {
      p->group[i] = group ? group[i] : 0;
      p->n_groups = MAX (p->n_groups, p->group[i] + 1);
    }
  p->jobs_bytes = MAX (n_jobs, 1) * sizeof (Job);
  p->jobs = mmap (NULL, p->jobs_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p->jobs == MAP_FAILED)
    {
      /* no progress is no reason to refuse the sweep: report nothing */
      p->jobs = g_new0 (Job, MAX (n_jobs, 1));
      p->jobs_bytes = 0;
      p->mode = RUNNER_PROGRESS_NONE;
    }
  p->interval_us = interval_us;
  p->t0_us = p->last_us = now_us;
  return p;
}

void
runner_progress_free (RunnerProgress *p)
{
  if (!p)
    return;
  if (p->jobs_bytes)
    munmap (p->jobs, p->jobs_bytes);
  else
    g_free (p->jobs);
  g_free (p->group);
  g_free (p);
}

RunnerProgressMode
runner_progress_mode (const RunnerProgress *p)
{
  return p->mode;
}

gint64
runner_progress_interval_from_env (void)
{
  const char *s = g_getenv ("DLSIM_PROGRESS_INTERVAL");
  if (s && *s)
    {
      char *end = NULL;
      double v = g_ascii_strtod (s, &end);
      if (end && !*end && v >= 0 && v < 1e9)
        return (gint64) (v * 1e6);
    }
  return 10 * G_USEC_PER_SEC;
}

void
runner_progress_job_start (RunnerProgress *p, guint job, gint64 now_us)
{
  g_return_if_fail (job < p->n_jobs);
  __atomic_store_n (&p->jobs[job].start_us, MAX (now_us, 1), __ATOMIC_RELEASE);
}

void
runner_progress_job_sim (RunnerProgress *p, guint job, DlTime sim_now, guint64 events)
{
  g_return_if_fail (job < p->n_jobs);
  __atomic_store_n (&p->jobs[job].sim_now, (gint64) sim_now, __ATOMIC_RELAXED);
  __atomic_store_n (&p->jobs[job].events, events, __ATOMIC_RELAXED);
}

void
runner_progress_job_end (RunnerProgress *p, guint job, gint64 now_us)
{
  g_return_if_fail (job < p->n_jobs);
  __atomic_store_n (&p->jobs[job].end_us, MAX (now_us, 1), __ATOMIC_RELEASE);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
runner_progress_eta_s (const RunnerProgress *p, gint64 now_us)
{
  g_autofree double *sum = g_new0 (double, MAX (p->n_groups, 1));
  g_autofree guint *count = g_new0 (guint, MAX (p->n_groups, 1));
  double costliest = -1;
  for (guint i = 0; i < p->n_jobs; i++)
    {
      gint64 s = __atomic_load_n (&p->jobs[i].start_us, __ATOMIC_ACQUIRE);
      gint64 e = __atomic_load_n (&p->jobs[i].end_us, __ATOMIC_ACQUIRE);
      if (s && e)
        {
          sum[p->group[i]] += (double) (e - s) / 1e6;
          count[p->group[i]]++;
        }
    }
  for (guint g = 0; g < p->n_groups; g++)
    if (count[g])
      costliest = MAX (costliest, sum[g] / count[g]);
  if (costliest < 0)
    return -1;
  /* when each worker is free: the runs going first, then the waiting runs
   * in order, each to the worker free first */
  g_autofree double *free_at = g_new0 (double, p->workers);
  guint busy = 0;
  for (guint i = 0; i < p->n_jobs; i++)
    {
      gint64 s = __atomic_load_n (&p->jobs[i].start_us, __ATOMIC_ACQUIRE);
      gint64 e = __atomic_load_n (&p->jobs[i].end_us, __ATOMIC_ACQUIRE);
      if (!s || e)
        continue;
      guint g = p->group[i];
      double cost = count[g] ? sum[g] / count[g] : costliest;
      double left = cost - (double) (now_us - s) / 1e6;
      if (left < 0)
        return -1;   /* past its estimate: how long it still runs is not known */
      if (busy < p->workers)
        free_at[busy++] = left;
    }
  qsort (free_at, p->workers, sizeof (double), cmp_double);
  for (guint i = 0; i < p->n_jobs; i++)
    {
      if (__atomic_load_n (&p->jobs[i].start_us, __ATOMIC_ACQUIRE))
        continue;
      guint g = p->group[i];
      /* free_at stays sorted: the first worker takes the run, then
       * moves to its place */
      free_at[0] += count[g] ? sum[g] / count[g] : costliest;
      for (guint k = 0; k + 1 < p->workers && free_at[k] > free_at[k + 1]; k++)
        {
          double t = free_at[k];
          free_at[k] = free_at[k + 1];
          free_at[k + 1] = t;
        }
    }
  double eta = 0;
  for (guint k = 0; k < p->workers; k++)
    eta = MAX (eta, free_at[k]);
  return eta;
}

static guint64
total_events (const RunnerProgress *p)
{
  guint64 n = 0;
  for (guint i = 0; i < p->n_jobs; i++)
    n += __atomic_load_n (&p->jobs[i].events, __ATOMIC_RELAXED);
  return n;
}

static guint
runs_done (const RunnerProgress *p)
{
  guint done = 0;
  for (guint i = 0; i < p->n_jobs; i++)
    done += __atomic_load_n (&p->jobs[i].end_us, __ATOMIC_ACQUIRE) != 0;
  return done;
}

static void
append_seconds (GString *s, double v)
{
  if (v < 59.5)
    g_string_append_printf (s, "%.0f s", v);
  else if (v < 5999.5)
    g_string_append_printf (s, "%.0f min %02.0f s", floor ((v + 0.5) / 60), floor (fmod (v + 0.5, 60)));
  else
    g_string_append_printf (s, "%.0f h %02.0f min", floor (v / 3600), floor (fmod (v, 3600) / 60));
}

char *
runner_progress_describe (RunnerProgress *p, gint64 now_us)
{
  guint done = runs_done (p);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%u/%u runs, ", done, p->n_jobs);
  append_seconds (s, (double) (now_us - p->t0_us) / 1e6);
  g_string_append (s, " elapsed");
  double eta = runner_progress_eta_s (p, now_us);
  if (done < p->n_jobs)
    {
      g_string_append (s, ", ETA ");
      if (eta < 0)
        g_string_append (s, "unknown");
      else
        append_seconds (s, eta);
    }
  /* the runs going: their simulated time */
  guint shown = 0, going = 0;
  for (guint i = 0; i < p->n_jobs; i++)
    {
      if (!__atomic_load_n (&p->jobs[i].start_us, __ATOMIC_ACQUIRE)
          || __atomic_load_n (&p->jobs[i].end_us, __ATOMIC_ACQUIRE))
        continue;
      going++;
      if (shown == 4)
        continue;
      g_string_append_printf (s, "%s%u at ", shown ? ", " : going == 1 ? "; run " : "", i + 1);
      append_seconds (s, (double) __atomic_load_n (&p->jobs[i].sim_now, __ATOMIC_RELAXED) / DL_S);
      shown++;
    }
  if (going > shown)
    g_string_append_printf (s, " and %u more", going - shown);
  if (going)
    g_string_append (s, " simulated");
  /* events per wall-clock second since the last line, as Cmdenv's ev/sec */
  guint64 ev = total_events (p);
  double dt = (double) (now_us - p->last_us) / 1e6;
  if (dt > 0 && ev >= p->last_events)
    g_string_append_printf (s, "; %.3g M events/s", (double) (ev - p->last_events) / 1e6 / dt);
  p->last_us = now_us;
  p->last_events = ev;
  p->last_done = done;
  return g_string_free (s, FALSE);
}

char *
runner_progress_tick (RunnerProgress *p, gint64 now_us)
{
  switch (p->mode)
    {
    case RUNNER_PROGRESS_NONE:
      return NULL;
    case RUNNER_PROGRESS_LINE:
      if (now_us - p->last_us < G_USEC_PER_SEC / 2)
        return NULL;
      return runner_progress_describe (p, now_us);
    case RUNNER_PROGRESS_STATUS:
      /* interval 0: a line each time a run has ended */
      if (now_us - p->last_us < p->interval_us || (p->interval_us == 0 && runs_done (p) == p->last_done)
          || runs_done (p) == p->n_jobs)   /* runner_progress_finish says the end */
        return NULL;
      p->printed = TRUE;
      return runner_progress_describe (p, now_us);
    }
  return NULL;
}

char *
runner_progress_finish (RunnerProgress *p, gint64 now_us)
{
  if (p->mode == RUNNER_PROGRESS_NONE || (p->mode == RUNNER_PROGRESS_STATUS && !p->printed))
    return NULL;
  /* the last line: the whole sweep's rate, not the last interval's */
  p->last_us = p->t0_us;
  p->last_events = 0;
  return runner_progress_describe (p, now_us);
}
