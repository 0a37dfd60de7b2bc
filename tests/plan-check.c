/* plan-check.c — the tests' checks of explore's plans (plan-check.h). */
#include "config.h"

#include "tests/plan-check.h"
#include "explore/explore.h"

#include <check.h>
#include <string.h>

char *
plan_check_path (const char *rel)
{
  const char *src = g_getenv ("DLSIM_SRCDIR");
  return g_build_filename (src ? src : ".", rel, NULL);
}

gboolean
plan_check_msg_of_line (const char *line, char **type, char **dir)
{
  const char *eq = strchr (line, '=');
  if (!eq || (!g_str_has_prefix (eq + 1, "drop ") && !g_str_has_prefix (eq + 1, "delay ")))
    return FALSE;
  g_auto (GStrv) w = g_strsplit (eq + 1, " ", -1);
  ck_assert_uint_ge (g_strv_length (w), 4);
  *type = g_strdup (w[1]);
  *dir = g_strdup (w[2]);
  return TRUE;
}

guint
plan_check_family (const char *rel, const char *family, const char *must_prefix)
{
  g_autofree char *path = plan_check_path (rel);
  ExploreSpace sp = { 0 };
  g_autoptr (GError) error = NULL;
  ck_assert (explore_parse_faults ("drop,delay", &sp, &error));
  guint64 seed = 0;
  ck_assert_msg (explore_space_load (&sp, path, NULL, &seed, &error), "%s: %s", rel, error ? error->message : "?");
  ck_assert_str_eq (sp.family->name, family);
  ck_assert_ptr_eq (sp.msgs, proto_msg_family_named (family));
  g_autoptr (GHashTable) allowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint m = 0; m < explore_n_msgs (&sp); m++)
    {
      const char *type, *dir;
      explore_msg_at (&sp, m, &type, &dir);
      g_hash_table_add (allowed, g_strdup_printf ("%s %s", type, dir));
    }
  guint named = 0;
  for (guint index = 0; index < 40; index++)
    {
      g_autoptr (GString) kinds = g_string_new (NULL);
      g_autoptr (GPtrArray) plan = explore_plan_make (&sp, seed, index, kinds);
      for (guint i = 0; i < plan->len; i++)
        {
          g_autofree char *type = NULL, *dir = NULL;
          if (!plan_check_msg_of_line (plan->pdata[i], &type, &dir))
            continue;
          g_autofree char *key = g_strdup_printf ("%s %s", type, dir);
          ck_assert_msg (g_hash_table_contains (allowed, key), "%s: %s is not one of %s's targets", rel,
                         (char *) plan->pdata[i], family);
          if (must_prefix)
            ck_assert_msg (g_str_has_prefix (type, must_prefix), "%s: %s", rel, (char *) plan->pdata[i]);
          named++;
        }
    }
  return named;
}
