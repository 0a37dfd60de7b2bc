/* cmd-run.c — `dlsim run` and `dlsim check`: load every scenario first
 * (nothing runs after a load error), then run each sweep point and repeat
 * into one results database.  -j N forks N workers that take the next run
 * from a shared counter (a work queue), each writing its own database file
 * with run ids assigned up front; the parent merges them.
 * Ctrl-C stops the runs in progress (outcome `interrupted`) and keeps every
 * finished run.  Wall-clock time is measured here, never in the simulator. */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include "config.h"

#include "cli/cli.h"
#include "cli/run-progress.h"
#include "results/res-db.h"
#include "sim/sim-scenario.h"

#include <sqlite3.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int interrupted;

static void
on_sigint (int sig)
{
  interrupted = 1;
  (void) sig;
}

typedef struct {
  SimScenario *scenario;
  SimPoint *point;
  guint64 seed;
  gint64 run_id;
  guint group;          /* its (scenario, point): runs of one point cost about the same */
} Job;

typedef struct {
  const char *cmd;
  GPtrArray *scenarios;   /* SimScenario* */
  GArray *jobs;           /* Job */
  gboolean quiet;
  CliProgressMode progress_mode;   /* a terminal's line, status lines on stderr, or none (-q) */
  CliProgress *progress;           /* while execute runs */
  gboolean check;         /* print PASS/FAIL lines */
  gboolean no_events;
  guint passed, failed;
  GHashTable *outcomes;   /* outcome -> count */
  gboolean ids_fixed;     /* --shard / --resume: run i of the full expansion is run i + 1 */
} Plan;

/* A run's progress as the world reports it (every simulated second):
 * into the sweep's shared table, and, in the sequential loop, the line or
 * status line printed when due. */
typedef struct {
  CliProgress *progress;
  guint index;          /* this run's 0-based position */
  gboolean tick;
} Live;

static void
live_progress (gpointer ud, DlTime now, guint64 events)
{
  Live *l = ud;
  cli_progress_job_sim (l->progress, l->index, now, events);
  if (l->tick)
    cli_progress_tick (l->progress, g_get_monotonic_time ());
}

/* Runs job `index` into db, telling plan->progress; tick: print its
 * lines when due (the sequential loop; a worker only writes the shared
 * table).  Returns FALSE on a database error (fatal). */
static gboolean
run_job (Plan *plan, ResDb *db, const Job *job, GString *report, gboolean tick, guint index, GError **error)
{
  cli_progress_job_start (plan->progress, index, g_get_monotonic_time ());
  SimBuilt built;
  if (!sim_scenario_build (job->scenario, job->point, job->seed, &built, error))
    return FALSE;
  ResRun *run = res_run_begin (db, job->run_id, job->scenario, job->point, job->seed, error);
  if (!run)
    {
      sim_built_clear (&built);
      return FALSE;
    }
  res_run_set_events (run, !plan->no_events);
  SimRecorder rec = res_run_recorder (run);
  gint64 t0 = g_get_monotonic_time ();
  SimWorld *w = sim_world_new (&built.cfg, &rec, error);
  if (!w)
    {
      res_run_abort (run, "error");
      sim_built_clear (&built);
      return FALSE;
    }
  res_run_set_world (run, w);
  sim_world_set_interrupt (w, &interrupted);
  Live lv = { plan->progress, index, tick };
  sim_world_set_progress (w, live_progress, &lv);
  const SimResult *res = sim_world_run (w);
  res_run_drain (run);   /* the run's wall time includes writing its rows */
  gint64 t1 = g_get_monotonic_time ();
  double wall = (double) (t1 - t0) / 1e6;
  cli_progress_job_sim (plan->progress, index, res->end, res->events);
  cli_progress_job_end (plan->progress, index, t1);
  g_autoptr (GPtrArray) failed = g_ptr_array_new_with_free_func (g_free);
  guint checked = 0;
  gboolean ok = TRUE;
  if (res->outcome == SIM_OUTCOME_INTERRUPTED)
    res_run_abort (run, "interrupted");
  else if (res->outcome == SIM_OUTCOME_ERROR)
    {
      /* a broken guest: what it recorded stays, with outcome error */
      res_run_abort (run, "error");
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s (seed %" G_GUINT64_FORMAT ", run %" G_GINT64_FORMAT "): %s",
                   job->scenario->path, job->seed, job->run_id, res->error);
      sim_world_free (w);
      sim_built_clear (&built);
      return FALSE;
    }
  else
    ok = res_run_finish (run, res, wall, failed, &checked, error);
  if (ok && report)
    {
      const char *label = *job->point->label ? job->point->label : NULL;
      if (res->outcome == SIM_OUTCOME_INTERRUPTED)
        g_string_append_printf (report, "INTERRUPTED %s (seed %" G_GUINT64_FORMAT ")\n", job->scenario->path, job->seed);
      else if (failed->len == 0)
        g_string_append_printf (report, "PASS %s%s%s%s seed %" G_GUINT64_FORMAT ": %s, %u expectations\n",
                                job->scenario->path, label ? " [" : "", label ? label : "", label ? "]" : "",
                                job->seed, sim_outcome_name (res->outcome), checked);
      else
        {
          g_string_append_printf (report, "FAIL %s%s%s%s seed %" G_GUINT64_FORMAT " (run %" G_GINT64_FORMAT "): %s\n",
                                  job->scenario->path, label ? " [" : "", label ? label : "", label ? "]" : "",
                                  job->seed, job->run_id, sim_outcome_name (res->outcome));
          for (guint i = 0; i < failed->len; i++)
            g_string_append_printf (report, "    %s\n", (char *) failed->pdata[i]);
        }
    }
  if (ok && plan->check && res->outcome != SIM_OUTCOME_INTERRUPTED)
    {
      if (failed->len == 0)
        plan->passed++;
      else
        plan->failed++;
    }
  if (ok)
    {
      const char *o = sim_outcome_name (res->outcome);
      g_hash_table_insert (plan->outcomes, g_strdup (o),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (plan->outcomes, o)) + 1));
    }
  sim_world_free (w);
  sim_built_clear (&built);
  return ok;
}

/* res_db_open_wait's notice: another process writes the file */
static void
say_waiting (const char *path)
{
  fprintf (stderr, "dlsim: another dlsim process is writing %s: waiting until it has finished\n", path);
}

/* Runs the plan into db (and db_path for workers' merge). */
static int
execute (Plan *plan, ResDb *db, const char *db_path, guint workers)
{
  struct sigaction sa = { 0 };
  sa.sa_handler = on_sigint;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  gint64 next_id = 1;
  g_autoptr (GError) error = NULL;
  if (plan->ids_fixed)
    next_id = plan->jobs->len ? g_array_index (plan->jobs, Job, 0).run_id : next_id;
  else if (!res_db_next_run_ids (db, plan->jobs->len, &next_id, &error))
    {
      cli_error (plan->cmd, "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  else
    for (guint i = 0; i < plan->jobs->len; i++)
      g_array_index (plan->jobs, Job, i).run_id = next_id + i;
  g_autoptr (GString) report = g_string_new (NULL);
  workers = MAX (MIN (workers, plan->jobs->len), 1);
  g_autofree guint *groups = g_new0 (guint, MAX (plan->jobs->len, 1));
  for (guint i = 0; i < plan->jobs->len; i++)
    groups[i] = g_array_index (plan->jobs, Job, i).group;
  g_autoptr (CliProgress) progress
      = cli_progress_new (plan->cmd, plan->progress_mode, plan->jobs->len, groups, workers,
                          cli_progress_interval_from_env (),
                          plan->progress_mode == CLI_PROGRESS_LINE ? stdout : stderr);
  plan->progress = progress;

  if (workers <= 1)
    {
      for (guint i = 0; i < plan->jobs->len && !interrupted; i++)
        {
          g_string_truncate (report, 0);
          if (!run_job (plan, db, &g_array_index (plan->jobs, Job, i), report, TRUE, i, &error))
            {
              cli_error (plan->cmd, "%s", error->message);
              return CLI_EXIT_FAILURE;
            }
          if (plan->check && report->len)
            {
              cli_progress_clear_line (progress);
              fputs (report->str, stdout);
            }
          cli_progress_tick (progress, g_get_monotonic_time ());
        }
      cli_progress_finish (progress, g_get_monotonic_time ());
    }
  else
    {
      int pipefd[2];
      if (pipe (pipefd) != 0)
        {
          cli_error (plan->cmd, "pipe: %s", g_strerror (errno));
          return CLI_EXIT_FAILURE;
        }
      /* a work queue: the next job index, shared by the forked workers; each
       * takes the next job when it is free (run ids are fixed in advance,
       * so which worker runs a job changes nothing in the results) */
      guint *next_job = mmap (NULL, sizeof (guint), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (next_job == MAP_FAILED)
        {
          cli_error (plan->cmd, "mmap: %s", g_strerror (errno));
          return CLI_EXIT_FAILURE;
        }
      *next_job = 0;
      fflush (NULL);
      GArray *pids = g_array_new (FALSE, FALSE, sizeof (pid_t));
      g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < workers; k++)
        {
          char *wpath = g_strdup_printf ("%s.worker%u-%d", db_path, k, (int) getpid ());
          res_db_remove_files (wpath);
          g_ptr_array_add (paths, wpath);
          pid_t pid = fork ();
          if (pid == 0)
            {
              close (pipefd[0]);
              g_autoptr (GError) werr = NULL;
              ResDb *wdb = res_db_open (wpath, &werr);
              int rc = 0;
              for (guint i = __atomic_fetch_add (next_job, 1, __ATOMIC_SEQ_CST);
                   wdb && i < plan->jobs->len && !interrupted;
                   i = __atomic_fetch_add (next_job, 1, __ATOMIC_SEQ_CST))
                {
                  GString *rep = g_string_new (NULL);
                  if (!run_job (plan, wdb, &g_array_index (plan->jobs, Job, i), rep, FALSE, i, &werr))
                    {
                      rc = 1;
                      g_string_free (rep, TRUE);
                      break;
                    }
                  /* one record per finished run: "i\tPASS/FAIL lines" */
                  g_autofree char *rec = g_strdup_printf ("%u\t%u\t%u\t%s%c", i, plan->passed, plan->failed,
                                                          rep->str, '\0');
                  plan->passed = plan->failed = 0;
                  if (write (pipefd[1], rec, strlen (rec) + 1) < 0)
                    rc = 1;
                  g_string_free (rep, TRUE);
                }
              if (werr)
                fprintf (stderr, "dlsim %s: %s\n", plan->cmd, werr->message);
              res_db_close (wdb);
              _exit (wdb ? rc : 1);
            }
          if (pid < 0)
            {
              cli_error (plan->cmd, "fork: %s", g_strerror (errno));
              return CLI_EXIT_FAILURE;
            }
          g_array_append_val (pids, pid);
        }
      close (pipefd[1]);
      GString *buf = g_string_new (NULL);
      char chunk[4096];
      for (;;)
        {
          /* the workers write the progress table; the parent prints it
           * when due, between their records */
          struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
          int pr = poll (&pfd, 1, plan->progress_mode == CLI_PROGRESS_NONE ? -1 : 250);
          cli_progress_tick (progress, g_get_monotonic_time ());
          if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;
          ssize_t n = read (pipefd[0], chunk, sizeof chunk);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          g_string_append_len (buf, chunk, n);
          gsize start = 0;
          for (gsize i = 0; i < buf->len; i++)
            if (buf->str[i] == '\0')
              {
                char **f = g_strsplit (buf->str + start, "\t", 4);
                if (g_strv_length (f) == 4)
                  {
                    plan->passed += (guint) g_ascii_strtoull (f[1], NULL, 10);
                    plan->failed += (guint) g_ascii_strtoull (f[2], NULL, 10);
                    if (plan->check && *f[3])
                      {
                        cli_progress_clear_line (progress);
                        fputs (f[3], stdout);
                      }
                  }
                g_strfreev (f);
                start = i + 1;
                cli_progress_tick (progress, g_get_monotonic_time ());
              }
          g_string_erase (buf, 0, start);
        }
      g_string_free (buf, TRUE);
      close (pipefd[0]);
      cli_progress_finish (progress, g_get_monotonic_time ());
      int worst = 0;
      for (guint k = 0; k < pids->len; k++)
        {
          int status = 0;
          while (waitpid (g_array_index (pids, pid_t, k), &status, 0) < 0 && errno == EINTR)
            ;
          if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
            worst = 1;
        }
      g_array_unref (pids);
      munmap (next_job, sizeof (guint));
      for (guint k = 0; k < paths->len; k++)
        {
          if (!res_db_merge (db, paths->pdata[k], &error))
            {
              cli_error (plan->cmd, "merging %s: %s", (char *) paths->pdata[k], error->message);
              return CLI_EXIT_FAILURE;
            }
          res_db_remove_files (paths->pdata[k]);
        }
      /* outcome counts come from the merged database */
      sqlite3_stmt *st = NULL;
      g_hash_table_remove_all (plan->outcomes);
      g_autofree char *q = g_strdup_printf ("SELECT COALESCE(outcome, 'interrupted'), COUNT(*) FROM runs"
                                            " WHERE run_id >= %" G_GINT64_FORMAT " GROUP BY 1", next_id);
      /* (with --shard the ids are not contiguous; the count covers the ids from the first) */
      if (sqlite3_prepare_v2 (res_db_handle (db), q, -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step (st) == SQLITE_ROW)
          g_hash_table_insert (plan->outcomes, g_strdup ((const char *) sqlite3_column_text (st, 0)),
                               GUINT_TO_POINTER ((guint) sqlite3_column_int (st, 1)));
      sqlite3_finalize (st);
      if (worst && !interrupted)
        {
          cli_error (plan->cmd, "a worker failed");
          return CLI_EXIT_FAILURE;
        }
    }
  if (interrupted)
    {
      fprintf (stderr, "dlsim %s: interrupted; finished runs are in %s\n", plan->cmd, db_path);
      return 130;
    }
  return CLI_EXIT_OK;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* A file as given, or every *.ini below a folder (sorted, recursively). */
static gboolean
collect_files (const char *path, GPtrArray *out, GError **error)
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
              if (!collect_files (f, out, error))
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

static void
plan_clear (Plan *plan)
{
  g_ptr_array_unref (plan->scenarios);
  g_array_unref (plan->jobs);
  g_hash_table_unref (plan->outcomes);
}

/* Loads every file (an error in any stops everything) and lists the jobs. */
static int
plan_load (Plan *plan, GPtrArray *files, const char *const *sets, gboolean has_seed, gint64 seed,
           gboolean only_expect)
{
  plan->scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_scenario_free);
  plan->jobs = g_array_new (FALSE, TRUE, sizeof (Job));
  plan->outcomes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint group = 0;
  for (guint f = 0; f < files->len; f++)
    {
      g_autoptr (GError) error = NULL;
      SimScenario *s = sim_scenario_load (files->pdata[f], sets, &error);
      if (!s)
        {
          cli_error (plan->cmd, "%s", error->message);
          return CLI_EXIT_USAGE;
        }
      gboolean has_expect = FALSE;
      for (guint p = 0; p < s->points->len; p++)
        has_expect |= ((SimPoint *) s->points->pdata[p])->expects->len > 0;
      if (only_expect && !has_expect)
        {
          sim_scenario_free (s);
          continue;
        }
      g_ptr_array_add (plan->scenarios, s);
      guint64 base = has_seed ? (guint64) seed : s->seed;
      for (guint p = 0; p < s->points->len; p++, group++)
        for (guint r = 0; r < s->repeat; r++)
          {
            Job j = { .scenario = s, .point = s->points->pdata[p], .seed = base + r, .group = group };
            g_array_append_val (plan->jobs, j);
          }
    }
  return CLI_EXIT_OK;
}

static void
print_outcomes (Plan *plan, const char *db_path)
{
  if (plan->quiet)
    return;
  GString *s = g_string_new (NULL);
  static const char *const order[] = { "completed", "stalled", "time_limit", "interrupted", NULL };
  for (guint i = 0; order[i]; i++)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (plan->outcomes, order[i]));
      if (n)
        g_string_append_printf (s, "%s%u %s", s->len ? ", " : "", n, order[i]);
    }
  printf ("%u run%s into %s (%s)\n", plan->jobs->len, plan->jobs->len == 1 ? "" : "s", db_path,
          s->len ? s->str : "none finished");
  g_string_free (s, TRUE);
}

typedef struct {
  char *output;
  int jobs;
  char **sets;
  gint64 seed;
  gboolean seed_given;
  gboolean quiet;
  gboolean no_events;
  gboolean keys;
  gboolean testbed, netem;
  char *junit, *tap;
  char *shard;
  gboolean resume, again;
  char **files;
} RunOpts;

static gboolean
parse_seed (const char *name, const char *value, gpointer data, GError **error)
{
  RunOpts *o = data;
  guint64 v;
  if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT64, &v, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--seed: '%s' is not a whole number >= 0", value);
      return FALSE;
    }
  o->seed = (gint64) v;
  o->seed_given = TRUE;
  return TRUE;
}

/* Leaves out the jobs db already has a finished copy of (the same
 * identity: res_run_identity), and says how many. */
static void
skip_done (Plan *plan, ResDb *db, const char *db_path)
{
  g_autoptr (GHashTable) done = res_db_finished_identities (db);
  if (g_hash_table_size (done) == 0)
    return;
  GArray *keep = g_array_new (FALSE, FALSE, sizeof (Job));
  for (guint i = 0; i < plan->jobs->len; i++)
    {
      Job *j = &g_array_index (plan->jobs, Job, i);
      g_autofree char *id = res_run_identity (j->scenario, j->point, j->seed);
      if (!g_hash_table_contains (done, id))
        g_array_append_val (keep, *j);
    }
  guint skipped = plan->jobs->len - keep->len;
  if (skipped)
    fprintf (stderr,
             "dlsim %s: %u of %u runs are already in %s (same scenario text, values, seed and build): skipped;"
             " --again runs them once more\n", plan->cmd, skipped, plan->jobs->len, db_path);
  g_array_unref (plan->jobs);
  plan->jobs = keep;
}

/* --shard K/N and --resume: run i of the full expansion (every file, point
 * and repeat, in order) is run i + 1 in every shard, so shards merge into
 * exactly the database of one unsharded run.  Keeps the jobs of shard K
 * (i mod N == K) that db lacks; with resume, an interrupted or unfinished
 * run is removed and done again.  A different run under one of the ids is
 * an error. */
static gboolean
select_jobs (Plan *plan, ResDb *db, guint k, guint n, gboolean resume, GError **error)
{
  sqlite3 *h = res_db_handle (db);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (h, "SELECT scenario, point, seed, outcome FROM runs WHERE run_id = ?", -1, &st, NULL);
  GArray *keep = g_array_new (FALSE, FALSE, sizeof (Job));
  guint skipped = 0, redone = 0;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < plan->jobs->len; i++)
    {
      Job j = g_array_index (plan->jobs, Job, i);
      j.run_id = i + 1;
      if (i % n != k)
        continue;
      sqlite3_bind_int64 (st, 1, j.run_id);
      if (sqlite3_step (st) == SQLITE_ROW)
        {
          const char *name = (const char *) sqlite3_column_text (st, 0);
          gboolean same = g_strcmp0 (name, j.scenario->name) == 0
                          && sqlite3_column_int64 (st, 1) == (gint64) j.point->index
                          && (guint64) sqlite3_column_int64 (st, 2) == j.seed;
          const char *outcome = (const char *) sqlite3_column_text (st, 3);
          gboolean finished = outcome && strcmp (outcome, "interrupted") != 0 && strcmp (outcome, "error") != 0;
          if (!same)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "run %" G_GINT64_FORMAT " of the database is another run (%s, point %lld, seed %lld): "
                           "--shard and --resume need this sweep's database or a new one", j.run_id,
                           name ? name : "?", sqlite3_column_int64 (st, 1), sqlite3_column_int64 (st, 2));
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
              sqlite3_reset (st);
              ok = res_db_delete_run (db, j.run_id, error);
              redone++;
              if (ok)
                g_array_append_val (keep, j);
            }
        }
      else
        g_array_append_val (keep, j);
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  if (!ok)
    {
      g_array_unref (keep);
      return FALSE;
    }
  if (resume && !plan->quiet)
    printf ("resume: %u runs already done, %u interrupted runs redone, %u to run\n", skipped, redone, keep->len);
  g_array_unref (plan->jobs);
  plan->jobs = keep;
  plan->ids_fixed = TRUE;
  return TRUE;
}

static int
run_or_check (int argc, char **argv, gboolean check)
{
  const char *cmd = check ? "check" : "run";
  RunOpts o = { .jobs = 1 };
  /* run --help lists no option of check's and check --help none of run's:
   * each command's own are hidden in the other, which refuses them below
   * with a message that says whose they are */
  const int run_only = check ? G_OPTION_FLAG_HIDDEN : 0, check_only = check ? 0 : G_OPTION_FLAG_HIDDEN;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
      check ? "also keep the results in DB (default: a temporary database)" : "results database (default NAME.db)", "DB" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs, "run in N worker processes (default 1)", "N" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.sets, "override a scenario value (repeatable)", "SECTION.KEY=VALUE" },
    { "seed", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_seed, "base seed instead of [scenario] seed", "N" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
      check ? "no progress or status lines (the PASS and FAIL lines and the last line stay)"
            : "no progress or status lines, no summary line (errors only)", NULL },
    { "no-events", 0, 0, G_OPTION_ARG_NONE, &o.no_events, "do not record events and metrics rows (summaries only)", NULL },
    { "keys", 0, run_only, G_OPTION_ARG_NONE, &o.keys, "list every scenario key with its default, and exit", NULL },
    { "shard", 0, run_only, G_OPTION_ARG_STRING, &o.shard,
      "run only runs i with i mod N = K of the full expansion; run ids as in the unsharded run", "K/N" },
    { "resume", 0, run_only, G_OPTION_ARG_NONE, &o.resume,
      "run only what DB (-o) lacks or has unfinished (run ids as in the unsharded run)", NULL },
    { "again", 0, run_only, G_OPTION_ARG_NONE, &o.again,
      "also the runs DB already has (same scenario text, values, seed and build): another copy", NULL },
    { "testbed", 0, check_only, G_OPTION_ARG_NONE, &o.testbed,
      "run the files in the testbed (real processes and sockets) instead", NULL },
    { "netem", 0, check_only, G_OPTION_ARG_NONE, &o.netem, "with --testbed: a network namespace per peer (root)",
      NULL },
    { "junit", 0, check_only, G_OPTION_ARG_FILENAME, &o.junit, "also write a JUnit XML report (one test case per run)",
      "FILE.xml" },
    { "tap", 0, check_only, G_OPTION_ARG_FILENAME, &o.tap, "also write a TAP report", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (check ? "[FILE|DIR]... - check expectations" : "FILE... - run scenarios");
  GOptionGroup *group = g_option_group_new ("main", "", "", &o, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_summary (ctx, check
      ? "Runs every scenario file that has an [expect] section (folders are searched\n"
        "for *.ini files) and checks its expectations on every run. Prints PASS or\n"
        "FAIL per run, each failure with key, expected and actual, then a last line\n"
        "'N passed, N failed'. Exit status 1 if any run failed, 2 on a bad file.\n"
        "With --testbed the files run in the testbed (dlsim testbed), one at a time\n"
        "in wall-clock time; files it cannot express are skipped, naming the key."
      : "Runs every sweep point and repeat of the scenario files into one results\n"
        "database. Every file is checked before anything runs. On a terminal a\n"
        "progress line shows done/total, elapsed time, ETA, simulated time and\n"
        "events/s; otherwise status lines go to stderr every 10 s of wall-clock\n"
        "time (DLSIM_PROGRESS_INTERVAL=SECONDS) and at the end. Ctrl-C stops: the\n"
        "finished runs stay in the database, the interrupted one is marked so.");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *db_path = NULL;
  int rc = CLI_EXIT_OK;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error (cmd, "%s", error->message);
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (check && (o.keys || o.shard || o.resume || o.again))
    {
      cli_error (cmd, "--keys, --shard, --resume and --again belong to dlsim run");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (o.keys)
    {
      const char *const *t = sim_scenario_key_table ();
      for (guint i = 0; t[i]; i += 3)
        printf ("%-32s %-20s %s\n", t[i], *t[i + 1] ? t[i + 1] : "\"\"", t[i + 2]);
      goto out;
    }
  if (o.jobs < 1)
    {
      cli_error (cmd, "-j must be at least 1");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (!check && (o.testbed || o.netem || o.junit || o.tap))
    {
      cli_error (cmd, "--testbed, --netem, --junit and --tap belong to dlsim check (or use dlsim testbed FILE)");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (check && o.again)
    {
      cli_error (cmd, "--again belongs to dlsim run (check runs every file anyway)");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (o.netem && !o.testbed)
    {
      cli_error (cmd, "--netem needs --testbed");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  if (!o.files || !o.files[0])
    {
      if (!check)
        {
          cli_error (cmd, "no scenario file given (dlsim run --help)");
          rc = CLI_EXIT_USAGE;
          goto out;
        }
      collect_files ("scenarios", files, NULL);
    }
  for (guint i = 0; o.files && o.files[i]; i++)
    if (!collect_files (o.files[i], files, &error))
      {
        cli_error (cmd, "%s", error->message);
        rc = CLI_EXIT_USAGE;
        goto out;
      }
  if (o.testbed)
    {
      rc = cli_check_testbed (files, o.sets, o.seed_given ? o.seed : -1, o.netem, o.output, o.junit, o.tap);
      goto out;
    }
  guint64 shard_k = 0, shard_n = 1;
  if (o.shard)
    {
      g_auto (GStrv) kn = g_strsplit (o.shard, "/", 2);
      if (!kn[0] || !kn[1] || !g_ascii_string_to_unsigned (kn[1], 10, 1, G_MAXUINT32, &shard_n, NULL)
          || !g_ascii_string_to_unsigned (kn[0], 10, 0, shard_n - 1, &shard_k, NULL))
        {
          cli_error (cmd, "--shard %s: expected K/N with 0 <= K < N", o.shard);
          rc = CLI_EXIT_USAGE;
          goto out;
        }
    }
  if (o.resume && !o.output)
    {
      cli_error (cmd, "--resume needs -o DB (the database to finish)");
      rc = CLI_EXIT_USAGE;
      goto out;
    }
  Plan plan = { .cmd = cmd, .quiet = o.quiet, .check = check, .no_events = o.no_events,
                .progress_mode = o.quiet                  ? CLI_PROGRESS_NONE
                                 : isatty (STDOUT_FILENO) ? CLI_PROGRESS_LINE
                                                          : CLI_PROGRESS_STATUS };
  rc = plan_load (&plan, files, (const char *const *) o.sets, o.seed_given, o.seed, check);
  if (rc != CLI_EXIT_OK)
    {
      plan_clear (&plan);
      goto out;
    }
  gboolean temp = FALSE;
  if (o.output)
    db_path = g_strdup (o.output);
  else if (check)
    {
      g_autofree char *dir = g_dir_make_tmp ("dlsim-check-XXXXXX", &error);
      if (!dir)
        {
          cli_error (cmd, "%s", error->message);
          plan_clear (&plan);
          rc = CLI_EXIT_FAILURE;
          goto out;
        }
      db_path = g_build_filename (dir, "check.db", NULL);
      temp = TRUE;
    }
  else
    db_path = g_strdup_printf ("%s.db", ((SimScenario *) plan.scenarios->pdata[0])->name);
  ResDb *db = cli_db_open_wait (db_path, say_waiting, &error);
  if (!db)
    {
      cli_error (cmd, "%s", error->message);
      plan_clear (&plan);
      rc = CLI_EXIT_FAILURE;
      goto out;
    }
  if (!check && !o.shard && !o.resume && !o.again)
    skip_done (&plan, db, db_path);
  if ((o.shard || o.resume) && !select_jobs (&plan, db, shard_k, shard_n, o.resume, &error))
    {
      cli_error (cmd, "%s", error->message);
      res_db_close (db);
      plan_clear (&plan);
      rc = CLI_EXIT_FAILURE;
      goto out;
    }
  rc = execute (&plan, db, db_path, (guint) o.jobs);
  res_db_close (db);
  if (check && !cli_write_check_reports (db_path, o.junit, o.tap, &error))
    {
      cli_error (cmd, "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  if (check)
    {
      printf ("%u passed, %u failed\n", plan.passed, plan.failed);
      if (rc == CLI_EXIT_OK && plan.failed > 0)
        rc = CLI_EXIT_FAILURE;
    }
  else if (rc == CLI_EXIT_OK)
    print_outcomes (&plan, db_path);
  if (temp)
    {
      g_autofree char *dir = g_path_get_dirname (db_path);
      res_db_remove_files (db_path);
      g_rmdir (dir);
    }
  plan_clear (&plan);
out:
  g_free (o.output);
  g_free (o.junit);
  g_free (o.tap);
  g_free (o.shard);
  g_strfreev (o.sets);
  g_strfreev (o.files);
  return rc;
}

int
cli_cmd_run (int argc, char **argv)
{
  return run_or_check (argc, argv, FALSE);
}

int
cli_cmd_check (int argc, char **argv)
{
  return run_or_check (argc, argv, TRUE);
}
