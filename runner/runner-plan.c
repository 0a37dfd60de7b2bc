/* runner-plan.c — a sweep's jobs and their execution (runner-plan.h):
 * loading every file first (nothing runs after a load error), the jobs a
 * database lacks, and the work queue of -j's forked workers, each run
 * through runner_run_point.  Ctrl-C (the caller's stop flag) stops the runs
 * in progress (outcome `interrupted`) and keeps every finished run.
 * Wall-clock time is measured here for the progress, never in the
 * simulator; nothing here prints. */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include "config.h"

#include "runner/runner-plan.h"

#include "results/res-query.h"
#include "runner/runner.h"

#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void
runner_plan_init (RunnerPlan *plan)
{
  memset (plan, 0, sizeof *plan);
  plan->scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_scenario_free);
  plan->jobs = g_array_new (FALSE, TRUE, sizeof (RunnerJob));
  plan->outcomes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
runner_plan_clear (RunnerPlan *plan)
{
  g_clear_pointer (&plan->jobs, g_array_unref);
  g_clear_pointer (&plan->scenarios, g_ptr_array_unref);
  g_clear_pointer (&plan->outcomes, g_hash_table_unref);
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

gboolean
runner_collect_files (const char *path, GPtrArray *out, GError **error)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, error);
      if (!dir)
        return FALSE;
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *n;
      while ((n = g_dir_read_name (dir)))
        g_ptr_array_add (names, g_build_filename (path, n, NULL));
      g_ptr_array_sort (names, cmp_str);
      for (guint i = 0; i < names->len; i++)
        {
          const char *f = names->pdata[i];
          if (g_file_test (f, G_FILE_TEST_IS_DIR))
            {
              if (!runner_collect_files (f, out, error))
                return FALSE;
            }
          else if (g_str_has_suffix (f, ".ini"))
            g_ptr_array_add (out, g_strdup (f));
        }
      return TRUE;
    }
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such file or directory", path);
      return FALSE;
    }
  g_ptr_array_add (out, g_strdup (path));
  return TRUE;
}

/* Does s's runs (points x repeat) fit in the plan beside those it has
 * (RUNNER_PLAN_MAX_RUNS)?  Asked before a job is allocated. */
static gboolean
within_bound (const RunnerPlan *plan, const SimScenario *s, GError **error)
{
  guint64 runs = (guint64) s->points->len * s->repeat, before = plan->jobs->len;
  if (runs <= RUNNER_PLAN_MAX_RUNS - before)
    return TRUE;
  g_autofree char *others = before ? g_strdup_printf (" and the files before it %" G_GUINT64_FORMAT, before)
                                   : g_strdup ("");
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
               "%s: [scenario] repeat = %u x %u sweep point%s = %" G_GUINT64_FORMAT " runs%s: more than the %u"
               " runs one sweep may plan (its list is made before the first run): lower repeat, or split the"
               " sweep into several files or commands", s->path, s->repeat, s->points->len,
               s->points->len == 1 ? "" : "s", runs, others, RUNNER_PLAN_MAX_RUNS);
  return FALSE;
}

gboolean
runner_plan_load (RunnerPlan *plan, GPtrArray *files, const char *const *sets, gboolean has_seed, guint64 seed,
                  gboolean only_expect, GError **error)
{
  guint group = 0;
  for (guint f = 0; f < files->len; f++)
    {
      SimScenario *s = sim_scenario_load (files->pdata[f], sets, error);
      if (!s)
        return FALSE;
      gboolean has_expect = FALSE;
      for (guint p = 0; p < s->points->len; p++)
        has_expect |= ((SimPoint *) s->points->pdata[p])->expects->len > 0;
      if (only_expect && !has_expect)
        {
          sim_scenario_free (s);
          continue;
        }
      if (!within_bound (plan, s, error))
        {
          sim_scenario_free (s);
          return FALSE;
        }
      g_ptr_array_add (plan->scenarios, s);
      guint64 base = has_seed ? seed : s->seed;
      for (guint p = 0; p < s->points->len; p++, group++)
        for (guint r = 0; r < s->repeat; r++)
          {
            RunnerJob j = { .scenario = s, .point = s->points->pdata[p], .seed = base + r, .group = group };
            g_array_append_val (plan->jobs, j);
          }
    }
  return TRUE;
}

gboolean
runner_plan_skip_done (RunnerPlan *plan, ResDb *db, guint *out_skipped, guint *out_replaced, GError **error)
{
  g_autoptr (GHashTable) done = res_db_finished_identities (db);
  g_autoptr (GHashTable) again = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *keep = g_array_new (FALSE, FALSE, sizeof (RunnerJob));
  for (guint i = 0; i < plan->jobs->len; i++)
    {
      RunnerJob *j = &g_array_index (plan->jobs, RunnerJob, i);
      char *id = res_run_identity (j->scenario, j->point, j->seed);
      if (g_hash_table_contains (done, id))
        g_free (id);
      else
        {
          g_array_append_val (keep, *j);
          g_hash_table_add (again, id);
        }
    }
  guint skipped = plan->jobs->len - keep->len;
  g_array_unref (plan->jobs);
  plan->jobs = keep;
  *out_skipped = skipped;
  return res_db_delete_unfinished (db, again, out_replaced, error);
}

gboolean
runner_plan_select (RunnerPlan *plan, ResDb *db, guint k, guint n, gboolean resume, guint *out_skipped,
                    guint *out_redone, GError **error)
{
  g_return_val_if_fail (n >= 1 && k < n, FALSE);
  GArray *keep = g_array_new (FALSE, FALSE, sizeof (RunnerJob));
  guint skipped = 0, redone = 0;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < plan->jobs->len; i++)
    {
      RunnerJob j = g_array_index (plan->jobs, RunnerJob, i);
      j.run_id = i + 1;
      if (i % n != k)
        continue;
      g_autoptr (ResRows) st = res_db_run_slot (db, j.run_id);
      if (res_rows_next (st))
        {
          const char *name = res_rows_text (st, 0);
          gboolean same = g_strcmp0 (name, j.scenario->name) == 0
                          && res_rows_int64 (st, 1) == (gint64) j.point->index
                          && (guint64) res_rows_int64 (st, 2) == j.seed;
          const char *outcome = res_rows_text (st, 3);
          gboolean finished = outcome && strcmp (outcome, "interrupted") != 0 && strcmp (outcome, "error") != 0;
          if (!same)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "run %" G_GINT64_FORMAT " of the database is another run (%s, point %lld, seed %lld): "
                           "--shard and --resume need this sweep's database or a new one", j.run_id,
                           name ? name : "?", (long long) res_rows_int64 (st, 1),
                           (long long) res_rows_int64 (st, 2));
              ok = FALSE;
            }
          else if (!resume)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "run %" G_GINT64_FORMAT " is already in the database: --resume runs what is missing",
                           j.run_id);
              ok = FALSE;
            }
          else if (finished)
            skipped++;
          else
            {
              g_clear_pointer (&st, res_rows_free);
              ok = res_db_delete_run (db, j.run_id, error);
              redone++;
              if (ok)
                g_array_append_val (keep, j);
            }
        }
      else
        g_array_append_val (keep, j);
    }
  if (!ok)
    {
      g_array_unref (keep);
      return FALSE;
    }
  g_array_unref (plan->jobs);
  plan->jobs = keep;
  plan->ids_fixed = TRUE;
  if (out_skipped)
    *out_skipped = skipped;
  if (out_redone)
    *out_redone = redone;
  return TRUE;
}

/* Is name DB.workerK-PID, a worker's file of the results file DB (base:
 * DB's name without its folder), and not its journal? */
static gboolean
is_worker_file (const char *name, const char *base)
{
  gsize n = strlen (base);
  if (strncmp (name, base, n) != 0 || !g_str_has_prefix (name + n, ".worker"))
    return FALSE;
  const char *p = name + n + strlen (".worker");
  gsize k = strspn (p, "0123456789");
  if (k == 0 || p[k] != '-')
    return FALSE;
  p += k + 1;
  k = strspn (p, "0123456789");
  return k > 0 && p[k] == '\0';
}

gboolean
runner_plan_adopt_orphans (ResDb *db, const char *db_path, GPtrArray *out_files, guint *out_runs, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (db_path);
  g_autofree char *base = g_path_get_basename (db_path);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *n;
  while (d && (n = g_dir_read_name (d)))
    if (is_worker_file (n, base))
      g_ptr_array_add (names, g_strconcat (db_path, n + strlen (base), NULL));   /* the folder as given */
  g_ptr_array_sort (names, cmp_str);
  guint runs = 0;
  for (guint i = 0; i < names->len; i++)
    {
      guint got = 0;
      if (!res_db_adopt_finished (db, names->pdata[i], &got, error))
        {
          g_prefix_error (error, "taking the finished runs of %s: ", (char *) names->pdata[i]);
          return FALSE;
        }
      res_db_remove_files (names->pdata[i]);
      runs += got;
      g_ptr_array_add (out_files, g_strdup (names->pdata[i]));
    }
  *out_runs = runs;
  return TRUE;
}

/* One execution: the plan, its options and its progress. */
typedef struct {
  RunnerPlan *plan;
  const RunnerExecOptions *o;
  RunnerProgress *progress;
} Exec;

static gboolean
stopped (const Exec *x)
{
  return x->o->stop && *x->o->stop;
}

/* A progress line, if one is due. */
static void
tick (Exec *x)
{
  g_autofree char *t = runner_progress_tick (x->progress, g_get_monotonic_time ());
  if (t && x->o->line)
    x->o->line (x->o->ud, t, FALSE);
}

static void
finish (Exec *x)
{
  g_autofree char *t = runner_progress_finish (x->progress, g_get_monotonic_time ());
  if (t && x->o->line)
    x->o->line (x->o->ud, t, TRUE);
}

/* A job's end, in the process that runs the plan: counted, then told. */
static void
tally (Exec *x, const RunnerJobDone *d)
{
  RunnerPlan *plan = x->plan;
  /* an interrupted job is neither, unless the watchdog stopped it
   * (run_job): then it failed */
  if (d->outcome != SIM_OUTCOME_INTERRUPTED || d->failed->len > 0)
    {
      if (d->failed->len == 0)
        plan->passed++;
      else
        plan->failed++;
    }
  const char *o = sim_outcome_name (d->outcome);
  g_hash_table_insert (plan->outcomes, g_strdup (o),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (plan->outcomes, o)) + 1));
  if (x->o->done)
    x->o->done (x->o->ud, &g_array_index (plan->jobs, RunnerJob, d->index), d);
}

/* A run's progress as the world reports it (every simulated second):
 * into the sweep's shared table, and, in the sequential loop, the line
 * given when due. */
typedef struct {
  Exec *x;
  guint index;          /* this run's 0-based position */
  gboolean tick;
} Live;

static void
live_progress (gpointer ud, DlTime now, guint64 events)
{
  Live *l = ud;
  runner_progress_job_sim (l->x->progress, l->index, now, events);
  if (l->tick)
    tick (l->x);
}

/* Runs job `index` into db, telling the progress table; tick: give its
 * lines when due (the sequential loop; a worker only writes the shared
 * table).  FALSE on a database error or a run that ended in error (fatal);
 * else d (runner_job_done_clear) says how the run ended. */
static gboolean
run_job (Exec *x, ResDb *db, guint index, gboolean with_tick, RunnerJobDone *d, GError **error)
{
  const RunnerJob *job = &g_array_index (x->plan->jobs, RunnerJob, index);
  runner_progress_job_start (x->progress, index, g_get_monotonic_time ());
  Live lv = { x, index, with_tick };
  RunnerOptions ro = { .db = db, .run_id = job->run_id, .no_events = x->o->no_events, .interrupt = x->o->stop,
                       .wall_limit_us = x->o->wall_limit_us, .progress = live_progress, .progress_data = &lv };
  RunnerResult rr;
  gboolean ran = runner_run_point (job->scenario, job->point, job->seed, &ro, &rr, error);
  const SimResult *res = &rr.result;
  if (rr.ran)
    {
      runner_progress_job_sim (x->progress, index, res->end, res->events);
      runner_progress_job_end (x->progress, index, rr.end_us);
    }
  if (ran && res->outcome == SIM_OUTCOME_ERROR)
    {
      /* a broken guest: what it recorded stays, with outcome error */
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s (seed %" G_GUINT64_FORMAT ", run %" G_GINT64_FORMAT "): %s",
                   job->scenario->path, job->seed, job->run_id, res->error);
      ran = FALSE;
    }
  if (ran)
    {
      *d = (RunnerJobDone) { .index = index, .outcome = res->outcome, .checked = rr.checked,
                             .failed = g_steal_pointer (&rr.failed) };
      /* interrupted with no stop raised: the watchdog, whose message
       * (the world's error) is the job's failed line */
      if (res->outcome == SIM_OUTCOME_INTERRUPTED && !stopped (x) && *res->error)
        g_ptr_array_add (d->failed, g_strdup (res->error));
    }
  runner_result_clear (&rr);
  return ran;
}

static void
job_done_clear (RunnerJobDone *d)
{
  g_clear_pointer (&d->failed, g_ptr_array_unref);
}

static RunnerExecStatus
execute_here (Exec *x, ResDb *db, GError **error)
{
  for (guint i = 0; i < x->plan->jobs->len && !stopped (x); i++)
    {
      RunnerJobDone d;
      if (!run_job (x, db, i, TRUE, &d, error))
        {
          x->plan->errors++;
          return RUNNER_EXEC_ERROR;
        }
      tally (x, &d);
      job_done_clear (&d);
      tick (x);
    }
  finish (x);
  return RUNNER_EXEC_OK;
}

/* What the forked workers share (an anonymous shared mapping): the next
 * job index, and a lock held while one writes its record, so that a record
 * longer than PIPE_BUF (many failed lines) never interleaves with another
 * worker's on the pipe. */
typedef struct {
  guint next_job;
  sem_t write_lock;
} Shared;

/* A worker's record of a finished job on the pipe: "INDEX\tOUTCOME\t
 * CHECKED\tNFAILED" and then each failed line, every piece ending in a
 * NUL; written whole under the shared lock. */
static gboolean
write_done (int fd, Shared *sh, const RunnerJobDone *d)
{
  g_autoptr (GString) rec = g_string_new (NULL);
  g_string_append_printf (rec, "%u\t%d\t%u\t%u", d->index, (int) d->outcome, d->checked, d->failed->len);
  g_string_append_c (rec, '\0');
  for (guint i = 0; i < d->failed->len; i++)
    {
      g_string_append (rec, d->failed->pdata[i]);
      g_string_append_c (rec, '\0');
    }
  while (sem_wait (&sh->write_lock) != 0 && errno == EINTR)
    ;
  gsize done = 0;
  while (done < rec->len)
    {
      ssize_t n = write (fd, rec->str + done, rec->len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (gsize) n;
    }
  sem_post (&sh->write_lock);
  return done == rec->len;
}

/* Reads the records of write_done from a pipe, piece by piece. */
typedef struct {
  RunnerJobDone d;
  guint want;        /* failed lines still to come */
  gboolean open;     /* a header was read */
} Reader;

/* TRUE when the piece ended a record (its job is counted and told; a
 * malformed header is passed over). */
static gboolean
read_piece (Exec *x, Reader *r, const char *piece)
{
  if (r->open)
    {
      g_ptr_array_add (r->d.failed, g_strdup (piece));
      r->want--;
    }
  else
    {
      g_auto (GStrv) f = g_strsplit (piece, "\t", 4);
      guint64 index = f[0] ? g_ascii_strtoull (f[0], NULL, 10) : G_MAXUINT64;
      if (g_strv_length (f) != 4 || index >= x->plan->jobs->len)
        return TRUE;
      r->d = (RunnerJobDone) { .index = (guint) index, .outcome = (SimOutcome) g_ascii_strtoll (f[1], NULL, 10),
                               .checked = (guint) g_ascii_strtoull (f[2], NULL, 10),
                               .failed = g_ptr_array_new_with_free_func (g_free) };
      r->want = (guint) g_ascii_strtoull (f[3], NULL, 10);
      r->open = TRUE;
    }
  if (r->open && r->want == 0)
    {
      tally (x, &r->d);
      job_done_clear (&r->d);
      r->open = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* A forked worker dies with the process that forked it (parent): a
 * parent killed with SIGKILL (the OOM killer, a batch system's hard limit)
 * runs no handler, and a worker left alone would wait on write_lock or a
 * full pipe forever while keeping the results file's writer lock (its
 * descriptor is inherited), so that the next run on the file waits too.
 * The parent may have died before the request: then getppid() is not it. */
static void
die_with_parent (pid_t parent)
{
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid () != parent)
    _exit (1);
}

/* A forked worker: takes the next job from the shared counter until there
 * is none (or the stop flag is raised), writing into its own database
 * file and a record per job into the pipe. */
G_GNUC_NORETURN static void
worker_main (Exec *x, const char *wpath, Shared *sh, int fd, pid_t parent)
{
  die_with_parent (parent);
  g_autoptr (GError) werr = NULL;
  ResDb *wdb = res_db_open_part (wpath, &werr);
  int rc = 0;
  for (guint i = __atomic_fetch_add (&sh->next_job, 1, __ATOMIC_SEQ_CST); wdb && i < x->plan->jobs->len && !stopped (x);
       i = __atomic_fetch_add (&sh->next_job, 1, __ATOMIC_SEQ_CST))
    {
      RunnerJobDone d;
      if (!run_job (x, wdb, i, FALSE, &d, &werr))
        {
          rc = 1;
          break;
        }
      if (!write_done (fd, sh, &d))
        rc = 1;
      job_done_clear (&d);
    }
  if (werr && x->o->worker_error)
    x->o->worker_error (x->o->ud, werr->message);
  res_db_close (wdb);
  _exit (wdb ? rc : 1);
}

/* The outcome counts of the plan's runs, from the merged database (a
 * worker that failed told no record for its run).  Only the plan's ids:
 * with --resume or --shard, runs under larger ids may be older ones. */
static void
count_outcomes (RunnerPlan *plan, ResDb *db, gint64 first_id)
{
  g_autoptr (GHashTable) ids = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < plan->jobs->len; i++)
    g_hash_table_add (ids, &g_array_index (plan->jobs, RunnerJob, i).run_id);
  g_hash_table_remove_all (plan->outcomes);
  g_autoptr (ResRows) st = res_db_run_outcomes (db, first_id);
  while (res_rows_next (st))
    {
      gint64 id = res_rows_int64 (st, 0);
      if (!g_hash_table_contains (ids, &id))
        continue;
      const char *o = res_rows_text (st, 1);
      g_hash_table_insert (plan->outcomes, g_strdup (o),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (plan->outcomes, o)) + 1));
    }
}

/* Copies the workers' files (paths) into db and removes them; a file
 * that cannot be copied stays, with the ones after it, for the next run
 * into db to take (runner_plan_adopt_orphans). */
static gboolean
merge_parts (ResDb *db, GPtrArray *paths, GError **error)
{
  for (guint k = 0; k < paths->len; k++)
    {
      if (!res_db_merge_missing (db, paths->pdata[k], NULL, error))
        {
          g_prefix_error (error, "merging %s: ", (char *) paths->pdata[k]);
          return FALSE;
        }
      res_db_remove_files (paths->pdata[k]);
    }
  return TRUE;
}

static Shared *
shared_new (GError **error)
{
  /* a work queue: the next job index, shared by the forked workers; each
   * takes the next job when it is free (run ids are fixed in advance, so
   * which worker runs a job changes nothing in the results) */
  Shared *sh = mmap (NULL, sizeof (Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "mmap: %s", g_strerror (errno));
      return NULL;
    }
  sh->next_job = 0;
  if (sem_init (&sh->write_lock, 1, 1) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "sem_init: %s", g_strerror (errno));
      munmap (sh, sizeof (Shared));
      return NULL;
    }
  return sh;
}

static void
shared_free (Shared *sh)
{
  sem_destroy (&sh->write_lock);
  munmap (sh, sizeof (Shared));
}

/* Forks the workers, each writing its file (paths, by worker) and its
 * records into pipefd[1]; their ids into pids. */
static gboolean
start_workers (Exec *x, guint workers, Shared *sh, int pipefd[2], GPtrArray *paths, GArray *pids, GError **error)
{
  fflush (NULL);
  pid_t self = getpid ();
  for (guint k = 0; k < workers; k++)
    {
      char *wpath = g_strdup_printf ("%s.worker%u-%d", x->o->db_path, k, (int) self);
      res_db_remove_files (wpath);
      g_ptr_array_add (paths, wpath);
      pid_t pid = fork ();
      if (pid == 0)
        {
          close (pipefd[0]);
          worker_main (x, wpath, sh, pipefd[1], self);
        }
      if (pid < 0)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "fork: %s", g_strerror (errno));
          return FALSE;
        }
      g_array_append_val (pids, pid);
    }
  return TRUE;
}

/* Reads the workers' records until every worker has closed the pipe,
 * giving the progress lines when due: the workers write the progress
 * table, the parent gives its lines between their records. */
static void
read_records (Exec *x, int fd)
{
  GString *buf = g_string_new (NULL);
  Reader reader = { 0 };
  char chunk[4096];
  for (;;)
    {
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      int pr = poll (&pfd, 1, x->o->progress_mode == RUNNER_PROGRESS_NONE ? -1 : 250);
      tick (x);
      if (pr == 0 || (pr < 0 && errno == EINTR))
        continue;
      ssize_t n = read (fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_string_append_len (buf, chunk, n);
      gsize start = 0;
      for (gsize i = 0; i < buf->len; i++)
        if (buf->str[i] == '\0')
          {
            gboolean ended = read_piece (x, &reader, buf->str + start);
            start = i + 1;
            if (ended)
              tick (x);
          }
      g_string_erase (buf, 0, start);
    }
  job_done_clear (&reader.d);
  g_string_free (buf, TRUE);
}

/* Waits for every worker; TRUE if one failed (each failure counted as
 * an error of the plan). */
static gboolean
reap_workers (RunnerPlan *plan, GArray *pids)
{
  gboolean failed = FALSE;
  for (guint k = 0; k < pids->len; k++)
    {
      int status = 0;
      while (waitpid (g_array_index (pids, pid_t, k), &status, 0) < 0 && errno == EINTR)
        ;
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        {
          failed = TRUE;
          plan->errors++;
        }
    }
  return failed;
}

static RunnerExecStatus
execute_workers (Exec *x, ResDb *db, guint workers, gint64 first_id, GError **error)
{
  int pipefd[2];
  if (pipe (pipefd) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "pipe: %s", g_strerror (errno));
      return RUNNER_EXEC_ERROR;
    }
  Shared *sh = shared_new (error);
  if (!sh)
    return RUNNER_EXEC_ERROR;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  if (!start_workers (x, workers, sh, pipefd, paths, pids, error))
    return RUNNER_EXEC_ERROR;
  close (pipefd[1]);
  read_records (x, pipefd[0]);
  close (pipefd[0]);
  finish (x);
  gboolean failed = reap_workers (x->plan, pids);
  shared_free (sh);
  gboolean held = res_db_hold_at_rest (db);
  gboolean merged = merge_parts (db, paths, error);
  if (held)
    res_db_release (db);
  if (!merged)
    return RUNNER_EXEC_ERROR;
  count_outcomes (x->plan, db, first_id);
  if (failed && !stopped (x))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "a worker failed");
      return RUNNER_EXEC_ERROR;
    }
  return RUNNER_EXEC_OK;
}

RunnerExecStatus
runner_plan_execute (RunnerPlan *plan, ResDb *db, const RunnerExecOptions *o, GError **error)
{
  gint64 next_id = 1;
  if (plan->ids_fixed)
    next_id = plan->jobs->len ? g_array_index (plan->jobs, RunnerJob, 0).run_id : next_id;
  else if (!res_db_next_run_ids (db, plan->jobs->len, &next_id, error))
    return RUNNER_EXEC_ERROR;
  else
    for (guint i = 0; i < plan->jobs->len; i++)
      g_array_index (plan->jobs, RunnerJob, i).run_id = next_id + i;
  guint workers = MAX (MIN (o->workers, plan->jobs->len), 1);
  g_autofree guint *groups = g_new0 (guint, MAX (plan->jobs->len, 1));
  for (guint i = 0; i < plan->jobs->len; i++)
    groups[i] = g_array_index (plan->jobs, RunnerJob, i).group;
  g_autoptr (RunnerProgress) progress = runner_progress_new (o->progress_mode, plan->jobs->len, groups, workers,
                                                             o->progress_interval_us, g_get_monotonic_time ());
  Exec x = { plan, o, progress };
  RunnerExecStatus st = workers <= 1 ? execute_here (&x, db, error) : execute_workers (&x, db, workers, next_id, error);
  if (st == RUNNER_EXEC_OK && stopped (&x))
    st = RUNNER_EXEC_INTERRUPTED;
  return st;
}
