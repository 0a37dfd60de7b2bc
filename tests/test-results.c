/* test-results.c — the results database's event log: what the recorder is
 * given comes back, row for row and byte for byte, through the `events`
 * view (results/res-writer.c stores events as JSON chunks).  The
 * families' counters reach the summary, by their rules and names; the
 * summary keeps the order its keys are made in, and a key made twice
 * has its last value in every row.
 *
 * `dlsim compare`'s questions are in test-results-compare.c, a tcase of
 * this program (test-results.h). */
#include "config.h"

#include "tests/test-results.h"
#include "results/res-db.h"
#include "results/res-query.h"
#include "host/sim-host.h"

#include <check.h>
#include <math.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

/* What was recorded, as the test expects to read it back. */
typedef struct {
  DlTime t;
  char node[24];
  const char *kind;
  int round;          /* as stored (1-based), -1: NULL */
  char other[24];
  char *detail;       /* NULL: NULL */
  const char *state;
  const char *msg;
  gint64 value;
} Expected;

static const char *const tricky[] = {
  "quote \" and backslash \\ inside",
  "tab\tnew line\ncarriage\rbell\a",
  "UTF-8: é ü 日本",
  "\\u0041 is not an escape here",
  "ends with a backslash \\",
};

static const char long_state[] = "a-state-name-longer-than-any-that-the-program-has";

static void
name_of (char buf[24], ProtoNodeId id)
{
  if (id == PROTO_SERVER)
    g_strlcpy (buf, "S", 24);
  else if (id == PROTO_NO_NODE)
    buf[0] = '\0';
  else
    g_snprintf (buf, 24, "p%u", id);
}

/* Records n events, observations and facts mixed, with long and tricky
 * details (enough to fill several batches' text and several chunks). */
static GArray *
record (SimRecorder *rec, guint n)
{
  GArray *exp = g_array_new (FALSE, TRUE, sizeof (Expected));
  for (guint i = 0; i < n; i++)
    {
      Expected e = { 0 };
      /* times from 0 to ~10^13 ns, with odd nanoseconds; every eighth
       * with as many trailing zeros as a time can have */
      static const DlTime round_ns[] = { 0, 5, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                          120000000, 123400000, 123456780, 500000000, 987654300 };
      e.t = (DlTime) i * 9876543211LL + (i % 7);
      if (i % 8 == 5)
        e.t = (DlTime) (i / 8) * DL_S + round_ns[(i / 8) % G_N_ELEMENTS (round_ns)];
      if (i % 5 == 4)
        {
          /* a fact; every tenth without a node (the world's) */
          ProtoNodeId node = i % 10 == 9 ? PROTO_NO_NODE : (ProtoNodeId) (i % 13 + 1);
          const char *detail = i % 3 == 0 ? tricky[i % G_N_ELEMENTS (tricky)] : NULL;
          g_autofree char *kind = g_strdup_printf ("fact-%u", i % 4);
          rec->fact (rec->user_data, e.t, node, PROTO_SERVER, kind, detail);
          name_of (e.node, node);
          if (node == PROTO_NO_NODE)
            g_strlcpy (e.node, "world", sizeof e.node);
          e.kind = g_intern_string (kind);
          e.round = -1;
          name_of (e.other, PROTO_SERVER);
          e.detail = detail ? g_strdup (detail) : NULL;
          e.state = "world";
          e.value = -1;
        }
      else
        {
          ProtoObservation o = { 0 };
          o.kind = (ProtoObsKind) (i % PROTO_OBS_N_KINDS);
          /* no state, an empty one (NULL too), one longer than any the
           * program has, and the usual kind */
          o.state = i % 11 == 0 ? NULL : i % 11 == 1 ? "" : i % 11 == 2 ? long_state : "some-state";
          o.round = i % 4 == 0 ? -1 : (int32_t) (i % 50);
          o.other = i % 3 == 0 ? PROTO_NO_NODE : (ProtoNodeId) (i % 17 + 1);
          o.msg_type = i % 6 == 0 ? -1 : (int32_t) proto_msg_type_at (i % proto_msg_n_types ());
          o.value = i % 2 ? -1 : (int64_t) i * 1000;
          if (i % 7 == 0)
            {
              /* a detail as long as the field holds */
              memset (o.detail, 'x', sizeof o.detail - 1);
              o.detail[sizeof o.detail - 1] = '\0';
            }
          else if (i % 7 == 1)
            g_strlcpy (o.detail, tricky[i % G_N_ELEMENTS (tricky)], sizeof o.detail);
          /* and now and then a node of a large world */
          ProtoNodeId node = i % 9 == 0 ? PROTO_SERVER : i % 23 == 0 ? (ProtoNodeId) (4090 + i % 13)
                           : i % 37 == 0 ? (ProtoNodeId) (100000 + i) : (ProtoNodeId) (i % 29 + 1);
          rec->observation (rec->user_data, e.t, node, &o);
          name_of (e.node, node);
          e.kind = proto_obs_kind_name (o.kind);
          e.round = o.round >= 0 ? o.round + 1 : -1;
          name_of (e.other, o.other);
          e.detail = o.detail[0] ? g_strdup (o.detail) : NULL;
          e.state = o.state && o.state[0] ? o.state : NULL;
          e.msg = o.msg_type >= 0 ? proto_msg_type_name ((ProtoMsgType) o.msg_type) : NULL;
          e.value = o.value;
        }
      g_array_append_val (exp, e);
    }
  return exp;
}

static void
check_text (sqlite3_stmt *st, int col, const char *want, guint row)
{
  const char *got = (const char *) sqlite3_column_text (st, col);
  if (!want || !*want)
    ck_assert_msg (sqlite3_column_type (st, col) == SQLITE_NULL, "row %u column %d: %s, wanted NULL", row, col,
                   got);
  else
    {
      ck_assert_msg (sqlite3_column_type (st, col) == SQLITE_TEXT, "row %u column %d is not text", row, col);
      ck_assert_msg (strcmp (got, want) == 0, "row %u column %d: '%s', wanted '%s'", row, col, got, want);
    }
}

static void
check_int (sqlite3_stmt *st, int col, gint64 want, guint row)
{
  if (want < 0)
    ck_assert_msg (sqlite3_column_type (st, col) == SQLITE_NULL, "row %u column %d: wanted NULL", row, col);
  else
    {
      ck_assert_msg (sqlite3_column_type (st, col) == SQLITE_INTEGER, "row %u column %d is not an integer", row,
                     col);
      ck_assert_int_eq (sqlite3_column_int64 (st, col), want);
    }
}

/* sql, its one parameter the run id */
static sqlite3_stmt *
prepare_run (sqlite3 *db, const char *sql, gint64 run_id)
{
  sqlite3_stmt *st = NULL;
  ck_assert_int_eq (sqlite3_prepare_v2 (db, sql, -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_int64 (st, 1, run_id);
  return st;
}

static void
check_events (const char *path, gint64 run_id, GArray *exp)
{
  sqlite3 *db = NULL;
  ck_assert_int_eq (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = prepare_run (db,
                                   "SELECT seq, t_s, node, kind, round, other, detail, state, msg, value"
                                   " FROM events WHERE run_id = ? ORDER BY seq",
                                   run_id);
  guint row = 0;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      ck_assert_uint_lt (row, exp->len);
      const Expected *e = &g_array_index (exp, Expected, row);
      check_int (st, 0, row + 1, row);
      ck_assert_int_eq (sqlite3_column_type (st, 1), SQLITE_FLOAT);
      /* the very double dl_time_to_s gives */
      ck_assert_msg (sqlite3_column_double (st, 1) == dl_time_to_s (e->t), "row %u: t_s %.17g, wanted %.17g", row,
                     sqlite3_column_double (st, 1), dl_time_to_s (e->t));
      check_text (st, 2, e->node, row);
      check_text (st, 3, e->kind, row);
      check_int (st, 4, e->round, row);
      check_text (st, 5, e->other, row);
      check_text (st, 6, e->detail, row);
      check_text (st, 7, e->state, row);
      check_text (st, 8, e->msg, row);
      check_int (st, 9, e->value, row);
      row++;
    }
  ck_assert_uint_eq (row, exp->len);
  sqlite3_finalize (st);
  /* and each time is written without trailing zeros (one digit stays):
   * the text as stored, before SQLite reads it as a number */
  st = prepare_run (db,
                    "SELECT substr (json (j.value), 2, instr (json (j.value), ',') - 2)"
                    " FROM event_chunks c, json_each (c.rows) j WHERE c.run_id = ?",
                    run_id);
  guint times = 0;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *t = (const char *) sqlite3_column_text (st, 0);
      const char *dot = strchr (t, '.');
      gsize n = strlen (t);
      ck_assert_msg (dot && n > (gsize) (dot - t) + 1, "time '%s' has no fraction", t);
      ck_assert_msg (t[n - 1] != '0' || strcmp (dot, ".0") == 0, "time '%s' keeps a trailing zero", t);
      times++;
    }
  ck_assert_uint_eq (times, exp->len);
  sqlite3_finalize (st);
  sqlite3_close (db);
}

static void
free_expected (GArray *exp)
{
  for (guint i = 0; i < exp->len; i++)
    g_free (g_array_index (exp, Expected, i).detail);
  g_array_unref (exp);
}

START_TEST (test_events_round_trip)
{
  Fixture f;
  fixture_init (&f);
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  ResRun *run = res_run_begin (db, 0, &f.scenario, &f.point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  SimRecorder rec = res_run_recorder (run);
  /* 5 000 events: several chunks of 1 024, several batches */
  GArray *exp = record (&rec, 5000);
  gint64 id = res_run_id (run);
  /* as after a Ctrl-C: what was recorded is in the file */
  res_run_abort (run, "interrupted");
  res_db_close (db);
  check_events (f.path, id, exp);
  free_expected (exp);
  fixture_clear (&f);
}
END_TEST

START_TEST (test_two_runs_apart)
{
  Fixture f;
  fixture_init (&f);
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  GArray *exps[2];
  gint64 ids[2];
  for (int k = 0; k < 2; k++)
    {
      ResRun *run = res_run_begin (db, 0, &f.scenario, &f.point, 1, &error);
      ck_assert_msg (run, "%s", error ? error->message : "");
      SimRecorder rec = res_run_recorder (run);
      exps[k] = record (&rec, k == 0 ? 3 : 1500);
      ids[k] = res_run_id (run);
      res_run_abort (run, NULL);
    }
  res_db_close (db);
  for (int k = 0; k < 2; k++)
    {
      check_events (f.path, ids[k], exps[k]);
      free_expected (exps[k]);
    }
  /* a deleted run leaves nothing behind */
  db = res_db_open (f.path, &error);
  ck_assert (res_db_delete_run (db, ids[1], &error));
  res_db_close (db);
  GArray *none = g_array_new (FALSE, TRUE, sizeof (Expected));
  check_events (f.path, ids[1], none);
  g_array_unref (none);
  fixture_clear (&f);
}
END_TEST

/* The events table's kind of each observation kind (proto_obs_kind_name),
 * the values docs/user-guide.md lists: a kind renamed in the code keeps
 * its trace name (SOURCE_CHOSEN was PROVIDER_CHOSEN). */
START_TEST (test_obs_kind_names)
{
  static const char *const names[] = {
    "sent", "received", "dropped", "rejected", "phase", "timer-set", "timer-fired", "timer-cleared",
    "retry", "excluded", "provider-chosen", "provider-replaced", "sync-started", "sync-served",
    "sync-done", "sync-failed", "round-list", "round-start", "round-end", "link", "pause", "error",
    "finished", "reset", "note", "foreign-round", "metric",
  };
  ck_assert_uint_eq (G_N_ELEMENTS (names), PROTO_OBS_N_KINDS);
  for (guint k = 0; k < PROTO_OBS_N_KINDS; k++)
    ck_assert_str_eq (proto_obs_kind_name ((ProtoObsKind) k), names[k]);
  ck_assert_str_eq (proto_obs_kind_name (PROTO_OBS_SOURCE_CHOSEN), "provider-chosen");
  ck_assert_str_eq (proto_obs_kind_name (PROTO_OBS_SOURCE_REPLACED), "provider-replaced");
  ck_assert_str_eq (proto_obs_kind_name (PROTO_OBS_N_KINDS), "?");
}
END_TEST

/* A fresh tally fed observations meant for counter c: some its rule
 * counts, some it does not (another value, another kind, a peer's where
 * it reads the coordinator's alone); what it counted. */
static guint
tally_one_counter (guint i, const ProtoCounter *c)
{
  SimTally t;
  sim_tally_init (&t);
  ProtoObservation o = { .kind = c->kind, .state = "s", .round = 1, .other = PROTO_NO_NODE, .msg_type = -1 };
  ProtoObservation other_kind = o;
  other_kind.kind = (c->kind + 1) % PROTO_OBS_N_KINDS;
  static const int64_t least[] = { 5, 0, -1, 3, 4 };   /* MIN_POSITIVE: 3 */
  for (guint k = 0; k < G_N_ELEMENTS (least); k++)
    {
      o.value = c->rule == PROTO_COUNT_MATCHES ? (k < 3 ? c->value : c->value + 1) : least[k];
      sim_tally_observe (&t, PROTO_SERVER, &o);
      other_kind.value = o.value;
      sim_tally_observe (&t, PROTO_SERVER, &other_kind);
    }
  o.value = c->rule == PROTO_COUNT_MATCHES ? c->value : 1;   /* a peer's */
  sim_tally_observe (&t, 1, &o);
  SimResult r = { 0 };
  sim_tally_fill (&t, &r);
  sim_tally_clear (&t);
  return r.counters[i];
}

/* The counters the families declare (ProtoCounter, whichever family):
 * the tally counts each by its rule, and the summary has every one,
 * under its name and with its value, after model_syncs and before
 * messages_dropped, in the registry's order (none declared: those two
 * stand together; DISCO's three: test-disco-shared.c). */
START_TEST (test_counters_reach_summary)
{
  SimResult res = { 0 };
  res.outcome = SIM_OUTCOME_COMPLETED;
  guint n = 0;
  for (const ProtoCounter *c; (c = proto_counter_at (n)); n++)
    {
      ck_assert_ptr_eq (proto_counter_lookup (c->name), c);
      guint want = c->rule == PROTO_COUNT_MATCHES ? 3 + !c->coordinator_only : c->coordinator_only ? 3 : 1;
      ck_assert_msg (tally_one_counter (n, c) == want, "counter %s: %u, not %u", c->name,
                     tally_one_counter (n, c), want);
      res.counters[n] = 100 + n;
    }
  ck_assert_ptr_null (proto_counter_lookup ("no_such_counter"));

  Fixture f;
  fixture_init (&f);
  f.point.expects = g_array_new (FALSE, TRUE, sizeof (SimExpect));
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  ResRun *run = res_run_begin (db, 0, &f.scenario, &f.point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  gint64 id = res_run_id (run);
  ck_assert_msg (res_run_finish (run, &res, 0, NULL, NULL, &error), "%s", error ? error->message : "");
  res_db_close (db);

  sqlite3 *sq = NULL;
  ck_assert_int_eq (sqlite3_open_v2 (f.path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ck_assert_int_eq (sqlite3_prepare_v2 (sq, "SELECT key, value FROM summary WHERE run_id = ? ORDER BY rowid", -1,
                                        &st, NULL), SQLITE_OK);
  sqlite3_bind_int64 (st, 1, id);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      g_ptr_array_add (keys, g_strdup ((const char *) sqlite3_column_text (st, 0)));
      gint64 v = sqlite3_column_int64 (st, 1);
      g_array_append_val (values, v);
    }
  sqlite3_finalize (st);
  sqlite3_close (sq);
  guint at = 0;
  while (at < keys->len && strcmp (keys->pdata[at], "model_syncs") != 0)
    at++;
  ck_assert_uint_lt (at + n + 1, keys->len);
  for (guint i = 0; i < n; i++)
    {
      ck_assert_str_eq (keys->pdata[at + 1 + i], proto_counter_at (i)->name);
      ck_assert_int_eq (g_array_index (values, gint64, at + 1 + i), 100 + i);
    }
  ck_assert_str_eq (keys->pdata[at + 1 + n], "messages_dropped");
  g_array_unref (f.point.expects);
  fixture_clear (&f);
}
END_TEST

/* Run ids stop at 2^63 - 1: the next ones are refused, not negative. */
START_TEST (test_run_ids_bounded)
{
  Fixture f;
  fixture_init (&f);
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f.path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  gint64 first = 0;
  ck_assert (res_db_next_run_ids (db, 3, &first, &error));
  ck_assert_int_eq (first, 1);
  ResRun *run = res_run_begin (db, G_MAXINT64 - 1, &f.scenario, &f.point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  res_run_abort (run, NULL);
  ck_assert (res_db_next_run_ids (db, 1, &first, &error));
  ck_assert_int_eq (first, G_MAXINT64);
  ck_assert (!res_db_next_run_ids (db, 2, &first, &error));
  ck_assert (g_error_matches (error, RES_ERROR, RES_ERROR_SCHEMA));
  g_clear_error (&error);
  run = res_run_begin (db, G_MAXINT64, &f.scenario, &f.point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  res_run_abort (run, NULL);
  /* run id 0: the next free one, of which there is none */
  ck_assert_ptr_null (res_run_begin (db, 0, &f.scenario, &f.point, 1, &error));
  ck_assert (g_error_matches (error, RES_ERROR, RES_ERROR_SCHEMA));
  ck_assert_int_eq (res_db_max_run_id (db), G_MAXINT64);
  res_db_close (db);
  fixture_clear (&f);
}
END_TEST

/* A run's identity: the same scenario, values and seed give the same one;
 * another value or seed another; the base seed and the repeat count do not
 * count (the seed a run uses does). */
START_TEST (test_run_identity)
{
  Fixture f;
  fixture_init (&f);
  f.scenario.sha256 = (char *) "abc";
  const char *kv[][2] = { { "scenario.seed", "5" }, { "scenario.repeat", "2" }, { "network.latency", "40ms" } };
  for (gsize i = 0; i < G_N_ELEMENTS (kv); i++)
    {
      g_ptr_array_add (f.point.keys, (gpointer) kv[i][0]);
      g_ptr_array_add (f.point.values, (gpointer) kv[i][1]);
    }
  g_autofree char *a = res_run_identity (&f.scenario, &f.point, 6);
  g_autofree char *same = res_run_identity (&f.scenario, &f.point, 6);
  g_autofree char *seed = res_run_identity (&f.scenario, &f.point, 7);
  f.point.values->pdata[0] = (gpointer) "6";
  f.point.values->pdata[1] = (gpointer) "9";
  g_autofree char *base = res_run_identity (&f.scenario, &f.point, 6);
  f.point.values->pdata[2] = (gpointer) "41ms";
  g_autofree char *value = res_run_identity (&f.scenario, &f.point, 6);
  f.scenario.sha256 = (char *) "abd";
  g_autofree char *text = res_run_identity (&f.scenario, &f.point, 6);
  ck_assert_uint_eq (strlen (a), 64);
  ck_assert_str_eq (a, same);
  ck_assert_str_eq (a, base);
  ck_assert_str_ne (a, seed);
  ck_assert_str_ne (a, value);
  ck_assert_str_ne (value, text);
  fixture_clear (&f);
}
END_TEST

/* Why a database cannot be opened to write, said by res_db_open_explained:
 * a missing folder is named (SQLite only says "unable to open database
 * file"); a file that opens is opened; a file that is not a results
 * database keeps the loader's own error.  (Unwritable folders and files
 * are not tested: the tests may run as root, whom no mode stops.) */
START_TEST (test_open_explained)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-res-open-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autoptr (GError) error = NULL;
  g_autofree char *missing = g_build_filename (dir, "nope", "r.db", NULL);
  g_autofree char *missing_dir = g_build_filename (dir, "nope", NULL);
  ck_assert_ptr_null (res_db_open_explained (missing, NULL, &error));
  g_autofree char *want = g_strdup_printf ("%s: cannot create the database: the folder %s does not exist", missing,
                                           missing_dir);
  ck_assert_str_eq (error->message, want);
  g_clear_error (&error);

  g_autofree char *ok = g_build_filename (dir, "r.db", NULL);
  ResDb *db = res_db_open_explained (ok, NULL, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  res_db_close (db);
  res_db_remove_files (ok);

  g_autofree char *junk = g_build_filename (dir, "junk.db", NULL);
  ck_assert (g_file_set_contents (junk, "not sqlite at all, not at all, not at all, not at all, no\n", -1, NULL));
  ck_assert_ptr_null (res_db_open_explained (junk, NULL, &error));
  g_autoptr (GError) plain = NULL;
  ck_assert_ptr_null (res_db_open (junk, &plain));
  ck_assert_str_eq (error->message, plain->message);
  ck_assert (strstr (error->message, "cannot create") == NULL);
  g_unlink (junk);
  g_rmdir (dir);
}
END_TEST

/* The summary keys of run_id in path, in the order of their rows. */
static char *
summary_keys (const char *path, gint64 run_id)
{
  sqlite3 *db = NULL;
  ck_assert_int_eq (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = prepare_run (db, "SELECT group_concat (key, ' ') FROM (SELECT key FROM summary"
                                      " WHERE run_id = ? ORDER BY rowid)", run_id);
  ck_assert_int_eq (sqlite3_step (st), SQLITE_ROW);
  char *keys = g_strdup ((const char *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  sqlite3_close (db);
  return keys;
}

/* A -j worker's part (res_db_open_part) closes as it is, its log beside
 * it unfolded; res_db_merge_missing takes its runs from that log, each
 * run's summary rows in the order written (not the order of the run_id
 * index), leaves the log as it found it too, and a second time finds
 * nothing missing. */
START_TEST (test_part_merge)
{
  Fixture f;
  fixture_init (&f);
  g_autoptr (GError) error = NULL;
  g_autofree char *part = g_build_filename (f.dir, "r.db.worker0-1", NULL);
  g_autofree char *part_wal = g_strconcat (part, "-wal", NULL);
  ResDb *pdb = res_db_open_part (part, &error);
  ck_assert_msg (pdb, "%s", error ? error->message : "");
  ResRun *run = res_run_begin (pdb, 7, &f.scenario, &f.point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  SimRecorder rec = res_run_recorder (run);
  GArray *exp = record (&rec, 1500);
  res_run_abort (run, "completed");
  ck_assert_int_eq (sqlite3_exec (res_db_handle (pdb), "INSERT INTO summary VALUES (7, 'zeta', 1),"
                                 " (7, 'alpha', 2), (7, 'mu', 3)", NULL, NULL, NULL), SQLITE_OK);
  run = res_run_begin (pdb, 8, &f.scenario, &f.point, 2, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  rec = res_run_recorder (run);
  GArray *exp8 = record (&rec, 700);
  res_run_abort (run, "completed");
  res_db_close (pdb);
  GStatBuf st;
  ck_assert_msg (g_stat (part_wal, &st) == 0 && st.st_size > 0, "the part's log was folded at its close");
  g_autofree char *part_keys = summary_keys (part, 7);
  ck_assert_str_eq (part_keys, "zeta alpha mu");

  ResDb *db = res_db_open (f.path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  guint more = 0;
  ck_assert_msg (res_db_merge_missing (db, part, &more, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (more, 2);
  ck_assert_msg (g_stat (part_wal, &st) == 0 && st.st_size > 0, "the merge folded the part's log");
  ck_assert_msg (res_db_merge_missing (db, part, &more, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (more, 0);
  res_db_close (db);
  check_events (f.path, 7, exp);
  check_events (f.path, 8, exp8);
  g_autofree char *keys = summary_keys (f.path, 7);
  ck_assert_str_eq (keys, part_keys);
  free_expected (exp);
  free_expected (exp8);
  res_db_remove_files (part);
  fixture_clear (&f);
}
END_TEST

/* A file an earlier dlsim left half upgraded: killed after a step's ALTER
 * and before the COMMIT that set the new user_version (that dlsim ran the
 * schema-1 step in autocommit).  Each case makes a new file, takes it back
 * to an older schema but for the columns the killed upgrade had added,
 * then opens it to write: it is upgraded (user_version 6), its columns
 * once each. */
static const char *const half_upgraded[] = {
  /* schema 1 with runs.mode already added */
  "DROP VIEW events; DROP TABLE event_rows; DROP TABLE event_chunks; DROP TABLE node_records;"
  " CREATE TABLE events (run_id INTEGER, seq INTEGER, t_s REAL, node TEXT, kind TEXT, round INTEGER,"
  " other TEXT, detail TEXT, state TEXT, msg TEXT, value INTEGER, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
  " ALTER TABLE peers DROP COLUMN uplink_bps; ALTER TABLE peers DROP COLUMN downlink_bps;"
  " PRAGMA user_version = 1;",
  /* schema 4 with one of the rates' columns already added */
  "ALTER TABLE peers DROP COLUMN downlink_bps; PRAGMA user_version = 4;",
  NULL
};

START_TEST (test_upgrade_half_done)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-res-upgrade-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "r.db", NULL);
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (path, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "?");
  res_db_close (db);
  sqlite3 *raw = NULL;
  ck_assert_int_eq (sqlite3_open (path, &raw), SQLITE_OK);
  ck_assert_msg (sqlite3_exec (raw, half_upgraded[_i], NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg (raw));
  sqlite3_close (raw);
  db = res_db_open (path, &error);
  ck_assert_msg (db != NULL, "case %d: %s", _i, error ? error->message : "?");
  res_db_close (db);
  ck_assert_int_eq (sqlite3_open (path, &raw), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ck_assert_int_eq (sqlite3_prepare_v2 (raw, "SELECT (SELECT user_version FROM pragma_user_version),"
                                             " (SELECT COUNT(*) FROM pragma_table_info ('runs') WHERE name = 'mode'),"
                                             " (SELECT COUNT(*) FROM pragma_table_info ('peers')"
                                             "  WHERE name IN ('uplink_bps', 'downlink_bps'))", -1, &st, NULL),
                    SQLITE_OK);
  ck_assert_int_eq (sqlite3_step (st), SQLITE_ROW);
  ck_assert_int_eq (sqlite3_column_int (st, 0), 6);
  ck_assert_int_eq (sqlite3_column_int (st, 1), 1);
  ck_assert_int_eq (sqlite3_column_int (st, 2), 2);
  sqlite3_finalize (st);
  sqlite3_close (raw);
  res_db_remove_files (path);
  g_rmdir (dir);
}
END_TEST

/* The rows of `sql` (one column, run 1's), each as SQLite's quote() of it,
 * in rowid order */
static GPtrArray *
quoted_rows (const char *path, const char *sql)
{
  sqlite3 *sq = NULL;
  ck_assert_int_eq (sqlite3_open_v2 (path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ck_assert_int_eq (sqlite3_prepare_v2 (sq, sql, -1, &st, NULL), SQLITE_OK);
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  while (sqlite3_step (st) == SQLITE_ROW)
    g_ptr_array_add (rows, g_strdup ((const char *) sqlite3_column_text (st, 0)));
  sqlite3_finalize (st);
  sqlite3_close (sq);
  return rows;
}

/* A run of three peers (p2 absent) and two metrics named lat, with
 * expectations on a metric, the peers and a value that is none, finished
 * into f's file; the failed expectations into failed, how many checked */
static guint
summary_run (Fixture *f, GPtrArray *failed)
{
  SimPeerResult peers[4] = { { 0 } };
  peers[1] = (SimPeerResult) { .outcome = SIM_PEER_FINISHED, .rounds = 3, .synced = TRUE, .retries_received = 1,
                               .fails_received = 0, .state = "done", .accuracy = NAN, .left = DL_TIME_NEVER };
  peers[2] = (SimPeerResult) { .outcome = SIM_PEER_ABSENT, .state = "", .accuracy = NAN, .left = DL_TIME_NEVER };
  peers[3] = (SimPeerResult) { .outcome = SIM_PEER_HUNG, .rounds = 7, .retries_received = 4294967295u,
                               .fails_received = 2, .state = "", .accuracy = NAN, .left = DL_TIME_NEVER };
  g_autoptr (GArray) metrics = g_array_new (FALSE, TRUE, sizeof (SimMetricStat));
  SimMetricStat m = { .name = "lat", .count = 2, .sum = 3, .mean = 1.5, .median = 1.5, .p90 = 2, .max = 2 };
  g_array_append_val (metrics, m);
  m = (SimMetricStat) { .name = "lat", .count = 4, .sum = 10, .mean = 2.5, .median = 2.25, .p90 = 4, .max = 4 };
  g_array_append_val (metrics, m);
  SimResult res = { 0 };
  res.outcome = SIM_OUTCOME_COMPLETED;
  res.rounds_completed = 3;
  res.final_accuracy = NAN;
  res.final_loss = 0.125;
  res.consensus_distance = 1e-7;
  res.messages = G_MAXUINT64;
  res.metrics = metrics;

  fixture_init (f);
  f->point.expects = g_array_new (FALSE, TRUE, sizeof (SimExpect));
  const SimExpect ex[] = { { (char *) "metric.lat.mean", SIM_OP_EQ, (char *) "2.5" },
                           { (char *) "metric.lat.count", SIM_OP_LT, (char *) "3" },
                           { (char *) "peer.p3.rounds", SIM_OP_EQ, (char *) "7" },
                           { (char *) "peer.p2.rounds", SIM_OP_EQ, (char *) "0" },
                           { (char *) "final_accuracy", SIM_OP_GE, (char *) "0" } };
  g_array_append_vals (f->point.expects, ex, G_N_ELEMENTS (ex));
  g_autoptr (GError) error = NULL;
  ResDb *db = res_db_open (f->path, &error);
  ck_assert_msg (db, "%s", error ? error->message : "");
  ResRun *run = res_run_begin (db, 0, &f->scenario, &f->point, 1, &error);
  ck_assert_msg (run, "%s", error ? error->message : "");
  ck_assert_int_eq (res_run_id (run), 1);
  res_run_set_peers (run, peers, 3);
  guint checked = 0;
  ck_assert_msg (res_run_finish (run, &res, 0, failed, &checked, &error), "%s", error ? error->message : "");
  res_db_close (db);
  return checked;
}

/* The summary's rows come in the order they are made: the present peers'
 * six keys each, in id order, then the run's, outcome first; each value
 * typed as the NUMERIC column makes it (a number, a word, NULL for "").
 * A key made twice (here two metrics of one name) is written twice, both
 * rows with its last value, and an expectation reads the last value. */
START_TEST (test_summary_order_and_repeats)
{
  Fixture f;
  g_autoptr (GPtrArray) failed = g_ptr_array_new_with_free_func (g_free);
  ck_assert_uint_eq (summary_run (&f, failed), 5);

  g_autoptr (GPtrArray) keys = quoted_rows (f.path, "SELECT key FROM summary WHERE run_id = 1 ORDER BY rowid");
  g_autoptr (GPtrArray) values = quoted_rows (f.path, "SELECT quote (value) FROM summary WHERE run_id = 1"
                                                      " ORDER BY rowid");
  ck_assert_uint_eq (keys->len, values->len);
  static const char *const head[][2] = {
    { "peer.p1.outcome", "'finished'" }, { "peer.p1.rounds", "3" }, { "peer.p1.synced", "'yes'" },
    { "peer.p1.retries_received", "1" }, { "peer.p1.fails_received", "0" }, { "peer.p1.state", "'done'" },
    { "peer.p3.outcome", "'hung'" }, { "peer.p3.rounds", "7" }, { "peer.p3.synced", "'no'" },
    { "peer.p3.retries_received", "4294967295" }, { "peer.p3.fails_received", "2" }, { "peer.p3.state", "NULL" },
    { "outcome", "'completed'" }, { "rounds_completed", "3" },
  };
  ck_assert_uint_gt (keys->len, G_N_ELEMENTS (head));
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    {
      ck_assert_str_eq (keys->pdata[i], head[i][0]);
      ck_assert_str_eq (values->pdata[i], head[i][1]);
    }
  /* the run's keys by name: each value, and where it stands */
  static const char *const tail[][2] = {
    { "final_accuracy", "NULL" }, { "final_loss", "0.125" }, { "consensus_distance", "1.0e-07" },
    { "messages", "1.84467440737095516156e+19" }, { "bytes", "0" }, { "sim_time_s", "0" },
    { "metric.lat.count", "4" }, { "metric.lat.sum", "10" }, { "metric.lat.mean", "2.5" },
    { "metric.lat.median", "2.25" }, { "metric.lat.p90", "4" }, { "metric.lat.max", "4" },
  };
  guint at = 0;
  while (at < keys->len && strcmp (keys->pdata[at], "final_accuracy") != 0)
    at++;
  ck_assert_uint_eq (at + G_N_ELEMENTS (tail) + 6, keys->len);
  for (guint i = 0; i < G_N_ELEMENTS (tail) + 6; i++)
    {
      guint k = i < G_N_ELEMENTS (tail) ? i : i - 6;   /* the metric's six keys, twice */
      ck_assert_str_eq (keys->pdata[at + i], tail[k][0]);
      ck_assert_str_eq (values->pdata[at + i], tail[k][1]);
    }

  g_autoptr (GPtrArray) expectations = quoted_rows (f.path, "SELECT key || ' ' || expected || ' ' || quote (actual)"
                                                            " || ' ' || passed FROM expectations ORDER BY rowid");
  static const char *const want[] = {
    "metric.lat.mean = 2.5 '2.5' 1", "metric.lat.count < 3 '4' 0", "peer.p3.rounds = 7 '7' 1",
    "peer.p2.rounds = 0 NULL 0", "final_accuracy >= 0 NULL 0",
  };
  ck_assert_uint_eq (expectations->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    ck_assert_str_eq (expectations->pdata[i], want[i]);
  ck_assert_uint_eq (failed->len, 3);
  ck_assert_str_eq (failed->pdata[0], "metric.lat.count: expected < 3, actual 4");
  ck_assert_str_eq (failed->pdata[1], "peer.p2.rounds: expected = 0, actual (no such peer)");
  ck_assert_str_eq (failed->pdata[2], "final_accuracy: expected >= 0, actual (none)");
  g_array_unref (f.point.expects);
  fixture_clear (&f);
}
END_TEST

static Suite *
results_suite (void)
{
  Suite *s = suite_create ("results");
  TCase *tc = tcase_create ("event log");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_events_round_trip);
  tcase_add_test (tc, test_two_runs_apart);
  tcase_add_test (tc, test_run_ids_bounded);
  tcase_add_test (tc, test_run_identity);
  tcase_add_test (tc, test_counters_reach_summary);
  tcase_add_test (tc, test_obs_kind_names);
  tcase_add_test (tc, test_open_explained);
  tcase_add_test (tc, test_part_merge);
  tcase_add_loop_test (tc, test_upgrade_half_done, 0, G_N_ELEMENTS (half_upgraded) - 1);
  tcase_add_test (tc, test_summary_order_and_repeats);
  suite_add_tcase (s, tc);
  TCase *tcc = tcase_create ("compare");
  tcase_set_timeout (tcc, 60);
  test_results_compare_add (tcc);
  suite_add_tcase (s, tcc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (results_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
