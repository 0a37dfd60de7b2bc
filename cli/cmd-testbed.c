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

/* What cli_testbed_scenario counts. */
typedef struct {
  guint *passed, *failed;
} Tally;

/* A run that is done: its PASS or FAIL line. */
static void
say_run (const SimScenario *s, guint64 seed, const TestbedReport *rep, gpointer data)
{
  Tally *t = data;
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
  if (rep->failed->len > 0)
    (*t->failed)++;
  else
    (*t->passed)++;
}

int
cli_testbed_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network, ResDb *db,
                      guint *passed, guint *failed)
{
  signal (SIGPIPE, SIG_IGN);
  if (network == TESTBED_NETEM)
    {
      g_autofree char *swept = NULL;
      if (testbed_netns_sweep_stale (&swept))
        fprintf (stderr, "dlsim testbed: removed what a dlsim that no longer runs left: %s\n", swept);
    }
  g_autoptr (GError) error = NULL;
  Tally t = { passed, failed };
  switch (testbed_run_scenario (s, sets, seed, network, db, say_run, &t, &error))
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

