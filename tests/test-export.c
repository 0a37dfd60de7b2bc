/* test-export.c — export/: a small DISCO run with a lost message recorded,
 * then written as Perfetto's trace-event JSON and read back: every phase
 * span closes (dur >= 0) on a named track, every flow arrow has its start
 * and its end (the end no earlier); --peer keeps fewer events and whole
 * arrows; --brief keeps the spans and no arrows; an unwritable file is an
 * error. */
#include "config.h"

#include "export/export.h"
#include "results/res-query.h"
#include "runner/runner.h"

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

static const char scenario_text[] =
  "[scenario]\nname = export-test\nseed = 3\n\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 1000\n\n"
  "[peers]\ncount = 3\n\n"
  "[timeline]\nround 1 = drop Payload to p2\n";

static char *dir, *db_path;

/* records the scenario once into db_path (before the tests: no ck_assert) */
static void
record (void)
{
  g_autoptr (GError) error = NULL;
  dir = g_dir_make_tmp ("dlsim-export-XXXXXX", &error);
  if (!dir)
    g_error ("test-export: %s", error->message);
  g_autofree char *ini = g_build_filename (dir, "export-test.ini", NULL);
  db_path = g_build_filename (dir, "r.db", NULL);
  if (!g_file_set_contents (ini, scenario_text, -1, &error))
    g_error ("test-export: %s", error->message);
  g_autoptr (SimScenario) s = sim_scenario_load (ini, NULL, &error);
  if (!s)
    g_error ("test-export: %s", error->message);
  g_autoptr (ResDb) db = res_db_open (db_path, &error);
  if (!db)
    g_error ("test-export: %s", error->message);
  RunnerOptions ro = { .db = db };
  RunnerResult rr;
  if (!runner_run_point (s, s->points->pdata[0], s->seed, &ro, &rr, &error))
    g_error ("test-export: %s", error->message);
  runner_result_clear (&rr);
}

typedef struct {
  guint spans, starts, ends, instants;
  GHashTable *named;        /* tid -> name */
  GHashTable *used;         /* tids with an event */
  GHashTable *start_ts;     /* flow id -> ts (double*) */
  gboolean ends_after_starts, ends_match;
} Trace;

static JsonParser *
exported (const char *peer, gboolean brief, Trace *t)
{
  g_autofree char *json = g_build_filename (dir, "t.json", NULL);
  g_autoptr (GError) error = NULL;
  struct sqlite3 *db = res_db_open_read (db_path, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  ck_assert_msg (export_perfetto (db, 1, peer, brief, json, &error), "%s", error ? error->message : "?");
  res_db_close_read (db);
  JsonParser *p = json_parser_new ();
  ck_assert_msg (json_parser_load_from_file (p, json, &error), "%s", error ? error->message : "?");
  g_unlink (json);
  memset (t, 0, sizeof *t);
  t->named = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  t->used = g_hash_table_new (g_direct_hash, g_direct_equal);
  t->start_ts = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  t->ends_after_starts = t->ends_match = TRUE;
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  JsonArray *ev = json_object_get_array_member (root, "traceEvents");
  ck_assert_ptr_nonnull (ev);
  /* starts first: the exporter writes a flow's start before its end */
  for (guint i = 0; i < json_array_get_length (ev); i++)
    {
      JsonObject *e = json_array_get_object_element (ev, i);
      const char *ph = json_object_get_string_member (e, "ph");
      gint64 tid = json_object_get_int_member (e, "tid");
      if (strcmp (ph, "M") == 0)
        {
          JsonObject *args = json_object_get_object_member (e, "args");
          g_hash_table_insert (t->named, GINT_TO_POINTER (tid), g_strdup (json_object_get_string_member (args, "name")));
          continue;
        }
      g_hash_table_add (t->used, GINT_TO_POINTER (tid));
      double ts = json_object_get_double_member (e, "ts");
      if (strcmp (ph, "X") == 0)
        {
          t->spans++;
          ck_assert (json_object_get_double_member (e, "dur") >= 0);
        }
      else if (strcmp (ph, "s") == 0)
        {
          t->starts++;
          double *v = g_new (double, 1);
          *v = ts;
          ck_assert (g_hash_table_insert (t->start_ts, GINT_TO_POINTER (json_object_get_int_member (e, "id")), v));
        }
      else if (strcmp (ph, "f") == 0)
        {
          t->ends++;
          double *s = g_hash_table_lookup (t->start_ts, GINT_TO_POINTER (json_object_get_int_member (e, "id")));
          if (!s)
            t->ends_match = FALSE;
          else if (*s > ts)
            t->ends_after_starts = FALSE;
        }
      else if (strcmp (ph, "i") == 0)
        t->instants++;
    }
  return p;
}

static void
trace_clear (Trace *t)
{
  g_hash_table_unref (t->named);
  g_hash_table_unref (t->used);
  g_hash_table_unref (t->start_ts);
}

START_TEST (test_perfetto_whole_run)
{
  Trace t;
  g_autoptr (JsonParser) p = exported (NULL, FALSE, &t);
  ck_assert_uint_gt (t.spans, 3);
  ck_assert_uint_gt (t.starts, 0);
  ck_assert_uint_eq (t.starts, t.ends);
  ck_assert (t.ends_match);
  ck_assert (t.ends_after_starts);
  /* every track an event is on is named, S the first */
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, t.used);
  while (g_hash_table_iter_next (&it, &k, NULL))
    ck_assert_msg (g_hash_table_contains (t.named, k), "track %d has no name", GPOINTER_TO_INT (k));
  ck_assert_str_eq (g_hash_table_lookup (t.named, GINT_TO_POINTER (1)), "S");
  ck_assert_ptr_nonnull (g_hash_table_lookup (t.named, GINT_TO_POINTER (2)));
  trace_clear (&t);
}
END_TEST

START_TEST (test_perfetto_peer_and_brief)
{
  Trace all, one, brief;
  g_autoptr (JsonParser) pa = exported (NULL, FALSE, &all);
  g_autoptr (JsonParser) p1 = exported ("p1", FALSE, &one);
  g_autoptr (JsonParser) pb = exported (NULL, TRUE, &brief);
  /* one peer: fewer events, its arrows still whole */
  ck_assert_uint_gt (one.spans, 0);
  ck_assert_uint_lt (one.spans + one.starts + one.instants, all.spans + all.starts + all.instants);
  ck_assert_uint_eq (one.starts, one.ends);
  ck_assert (one.ends_match);
  /* brief: no sends or receives, so no arrows; the same spans */
  ck_assert_uint_eq (brief.starts, 0);
  ck_assert_uint_eq (brief.ends, 0);
  ck_assert_uint_eq (brief.spans, all.spans);
  trace_clear (&all);
  trace_clear (&one);
  trace_clear (&brief);
}
END_TEST

START_TEST (test_perfetto_unwritable)
{
  g_autoptr (GError) error = NULL;
  struct sqlite3 *db = res_db_open_read (db_path, &error);
  ck_assert_ptr_nonnull (db);
  g_autofree char *bad = g_build_filename (dir, "no-such-dir", "t.json", NULL);
  ck_assert (!export_perfetto (db, 1, NULL, FALSE, bad, &error));
  ck_assert_ptr_nonnull (error);
  res_db_close_read (db);
}
END_TEST

int
main (void)
{
  res_init ();
  record ();
  Suite *s = suite_create ("export");
  TCase *tc = tcase_create ("perfetto");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_perfetto_whole_run);
  tcase_add_test (tc, test_perfetto_peer_and_brief);
  tcase_add_test (tc, test_perfetto_unwritable);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d)))
    {
      g_autofree char *f = g_build_filename (dir, n, NULL);
      g_unlink (f);
    }
  g_rmdir (dir);
  g_free (dir);
  g_free (db_path);
  return failed == 0 ? 0 : 1;
}
