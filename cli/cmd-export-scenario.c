/* cmd-export-scenario.c — `dlsim export-scenario DB --run ID -o FILE.ini`:
 * the scenario file that reproduces a recorded run.  export/'s
 * export_scenario_text rebuilds it (every resolved value, the timeline, the
 * seed, the [expect] lines, relative paths made absolute); this file parses
 * the command line and writes the text out. */
#include "config.h"

#include "cli/cli.h"
#include "export/export.h"
#include "results/res-query.h"

#include <stdio.h>

char *
cli_export_scenario_text (const char *db_path, gint64 run, GPtrArray *timeline, gboolean with_expect)
{
  struct sqlite3 *db = cli_open_results ("export-scenario", db_path);
  if (!db)
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *warning = NULL;
  char *text = export_scenario_text (db, db_path, run, timeline, with_expect, &warning, &error);
  res_db_close_read (db);
  if (!text)
    cli_error ("export-scenario", "%s", error->message);
  else if (warning)
    cli_error ("export-scenario", "%s", warning);
  return text;
}

static const CliRunCommand command = {
  .cmd = "export-scenario",
  .parameter = "DB --run ID - a scenario file that reproduces a run",
  .summary = "Writes a scenario file rebuilt from the run's params: every resolved value,\n"
             "the timeline, the seed the run used and its [expect].  On the same build it\n"
             "reproduces the run: the same summary and the same events.",
  .run_doc = "the run (required)",
  .output_doc = "the scenario file to write (default: stdout)",
  .missing = "expected DB and --run ID (dlsim export-scenario --help)",
};

int
cli_cmd_export_scenario (int argc, char **argv)
{
  g_autofree char *db = NULL, *out = NULL;
  gint64 run;
  int rc = cli_parse_run_command (&command, argc, argv, &db, &run, &out);
  if (rc != CLI_EXIT_OK)
    return rc;
  g_autofree char *text = cli_export_scenario_text (db, run, NULL, TRUE);
  if (!text)
    return CLI_EXIT_FAILURE;
  g_autoptr (GError) error = NULL;
  if (out)
    {
      if (!g_file_set_contents (out, text, -1, &error))
        {
          cli_error ("export-scenario", "%s", error->message);
          rc = CLI_EXIT_FAILURE;
        }
    }
  else
    fputs (text, stdout);
  return rc;
}
