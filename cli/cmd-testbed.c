/* cmd-testbed.c — `dlsim testbed FILE`: the scenario on real sockets and
 * real processes, on this machine.  The command line and what it prints;
 * the testbed itself (the orchestrator, the peers' processes, the network
 * namespaces of --netem, the records) is testbed/ (testbed/testbed.h). */
#include "config.h"

#include "base/dl-units.h"
#include "cli/cli.h"
#include "testbed/testbed.h"
#include "testbed/testbed-netns.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A stall window longer than this gets a warning before the run. */
#define LONG_STALL_WINDOW (60 * DL_S)

void
cli_testbed_runs_init (CliTestbedRuns *r, const char *cmd, guint n_runs)
{
  *r = (CliTestbedRuns) { .cmd = cmd, .n_runs = n_runs, .t0_us = g_get_monotonic_time () };
  RunnerProgressMode mode = isatty (STDOUT_FILENO) ? RUNNER_PROGRESS_LINE : RUNNER_PROGRESS_STATUS;
  r->progress = runner_progress_new (mode, n_runs, NULL, 1, runner_progress_interval_from_env (), r->t0_us);
  r->mode = runner_progress_mode (r->progress);
}

static void
say_line (const CliTestbedRuns *r, const char *text, gboolean last)
{
  switch (r->mode)
    {
    case RUNNER_PROGRESS_NONE:
      return;
    case RUNNER_PROGRESS_LINE:
      fprintf (stdout, last ? "\r\033[K[%s]\n" : "\r\033[K[%s]", text);
      fflush (stdout);
      return;
    case RUNNER_PROGRESS_STATUS:
      fprintf (stderr, last ? "dlsim %s: %s (end)\n" : "dlsim %s: %s\n", r->cmd, text);
      fflush (stderr);
      return;
    }
}

void
cli_testbed_runs_clear (CliTestbedRuns *r)
{
  if (!r->progress)
    return;
  /* runner-progress's last line speaks of events: its timing only */
  gint64 now = g_get_monotonic_time ();
  g_autofree char *due = runner_progress_finish (r->progress, now);
  g_autofree char *last = g_strdup_printf ("%u/%u runs, %.0f s elapsed", r->job, r->n_runs,
                                           (double) (now - r->t0_us) / G_USEC_PER_SEC);
  if (due)
    say_line (r, last, TRUE);
  g_clear_pointer (&r->progress, runner_progress_free);
}

/* TRUE if the point's [expect] says outcome = stalled */
static gboolean
expects_stall (const SimPoint *pt)
{
  for (guint i = 0; pt->expects && i < pt->expects->len; i++)
    {
      const SimExpect *e = &g_array_index (pt->expects, SimExpect, i);
      if (strcmp (e->key, "outcome") == 0 && sim_expect_check (e, "stalled"))
        return TRUE;
    }
  return FALSE;
}

static void
say_start (const SimScenario *s, guint k, guint64 seed, DlTime stall_window, gpointer data)
{
  CliTestbedRuns *r = data;
  if (k % s->repeat == 0 && stall_window > LONG_STALL_WINDOW && expects_stall (s->points->pdata[k / s->repeat]))
    {
      if (r->mode == RUNNER_PROGRESS_LINE)
        fputs ("\r\033[K", stdout);
      fflush (stdout);
      fprintf (stderr, "dlsim %s: warning: %s%s%s%s expects a stall: each run waits %.0f s of wall time without progress "
               "before it ends stalled (the family's stall window, from the file's timeouts); shorten the timeouts "
               "with --set to check it sooner\n", r->cmd, s->path, s->points->len > 1 ? " [" : "",
               s->points->len > 1 ? ((SimPoint *) s->points->pdata[k / s->repeat])->label : "",
               s->points->len > 1 ? "]" : "", (double) stall_window / DL_S);
    }
  runner_progress_job_start (r->progress, r->job, g_get_monotonic_time ());
  (void) seed;
}

/* The status line of the run going: the runs done, the ETA (runner-progress's),
 * and where the run is. */
static void
say_tick (DlTime elapsed, DlTime since_progress, guint round, guint64 messages, gpointer data)
{
  CliTestbedRuns *r = data;
  gint64 now = g_get_monotonic_time ();
  runner_progress_job_sim (r->progress, r->job, elapsed, messages);
  g_autofree char *due = runner_progress_tick (r->progress, now);
  if (!due)
    return;
  double eta = runner_progress_eta_s (r->progress, now);
  g_autofree char *eta_text = eta < 0 ? g_strdup ("unknown") : g_strdup_printf ("%.0f s", eta);
  g_autofree char *round_text = round ? g_strdup_printf ("round %u", round) : g_strdup ("no round begun");
  g_autofree char *text = g_strdup_printf ("%u/%u runs, ETA %s; run %u at %.0f s of wall time, %s, %"
                                           G_GUINT64_FORMAT " messages, %.0f s since a peer's progress",
                                           r->job, r->n_runs, eta_text, r->job + 1, (double) elapsed / DL_S,
                                           round_text, messages, (double) since_progress / DL_S);
  say_line (r, text, FALSE);
}

/* A run that is done: its PASS or FAIL line. */
static void
say_run (const SimScenario *s, guint64 seed, const TestbedReport *rep, gpointer data)
{
  CliTestbedRuns *r = data;
  runner_progress_job_end (r->progress, r->job++, g_get_monotonic_time ());
  if (r->mode == RUNNER_PROGRESS_LINE)
    fputs ("\r\033[K", stdout);   /* the progress line goes first */
  /* the file's name and the failed expectations' text: shown */
  g_autofree char *path = cli_shown (s->path, FALSE);
  printf ("%s %s seed %" G_GUINT64_FORMAT ": %s, %u rounds, %u expectations%s\n",
          rep->failed->len ? "FAIL" : "PASS", path, seed, sim_outcome_name (rep->result.outcome),
          rep->result.rounds_completed, rep->checked, rep->bad_lines ? " (malformed record lines refused)" : "");
  for (guint i = 0; i < rep->failed->len; i++)
    {
      g_autofree char *failed = cli_shown (rep->failed->pdata[i], FALSE);
      printf ("    %s\n", failed);
    }
  fflush (stdout);
  if (rep->failed->len > 0)
    r->failed++;
  else
    r->passed++;
}

int
cli_testbed_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network,
                      const TestbedNetemOptions *netem, ResDb *db, CliTestbedRuns *runs)
{
  signal (SIGPIPE, SIG_IGN);
  if (network == TESTBED_NETEM)
    {
      g_autofree char *swept = NULL;
      if (testbed_netns_sweep_stale (&swept))
        fprintf (stderr, "dlsim testbed: removed what a dlsim that no longer runs left: %s\n", swept);
    }
  g_autoptr (GError) error = NULL;
  TestbedSay say = { say_start, say_tick, say_run, runs };
  switch (testbed_run_scenario (s, sets, seed, network, netem, db, &say, &error))
    {
    case TESTBED_RUN_DONE:
      return CLI_EXIT_OK;
    case TESTBED_RUN_REFUSED:
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    case TESTBED_RUN_ERROR:
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_FAILURE;
    case TESTBED_RUN_INTERRUPTED:
      return 130;
    }
  return CLI_EXIT_FAILURE;
}

/* --queue's value: a duration > 0, only with --netem (the loopback has no
 * shaper) */
static gboolean
parse_queue (const char *text, gboolean netem, DlTime *out)
{
  g_autoptr (GError) e = NULL;
  if (!netem)
    {
      cli_error ("testbed", "--queue %s: the queue is --netem's tbf; add --netem", text);
      return FALSE;
    }
  if (!dl_parse_duration (text, out, &e))
    {
      cli_error ("testbed", "--queue %s: %s", text, e->message);
      return FALSE;
    }
  if (*out <= 0)
    {
      cli_error ("testbed", "--queue %s: expected a duration > 0 (e.g. 8ms)", text);
      return FALSE;
    }
  return TRUE;
}

/* --netem, --no-latency, --queue and --congestion-control together: o's
 * queue from queue_text, its congestion checked; FALSE (said) if refused */
static gboolean
parse_network (gboolean netem, gboolean no_latency, const char *queue_text, TestbedNetemOptions *o)
{
  if (netem && no_latency)
    {
      cli_error ("testbed", "--no-latency is a loopback option: --netem always adds the scenario's latency");
      return FALSE;
    }
  if (queue_text && !parse_queue (queue_text, netem, &o->queue))
    return FALSE;
  if (o->congestion && !netem)
    {
      cli_error ("testbed", "--congestion-control %s: the loopback's TCP is the machine's; add --netem",
                 o->congestion);
      return FALSE;
    }
  g_autoptr (GError) e = NULL;
  if (o->congestion && !testbed_netns_check_congestion (o->congestion, &e))
    {
      cli_error ("testbed", "--congestion-control: %s", e->message);
      return FALSE;
    }
  return TRUE;
}

int
cli_cmd_testbed (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_auto (GStrv) sets = NULL;
  gint64 seed = -1;
  gboolean netem = FALSE, no_latency = FALSE;
  g_autofree char *queue_text = NULL, *congestion = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "results database (default NAME.db)", "DB" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario value (repeatable)" CLI_SET_PATHS,
      "section.key=value" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the first run (default: the scenario's)", "N" },
    { "netem", 0, 0, G_OPTION_ARG_NONE, &netem,
      "a network namespace per peer with the scenario's bandwidth (tc tbf) and latency (root)", NULL },
    { "queue", 0, 0, G_OPTION_ARG_STRING, &queue_text,
      "with --netem: each tbf's queue, DURATION at its rate (default 10s: TCP never dropped; "
      "a few round trips: a shallow queue that drops, as in ns-3)", "DURATION" },
    { "congestion-control", 0, 0, G_OPTION_ARG_STRING, &congestion,
      "with --netem: every connection's TCP congestion control, one the kernel lists in "
      "net.ipv4.tcp_available_congestion_control (default " TESTBED_NETNS_CONGESTION ", whatever the machine's)",
      "NAME" },
    { "no-latency", 0, 0, G_OPTION_ARG_NONE, &no_latency,
      "loopback at its own speed: the scenario's latency and link setup not added", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - run a scenario on real sockets and processes");
  g_option_context_set_summary (ctx, testbed_help);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_parse_options ("testbed", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!cli_check_sets ("testbed", sets))
    return CLI_EXIT_USAGE;
  TestbedNetemOptions netem_opts = { 0, congestion };
  if (!parse_network (netem, no_latency, queue_text, &netem_opts))
    return CLI_EXIT_USAGE;
  if (argc != 2)
    {
      cli_error ("testbed", "expected one scenario FILE (dlsim testbed --help)");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (SimScenario) s = sim_scenario_load (argv[1], (const char *const *) sets, &error);
  if (!s)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!testbed_scenario_supported (s, netem, &error))
    {
      /* before the database is created: bad input leaves no file behind */
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  g_autofree char *db_path = out ? g_strdup (out) : g_strdup_printf ("%s.db", s->name);
  g_autoptr (ResDb) db = cli_db_open (db_path, &error);
  if (!db)
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  CliTestbedRuns runs;
  cli_testbed_runs_init (&runs, "testbed", s->points->len * s->repeat);
  int rc = cli_testbed_scenario (s, sets, seed,
                                 netem ? TESTBED_NETEM : no_latency ? TESTBED_LOOPBACK_RAW : TESTBED_LOOPBACK,
                                 &netem_opts, db, &runs);
  cli_testbed_runs_clear (&runs);
  if (rc == CLI_EXIT_OK && runs.failed > 0)
    rc = CLI_EXIT_FAILURE;   /* an expectation failed */
  return rc;
}

