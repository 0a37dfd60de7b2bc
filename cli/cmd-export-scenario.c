/* cmd-export-scenario.c — `dlsim export-scenario DB --run ID -o FILE.ini`:
 * rebuilds, from a run's params, a scenario file that reproduces the run:
 * every resolved value (after --set and the sweep point) as section.key,
 * the timeline lines, the seed the run used, and its [expect] lines.  On
 * the same build it gives the same summary and the same events.
 *
 * Relative paths (data.source = csv:PATH or idx:DIR, churn.trace, peers.capacity,
 * network.bandwidth_trace) are made absolute
 * against the directory of the run's original file, so the exported file
 * can live anywhere.  The header names the build and the SHA-256 of the
 * original text (provenance.*), and warns when this build differs. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-query.h"

#include <stdio.h>
#include <string.h>

/* the params that are not scenario keys */
static gboolean
skipped (const char *key)
{
  static const char *const prefixes[] = { "provenance.", "testbed.", "merge.", "node.", NULL };
  for (int i = 0; prefixes[i]; i++)
    if (g_str_has_prefix (key, prefixes[i]))
      return TRUE;
  return strcmp (key, "scenario.seed_used") == 0 || strcmp (key, "scenario.seed") == 0
         || strcmp (key, "scenario.repeat") == 0 || strcmp (key, "scenario.name") == 0;
}

static char *
absolute (const char *file_dir, const char *p)
{
  if (!*p || g_path_is_absolute (p) || !file_dir)
    return g_strdup (p);
  return g_build_filename (file_dir, p, NULL);
}

char *
cli_export_scenario_text (const char *db_path, gint64 run, GPtrArray *timeline, gboolean with_expect)
{
  struct sqlite3 *db = cli_open_results ("export-scenario", db_path);
  if (!db)
    return NULL;
  ResRows *st = res_db_run_origin (db, run);
  if (!res_rows_next (st))
    {
      cli_error ("export-scenario", "%s: no run %" G_GINT64_FORMAT, db_path, run);
      res_rows_free (st);
      res_db_close_read (db);
      return NULL;
    }
  g_autofree char *file = g_strdup (res_rows_text (st, 0));
  g_autofree char *mode = g_strdup (res_rows_text (st, 1));
  gint64 seed = res_rows_int64 (st, 2);
  g_autofree char *name = g_strdup (res_rows_text (st, 3));
  res_rows_free (st);
  g_autofree char *file_dir = *file ? g_path_get_dirname (file) : NULL;
  if (file_dir && !g_path_is_absolute (file_dir))
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *abs = g_build_filename (cwd, file_dir, NULL);
      g_free (file_dir);
      file_dir = g_steal_pointer (&abs);
    }
  /* [scenario] dir moves the folder relative paths are taken from */
  g_autofree char *dir_param = res_db_param_value (db, run, "scenario.dir");
  if (file_dir && dir_param && *dir_param)
    {
      g_autofree char *d = absolute (file_dir, dir_param);
      g_free (file_dir);
      file_dir = g_steal_pointer (&d);
    }

  GString *o = g_string_new (NULL);
  g_autofree char *build = res_db_param_value (db, run, "provenance.build");
  g_autofree char *sha = res_db_param_value (db, run, "provenance.scenario_sha256");
  g_string_append_printf (o, "# Exported by `dlsim export-scenario %s --run %" G_GINT64_FORMAT "` (a %s run of %s).\n"
                          "# Original text sha256 %s; recorded by build %s.\n",
                          db_path, run, mode, *file ? file : "?", sha ? sha : "?", build ? build : "?");
  if (build && strcmp (build, DL_BUILD) != 0)
    {
      g_string_append_printf (o, "# This file was written by build %s: the results may differ.\n", DL_BUILD);
      fprintf (stderr, "dlsim export-scenario: the run was recorded by build %s, this is %s: "
               "it may not reproduce exactly\n", build, DL_BUILD);
    }
  /* the keys of another family than the run's are left out: giving them is
   * an error (sim_scenario_key_applies) */
  g_autofree char *family = res_db_param_value (db, run, "protocol.family");
  if (!family)
    family = g_strdup ("disco");
  st = res_db_run_params (db, run);
  const char *section = NULL;
  while (res_rows_next (st))
    {
      const char *k = res_rows_text (st, 0);
      const char *v = res_rows_text (st, 1) ? res_rows_text (st, 1) : "";
      const char *dot = strchr (k, '.');
      if (!dot || skipped (k) || !sim_scenario_key_applies (k, family))
        continue;
      if (timeline && g_str_has_prefix (k, "timeline."))
        {
          g_ptr_array_add (timeline, g_strdup_printf ("%s=%s", k, v));
          continue;
        }
      g_autofree char *sec = g_strndup (k, (gsize) (dot - k));
      if (!section || strcmp (section, sec) != 0)
        {
          section = g_intern_string (sec);
          g_string_append_printf (o, "\n[%s]\n", sec);
          if (strcmp (sec, "scenario") == 0)
            g_string_append_printf (o, "name = %s\nseed = %" G_GINT64_FORMAT "\n", name, seed);
        }
      g_autofree char *value = NULL;
      if (strcmp (k, "scenario.dir") == 0)
        value = g_strdup (file_dir ? file_dir : v);
      else if (strcmp (k, "churn.trace") == 0 || strcmp (k, "peers.capacity") == 0
          || strcmp (k, "network.bandwidth_trace") == 0)
        value = absolute (file_dir, v);
      else if (strcmp (k, "protocol.guest_dir") == 0)
        /* the guest runs where the run's file was (docs/guest.md) */
        value = *v ? absolute (file_dir, v) : g_strdup (file_dir ? file_dir : "");
      else if (strcmp (k, "data.source") == 0 && (g_str_has_prefix (v, "csv:") || g_str_has_prefix (v, "idx:")))
        {
          g_autofree char *p = absolute (file_dir, v + 4);
          value = g_strdup_printf ("%.4s%s", v, p);
        }
      else
        value = g_strdup (v);
      /* an empty description is left out (the loader's default) */
      if (!*value && strcmp (k, "scenario.description") == 0)
        continue;
      g_string_append_printf (o, "%s = %s\n", dot + 1, value);
    }
  res_rows_free (st);
  if (!with_expect)
    {
      res_db_close_read (db);
      return g_string_free (o, FALSE);
    }
  st = res_db_explicit_expectations (db, run);
  gboolean any = FALSE;
  while (res_rows_next (st))
    {
      if (!any)
        g_string_append (o, "\n[expect]\n");
      any = TRUE;
      /* stored as "OP VALUE" */
      const char *e = res_rows_text (st, 1);
      const char *sp = strchr (e, ' ');
      g_autofree char *op = sp ? g_strndup (e, (gsize) (sp - e)) : g_strdup ("=");
      const char *val = sp ? sp + 1 : e;
      if (strcmp (op, "=") == 0)
        g_string_append_printf (o, "%s = %s\n", res_rows_text (st, 0), val);
      else
        g_string_append_printf (o, "%s = %s %s\n", res_rows_text (st, 0), op, val);
    }
  res_rows_free (st);
  res_db_close_read (db);
  return g_string_free (o, FALSE);
}

int
cli_cmd_export_scenario (int argc, char **argv)
{
  gint64 run = 0;
  g_autofree char *out = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "the run (required)", "ID" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the scenario file to write (default: stdout)", "FILE.ini" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB --run ID - a scenario file that reproduces a run");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Writes a scenario file rebuilt from the run's params: every resolved value,\n"
      "the timeline, the seed the run used and its [expect].  On the same build it\n"
      "reproduces the run: the same summary and the same events.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("export-scenario", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || run <= 0)
    {
      cli_error ("export-scenario", "expected DB and --run ID (dlsim export-scenario --help)");
      return CLI_EXIT_USAGE;
    }
  g_autofree char *text = cli_export_scenario_text (rest[0], run, NULL, TRUE);
  if (!text)
    return CLI_EXIT_FAILURE;
  int rc = CLI_EXIT_OK;
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
