/* test-explore.c — explore/: ddmin on hand-made predicates (the result,
 * and that it is 1-minimal), and the fault plans a search draws for a
 * small scenario (deterministic per seed and index, only the kinds asked
 * for, peers in range, one action per WHEN, every plan a scenario that
 * loads and runs); the messages drop and delay target come from the
 * running family (a family's own plans are checked in its tests:
 * test-disco-shared.c, test-gossip.c, test-pipeline.c, test-fedavg.c);
 * the coverage a search prints names the running family's types only,
 * and no "of 0" states (a guest's kinds as its type's: test-guest.c). */
#include "config.h"

#include "explore/explore.h"
#include "results/res-query.h"
#include "tests/family-harness.h"
#include "tests/plan-check.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

/* ---------------------------------------------------------------- ddmin */

typedef struct {
  const char *const *needed;   /* the subset fails iff it holds all of these */
  guint calls;
} Needs;

static gboolean
holds_all (GPtrArray *subset, gpointer data)
{
  Needs *n = data;
  n->calls++;
  for (const char *const *w = n->needed; *w; w++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < subset->len; i++)
        found |= strcmp (subset->pdata[i], *w) == 0;
      if (!found)
        return FALSE;
    }
  return TRUE;
}

static GPtrArray *
lines_of (const char *const *v)
{
  GPtrArray *a = g_ptr_array_new ();
  for (; *v; v++)
    g_ptr_array_add (a, (gpointer) *v);
  return a;
}

static char *
joined (GPtrArray *a)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < a->len; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", (char *) a->pdata[i]);
  return g_string_free (s, FALSE);
}

START_TEST (test_ddmin_two_of_eight)
{
  static const char *const all[] = { "a", "b", "c", "d", "e", "f", "g", "h", NULL };
  static const char *const need[] = { "b", "g", NULL };
  g_autoptr (GPtrArray) in = lines_of (all);
  Needs n = { need, 0 };
  g_autoptr (GPtrArray) min = explore_ddmin (in, holds_all, &n);
  g_autofree char *got = joined (min);
  ck_assert_str_eq (got, "b g");
  /* in its order, and fewer tries than the 2^8 subsets */
  ck_assert_uint_gt (n.calls, 0);
  ck_assert_uint_lt (n.calls, 64);
  /* 1-minimal: leaving out any one line no longer fails */
  for (guint i = 0; i < min->len; i++)
    {
      g_autoptr (GPtrArray) less = g_ptr_array_new ();
      for (guint k = 0; k < min->len; k++)
        if (k != i)
          g_ptr_array_add (less, min->pdata[k]);
      ck_assert (!holds_all (less, &n));
    }
  /* the input is not changed */
  ck_assert_uint_eq (in->len, 8);
}
END_TEST

START_TEST (test_ddmin_one_and_none)
{
  static const char *const all[] = { "x", "y", "z", NULL };
  static const char *const need_one[] = { "z", NULL };
  static const char *const need_none[] = { NULL };
  g_autoptr (GPtrArray) in = lines_of (all);
  Needs n1 = { need_one, 0 };
  g_autoptr (GPtrArray) one = explore_ddmin (in, holds_all, &n1);
  g_autofree char *got = joined (one);
  ck_assert_str_eq (got, "z");
  /* it fails whatever is left: nothing is needed */
  Needs n0 = { need_none, 0 };
  g_autoptr (GPtrArray) none = explore_ddmin (in, holds_all, &n0);
  ck_assert_uint_eq (none->len, 0);
}
END_TEST

START_TEST (test_ddmin_all_needed)
{
  static const char *const all[] = { "p", "q", "r", "s", "t", NULL };
  g_autoptr (GPtrArray) in = lines_of (all);
  Needs n = { all, 0 };
  g_autoptr (GPtrArray) min = explore_ddmin (in, holds_all, &n);
  g_autofree char *got = joined (min);
  ck_assert_str_eq (got, "p q r s t");
}
END_TEST

/* ---------------------------------------------------------------- plans */

static const char scenario_text[] =
  "[scenario]\nname = explore-test\nseed = 3\n\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 100000\n\n"
  "[peers]\ncount = 3\n";

START_TEST (test_plan_small_scenario)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-explore-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autofree char *ini = g_build_filename (dir, "explore-test.ini", NULL);
  ck_assert (g_file_set_contents (ini, scenario_text, -1, NULL));
  ExploreSpace sp = { .n_peers = 3, .rounds = 2 };
  g_autoptr (GError) error = NULL;
  ck_assert (explore_parse_faults ("crash, leave", &sp, &error));
  guint ran = 0;
  for (guint index = 0; index < 12; index++)
    {
      g_autoptr (GString) kinds = g_string_new (NULL), kinds2 = g_string_new (NULL);
      g_autoptr (GPtrArray) plan = explore_plan_make (&sp, 3, index, kinds);
      g_autoptr (GPtrArray) again = explore_plan_make (&sp, 3, index, kinds2);
      ck_assert_uint_gt (plan->len, 0);
      ck_assert_uint_eq (plan->len, again->len);
      ck_assert_str_eq (kinds->str, kinds2->str);
      ck_assert (strcmp (kinds->str, "crash") == 0 || strcmp (kinds->str, "leave") == 0
                 || strcmp (kinds->str, "crash,leave") == 0);
      g_autoptr (GHashTable) whens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < plan->len; i++)
        {
          const char *l = plan->pdata[i];
          ck_assert_str_eq (l, again->pdata[i]);
          ck_assert_msg (g_str_has_prefix (l, "timeline."), "%s", l);
          const char *eq = strchr (l, '=');
          ck_assert_ptr_nonnull (eq);
          ck_assert_msg (g_hash_table_add (whens, g_strndup (l, (gsize) (eq - l))), "two actions at one WHEN: %s", l);
          guint p = 0;
          ck_assert_msg (sscanf (eq + 1, "crash p%u", &p) == 1 || sscanf (eq + 1, "leave p%u", &p) == 1, "%s", l);
          ck_assert (p >= 1 && p <= 3);
        }
      /* the plan is a scenario the loader takes and the world runs */
      g_autoptr (GHashTable) states = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
      ExploreObs o;
      explore_obs_init (&o, states, scratch, scratch);
      g_autofree char *sig = NULL;
      ck_assert_msg (explore_run_plan (ini, NULL, plan, 3 + index, &o, &sig, &error), "%s",
                     error ? error->message : "?");
      ck_assert_uint_gt (g_hash_table_size (states), 0);
      explore_obs_clear (&o);
      ran++;
    }
  ck_assert_uint_eq (ran, 12);
  /* another seed draws other plans */
  g_autoptr (GString) k1 = g_string_new (NULL), k2 = g_string_new (NULL);
  guint differ = 0;
  for (guint index = 0; index < 12; index++)
    {
      g_autoptr (GPtrArray) a = explore_plan_make (&sp, 3, index, k1);
      g_autoptr (GPtrArray) b = explore_plan_make (&sp, 4, index, k2);
      g_autofree char *ja = joined (a), *jb = joined (b);
      differ += strcmp (ja, jb) != 0;
    }
  ck_assert_uint_gt (differ, 0);
  g_unlink (ini);
  g_rmdir (dir);
}
END_TEST

/* --guided's mutation: a plan's child keeps one action per WHEN, keeps
 * the heal line, is the same for the same stream, and over many draws
 * adds, removes and moves lines (it differs from its parent) */
START_TEST (test_plan_mutate)
{
  ExploreSpace sp = { .n_peers = 3, .rounds = 2, .heal = TRUE };
  g_autoptr (GError) error = NULL;
  ck_assert (explore_parse_faults ("crash, leave, partition", &sp, &error));
  g_autoptr (GString) kinds = g_string_new (NULL);
  g_autoptr (GPtrArray) parent = NULL;
  for (guint index = 100; !parent || parent->len < 4; index++)
    {
      g_clear_pointer (&parent, g_ptr_array_unref);
      parent = explore_plan_make (&sp, 5, index, kinds);
    }
  guint heal = 0, longer = 0, shorter = 0, moved = 0;
  for (guint i = 0; i < parent->len; i++)
    heal += explore_plan_is_heal (parent->pdata[i]);
  ck_assert_uint_eq (heal, 1);
  g_autofree char *jp = joined (parent);
  for (guint index = 1; index < 60; index++)
    {
      g_autoptr (DlRandom) r1 = dl_random_new (5, "test-guide", index);
      g_autoptr (DlRandom) r2 = dl_random_new (5, "test-guide", index);
      g_autoptr (GPtrArray) a = explore_plan_mutate (&sp, 5, index, parent, r1);
      g_autoptr (GPtrArray) b = explore_plan_mutate (&sp, 5, index, parent, r2);
      g_autofree char *ja = joined (a), *jb = joined (b);
      ck_assert_str_eq (ja, jb);
      g_autoptr (GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      guint heals = 0;
      for (guint i = 0; i < a->len; i++)
        {
          const char *l = a->pdata[i], *eq = strchr (l, '=');
          ck_assert_ptr_nonnull (eq);
          ck_assert_msg (g_hash_table_add (keys, g_strndup (l, (gsize) (eq - l))), "two actions at one WHEN: %s", ja);
          heals += explore_plan_is_heal (l);
        }
      ck_assert_uint_eq (heals, 1);
      longer += a->len > parent->len;
      shorter += a->len < parent->len;
      moved += a->len == parent->len && strcmp (ja, jp) != 0;
    }
  ck_assert_uint_gt (longer, 0);
  ck_assert_uint_gt (shorter, 0);
  ck_assert_uint_gt (moved, 0);
}
END_TEST

START_TEST (test_parse_faults)
{
  ExploreSpace sp = { .n_peers = 3, .rounds = 2 };
  g_autoptr (GError) error = NULL;
  ck_assert (!explore_parse_faults ("crash,teleport", &sp, &error));
  ck_assert_msg (strstr (error->message, "unknown kind 'teleport'") != NULL, "%s", error->message);
  ExploreSpace all = { .n_peers = 3, .rounds = 2 };
  ck_assert (explore_parse_faults (NULL, &all, NULL));
  ck_assert (all.kinds[EXPLORE_F_DROP] && all.kinds[EXPLORE_F_REJOIN]);
  ck_assert (!all.kinds[EXPLORE_F_COORD_CRASH]);
}
END_TEST

/* ---------------------------------------------------------------- the family's messages */

START_TEST (test_fault_targets)
{
  /* every family that runs has a message table with fault targets, each a
   * declared type and a direction */
  guint families = 0;
  for (guint i = 0; proto_family_at (i); i++, families++)
    {
      const ProtoFamily *fam = proto_family_at (i);
      const ProtoMsgFamily *mf = proto_msg_family_named (fam->name);
      ck_assert_msg (mf != NULL, "family %s has no message table", fam->name);
      guint n = proto_msg_family_n_fault_targets (mf);
      ck_assert_msg (n > 0, "family %s: no fault targets", fam->name);
      for (guint k = 0; k < n; k++)
        {
          const char *type, *dir;
          ProtoMsgType t;
          proto_msg_family_fault_target (mf, k, &type, &dir);
          ck_assert_msg (proto_msg_type_from_name (type, &t), "%s: %s", fam->name, type);
          ck_assert (strcmp (dir, "to") == 0 || strcmp (dir, "from") == 0);
        }
    }
  /* every message table but the replicated coordinator's and the session
   * layer's (no family's) is a family's */
  guint tables = 0;
  for (const ProtoMsgFamily *const *t = proto_msg_families (); *t; t++)
    tables++;
  ck_assert_uint_eq (families + 2, tables);
  ck_assert_ptr_nonnull (proto_msg_family_named ("session"));
  ck_assert_ptr_null (proto_msg_family_named ("teleport"));
  /* DISCO's list, in the order explore always drew from:
   * protocol/disco/tests/test-disco-shared.c */
  /* a family without a list of its own: every type both ways */
  static const ProtoMsgClass one[] = { PROTO_MSG_CLASS_BARE (200, "Solo") };
  const ProtoMsgFamily solo = { "solo", one, 1, NULL, 0 };
  ck_assert_uint_eq (proto_msg_family_n_fault_targets (&solo), 2);
  const char *type, *dir;
  proto_msg_family_fault_target (&solo, 1, &type, &dir);
  ck_assert_str_eq (type, "Solo");
  ck_assert_str_eq (dir, "from");
  /* a target with another direction is refused */
  static const ProtoMsgFaultTarget bad[] = { { 200, "sideways" } };
  const ProtoMsgFamily wrong = { "wrong", one, 1, bad, 1 };
  g_autoptr (GError) error = NULL;
  ck_assert (!proto_msg_family_check (&wrong, &error));
  ck_assert_msg (strstr (error->message, "\"to\" or \"from\"") != NULL, "%s", error->message);
}
END_TEST

/* the plans of a scenario of the default family (the registry's first)
 * drop and delay its targets only (DISCO's explore-base.ini:
 * test-disco-shared.c) */
START_TEST (test_plans_name_the_family)
{
  ck_assert_uint_gt (plan_check_family ("tests/explore-default.ini", proto_family_at (0)->name, NULL), 20);
}
END_TEST

START_TEST (test_found_name)
{
  g_autofree char *a = explore_found_name ("scenarios/examples/explore-base.ini",
                                           "progress in linking (dropped ConnectionFail)");
  ck_assert_str_eq (a, "explore-base-progress-in-linking-dropped-ConnectionFail");
  g_autofree char *b = explore_found_name ("dir/x", "own-round-only");
  ck_assert_str_eq (b, "x-own-round-only");
}
END_TEST

/* ---------------------------------------------------------------- coverage */

/* a search's reached sets: tests/family-harness.h's FhCov */

/* a dropped type, named as the search names it: the registry's name */
static void
cov_dropped (FhCov *v, const char *name)
{
  ProtoMsgType t;
  ck_assert (proto_msg_type_from_name (name, &t));
  g_hash_table_add (v->s.dropped, (gpointer) proto_msg_type_name (t));
}

/* is type (a name) one of mf's fault targets, either way? */
static gboolean
is_target (const ProtoMsgFamily *mf, const char *type)
{
  for (guint k = 0; k < proto_msg_family_n_fault_targets (mf); k++)
    {
      const char *t, *dir;
      proto_msg_family_fault_target (mf, k, &t, &dir);
      if (strcmp (t, type) == 0)
        return TRUE;
    }
  return FALSE;
}

/* is type (a name) one that mf's class says no target names? */
static gboolean
is_untargeted (const ProtoMsgFamily *mf, const char *type)
{
  for (guint k = 0; k < mf->n_untargeted; k++)
    if (strcmp (proto_msg_type_name (mf->untargeted[k]), type) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
has_word (const char *list, const char *word)
{
  g_auto (GStrv) w = g_strsplit (list, ", ", -1);
  return g_strv_contains ((const char *const *) w, word);
}


START_TEST (test_coverage_family_types)
{
  /* the default family's (the registry's first) coverage: a type
   * dropped is not among the ones never dropped, a state of its own
   * reached counts; DISCO's lists: protocol/disco/tests/test-disco-shared.c */
  FhCov v;
  const ProtoFamily *fam = proto_family_at (0);
  fh_cov_init (&v, fam->name);
  const char *first, *second, *way;
  ck_assert_uint_gt (proto_msg_family_n_fault_targets (v.sp.msgs), 1);
  proto_msg_family_fault_target (v.sp.msgs, 0, &first, &way);
  proto_msg_family_fault_target (v.sp.msgs, 1, &second, &way);
  if (strcmp (first, second) == 0)
    proto_msg_family_fault_target (v.sp.msgs, proto_msg_family_n_fault_targets (v.sp.msgs) - 1, &second, &way);
  ck_assert_str_ne (first, second);
  cov_dropped (&v, first);
  fh_cov_add (v.s.states, fam->peer_state_name_at (0));
  explore_coverage (&v.s, &v.sp, &v.c);
  ck_assert_msg (!has_word (v.c.dropped_never, first), "%s", v.c.dropped_never);
  ck_assert_msg (has_word (v.c.dropped_never, second), "%s", v.c.dropped_never);
  ck_assert_uint_eq (v.c.n_states, fam->n_peer_states);
  ck_assert_uint_eq (v.c.states_reached, 1);
  ck_assert_str_eq (v.c.states_seen, "-");
  fh_cov_clear (&v);
  /* every family's list, nothing dropped, is the messages its faults
   * target (its own types and the session types it speaks), and the
   * types its class says no target names (ProtoMsgFamily.untargeted),
   * and no other type */
  for (guint i = 0; proto_family_at (i); i++)
    {
      const char *name = proto_family_at (i)->name;
      const ProtoMsgFamily *mf = proto_msg_family_named (name);
      if (!mf)
        continue;
      fh_cov_init (&v, name);
      explore_coverage (&v.s, &v.sp, &v.c);
      g_auto (GStrv) words = g_strsplit (v.c.dropped_never, ", ", -1);
      for (guint j = 0; j < proto_msg_family_n_fault_targets (mf); j++)
        {
          const char *type, *dir;
          proto_msg_family_fault_target (mf, j, &type, &dir);
          ck_assert_msg (g_strv_contains ((const char *const *) words, type), "%s: %s", name, v.c.dropped_never);
        }
      for (guint j = 0; j < mf->n_untargeted; j++)
        {
          const char *type = proto_msg_type_name (mf->untargeted[j]);
          ck_assert_msg (!is_target (mf, type), "%s: %s is a target and untargeted", name, type);
          ck_assert_msg (g_strv_contains ((const char *const *) words, type), "%s: %s not in %s", name, type,
                         v.c.dropped_never);
        }
      for (guint j = 0; words[j]; j++)
        ck_assert_msg (is_target (mf, words[j]) || is_untargeted (mf, words[j]), "%s lists %s", name, words[j]);
      fh_cov_clear (&v);
    }
}
END_TEST

static Suite *
explore_suite (void)
{
  Suite *s = suite_create ("explore");
  TCase *dd = tcase_create ("ddmin");
  tcase_add_test (dd, test_ddmin_two_of_eight);
  tcase_add_test (dd, test_ddmin_one_and_none);
  tcase_add_test (dd, test_ddmin_all_needed);
  suite_add_tcase (s, dd);
  TCase *pl = tcase_create ("plan");
  tcase_set_timeout (pl, 120);
  tcase_add_test (pl, test_plan_small_scenario);
  tcase_add_test (pl, test_plan_mutate);
  tcase_add_test (pl, test_parse_faults);
  tcase_add_test (pl, test_found_name);
  suite_add_tcase (s, pl);
  TCase *fm = tcase_create ("family");
  tcase_set_timeout (fm, 300);
  tcase_add_test (fm, test_fault_targets);
  tcase_add_test (fm, test_plans_name_the_family);
  suite_add_tcase (s, fm);
  TCase *cv = tcase_create ("coverage");
  tcase_add_test (cv, test_coverage_family_types);
  suite_add_tcase (s, cv);
  return s;
}

int
main (void)
{
  res_init ();
  SRunner *sr = srunner_create (explore_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
