/* export-scenario.c — a recorded run as the scenario file that reproduces
 * it (`dlsim export-scenario`, and `dlsim shrink`'s starting file; cli/
 * parses and prints, export/export.h): every resolved value (after --set
 * and the sweep point) as section.key, the timeline lines, the seed the run
 * used, and its [expect] lines.  On the same build it gives the same
 * summary and the same events.
 *
 * Relative paths are made absolute against the folder of the run's
 * original file (moved by its [scenario] dir), so the exported file can
 * live anywhere.  Which keys hold a path, and of which form, the key table
 * says (sim_scenario_key_path: the common table's kinds, and a family's
 * rows set their own); this file names no family and no key of one.  The
 * header names the build and the SHA-256 of the original text
 * (provenance.*), and says when this build differs.  The run is read
 * through results/' queries (res-query.h). */
#include "config.h"

#include "export/export.h"
#include "learn/learn-data.h"
#include "results/res-query.h"
#include "scenario/sim-scenario.h"

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
absolute (const char *folder, const char *p)
{
  if (!*p || g_path_is_absolute (p) || !folder)
    return g_strdup (p);
  return g_build_filename (folder, p, NULL);
}

char *
export_scenario_folder (const char *file, const char *dir, const char *cwd)
{
  if (!*file)
    return NULL;
  g_autofree char *folder = g_path_get_dirname (file);
  if (!g_path_is_absolute (folder))
    {
      char *abs = g_build_filename (cwd, folder, NULL);
      g_free (folder);
      folder = abs;
    }
  /* [scenario] dir moves the folder relative paths are taken from */
  if (dir && *dir)
    {
      char *d = absolute (folder, dir);
      g_free (folder);
      folder = d;
    }
  return g_steal_pointer (&folder);
}

char *
export_scenario_path (ProtoKeyPath form, const char *value, const char *folder)
{
  switch (form)
    {
    case PROTO_KEY_NOT_PATH:
      break;
    case PROTO_KEY_PATH:
      return absolute (folder, value);
    case PROTO_KEY_PATH_OR_HERE:
      /* empty: the folder itself (e.g. the folder a family's process runs
       * in: where the run's file was) */
      return *value ? absolute (folder, value) : g_strdup (folder ? folder : "");
    case PROTO_KEY_PATH_SOURCE:
      {
        LearnSourceKind kind;
        g_autofree char *arg = NULL;
        if (!learn_source_parse (value, &kind, &arg, NULL)
            || (kind != LEARN_SOURCE_CSV && kind != LEARN_SOURCE_IDX))
          break;
        /* "csv:" or "idx:", then the path */
        const char *colon = strchr (value, ':');
        g_autofree char *p = absolute (folder, arg);
        return g_strdup_printf ("%.*s%s", (int) (colon + 1 - value), value, p);
      }
    }
  return g_strdup (value);
}

/* The default of a key (the key table's), NULL if there is no such key. */
static const char *
key_default (const char *full_key)
{
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    if (strcmp (t[i], full_key) == 0)
      return t[i + 1];
  return NULL;
}

/* The run's params as the scenario's sections into o (the timeline's lines
 * into timeline instead, if given). */
static void
write_params (GString *o, struct sqlite3 *db, gint64 run, const char *name, gint64 seed, const char *folder,
              GPtrArray *timeline)
{
  /* the keys of another family than the run's are left out: giving them is
   * an error (sim_scenario_key_applies) */
  g_autofree char *family = res_db_param_value (db, run, "protocol.family");
  if (!family)  /* recorded before the key was: its default */
    family = g_strdup (key_default ("protocol.family"));
  ResRows *st = res_db_run_params (db, run);
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
      /* [scenario] dir is the folder itself: the other paths are made
       * absolute against it */
      g_autofree char *value = strcmp (k, "scenario.dir") == 0 ? g_strdup (folder ? folder : v)
                               : export_scenario_path (sim_scenario_key_path (k), v, folder);
      /* an empty description is left out (the loader's default) */
      if (!*value && strcmp (k, "scenario.description") == 0)
        continue;
      g_string_append_printf (o, "%s = %s\n", dot + 1, value);
    }
  res_rows_free (st);
}

/* The run's own [expect] lines into o. */
static void
write_expect (GString *o, struct sqlite3 *db, gint64 run)
{
  ResRows *st = res_db_explicit_expectations (db, run);
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
}

char *
export_scenario_text (struct sqlite3 *db, const char *db_name, gint64 run, GPtrArray *timeline,
                      gboolean with_expect, char **warning, GError **error)
{
  if (warning)
    *warning = NULL;
  ResRows *st = res_db_run_origin (db, run);
  if (!res_rows_next (st))
    {
      res_rows_free (st);
      g_set_error (error, RES_ERROR, RES_ERROR_NOT_FOUND, "%s: no run %" G_GINT64_FORMAT, db_name, run);
      return NULL;
    }
  g_autofree char *file = g_strdup (res_rows_text (st, 0));
  g_autofree char *mode = g_strdup (res_rows_text (st, 1));
  gint64 seed = res_rows_int64 (st, 2);
  g_autofree char *name = g_strdup (res_rows_text (st, 3));
  res_rows_free (st);
  g_autofree char *dir = res_db_param_value (db, run, "scenario.dir");
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *folder = export_scenario_folder (file, dir, cwd);

  GString *o = g_string_new (NULL);
  g_autofree char *build = res_db_param_value (db, run, "provenance.build");
  g_autofree char *sha = res_db_param_value (db, run, "provenance.scenario_sha256");
  g_string_append_printf (o, "# Exported by `dlsim export-scenario %s --run %" G_GINT64_FORMAT "` (a %s run of %s).\n"
                          "# Original text sha256 %s; recorded by build %s.\n",
                          db_name, run, mode, *file ? file : "?", sha ? sha : "?", build ? build : "?");
  if (build && strcmp (build, DL_BUILD) != 0)
    {
      g_string_append_printf (o, "# This file was written by build %s: the results may differ.\n", DL_BUILD);
      if (warning)
        *warning = g_strdup_printf ("the run was recorded by build %s, this is %s: it may not reproduce exactly",
                                    build, DL_BUILD);
    }
  write_params (o, db, run, name, seed, folder, timeline);
  if (with_expect)
    write_expect (o, db, run);
  return g_string_free (o, FALSE);
}
