/* test-export.c — export/: a small run of the default family (the
 * registry's first) with a lost model message recorded,
 * then written as Perfetto's trace-event JSON and read back: every phase
 * span closes (dur >= 0) on a named track, every flow arrow has its start
 * and its end (the end no earlier); --peer keeps fewer events and whole
 * arrows; --brief keeps the spans and no arrows; an unwritable file is an
 * error.  Then every table as CSV and JSON lines (`dlsim export`): a file
 * per table with its rows, the run's row as recorded, one table alone,
 * and what is refused; and checked runs as JUnit XML and TAP.
 *
 * export-scenario.c: each path form of the key table made absolute (or
 * left alone) against a folder; the folder of a run (the file's, made
 * absolute, moved by [scenario] dir); the key table's forms (a family's
 * guest_dir among them); and runs recorded from a file in a subfolder, with
 * and without [scenario] dir, exported with their trace paths absolute,
 * the exported text loading from another folder, the timeline taken
 * apart, and no such run an error. */
#include "config.h"

#include "export/export.h"
#include "results/res-query.h"
#include "runner/runner.h"
#include "protocol/proto-machine.h"
#include "protocol/proto-message.h"
#include "tests/msg-fill.h"

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

static const char scenario_form[] =
  "[scenario]\nname = export-test\nseed = 3\n\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 1000\n\n"
  "[peers]\ncount = 3\n\n"
  "[timeline]\nround 1 = drop %s to p2\n";

static char *dir, *db_path, *scenario_text;

/* The default family's model message: its first fault target sent to a
 * peer that carries weights (DISCO's Payload, gossip's GossipPayload). */
static const char *
model_message (void)
{
  const ProtoMsgFamily *mf = proto_msg_family_named (proto_family_at (0)->name);
  for (guint i = 0; mf && i < proto_msg_family_n_fault_targets (mf); i++)
    {
      const char *type, *way;
      ProtoMsgType t;
      proto_msg_family_fault_target (mf, i, &type, &way);
      if (strcmp (way, "to") == 0 && proto_msg_type_from_name (type, &t) && msg_carries_weights (t))
        return type;
    }
  g_error ("test-export: the default family %s has no model message sent to a peer", proto_family_at (0)->name);
}

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
  scenario_text = g_strdup_printf (scenario_form, model_message ());
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

/* ---------------------------------------------------------------- tables */

typedef struct {
  GHashTable *rows;        /* file's base name -> its rows (guint64 in a pointer) */
  GPtrArray *errors;       /* char* */
} Said;

static void
said_written (const char *path, guint64 rows, gpointer data)
{
  Said *s = data;
  g_hash_table_insert (s->rows, g_path_get_basename (path), GSIZE_TO_POINTER ((gsize) rows));
}

static void
said_failed (const char *message, gpointer data)
{
  Said *s = data;
  g_ptr_array_add (s->errors, g_strdup (message));
}

static ExportStatus
export_to (const char *out, ExportFormat format, const char *table, Said *said)
{
  said->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  said->errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  struct sqlite3 *db = res_db_open_read (db_path, &error);
  ck_assert_ptr_nonnull (db);
  ExportTablesOptions o = { .format = format, .table = table, .dir = out, .written = said_written,
                            .failed = said_failed, .data = said };
  ExportStatus st = export_tables (db, db_path, &o);
  res_db_close_read (db);
  return st;
}

static void
said_clear (Said *s)
{
  g_hash_table_unref (s->rows);
  g_ptr_array_unref (s->errors);
}

/* the rows of a table as results/ gives them */
static guint64
rows_in (const char *table)
{
  g_autoptr (GError) error = NULL;
  struct sqlite3 *db = res_db_open_read (db_path, &error);
  ck_assert_ptr_nonnull (db);
  if (strcmp (table, "runs_wide") == 0)
    ck_assert (res_db_make_wide (db, &error));
  guint64 n = 0;
  g_autoptr (ResRows) st = res_db_export_table (db, table);
  while (res_rows_next (st))
    n++;
  g_clear_pointer (&st, res_rows_free);   /* before the close: a live statement keeps it open */
  res_db_close_read (db);
  return n;
}

static char **
lines_of (const char *path)
{
  g_autofree char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "%s not written", path);
  ck_assert (g_str_has_suffix (text, "\n"));
  text[strlen (text) - 1] = '\0';
  return g_strsplit (text, "\n", -1);
}

/* Every table in both formats: a file per table with its rows (CSV: a
 * header, then a line per row; JSON lines: an object per row, with a
 * member per column), and the run's row as it was recorded. */
START_TEST (test_tables_every_table)
{
  g_autofree char *out_csv = g_build_filename (dir, "ex-csv", NULL);
  g_autofree char *out_json = g_build_filename (dir, "ex-json", NULL);
  Said c, j;
  ck_assert_int_eq (export_to (out_csv, EXPORT_CSV, NULL, &c), EXPORT_DONE);
  ck_assert_int_eq (export_to (out_json, EXPORT_JSONL, NULL, &j), EXPORT_DONE);
  ck_assert_uint_eq (c.errors->len, 0);
  ck_assert_uint_eq (j.errors->len, 0);
  guint tables = 0;
  for (const char *const *t = export_table_names (); *t; t++)
    tables++;
  ck_assert_uint_eq (g_hash_table_size (c.rows), tables);   /* a recorded run has them all */
  ck_assert_uint_eq (g_hash_table_size (j.rows), tables);
  static const char *const checked[] = { "runs", "events", "peers", "summary", "runs_wide" };
  for (guint i = 0; i < G_N_ELEMENTS (checked); i++)
    {
      const char *t = checked[i];
      guint64 want = rows_in (t);
      ck_assert_uint_gt (want, 0);
      g_autofree char *cn = g_strdup_printf ("%s.csv", t), *jn = g_strdup_printf ("%s.jsonl", t);
      ck_assert_uint_eq (GPOINTER_TO_SIZE (g_hash_table_lookup (c.rows, cn)), want);
      ck_assert_uint_eq (GPOINTER_TO_SIZE (g_hash_table_lookup (j.rows, jn)), want);
      g_autofree char *cp = g_build_filename (out_csv, cn, NULL), *jp = g_build_filename (out_json, jn, NULL);
      g_auto (GStrv) cl = lines_of (cp);
      g_auto (GStrv) jl = lines_of (jp);
      ck_assert_uint_eq (g_strv_length (cl), want + 1);
      ck_assert_uint_eq (g_strv_length (jl), want);
      g_auto (GStrv) header = g_strsplit (cl[0], ",", -1);
      guint columns = g_strv_length (header);
      for (guint k = 0; jl[k]; k++)
        {
          g_autoptr (JsonParser) p = json_parser_new ();
          ck_assert_msg (json_parser_load_from_data (p, jl[k], -1, NULL), "%s line %u", jp, k + 1);
          JsonObject *o = json_node_get_object (json_parser_get_root (p));
          ck_assert_ptr_nonnull (o);
          ck_assert_uint_eq (json_object_get_size (o), columns);
          if (strcmp (t, "runs") == 0)
            {
              ck_assert_str_eq (json_object_get_string_member (o, "scenario"), "export-test");
              ck_assert_int_eq (json_object_get_int_member (o, "seed"), 3);
            }
        }
      if (strcmp (t, "runs") == 0)
        {
          /* names and text quoted, numbers bare */
          ck_assert (g_str_has_prefix (cl[0], "\"run_id\",\"scenario\",\"point\",\"point_label\",\"seed\","));
          ck_assert (g_str_has_prefix (cl[1], "1,\"export-test\",0,\"\",3,"));
        }
    }
  said_clear (&c);
  said_clear (&j);
}
END_TEST

/* One table: only its file; a table that is not one: refused, by name;
 * a folder that cannot be made: an error that names it. */
START_TEST (test_tables_one_and_refusals)
{
  g_autofree char *out = g_build_filename (dir, "ex-one", NULL);
  Said s;
  ck_assert_int_eq (export_to (out, EXPORT_CSV, "runs", &s), EXPORT_DONE);
  ck_assert_uint_eq (g_hash_table_size (s.rows), 1);
  ck_assert_uint_eq (GPOINTER_TO_SIZE (g_hash_table_lookup (s.rows, "runs.csv")), 1);
  said_clear (&s);

  g_autofree char *out2 = g_build_filename (dir, "ex-none", NULL);
  ck_assert_int_eq (export_to (out2, EXPORT_JSONL, "nope", &s), EXPORT_NO_TABLE);
  ck_assert_uint_eq (s.errors->len, 1);
  g_autofree char *want = g_strdup_printf ("%s: no table 'nope'", db_path);
  ck_assert_str_eq (s.errors->pdata[0], want);
  ck_assert (!g_file_test (out2, G_FILE_TEST_EXISTS));   /* refused before anything is made */
  said_clear (&s);

  /* a folder under a file */
  g_autofree char *bad = g_build_filename (db_path, "sub", NULL);
  ck_assert_int_eq (export_to (bad, EXPORT_CSV, "runs", &s), EXPORT_FAILED);
  ck_assert_uint_eq (s.errors->len, 1);
  ck_assert (g_str_has_prefix (s.errors->pdata[0], bad));
  ck_assert_uint_eq (g_hash_table_size (s.rows), 0);
  said_clear (&s);

  ExportFormat f;
  ck_assert (export_format_from_name ("csv", &f) && f == EXPORT_CSV);
  ck_assert (export_format_from_name ("jsonl", &f) && f == EXPORT_JSONL);
  ck_assert (!export_format_from_name ("json", &f));
  ck_assert (!export_format_from_name (NULL, &f));
}
END_TEST

/* ---------------------------------------------------------------- check reports */

/* 3 peers, 2 rounds; its [expect] holds unless rounds_completed is set to
 * what it is not */
static const char checked_text[] =
  "[scenario]\nname = check-report-test\nseed = 5\n\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 100\n\n"
  "[peers]\ncount = 3\n\n"
  "[expect]\noutcome = completed\nrounds_completed = 2\n";

static char *
text_of (const char *path)
{
  char *t = NULL;
  ck_assert_msg (g_file_get_contents (path, &t, NULL, NULL), "%s not written", path);
  return t;
}

/* Two checked runs of a file whose name needs escaping (XML's &, TAP's
 * #), the second failing an expectation, and a run without [expect] (no
 * test case): one suite of two cases, one failure with key, expected,
 * actual, outcome and run. */
START_TEST (test_check_reports)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *ini = g_build_filename (dir, "a&b#c.ini", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.ini", NULL);
  g_autofree char *cdb = g_build_filename (dir, "check.db", NULL);
  ck_assert (g_file_set_contents (ini, checked_text, -1, NULL));
  ck_assert (g_file_set_contents (plain, scenario_text, -1, NULL));
  g_autoptr (ResDb) db = res_db_open (cdb, &error);
  ck_assert_ptr_nonnull (db);
  const char *const fail[] = { "expect.rounds_completed=5", NULL };
  struct { const char *path; const char *const *sets; } runs[] = { { ini, NULL }, { ini, fail }, { plain, NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autoptr (SimScenario) s = sim_scenario_load (runs[i].path, runs[i].sets, &error);
      ck_assert_msg (s != NULL, "%s", error ? error->message : "?");
      RunnerOptions ro = { .db = db };
      RunnerResult rr;
      ck_assert_msg (runner_run_point (s, s->points->pdata[0], s->seed, &ro, &rr, &error), "%s",
                     error ? error->message : "?");
      runner_result_clear (&rr);
    }
  g_clear_pointer (&db, res_db_close);
  g_autofree char *xml = g_build_filename (dir, "r.xml", NULL), *tap = g_build_filename (dir, "r.tap", NULL);
  ck_assert_msg (export_check_reports (cdb, xml, tap, &error), "%s", error ? error->message : "?");
  g_autofree char *x = text_of (xml), *t = text_of (tap);
  ck_assert_msg (strstr (x, "<testsuites name=\"dlsim check\" tests=\"2\" failures=\"1\" errors=\"0\">") != NULL, "%s", x);
  g_autofree char *suite = g_strdup_printf ("<testsuite name=\"%s/a&amp;b#c.ini\" tests=\"2\" failures=\"1\"", dir);
  ck_assert_msg (strstr (x, suite) != NULL, "%s", x);
  ck_assert (strstr (x, "<testcase classname=\"a&amp;b#c\" name=\"seed 5\"") != NULL);
  ck_assert_msg (strstr (x, "<failure message=\"rounds_completed: expected = 5, actual 2 (outcome completed, run 2)\" "
                            "type=\"expectation\">rounds_completed: expected = 5, actual 2\n</failure>") != NULL, "%s", x);
  ck_assert (strstr (x, "plain") == NULL);
  g_autofree char *want = g_strdup_printf ("TAP version 13\n1..2\n"
                                           "ok 1 - %s/a&b_c.ini seed 5 (completed)\n"
                                           "not ok 2 - %s/a&b_c.ini seed 5 (completed)\n"
                                           "  ---\n  run: 2\n  failures:\n"
                                           "    - key: \"rounds_completed\"\n      expected: \"= 5\"\n"
                                           "      actual: \"2\"\n  ...\n", dir, dir);
  ck_assert_str_eq (t, want);
  /* neither file asked for: nothing is read, even a missing database */
  ck_assert (export_check_reports ("/nonexistent/x.db", NULL, NULL, &error));
  /* a file that cannot be written */
  g_autofree char *bad = g_build_filename (dir, "no-such-dir", "r.tap", NULL);
  ck_assert (!export_check_reports (cdb, NULL, bad, &error));
  ck_assert (g_str_has_prefix (error->message, bad));
  res_db_remove_files (cdb);
  g_unlink (ini);
  g_unlink (plain);
  g_unlink (xml);
  g_unlink (tap);
}
END_TEST

/* ---------------------------------------------------------------- export-scenario */

static void
check_path (ProtoKeyPath form, const char *value, const char *folder, const char *want)
{
  g_autofree char *got = export_scenario_path (form, value, folder);
  ck_assert_msg (g_strcmp0 (got, want) == 0, "form %d, '%s' in %s: '%s', expected '%s'", form, value,
                 folder ? folder : "(none)", got, want);
}

START_TEST (test_scenario_path_forms)
{
  /* not a path: as it is */
  check_path (PROTO_KEY_NOT_PATH, "a/b", "/x/y", "a/b");
  /* a file: relative to the folder, absolute as it is, empty none */
  check_path (PROTO_KEY_PATH, "t.csv", "/x/y", "/x/y/t.csv");
  check_path (PROTO_KEY_PATH, "../t/t.csv", "/x/y", "/x/y/../t/t.csv");
  check_path (PROTO_KEY_PATH, "/abs/t.csv", "/x/y", "/abs/t.csv");
  check_path (PROTO_KEY_PATH, "", "/x/y", "");
  check_path (PROTO_KEY_PATH, "t.csv", NULL, "t.csv");
  /* a folder whose empty value is the folder itself */
  check_path (PROTO_KEY_PATH_OR_HERE, "", "/x/y", "/x/y");
  check_path (PROTO_KEY_PATH_OR_HERE, "g", "/x/y", "/x/y/g");
  check_path (PROTO_KEY_PATH_OR_HERE, "/g", "/x/y", "/g");
  check_path (PROTO_KEY_PATH_OR_HERE, "", NULL, "");
  check_path (PROTO_KEY_PATH_OR_HERE, "g", NULL, "g");
  /* a data source: csv:PATH and idx:DIR hold a path, the others none */
  check_path (PROTO_KEY_PATH_SOURCE, "csv:d.csv", "/x/y", "csv:/x/y/d.csv");
  check_path (PROTO_KEY_PATH_SOURCE, "idx:mnist", "/x/y", "idx:/x/y/mnist");
  check_path (PROTO_KEY_PATH_SOURCE, "idx:/usr/share/datasets/fashion-mnist", "/x/y",
              "idx:/usr/share/datasets/fashion-mnist");
  check_path (PROTO_KEY_PATH_SOURCE, "sklearn:digits", "/x/y", "sklearn:digits");
  check_path (PROTO_KEY_PATH_SOURCE, "synthetic", "/x/y", "synthetic");
  check_path (PROTO_KEY_PATH_SOURCE, "csv:", "/x/y", "csv:");
  check_path (PROTO_KEY_PATH_SOURCE, "csv:d.csv", NULL, "csv:d.csv");
}
END_TEST

static void
check_folder (const char *file, const char *d, const char *want)
{
  g_autofree char *got = export_scenario_folder (file, d, "/cwd");
  ck_assert_msg (g_strcmp0 (got, want) == 0, "%s with dir '%s': '%s', expected '%s'", file, d ? d : "(none)",
                 got ? got : "(none)", want ? want : "(none)");
}

START_TEST (test_scenario_folder)
{
  /* the file's folder, made absolute against the working folder */
  check_folder ("a/s.ini", NULL, "/cwd/a");
  check_folder ("s.ini", "", "/cwd/.");
  check_folder ("/f/s.ini", "", "/f");
  /* [scenario] dir moves it: relative to the file's folder, or absolute */
  check_folder ("/f/s.ini", "../d", "/f/../d");
  check_folder ("a/s.ini", "d", "/cwd/a/d");
  check_folder ("/f/s.ini", "/abs", "/abs");
  /* a run without a file has no folder */
  check_folder ("", "d", NULL);
}
END_TEST

START_TEST (test_scenario_key_table_paths)
{
  /* the common table's path kinds and the data source */
  ck_assert_int_eq (sim_scenario_key_path ("churn.trace"), PROTO_KEY_PATH);
  ck_assert_int_eq (sim_scenario_key_path ("peers.capacity"), PROTO_KEY_PATH);
  ck_assert_int_eq (sim_scenario_key_path ("network.bandwidth_trace"), PROTO_KEY_PATH);
  ck_assert_int_eq (sim_scenario_key_path ("data.source"), PROTO_KEY_PATH_SOURCE);
  /* a family's row sets its own (the guest's guest_dir: test-guest.c) */
  for (guint f = 0; proto_family_at (f); f++)
    {
      const ProtoFamilyKeys *k = proto_family_at (f)->keys;
      for (guint i = 0; k && i < k->n_rows; i++)
        {
          if (k->rows[i].group)
            continue;  /* a group's place, not a key */
          g_autofree char *full = g_strdup_printf ("%s.%s", k->rows[i].section, k->rows[i].key);
          ck_assert_int_eq (sim_scenario_key_path (full), k->rows[i].path);
        }
    }
  ck_assert_int_eq (sim_scenario_key_path ("peers.count"), PROTO_KEY_NOT_PATH);
  ck_assert_int_eq (sim_scenario_key_path ("scenario.description"), PROTO_KEY_NOT_PATH);
  ck_assert_int_eq (sim_scenario_key_path ("no.such"), PROTO_KEY_NOT_PATH);
}
END_TEST

/* Records `text` as sub/NAME.ini below dir into sub/NAME.db; returns the
 * database's path. */
static char *
record_in_sub (const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_mkdir_with_parents (sub, 0755);
  g_autofree char *base = g_strdup_printf ("%s.ini", name);
  g_autofree char *ini = g_build_filename (sub, base, NULL);
  g_autofree char *dbbase = g_strdup_printf ("%s.db", name);
  char *path = g_build_filename (sub, dbbase, NULL);
  ck_assert_msg (g_file_set_contents (ini, text, -1, &error), "%s", error ? error->message : "");
  g_autoptr (SimScenario) s = sim_scenario_load (ini, NULL, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  g_autoptr (ResDb) db = res_db_open (path, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "");
  RunnerOptions ro = { .db = db };
  RunnerResult rr;
  ck_assert_msg (runner_run_point (s, s->points->pdata[0], s->seed, &ro, &rr, &error), "%s",
                 error ? error->message : "");
  runner_result_clear (&rr);
  return path;
}

/* Run 1 of db_path as exported text (its timeline into timeline, if given). */
static char *
export_run (const char *path, GPtrArray *timeline)
{
  g_autoptr (GError) error = NULL;
  struct sqlite3 *rdb = res_db_open_read (path, &error);
  ck_assert_msg (rdb != NULL, "%s", error ? error->message : "");
  char *text = export_scenario_text (rdb, path, 1, timeline, TRUE, NULL, &error);
  res_db_close_read (rdb);
  ck_assert_msg (text != NULL, "%s", error ? error->message : "");
  return text;
}

static void
assert_line (const char *text, const char *line)
{
  g_autofree char *needle = g_strdup_printf ("\n%s\n", line);
  ck_assert_msg (strstr (text, needle) != NULL, "no line '%s' in:\n%s", line, text);
}

/* writes the traces the scenarios below name: files/churn.csv and
 * files/bw.csv, and sub/here.csv */
static void
write_traces (void)
{
  static const char churn[] = "peer,join,leave\np1,0,\np2,0,\np3,0,30\n";
  static const char bw[] = "peer,time,uplink,downlink\np1,1s,1Mbps,100Mbps\n";
  g_autofree char *files = g_build_filename (dir, "files", NULL);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_mkdir_with_parents (files, 0755);
  g_mkdir_with_parents (sub, 0755);
  g_autofree char *c = g_build_filename (files, "churn.csv", NULL);
  g_autofree char *b = g_build_filename (files, "bw.csv", NULL);
  g_autofree char *h = g_build_filename (sub, "here.csv", NULL);
  ck_assert (g_file_set_contents (c, churn, -1, NULL));
  ck_assert (g_file_set_contents (b, bw, -1, NULL));
  ck_assert (g_file_set_contents (h, churn, -1, NULL));
}

static const char traced_text[] =
  "[scenario]\nseed = 2\n%s\n"
  "[protocol]\nmin_participants = 2\n\n"
  "[training]\nrounds = 2\n\n"
  "[model]\nkind = none\nsize = 1000\n\n"
  "[peers]\ncount = 0\n\n"
  "[network]\nbandwidth_trace = %s\n\n"
  "[churn]\ntrace = %s\n\n"
  "[timeline]\nround 1 = drop %s to p2\n\n"
  "[expect]\nrounds_completed = >= 0\n";

/* Exports text with the timeline apart, writes it in another folder and
 * loads it: its paths must lead to the traces from there. */
static void
check_loads_elsewhere (const char *path, const char *name)
{
  g_autoptr (GPtrArray) timeline = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *apart = export_run (path, timeline);
  ck_assert_uint_eq (timeline->len, 1);
  g_autofree char *set = g_strdup_printf ("timeline.round 1=drop %s to p2", model_message ());
  ck_assert_str_eq (timeline->pdata[0], set);
  ck_assert_ptr_null (strstr (apart, "[timeline]"));
  g_autofree char *text = export_run (path, NULL);
  g_autofree char *line = g_strdup_printf ("round 1 = drop %s to p2", model_message ());
  assert_line (text, line);
  assert_line (text, "rounds_completed = >= 0");
  g_autoptr (GError) error = NULL;
  g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);
  g_mkdir_with_parents (elsewhere, 0755);
  g_autofree char *base = g_strdup_printf ("%s.ini", name);
  g_autofree char *ini = g_build_filename (elsewhere, base, NULL);
  ck_assert (g_file_set_contents (ini, text, -1, NULL));
  g_autoptr (SimScenario) s = sim_scenario_load (ini, NULL, &error);
  ck_assert_msg (s != NULL, "%s:\n%s", error ? error->message : "", text);
  SimBuilt b;
  ck_assert_msg (sim_scenario_build (s, s->points->pdata[0], s->seed, &b, &error), "%s:\n%s",
                 error ? error->message : "", text);
  sim_built_clear (&b);
}

/* Records the traced scenario as sub/NAME.ini with [scenario] lines
 * `scenario`, the bandwidth and churn traces bw and trace; its export must
 * say dir, trace and bandwidth_trace are want_dir, want_trace, want_bw. */
static void
check_export (const char *name, const char *scenario, const char *bw, const char *trace, const char *want_dir,
              const char *want_trace, const char *want_bw)
{
  write_traces ();
  g_autofree char *text = g_strdup_printf (traced_text, scenario, bw, trace, model_message ());
  g_autofree char *db = record_in_sub (name, text);
  g_autofree char *out = export_run (db, NULL);
  g_autofree char *dir_line = g_strdup_printf ("dir = %s", want_dir);
  g_autofree char *trace_line = g_strdup_printf ("trace = %s", want_trace);
  g_autofree char *bw_line = g_strdup_printf ("bandwidth_trace = %s", want_bw);
  assert_line (out, dir_line);
  assert_line (out, trace_line);
  assert_line (out, bw_line);
  check_loads_elsewhere (db, name);
}

START_TEST (test_scenario_export_with_dir)
{
  /* [scenario] dir = ../files: the churn trace is found there, the
   * bandwidth trace is absolute */
  g_autofree char *bw = g_build_filename (dir, "files", "bw.csv", NULL);
  g_autofree char *folder = g_build_filename (dir, "sub", "../files", NULL);
  g_autofree char *trace = g_build_filename (folder, "churn.csv", NULL);
  check_export ("with-dir", "dir = ../files\n", bw, "churn.csv", folder, trace, bw);
}
END_TEST

START_TEST (test_scenario_export_without_dir)
{
  /* no [scenario] dir: relative to the file's folder, sub/ */
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *trace = g_build_filename (sub, "here.csv", NULL);
  g_autofree char *bw = g_build_filename (sub, "../files/bw.csv", NULL);
  check_export ("without-dir", "", "../files/bw.csv", "here.csv", sub, trace, bw);
}
END_TEST

START_TEST (test_scenario_no_run)
{
  g_autoptr (GError) error = NULL;
  struct sqlite3 *rdb = res_db_open_read (db_path, &error);
  ck_assert (rdb != NULL);
  g_autofree char *warning = NULL;
  g_autofree char *text = export_scenario_text (rdb, "r.db", 99, NULL, TRUE, &warning, &error);
  res_db_close_read (rdb);
  ck_assert_ptr_null (text);
  ck_assert (g_error_matches (error, RES_ERROR, RES_ERROR_NOT_FOUND));
  ck_assert_str_eq (error->message, "r.db: no run 99");
}
END_TEST

/* removes everything below path */
static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d)))
    {
      g_autofree char *f = g_build_filename (path, n, NULL);
      if (g_file_test (f, G_FILE_TEST_IS_DIR))
        remove_tree (f);
      else
        g_unlink (f);
    }
  g_rmdir (path);
}

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
  tc = tcase_create ("tables");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_tables_every_table);
  tcase_add_test (tc, test_tables_one_and_refusals);
  suite_add_tcase (s, tc);
  tc = tcase_create ("check reports");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_check_reports);
  suite_add_tcase (s, tc);
  TCase *ts = tcase_create ("scenario");
  tcase_set_timeout (ts, 60);
  tcase_add_test (ts, test_scenario_path_forms);
  tcase_add_test (ts, test_scenario_folder);
  tcase_add_test (ts, test_scenario_key_table_paths);
  tcase_add_test (ts, test_scenario_export_with_dir);
  tcase_add_test (ts, test_scenario_export_without_dir);
  tcase_add_test (ts, test_scenario_no_run);
  suite_add_tcase (s, ts);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  remove_tree (dir);
  g_free (dir);
  g_free (db_path);
  return failed == 0 ? 0 : 1;
}
