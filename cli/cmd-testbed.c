/* cmd-testbed.c — `dlsim testbed FILE`: the scenario on real sockets and
 * real processes, on this machine.  The command line and what it prints;
 * the testbed itself (the orchestrator, the peers' processes, the network
 * namespaces of --netem, the records) is testbed/ (testbed/testbed.h). */
#include "config.h"

#include "cli/cli.h"
#include "testbed/testbed.h"
#include "testbed/testbed-netns.h"

#include <signal.h>
#include <stdio.h>

/* One run: its PASS or FAIL line, or why it did not run. */
static int
run_one (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db, const char *self_exe,
         TestbedNetwork network, guint *passed, guint *failed_runs)
{
  g_autoptr (GError) error = NULL;
  TestbedReport rep;
  testbed_report_init (&rep);
  int rc = CLI_EXIT_OK;
  switch (testbed_run_point (s, pt, seed, sets, db, self_exe, network, &rep, &error))
    {
    case TESTBED_RUN_REFUSED:
      cli_error ("testbed", "%s", error->message);
      rc = CLI_EXIT_USAGE;
      break;
    case TESTBED_RUN_ERROR:
      cli_error ("testbed", "%s", error->message);
      rc = CLI_EXIT_FAILURE;
      break;
    case TESTBED_RUN_INTERRUPTED:
      rc = 130;
      break;
    case TESTBED_RUN_DONE:
      printf ("%s %s seed %" G_GUINT64_FORMAT ": %s, %u rounds, %u expectations%s\n",
              rep.failed->len ? "FAIL" : "PASS", s->path, seed, sim_outcome_name (rep.result.outcome),
              rep.result.rounds_completed, rep.checked, rep.bad_lines ? " (malformed record lines refused)" : "");
      for (guint i = 0; i < rep.failed->len; i++)
        printf ("    %s\n", (char *) rep.failed->pdata[i]);
      if (rep.failed->len > 0)
        (*failed_runs)++;
      else
        (*passed)++;
      break;
    }
  testbed_report_clear (&rep);
  return rc;
}

int
cli_testbed_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network, ResDb *db,
                      guint *passed, guint *failed)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!self_exe)
    self_exe = g_strdup ("dlsim");
  signal (SIGPIPE, SIG_IGN);
  if (network == TESTBED_NETEM)
    {
      g_autofree char *swept = NULL;
      if (testbed_netns_sweep_stale (&swept))
        fprintf (stderr, "dlsim testbed: removed what a dlsim that no longer runs left: %s\n", swept);
    }
  for (guint pi = 0; pi < s->points->len; pi++)
    for (guint k = 0; k < s->repeat; k++)
      {
        guint64 sd = (seed >= 0 ? (guint64) seed : s->seed) + k;
        int rc = run_one (s, s->points->pdata[pi], sd, sets, db, self_exe, network, passed, failed);
        if (rc != CLI_EXIT_OK)
          return rc;
      }
  return CLI_EXIT_OK;
}

int
cli_cmd_testbed (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_auto (GStrv) sets = NULL;
  gint64 seed = -1;
  gboolean netem = FALSE, no_latency = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "results database (default NAME.db)", "DB" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario value", "section.key=value" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the first run (default: the scenario's)", "N" },
    { "netem", 0, 0, G_OPTION_ARG_NONE, &netem,
      "a network namespace per peer with the scenario's bandwidth (tc tbf) and latency (root)", NULL },
    { "no-latency", 0, 0, G_OPTION_ARG_NONE, &no_latency,
      "loopback at its own speed: the scenario's latency and link setup not added", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - run a scenario on real sockets and processes");
  g_option_context_set_summary (ctx, testbed_help);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("testbed", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (netem && no_latency)
    {
      cli_error ("testbed", "--no-latency is a loopback option: --netem always adds the scenario's latency");
      return CLI_EXIT_USAGE;
    }
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
  guint passed = 0, failed = 0;
  int rc = cli_testbed_scenario (s, sets, seed,
                                 netem ? TESTBED_NETEM : no_latency ? TESTBED_LOOPBACK_RAW : TESTBED_LOOPBACK, db,
                                 &passed, &failed);
  if (rc == CLI_EXIT_OK && failed > 0)
    rc = CLI_EXIT_FAILURE;   /* an expectation failed */
  return rc;
}

