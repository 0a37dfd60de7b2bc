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
  g_autofree char *sig = cli_shown (r.signature, FALSE);   /* a guest's error text may be in it */
  printf ("%s: %s: %u timeline lines -> %u in %u runs; %s\n", out, sig, r.from, r.to, r.tries,
          r.reproduces ? "reproduces" : "DOES NOT reproduce");
  gboolean ok = r.reproduces;
  explore_shrunk_clear (&r);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static const CliRunCommand command = {
  .cmd = "shrink",
  .parameter = "DB --run ID -o FILE.ini - shrink a recorded failing run",
  .summary = "Rebuilds the run's scenario (as dlsim export-scenario), runs it to find its\n"
             "first property violation, shrinks its timeline with ddmin keeping that\n"
             "signature (property and state), then makes its times rounder (`round R + D`\n"
             "becomes `round R` where it can, other times and `by D` delays whole or tenth\n"
             "seconds), still keeping it, and writes the result with an [expect] that\n"
             "pins the violations; the file is run again to check it reproduces.\n"
             "Unlike dlsim explore, it does not shrink the number of peers or rounds.\n"
             "\n"
             "Exit status: 0 written and reproduced; 1 the run broke no property, or the\n"
             "file does not reproduce; 2 usage error.",
  .run_doc = "the failing run (required)",
  .output_doc = "the shrunk scenario file (required)",
  .need_output = TRUE,
  .missing = "expected DB, --run ID and -o FILE.ini (dlsim shrink --help)",
};

int
cli_cmd_shrink (int argc, char **argv)
{
  g_autofree char *db = NULL, *out = NULL;
  gint64 run;
  if (cli_parse_run_command (&command, argc, argv, &db, &run, &out) != CLI_EXIT_OK)
    return CLI_EXIT_USAGE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) timeline = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = cli_export_scenario_text (db, run, timeline, FALSE);
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
  rc = shrink_run (db, run, out, base, timeline);
done:
  g_remove (base);
  g_rmdir (dir);
  return rc;
}
