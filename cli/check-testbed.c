/* check-testbed.c — `dlsim check --testbed`: the files' expectations
 * checked in the testbed instead of the simulator: testbed/ picks the files
 * (testbed_select_checked) and cmd-testbed.c runs each scenario through
 * testbed/; this file prints and writes the reports. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-db.h"
#include "scenario/sim-scenario.h"

#include <glib/gstdio.h>
#include <stdio.h>

static void
say_skip (const char *why, gpointer data)
{
  (void) data;
  printf ("SKIP %s\n", why);
}

/* dlsim check --testbed: every file with an [expect] in the testbed, one
 * after the other (they share this machine's wall clock); a file the
 * testbed cannot express is skipped, with the key that stops it. */
int
cli_check_testbed (GPtrArray *files, char **sets, gint64 seed, gboolean netem, const char *output,
                   const char *junit, const char *tap)
{
  g_autoptr (GPtrArray) scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_scenario_free);
  guint skipped = 0;
  {
    g_autoptr (GError) error = NULL;
    if (!testbed_select_checked (files, sets, netem, scenarios, &skipped, say_skip, NULL, &error))
      {
        cli_error ("check", "%s", error->message);
        return CLI_EXIT_USAGE;
      }
  }
  if (scenarios->len == 0 && skipped == 0)
    {
      cli_error ("check", "no scenario with an [expect] section found (%u .ini file%s looked at)", files->len,
                 files->len == 1 ? "" : "s");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = output ? NULL : g_dir_make_tmp ("dlsim-check-XXXXXX", &error);
  g_autofree char *db_path = output ? g_strdup (output) : dir ? g_build_filename (dir, "check.db", NULL) : NULL;
  ResDb *db = db_path ? cli_db_open (db_path, &error) : NULL;
  if (!db)
    {
      cli_error ("check", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  guint n_runs = 0;
  for (guint i = 0; i < scenarios->len; i++)
    n_runs += ((SimScenario *) scenarios->pdata[i])->points->len * ((SimScenario *) scenarios->pdata[i])->repeat;
  CliTestbedRuns runs;
  cli_testbed_runs_init (&runs, "check", n_runs);
  int rc = CLI_EXIT_OK;
  for (guint i = 0; i < scenarios->len && rc == CLI_EXIT_OK; i++)
    rc = cli_testbed_scenario (scenarios->pdata[i], sets, seed, netem ? TESTBED_NETEM : TESTBED_LOOPBACK, NULL, db,
                               &runs);
  cli_testbed_runs_clear (&runs);
  guint passed = runs.passed, failed = runs.failed;
  res_db_close (db);
  g_autoptr (GError) rerr = NULL;
  if (!cli_write_check_reports (db_path, junit, tap, &rerr))
    {
      cli_error ("check", "%s", rerr->message);
      rc = CLI_EXIT_FAILURE;
    }
  if (dir)
    {
      res_db_remove_files (db_path);
      g_rmdir (dir);
    }
  printf ("%u passed, %u failed, %u skipped (not supported in the testbed)\n", passed, failed, skipped);
  return rc != CLI_EXIT_OK ? rc : failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

