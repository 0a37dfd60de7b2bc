/* cmd-shrink.c — `dlsim shrink DB --run ID -o FILE.ini`: rebuilds a
 * recorded failing run's scenario, shrinks its timeline with explore/'s
 * ddmin and rounder values, and writes the result (explore/explore.h). */
#include "config.h"

#include "cli/cli.h"
#include "explore/explore.h"

#include <glib/gstdio.h>
#include <stdio.h>

/* ---------------------------------------------------------------- dlsim shrink */

/* Shrinks the failing run whose scenario (without its timeline) is in
 * base, its timeline lines in timeline. */
static int
shrink_run (const char *db, gint64 run, const char *out, const char *base, GPtrArray *timeline)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (base, NULL, &error);
  if (!s)
    {
      cli_error ("shrink", "the run's scenario: %s", error->message);
      return CLI_EXIT_FAILURE;
    }
  guint64 seed = s->seed;
  g_autoptr (GHashTable) sc = g_hash_table_new (g_direct_hash, g_direct_equal);
  ExploreObs o;
  explore_obs_init (&o, sc, sc, sc);
  g_autofree char *sig = NULL;
  if (!explore_run_plan (base, NULL, timeline, seed, &o, &sig, &error))
    {
      cli_error ("shrink", "%s", error->message);
      explore_obs_clear (&o);
      return CLI_EXIT_FAILURE;
    }
  if (!sig)
    {
      cli_error ("shrink", "%s: run %" G_GINT64_FORMAT " breaks no property: nothing to shrink", db, run);
      explore_obs_clear (&o);
      return CLI_EXIT_FAILURE;
    }
  explore_obs_clear (&o);
  guint tries = 0;
  g_autoptr (GPtrArray) min = explore_ddmin_plan (base, NULL, timeline, seed, sig, &tries);
  explore_shrink_values (base, NULL, min, seed, sig, &tries);
  g_autofree char *origin = g_strdup_printf ("dlsim shrink %s --run %" G_GINT64_FORMAT, db, run);
  g_autofree char *stem = g_path_get_basename (out);
  char *dot = strrchr (stem, '.');
  if (dot)
    *dot = '\0';
  gboolean ok = FALSE;
  if (!explore_write_found (base, NULL, min, seed, sig, origin, stem, 1, timeline->len, out, &ok, &error))
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  printf ("%s: %s: %u timeline lines -> %u in %u runs; %s\n", out, sig, timeline->len, min->len, tries,
          ok ? "reproduces" : "DOES NOT reproduce");
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}


int
cli_cmd_shrink (int argc, char **argv)
{
  gint64 run = 0;
  g_autofree char *out = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "the failing run (required)", "ID" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the shrunk scenario file (required)", "FILE.ini" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB --run ID -o FILE.ini - shrink a recorded failing run");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Rebuilds the run's scenario (as dlsim export-scenario), runs it to find its\n"
      "first property violation, shrinks its timeline with ddmin keeping that\n"
      "signature (property and state), then makes its times rounder (`round R + D`\n"
      "becomes `round R` where it can, other times and `by D` delays whole or tenth\n"
      "seconds), still keeping it, and writes the result with an [expect] that\n"
      "pins the violations; the file is run again to check it reproduces.\n"
      "Unlike dlsim explore, it does not shrink the number of peers or rounds.\n"
      "\n"
      "Exit status: 0 written and reproduced; 1 the run broke no property, or the\n"
      "file does not reproduce; 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || run <= 0 || !out)
    {
      cli_error ("shrink", "expected DB, --run ID and -o FILE.ini (dlsim shrink --help)");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (GPtrArray) timeline = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = cli_export_scenario_text (rest[0], run, timeline, FALSE);
  if (!text)
    return CLI_EXIT_FAILURE;
  g_autofree char *dir = g_dir_make_tmp ("dlsim-shrink-XXXXXX", &error);
  if (!dir)
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  g_autofree char *base = g_build_filename (dir, "base.ini", NULL);
  int rc = CLI_EXIT_FAILURE;
  if (!g_file_set_contents (base, text, -1, &error))
    {
      cli_error ("shrink", "%s", error->message);
      goto done;
    }
  rc = shrink_run (rest[0], run, out, base, timeline);
done:
  g_remove (base);
  g_rmdir (dir);
  return rc;
}
