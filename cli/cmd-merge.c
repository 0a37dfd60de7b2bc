/* cmd-merge.c — `dlsim merge OUT.db IN.db...`: combines results databases.
 *
 * - Runs (simulated or testbed) are copied with every row of every table.
 *   A run id already in OUT is the same run if its identity (scenario,
 *   point, seed, dlsim version, start time, file, mode) is the same: it is
 *   skipped, so merging a part twice changes nothing.  A different run
 *   under the same id is a conflict: nothing of that input is merged,
 *   unless --renumber appends it under new ids, which are printed.
 * - Node databases (`dlsim node -o`: mode 'node') of one deployment, one
 *   coordinator's and its peers', become one testbed run.  Each node's
 *   times are moved onto the coordinator's clock: first by the nodes'
 *   wall-clock starts, then by the offset estimated from the round trip
 *   of a peer's admission (as NTP does: testbed-merge.h says which
 *   messages), which the run's params give per peer (merge.clock.pN).  The
 *   lines are then replayed, in time order, through the same tally as
 *   `dlsim testbed`, and the run's [expect] is checked: that, and reading
 *   the node runs, is testbed/testbed-merge.c; this file opens the
 *   databases and prints. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-db.h"
#include "results/res-merge.h"
#include "results/res-query.h"
#include "testbed/testbed-merge.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- plain runs */

static void
say_renumbered (const char *path, gint64 from, gint64 to, gpointer data)
{
  (void) data;
  printf ("%s: run %" G_GINT64_FORMAT " is run %" G_GINT64_FORMAT " in the output\n", path, from, to);
}

static void
say_upgraded (const char *path, int from, gpointer data)
{
  (void) data;
  printf ("%s: upgraded from results schema %d to %d first (as dlsim run -o does)\n", path, from,
          RES_SCHEMA_VERSION);
}

/* ---------------------------------------------------------------- node runs */

/* The node runs of one input file (read-only): testbed/ reads them. */
static gboolean
read_nodes (const char *path, GPtrArray *nodes)
{
  struct sqlite3 *db = cli_open_results ("merge", path);
  if (!db)
    return FALSE;
  g_autoptr (GError) error = NULL;
  gboolean ok = testbed_merge_read_nodes (db, path, nodes, &error);
  if (!ok)
    cli_error ("merge", "%s", error->message);
  res_db_close_read (db);
  return ok;
}

static int
merge_nodes (ResDb *out, GPtrArray *nodes, const char *scenario_opt)
{
  g_autoptr (GError) error = NULL;
  TestbedReport rep;
  testbed_report_init (&rep);
  gint64 merged_as = 0;
  int rc = CLI_EXIT_OK;
  if (testbed_merge_nodes (out, nodes, scenario_opt, &rep, &merged_as, &error) != TESTBED_RUN_DONE)
    {
      cli_error ("merge", "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  else if (merged_as)
    printf ("these node databases are already merged as run %lld: nothing to do\n", (long long) merged_as);
  else
    {
      printf ("merged %u node databases into run %" G_GINT64_FORMAT " (testbed): %s, %u rounds, "
              "%u expectations%s\n", nodes->len, rep.run_id, sim_outcome_name (rep.result.outcome),
              rep.result.rounds_completed, rep.checked, rep.failed->len ? " FAILED" : "");
      for (guint i = 0; i < rep.failed->len; i++)
        {
          /* it quotes the scenario's [expect] and what the nodes recorded */
          g_autofree char *shown = cli_shown (rep.failed->pdata[i], FALSE);
          printf ("    %s\n", shown);
        }
      if (rep.bad_lines)
        printf ("    %u malformed record lines refused\n", rep.bad_lines);
      rc = rep.failed->len ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    }
  testbed_report_clear (&rep);
  return rc;
}

/* merge --help's summary (transfer full) */
static char *
merge_summary (void)
{
  return g_strconcat (
      "Copies every run of each IN into OUT (created if missing), with all its rows.\n"
      "A run id already in OUT with the same identity (scenario, point, seed, build,\n"
      "start, file, mode) is the same run and is skipped: merging twice changes\n"
      "nothing.  A different run under a taken id is a conflict: nothing of that\n"
      "file is merged unless --renumber gives it new ids.  Runs recorded by another\n"
      "build (provenance.build) than those in OUT are refused unless --any-build.\n"
      "An IN of an older results schema is upgraded in place first (as run -o does).\n"
      "\n", testbed_merge_help, "\n"
      "Exit status: 0 merged (or nothing to do); 1 a conflict, an unreadable file or\n"
      "a failed expectation; 2 usage error.", NULL);
}

/* Checks that every input (files[1..]) is a results database that can be
 * read and none is the output (files[0]): CLI_EXIT_OK, or after saying
 * why at the first that is not, the exit status. */
static int
check_inputs (char **files)
{
  for (guint i = 1; files[i]; i++)
    {
      struct sqlite3 *probe = cli_open_results ("merge", files[i]);
      if (!probe)
        return CLI_EXIT_FAILURE;
      res_db_close_read (probe);
      if (g_strcmp0 (files[i], files[0]) == 0)
        {
          cli_error ("merge", "%s is both the output and an input", files[0]);
          return CLI_EXIT_USAGE;
        }
    }
  return CLI_EXIT_OK;
}

/* Each input's (files[1..]) node runs read into nodes and its plain runs
 * merged into out (res_db_merge_runs, counted in *merged and *skipped);
 * CLI_EXIT_FAILURE after saying why at the first input that fails. */
static int
merge_inputs (ResDb *out, char **files, const ResMergeOptions *mo, GPtrArray *nodes, guint *merged,
              guint *skipped)
{
  for (guint i = 1; files[i]; i++)
    {
      if (!read_nodes (files[i], nodes))
        return CLI_EXIT_FAILURE;
      g_autoptr (GError) error = NULL;
      if (!res_db_merge_runs (out, files[i], mo, merged, skipped, &error))
        {
          cli_error ("merge", "%s", error->message);
          return CLI_EXIT_FAILURE;
        }
    }
  return CLI_EXIT_OK;
}

int
cli_cmd_merge (int argc, char **argv)
{
  gboolean renumber = FALSE, any_build = FALSE;
  g_autofree char *scenario = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "renumber", 0, 0, G_OPTION_ARG_NONE, &renumber,
      "append runs whose ids are taken by other runs under new ids (printed)", NULL },
    { "any-build", 0, 0, G_OPTION_ARG_NONE, &any_build,
      "merge runs recorded by different builds (provenance.build)", NULL },
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario,
      "node databases: the scenario file (default: the path the coordinator recorded)", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("OUT.db IN.db... - combine results databases");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autofree char *summary = merge_summary ();
  g_option_context_set_summary (ctx, summary);
  if (!cli_parse_options ("merge", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!rest || g_strv_length (rest) < 2)
    {
      cli_error ("merge", "expected OUT.db and at least one IN.db (dlsim merge --help)");
      return CLI_EXIT_USAGE;
    }
  int rc = check_inputs (rest);
  if (rc != CLI_EXIT_OK)
    return rc;
  g_autoptr (GError) error = NULL;
  g_autoptr (ResDb) out = res_db_open (rest[0], &error);
  if (!out)
    {
      cli_error ("merge", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  ResMergeOptions mo = { .renumber = renumber, .any_build = any_build, .renumbered = say_renumbered,
                         .upgraded = say_upgraded };
  guint merged = 0, skipped = 0;
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) testbed_node_free);
  rc = merge_inputs (out, rest, &mo, nodes, &merged, &skipped);
  if (rc != CLI_EXIT_OK)
    return rc;
  if (merged || skipped || !nodes->len)
    printf ("%u runs merged into %s, %u already there\n", merged, rest[0], skipped);
  if (nodes->len)
    rc = merge_nodes (out, nodes, scenario);
  return rc;
}
