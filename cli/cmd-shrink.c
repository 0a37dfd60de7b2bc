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
 * base, its timeline lines in timeline, and says how it went. */
static int
shrink_run (const char *db, gint64 run, const char *out, const char *base, GPtrArray *timeline)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *origin = g_strdup_printf ("dlsim shrink %s --run %" G_GINT64_FORMAT, db, run);
  ExploreShrunk r;
  if (!explore_shrink_recorded (base, timeline, origin, out, &r, &error))
    {
      cli_error ("shrink", "%s", error->message);
      explore_shrunk_clear (&r);
      return CLI_EXIT_FAILURE;
    }
  if (!r.signature)
    {
      cli_error ("shrink", "%s: run %" G_GINT64_FORMAT " breaks no property: nothing to shrink", db, run);
      return CLI_EXIT_FAILURE;
    }
  printf ("%s: %s: %u timeline lines -> %u in %u runs; %s\n", out, r.signature, r.from, r.to, r.tries,
          r.reproduces ? "reproduces" : "DOES NOT reproduce");
  gboolean ok = r.reproduces;
  explore_shrunk_clear (&r);
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
