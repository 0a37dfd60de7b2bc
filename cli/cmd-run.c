/* cmd-run.c — `dlsim run` and `dlsim check`: their options, and what they
 * print.  The sweep itself (loading every file first, the jobs a database
 * lacks, --shard and --resume, running the jobs in -j worker processes)
 * is runner/runner-plan.c's; this file parses into it, raises its stop
 * flag on Ctrl-C and prints the progress lines, the PASS and FAIL lines
 * and the last line it reports. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-db.h"
#include "runner/runner-plan.h"
#include "runner/runner-progress.h"
#include "scenario/sim-scenario.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int interrupted;

static void
on_sigint (int sig)
{
  interrupted = 1;
  (void) sig;
}

/* What the command prints while the plan runs. */
typedef struct {
  const char *cmd;
  gboolean check;                 /* print PASS/FAIL lines */
  RunnerProgressMode progress;    /* a terminal's line (stdout), status lines (stderr), or none (-q) */
} Say;

static void
say_line (gpointer ud, const char *text, gboolean last)
{
  const Say *say = ud;
  /* the line may name a scenario or a point from a file */
  g_autofree char *shown = cli_shown (text, FALSE);
  switch (say->progress)
    {
    case RUNNER_PROGRESS_NONE:
      return;
    case RUNNER_PROGRESS_LINE:
      fprintf (stdout, last ? "\r\033[K[%s]\n" : "\r\033[K[%s]", shown);
      fflush (stdout);
      return;
    case RUNNER_PROGRESS_STATUS:
      fprintf (stderr, last ? "dlsim %s: %s (end)\n" : "dlsim %s: %s\n", say->cmd, shown);
      fflush (stderr);
      return;
    }
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
  gint64 wall_limit_us;
  char **files;
} RunOpts;

/* check: a run's PASS, FAIL (with each failed expectation) or INTERRUPTED
 * line; run: only a run that --wall-limit stopped (interrupted, with the
 * world's message as its failed line) */
static void
say_done (gpointer ud, const RunnerJob *job, const RunnerJobDone *d)
{
  const Say *say = ud;
  if (!say->check && d->outcome == SIM_OUTCOME_INTERRUPTED && d->failed->len > 0)
    {
      g_autofree char *text = g_strdup_printf ("%s seed %" G_GUINT64_FORMAT " (run %" G_GINT64_FORMAT "): %s; "
                                               "recorded as interrupted", job->scenario->path, job->seed,
                                               job->run_id, (char *) d->failed->pdata[0]);
      g_autofree char *shown = cli_shown (text, FALSE);
      if (say->progress == RUNNER_PROGRESS_LINE)
        fputs ("\r\033[K", stdout);
      fprintf (stderr, "dlsim %s: %s\n", say->cmd, shown);
    }
  if (!say->check)
    return;
  g_autoptr (GString) report = g_string_new (NULL);
  const char *label = *job->point->label ? job->point->label : NULL;
  if (d->outcome == SIM_OUTCOME_INTERRUPTED && d->failed->len == 0)
    g_string_append_printf (report, "INTERRUPTED %s (seed %" G_GUINT64_FORMAT ")\n", job->scenario->path, job->seed);
  else if (d->failed->len == 0)
    g_string_append_printf (report, "PASS %s%s%s%s seed %" G_GUINT64_FORMAT ": %s, %u expectations\n",
                            job->scenario->path, label ? " [" : "", label ? label : "", label ? "]" : "", job->seed,
                            sim_outcome_name (d->outcome), d->checked);
  else
    {
      g_string_append_printf (report, "FAIL %s%s%s%s seed %" G_GUINT64_FORMAT " (run %" G_GINT64_FORMAT "): %s\n",
                              job->scenario->path, label ? " [" : "", label ? label : "", label ? "]" : "",
                              job->seed, job->run_id, sim_outcome_name (d->outcome));
      for (guint i = 0; i < d->failed->len; i++)
        g_string_append_printf (report, "    %s\n", (char *) d->failed->pdata[i]);
    }
  if (say->progress == RUNNER_PROGRESS_LINE)
    fputs ("\r\033[K", stdout);   /* the progress line goes first */
  /* file names, labels and expectations' text from files: shown */
  g_autofree char *shown = cli_shown (report->str, TRUE);
  fputs (shown, stdout);
}

/* a worker's error, in the worker */
static void
say_worker_error (gpointer ud, const char *message)
{
  const Say *say = ud;
  g_autofree char *shown = cli_shown (message, TRUE);
  fprintf (stderr, "dlsim %s: %s\n", say->cmd, shown);
}

/* res_db_open_wait's notice: another process writes the file */
static void
say_waiting (const char *path)
{
  fprintf (stderr, "dlsim: another dlsim process is writing %s: waiting until it has finished\n", path);
}

/* Runs the plan into db (db_path: for the workers' files and the notice
 * of an interrupted sweep). */
static int
execute (RunnerPlan *plan, Say *say, const RunOpts *ro, ResDb *db, const char *db_path)
{
  struct sigaction sa = { 0 };
  sa.sa_handler = on_sigint;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  RunnerExecOptions xo = { .db_path = db_path, .workers = (guint) ro->jobs, .no_events = ro->no_events,
                           .stop = &interrupted, .wall_limit_us = ro->wall_limit_us,
                           .progress_mode = say->progress,
                           .progress_interval_us = runner_progress_interval_from_env (),
                           .line = say_line, .done = say_done, .worker_error = say_worker_error, .ud = say };
  g_autoptr (GError) error = NULL;
  switch (runner_plan_execute (plan, db, &xo, &error))
    {
    case RUNNER_EXEC_OK:
      return CLI_EXIT_OK;
    case RUNNER_EXEC_ERROR:
      cli_error (say->cmd, "%s", error->message);
      return CLI_EXIT_FAILURE;
    case RUNNER_EXEC_INTERRUPTED:
      if (say->check)
        fprintf (stderr, "dlsim %s: interrupted; finished runs are in %s\n", say->cmd, db_path);
      else
        fprintf (stderr, "dlsim %s: interrupted; finished runs are in %s: the same command again, or with"
                 " --resume -o %s, runs the rest and replaces the interrupted runs\n", say->cmd, db_path, db_path);
      return 130;
    }
  return CLI_EXIT_FAILURE;
}

/* Takes the finished runs of the workers' files a killed sweep left
 * beside db_path, telling what it took. */
static gboolean
adopt_orphans (const char *cmd, ResDb *db, const char *db_path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  guint runs = 0;
  if (!runner_plan_adopt_orphans (db, db_path, files, &runs, &error))
    {
      cli_error (cmd, "%s", error->message);
      return FALSE;
    }
  if (files->len == 0)
    return TRUE;
  g_ptr_array_add (files, NULL);
  g_autofree char *list = g_strjoinv (", ", (char **) files->pdata);
  fprintf (stderr, "dlsim %s: %u finished run%s taken into %s from the files of a killed sweep's workers (%s),"
           " then removed\n", cmd, runs, runs == 1 ? "" : "s", db_path, list);
  return TRUE;
}

/* A plain run: leaves out the runs db_path has, and replaces its
 * unfinished ones, telling both. */
static gboolean
skip_done (const char *cmd, RunnerPlan *plan, ResDb *db, const char *db_path)
{
  g_autoptr (GError) error = NULL;
  guint total = plan->jobs->len, skipped = 0, replaced = 0;
  if (!runner_plan_skip_done (plan, db, &skipped, &replaced, &error))
    {
      cli_error (cmd, "%s", error->message);
      return FALSE;
    }
  if (skipped)
    fprintf (stderr,
             "dlsim %s: %u of %u runs are already in %s (same scenario text, values, seed and build): skipped;"
             " --again runs them once more\n", cmd, skipped, total, db_path);
  if (replaced)
    fprintf (stderr, "dlsim %s: %u interrupted or unfinished run%s of these points removed from %s: run again\n",
             cmd, replaced, replaced == 1 ? "" : "s", db_path);
  return TRUE;
}

static void
print_outcomes (const RunnerPlan *plan, const char *db_path)
{
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

/* check's last line: "N passed, N failed", and ", N errors" when a run
 * ended in error (a guest that did not start): such a run is neither
 * passed nor failed, and the line does not hide it */
static void
print_check_line (guint passed, guint failed, guint errors)
{
  printf ("%u passed, %u failed", passed, failed);
  if (errors)
    printf (", %u error%s", errors, errors == 1 ? "" : "s");
  printf ("\n");
}

/* check found no file with an [expect] section in args (NULL: the
 * default folder) */
static void
say_nothing_to_check (char **args)
{
  if (!args || !args[0])
    {
      cli_error ("check", "no scenario with an [expect] section found in " CLI_CHECK_DEFAULT_DIRS
                          " (the folders checked when no FILE or DIR is given)");
      return;
    }
  g_autofree char *list = g_strjoinv (", ", args);
  cli_error ("check", "no scenario with an [expect] section found in %s", list);
}

static gint
cmp_path (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* check's files when given none: ./scenarios, then each family's
 * ./protocol/FAMILY/scenarios in the order of the names (a folder that
 * is missing adds nothing) */
static void
collect_default_files (GPtrArray *files)
{
  runner_collect_files (CLI_CHECK_DEFAULT_DIR, files, NULL);
  g_autoptr (GDir) top = g_dir_open (CLI_CHECK_FAMILY_TOP, 0, NULL);
  if (!top)
    return;
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  const char *n;
  while ((n = g_dir_read_name (top)))
    {
      char *d = g_build_filename (CLI_CHECK_FAMILY_TOP, n, CLI_CHECK_DEFAULT_DIR, NULL);
      if (g_file_test (d, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (dirs, d);
      else
        g_free (d);
    }
  g_ptr_array_sort (dirs, cmp_path);
  for (guint i = 0; i < dirs->len; i++)
    runner_collect_files (dirs->pdata[i], files, NULL);
}

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

static gboolean
parse_wall_limit (const char *name, const char *value, gpointer data, GError **error)
{
  RunOpts *o = data;
  DlTime ns = 0;
  g_autoptr (GError) e = NULL;
  if (!dl_parse_duration (value, &ns, &e) || ns < 1000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--wall-limit %s: %s", value,
                   e ? e->message : "at least 1us");
      return FALSE;
    }
  o->wall_limit_us = ns / 1000;
  return TRUE;
}

/* run's and check's --help summary */
static const char *
run_summary (gboolean check)
{
  return check
    ? "Runs every scenario file that has an [expect] section (folders are searched\n"
      "for *.ini files; with no FILE or DIR, the folders ./" CLI_CHECK_DEFAULT_DIR " and each\n"
      "family's ./" CLI_CHECK_FAMILY_TOP "/*/" CLI_CHECK_DEFAULT_DIR ") and checks its expectations on\n"
      "every run. Prints PASS or FAIL per run, each failure with key, expected\n"
      "and actual, then a last line 'N passed, N failed' (and ', N errors' when\n"
      "runs ended in error, such as a guest that did not start).\n"
      "Exit status 1 if any run failed or ended in error, 2 on a bad file or when\n"
      "no file with an [expect] section is found.\n"
      "With --testbed the files run in the testbed (dlsim testbed), one at a time\n"
      "in wall-clock time; files it cannot express are skipped, naming the key."
    : "Runs every sweep point and repeat of the scenario files into one results\n"
      "database. Every file is checked before anything runs. On a terminal a\n"
      "progress line shows done/total, elapsed time, ETA, simulated time and\n"
      "events/s; otherwise status lines go to stderr every 10 s of wall-clock\n"
      "time (DLSIM_PROGRESS_INTERVAL=SECONDS) and at the end. Ctrl-C stops: the\n"
      "finished runs stay in the database, the interrupted one is marked so; the\n"
      "same command again (or --resume) runs the rest in its place.";
}

/* Parses run's or check's options into o (argc and argv as main gave
 * them).  FALSE, having said why, with *rc the exit status, on a
 * refusal. */
static gboolean
parse_options (const char *cmd, int *argc, char ***argv, gboolean check, RunOpts *o, int *rc)
{
  /* run --help lists no option of check's and check --help none of run's:
   * each command's own are hidden in the other, which refuses them below
   * with a message that says whose they are */
  const int run_only = check ? G_OPTION_FLAG_HIDDEN : 0, check_only = check ? 0 : G_OPTION_FLAG_HIDDEN;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output,
      check ? "also keep the results in DB (default: a temporary database)" : "results database (default NAME.db)", "DB" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs, "run in N worker processes (default 1)", "N" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sets, "override a scenario value (repeatable)" CLI_SET_PATHS,
      "SECTION.KEY=VALUE" },
    { "seed", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_seed, "base seed instead of [scenario] seed", "N" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
      check ? "no progress or status lines (the PASS and FAIL lines and the last line stay)"
            : "no progress or status lines, no summary line (errors only)", NULL },
    { "no-events", 0, 0, G_OPTION_ARG_NONE, &o->no_events, "do not record events and metrics rows (summaries only)", NULL },
    { "wall-limit", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_wall_limit,
      "stop a run after D of wall-clock time (a watchdog for hangs): recorded as interrupted, and check counts it failed", "D" },
    { "keys", 0, run_only, G_OPTION_ARG_NONE, &o->keys, "list every scenario key with its default, and exit", NULL },
    { "shard", 0, run_only, G_OPTION_ARG_STRING, &o->shard,
      "run only runs i with i mod N = K of the full expansion; run ids as in the unsharded run", "K/N" },
    { "resume", 0, run_only, G_OPTION_ARG_NONE, &o->resume,
      "run only what DB (-o) lacks or has unfinished (run ids as in the unsharded run)", NULL },
    { "again", 0, run_only, G_OPTION_ARG_NONE, &o->again,
      "also the runs DB already has (same scenario text, values, seed and build): another copy", NULL },
    { "testbed", 0, check_only, G_OPTION_ARG_NONE, &o->testbed,
      "run the files in the testbed (real processes and sockets) instead", NULL },
    { "netem", 0, check_only, G_OPTION_ARG_NONE, &o->netem, "with --testbed: a network namespace per peer (root)",
      NULL },
    { "junit", 0, check_only, G_OPTION_ARG_FILENAME, &o->junit, "also write a JUnit XML report (one test case per run)",
      "FILE.xml" },
    { "tap", 0, check_only, G_OPTION_ARG_FILENAME, &o->tap, "also write a TAP report", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (check ? "[FILE|DIR]... - check expectations" : "FILE... - run scenarios");
  GOptionGroup *group = g_option_group_new ("main", "", "", o, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_summary (ctx, run_summary (check));
  if (!cli_parse_options (cmd, ctx, argc, argv))
    {
      *rc = CLI_EXIT_USAGE;
      return FALSE;
    }
  return TRUE;
}

/* Refuses an option that belongs to the other command or lacks its
 * partner, in the order the messages have always come, and does --keys.
 * FALSE ends the command with *rc (--keys too, having printed the
 * table). */
static gboolean
options_ok (const char *cmd, const RunOpts *o, gboolean check, int *rc)
{
  const char *refusal = NULL;
  *rc = CLI_EXIT_USAGE;
  if (!cli_check_sets (cmd, o->sets))
    return FALSE;
  if (check && (o->keys || o->shard || o->resume || o->again))
    refusal = "--keys, --shard, --resume and --again belong to dlsim run";
  else if (o->keys)
    {
      const char *const *t = sim_scenario_key_table ();
      for (guint i = 0; t[i]; i += 3)
        printf ("%-32s %-20s %s\n", t[i], *t[i + 1] ? t[i + 1] : "\"\"", t[i + 2]);
      *rc = CLI_EXIT_OK;
      return FALSE;
    }
  else if (o->jobs < 1)
    refusal = "-j must be at least 1";
  else if (!check && (o->testbed || o->netem || o->junit || o->tap))
    refusal = "--testbed, --netem, --junit and --tap belong to dlsim check (or use dlsim testbed FILE)";
  else if (check && o->again)
    refusal = "--again belongs to dlsim run (check runs every file anyway)";
  else if (o->netem && !o->testbed)
    refusal = "--netem needs --testbed";
  if (refusal)
    {
      cli_error (cmd, "%s", refusal);
      return FALSE;
    }
  *rc = CLI_EXIT_OK;
  return TRUE;
}

/* The scenario files of o's FILEs and DIRs into files (check's default
 * folders when there are none).  FALSE, having said why, on a refusal. */
static gboolean
gather_files (const char *cmd, const RunOpts *o, gboolean check, GPtrArray *files)
{
  g_autoptr (GError) error = NULL;
  if (!o->files || !o->files[0])
    {
      if (!check)
        {
          cli_error (cmd, "no scenario file given (dlsim run --help)");
          return FALSE;
        }
      collect_default_files (files);
    }
  for (guint i = 0; o->files && o->files[i]; i++)
    if (!runner_collect_files (o->files[i], files, &error))
      {
        cli_error (cmd, "%s", error->message);
        return FALSE;
      }
  return TRUE;
}

/* --shard K/N into *shard_k and *shard_n, and --resume's need of -o.
 * FALSE, having said why, on a refusal. */
static gboolean
parse_shard (const char *cmd, const RunOpts *o, guint64 *shard_k, guint64 *shard_n)
{
  if (o->shard)
    {
      g_auto (GStrv) kn = g_strsplit (o->shard, "/", 2);
      if (!kn[0] || !kn[1] || !g_ascii_string_to_unsigned (kn[1], 10, 1, G_MAXUINT32, shard_n, NULL)
          || !g_ascii_string_to_unsigned (kn[0], 10, 0, *shard_n - 1, shard_k, NULL))
        {
          cli_error (cmd, "--shard %s: expected K/N with 0 <= K < N", o->shard);
          return FALSE;
        }
    }
  if (o->resume && !o->output)
    {
      cli_error (cmd, "--resume needs -o DB (the database to finish)");
      return FALSE;
    }
  return TRUE;
}

/* Loads every file into plan, and says each scenario's warnings.
 * FALSE, having said why, when a file is refused or check finds
 * nothing to check. */
static gboolean
load_plan (const char *cmd, const RunOpts *o, gboolean check, GPtrArray *files, RunnerPlan *plan)
{
  g_autoptr (GError) error = NULL;
  if (!runner_plan_load (plan, files, (const char *const *) o->sets, o->seed_given, (guint64) o->seed, check, &error))
    {
      cli_error (cmd, "%s", error->message);
      return FALSE;
    }
  if (check && plan->scenarios->len == 0)
    {
      say_nothing_to_check (o->files);
      return FALSE;
    }
  for (guint i = 0; i < plan->scenarios->len; i++)
    {
      const SimScenario *sc = plan->scenarios->pdata[i];
      for (guint k = 0; k < sc->warnings->len; k++)
        cli_error (cmd, "warning: %s", (const char *) sc->warnings->pdata[k]);
    }
  return TRUE;
}

/* The results database's path: -o, check's temporary one (*temp set),
 * or the first scenario's NAME.db.  NULL, having said why, when the
 * temporary folder cannot be made. */
static char *
choose_db_path (const char *cmd, const RunOpts *o, gboolean check, const RunnerPlan *plan, gboolean *temp)
{
  g_autoptr (GError) error = NULL;
  if (o->output)
    return g_strdup (o->output);
  if (!check)
    return g_strdup_printf ("%s.db", ((SimScenario *) plan->scenarios->pdata[0])->name);
  g_autofree char *dir = g_dir_make_tmp ("dlsim-check-XXXXXX", &error);
  if (!dir)
    {
      cli_error (cmd, "%s", error->message);
      return NULL;
    }
  *temp = TRUE;
  return g_build_filename (dir, "check.db", NULL);
}

/* Opens db_path, takes a killed sweep's orphans, and leaves out of plan
 * what the database has (a plain run) or what --shard and --resume do
 * not select.  NULL, having said why, on an error. */
static ResDb *
open_db (const char *cmd, const RunOpts *o, gboolean check, RunnerPlan *plan, const char *db_path,
         guint64 shard_k, guint64 shard_n)
{
  g_autoptr (GError) error = NULL;
  ResDb *db = cli_db_open_wait (db_path, say_waiting, &error);
  if (!db)
    {
      cli_error (cmd, "%s", error->message);
      return NULL;
    }
  if (!adopt_orphans (cmd, db, db_path)
      || (!check && !o->shard && !o->resume && !o->again && !skip_done (cmd, plan, db, db_path)))
    {
      res_db_close (db);
      return NULL;
    }
  guint skipped = 0, redone = 0;
  if ((o->shard || o->resume)
      && !runner_plan_select (plan, db, (guint) shard_k, (guint) shard_n, o->resume, &skipped, &redone, &error))
    {
      cli_error (cmd, "%s", error->message);
      res_db_close (db);
      return NULL;
    }
  if (o->resume && !o->quiet)
    printf ("resume: %u runs already done, %u interrupted runs redone, %u to run\n", skipped, redone, plan->jobs->len);
  return db;
}

/* Runs the plan into db (which it closes), then writes check's reports
 * and prints the last line. */
static int
execute_and_report (RunnerPlan *plan, Say *say, const RunOpts *o, ResDb *db, const char *db_path)
{
  g_autoptr (GError) error = NULL;
  int rc = execute (plan, say, o, db, db_path);
  res_db_close (db);
  if (say->check && !cli_write_check_reports (db_path, o->junit, o->tap, &error))
    {
      cli_error (say->cmd, "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  if (say->check)
    {
      print_check_line (plan->passed, plan->failed, plan->errors);
      if (rc == CLI_EXIT_OK && plan->failed > 0)
        rc = CLI_EXIT_FAILURE;
    }
  else if (rc == CLI_EXIT_OK && !o->quiet)
    print_outcomes (plan, db_path);
  return rc;
}

/* The loaded plan's sweep: its database, its runs and what they print;
 * check's temporary database is removed at the end. */
static int
run_plan (const char *cmd, const RunOpts *o, gboolean check, GPtrArray *files, RunnerPlan *plan,
          guint64 shard_k, guint64 shard_n)
{
  Say say = { .cmd = cmd, .check = check,
              .progress = o->quiet                 ? RUNNER_PROGRESS_NONE
                          : isatty (STDOUT_FILENO) ? RUNNER_PROGRESS_LINE
                                                   : RUNNER_PROGRESS_STATUS };
  if (!load_plan (cmd, o, check, files, plan))
    return CLI_EXIT_USAGE;
  gboolean temp = FALSE;
  g_autofree char *db_path = choose_db_path (cmd, o, check, plan, &temp);
  if (!db_path)
    return CLI_EXIT_FAILURE;
  ResDb *db = open_db (cmd, o, check, plan, db_path, shard_k, shard_n);
  if (!db)
    return CLI_EXIT_FAILURE;
  int rc = execute_and_report (plan, &say, o, db, db_path);
  if (temp)
    {
      g_autofree char *dir = g_path_get_dirname (db_path);
      res_db_remove_files (db_path);
      g_rmdir (dir);
    }
  return rc;
}

static int
run_or_check (int argc, char **argv, gboolean check)
{
  const char *cmd = check ? "check" : "run";
  RunOpts o = { .jobs = 1 };
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  int rc = CLI_EXIT_OK;
  guint64 shard_k = 0, shard_n = 1;
  if (!parse_options (cmd, &argc, &argv, check, &o, &rc) || !options_ok (cmd, &o, check, &rc))
    goto out;
  rc = CLI_EXIT_USAGE;
  if (!gather_files (cmd, &o, check, files))
    goto out;
  if (o.testbed)
    {
      rc = cli_check_testbed (files, o.sets, o.seed_given ? o.seed : -1, o.netem, o.output, o.junit, o.tap);
      goto out;
    }
  if (!parse_shard (cmd, &o, &shard_k, &shard_n))
    goto out;
  RunnerPlan plan;
  runner_plan_init (&plan);
  rc = run_plan (cmd, &o, check, files, &plan, shard_k, shard_n);
  runner_plan_clear (&plan);
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
