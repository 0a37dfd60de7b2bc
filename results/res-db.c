/* res-db.c — a run's recording: the streaming recorder (a writer thread),
 * the runs and params rows, and at the end peers, rounds, traffic, summary
 * and expectations.  The file itself (schema, opening, merging) is
 * res-file.c. */
#include "config.h"

#include "results/res-db.h"
#include "results/res-db-private.h"
#include "results/res-run-private.h"
#include "results/res-summary-private.h"
#include "results/res-violations.h"
#include "protocol/proto-machine.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- runs */

/* An event row waiting for the next multi-row INSERT.  Strings that come
 * from static tables (kind, state, message names) are kept as pointers. */
void
res_run_set_events (ResRun *run, gboolean events)
{
  run->no_events = !events;
}

void
res_run_drain (ResRun *r)
{
  if (r->writer_running)
    _res_sync_writer (r, FALSE);
}

/* The next row of the batch being filled, with room for `text` bytes of
 * strings in it. */
static EventRow *
next_row (ResRun *r, gsize text)
{
  if (r->cur && (r->cur->n == EVENT_BATCH || r->cur->text_len + text > EVENT_TEXT))
    _res_flush_events (r);
  if (!r->cur)
    {
      r->cur = _res_take_item (r, ITEM_EVENTS);
      r->cur->text_len = 0;
    }
  EventRow *e = &r->cur->rows[r->cur->n++];
  e->seq = ++r->seq;
  return e;
}

/* Copies s (at most max - 1 bytes of it) into the batch's text. */
static guint16
put_text (ResRun *r, const char *s, gsize len)
{
  Item *it = r->cur;
  guint16 at = (guint16) it->text_len;
  memcpy (it->text + at, s, len);
  it->text[at + len] = '\0';
  it->text_len += (guint) len + 1;
  return at;
}

static RoundRow *
round_row (ResRun *r, int round)
{
  if (round < 0)
    return NULL;
  if ((guint) round >= r->rounds->len)
    g_array_set_size (r->rounds, round + 1);
  RoundRow *row = &g_array_index (r->rounds, RoundRow, round);
  if (!row->seen)
    {
      row->seen = TRUE;
      row->list_s = row->start_s = row->end_s = NAN;
      row->participants = -1;
    }
  return row;
}

static void
bind_text_or_null (sqlite3_stmt *st, int i, const char *s)
{
  if (s && *s)
    sqlite3_bind_text (st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, i);
}

static void
rec_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  ResRun *r = ud;
  double ts = dl_time_to_s (t);
  if (node == PROTO_SERVER)
    {
      RoundRow *row;
      switch (o->kind)
        {
        case PROTO_OBS_ROUND_LIST:
          if (!(row = round_row (r, o->round)))
            break;   /* no round: nothing for the rounds table */
          if (isnan (row->list_s))
            row->list_s = ts;
          row->participants = o->value;
          break;
        case PROTO_OBS_ROUND_START:
          if (!(row = round_row (r, o->round)))
            break;
          row->start_s = ts;
          row->participants = o->value;
          break;
        case PROTO_OBS_RETRY:
          if ((row = round_row (r, o->round)))
            row->retries++;
          break;
        case PROTO_OBS_EXCLUDED:
          if ((row = round_row (r, o->round)))
            row->excluded++;
          break;
        default:
          break;
        }
    }
  else if (o->kind == PROTO_OBS_ROUND_END)
    {
      RoundRow *row = round_row (r, o->round);
      if (row && (isnan (row->end_s) || ts > row->end_s))
        row->end_s = ts;
    }
  /* every observation becomes an event row; sent/received are the bulk */
  if (r->no_events)
    return;
  gsize dlen = o->detail[0] ? strnlen (o->detail, PROTO_OBS_DETAIL_LEN - 1) : 0;
  EventRow *e = next_row (r, dlen + 1);
  e->t = t;
  e->node = node;
  e->node_world = FALSE;
  e->kind = proto_obs_kind_name (o->kind);
  e->round = o->round >= 0 ? o->round + 1 : -1;
  e->other = o->other;
  e->detail_at = dlen ? put_text (r, o->detail, dlen) : NO_TEXT;
  e->state = o->state;
  e->msg = o->msg_type >= 0 ? proto_msg_type_name ((ProtoMsgType) o->msg_type) : NULL;
  e->value = o->value;
}

static void
rec_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  ResRun *r = ud;
  if (r->no_events)
    return;
  gsize klen = strnlen (kind, 31), dlen = detail ? strnlen (detail, PROTO_OBS_DETAIL_LEN - 1) : 0;
  EventRow *e = next_row (r, klen + dlen + 2);
  e->t = t;
  e->node = node;
  e->node_world = node == PROTO_NO_NODE;
  e->kind = NULL;
  e->kind_at = put_text (r, kind, klen);
  e->round = -1;
  e->other = other;
  e->detail_at = dlen ? put_text (r, detail, dlen) : NO_TEXT;
  e->state = "world";
  e->msg = NULL;
  e->value = -1;
}

static void
rec_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  ResRun *r = ud;
  char name[24];
  res_node_name (name, node);
  res_violations_add (r->violations, t, property, name, explanation);
  g_autofree char *detail = g_strdup_printf ("%s: %s", property, explanation);
  rec_fact (ud, t, node, PROTO_NO_NODE, "violation", detail);   /* in the timeline, for trace and plots */
}

static void
rec_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  ResRun *r = ud;
  if (r->no_events)
    return;
  _res_flush_events (r);   /* keeps rows in the order they were observed */
  Item *it = _res_take_item (r, ITEM_METRIC);
  it->t_s = dl_time_to_s (t);
  it->round = round + 1;
  res_node_name (it->peer, peer);
  g_strlcpy (it->name, name, sizeof it->name);
  it->value = v;
  _res_wq_push (&r->to_writer, it);
}

static void
rec_traffic (gpointer ud, ProtoMsgType type, gsize bytes)
{
  ResRun *r = ud;
  if ((unsigned) type < PROTO_MSG_N_TYPES)
    {
      r->traffic_msgs[type]++;
      r->traffic_bytes[type] += bytes;
    }
}

SimRecorder
res_run_recorder (ResRun *run)
{
  return (SimRecorder) { rec_observation, rec_fact, rec_metric, rec_traffic, run, rec_violation };
}

static gboolean step_done (ResDb *db, sqlite3_stmt *st, GError **error);

void
res_run_set_peers (ResRun *run, const SimPeerResult *peers, guint n)
{
  run->peers = peers;
  run->n_peers = n;
}

gboolean
res_run_set_mode (ResRun *run, const char *mode, GError **error)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (run->db->db, "UPDATE runs SET mode = ? WHERE run_id = ?", -1, &st, NULL);
  sqlite3_bind_text (st, 1, mode, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 2, run->id);
  gboolean ok = step_done (run->db, st, error);
  sqlite3_finalize (st);
  return ok;
}

gboolean
res_run_add_param (ResRun *run, const char *key, const char *value, GError **error)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (run->db->db, "INSERT INTO params VALUES (?,?,?)", -1, &st, NULL);
  sqlite3_bind_int64 (st, 1, run->id);
  sqlite3_bind_text (st, 2, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 3, value, -1, SQLITE_TRANSIENT);
  gboolean ok = step_done (run->db, st, error);
  sqlite3_finalize (st);
  return ok;
}

gint64
res_run_id (const ResRun *run)
{
  return run->id;
}

static gboolean
step_done (ResDb *db, sqlite3_stmt *st, GError **error)
{
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, sqlite3_errmsg (db->db));
      return FALSE;
    }
  return TRUE;
}

char *
res_run_identity (const SimScenario *s, const SimPoint *p, guint64 seed)
{
  g_autoptr (GChecksum) c = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *head = g_strdup_printf ("build=%s\nscenario_sha256=%s\nseed=%" G_GUINT64_FORMAT "\n", DL_BUILD,
                                           s->sha256 ? s->sha256 : "", seed);
  g_checksum_update (c, (const guchar *) head, -1);
  for (guint i = 0; i < p->keys->len; i++)
    {
      const char *k = p->keys->pdata[i], *v = p->values->pdata[i];
      /* the seed the run uses counts, not the base it came from */
      if (strcmp (k, "scenario.seed") == 0 || strcmp (k, "scenario.repeat") == 0)
        continue;
      g_checksum_update (c, (const guchar *) k, -1);
      g_checksum_update (c, (const guchar *) "=", 1);
      g_checksum_update (c, (const guchar *) (v ? v : ""), -1);
      g_checksum_update (c, (const guchar *) "\n", 1);
    }
  return g_strdup (g_checksum_get_string (c));
}

GHashTable *
res_db_finished_identities (ResDb *db)
{
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db->db, "SELECT p.value FROM params p JOIN runs r ON r.run_id = p.run_id"
                                  " WHERE p.key = 'provenance.run_identity' AND r.outcome IS NOT NULL"
                                  " AND r.outcome NOT IN ('interrupted', 'error')", -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step (st) == SQLITE_ROW)
      if (sqlite3_column_text (st, 0))
        g_hash_table_add (ids, g_strdup ((const char *) sqlite3_column_text (st, 0)));
  sqlite3_finalize (st);
  return ids;
}

gboolean
res_db_delete_unfinished (ResDb *db, GHashTable *identities, guint *out_removed, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db->db, "SELECT r.run_id, p.value FROM runs r JOIN params p ON p.run_id = r.run_id"
                                  " WHERE p.key = 'provenance.run_identity'"
                                  " AND (r.outcome IS NULL OR r.outcome IN ('interrupted', 'error'))", -1, &st, NULL)
      == SQLITE_OK)
    while (sqlite3_step (st) == SQLITE_ROW)
      {
        const char *id = (const char *) sqlite3_column_text (st, 1);
        gint64 run = sqlite3_column_int64 (st, 0);
        if (id && g_hash_table_contains (identities, id))
          g_array_append_val (ids, run);
      }
  sqlite3_finalize (st);
  gboolean ok = ids->len == 0 || res_db_exec (db, "BEGIN", error);
  for (guint i = 0; ok && i < ids->len; i++)
    ok = res_db_delete_run (db, g_array_index (ids, gint64, i), error);
  if (ids->len && ok)
    ok = res_db_exec (db, "COMMIT", error);
  else if (ids->len)
    res_db_exec (db, "ROLLBACK", NULL);
  if (ok && out_removed)
    *out_removed = ids->len;
  return ok;
}

/* The descriptor the writer hints writeback on: the log, not the
 * database.  Closing a descriptor of the database file would drop every
 * POSIX lock this process holds on it, SQLite's shared lock of WAL mode
 * included, and a reader closing then would take itself for the last
 * connection, checkpoint and delete the log under the writer (the runs
 * committed after that were lost to a kill).  -1: none. */
static int
writeback_open (ResDb *db)
{
  const char *file = sqlite3_db_filename (db->db, "main");
  g_autofree char *wal = file && *file ? g_strconcat (file, "-wal", NULL) : NULL;
  return wal ? open (wal, O_RDONLY | O_CLOEXEC) : -1;
}

/* The version a run records: the default family's (the registry's
 * first, DISCO: its versions), or the family's name for any other family
 * (their runs have no version: `runs.protocol_version` tells families
 * apart) */
static const char *
run_version (const SimPoint *p)
{
  const char *version = "", *def = proto_family_at (0)->name, *family = def;
  for (guint i = 0; i < p->keys->len; i++)
    if (strcmp (p->keys->pdata[i], "protocol.version") == 0)
      version = p->values->pdata[i];
    else if (strcmp (p->keys->pdata[i], "protocol.family") == 0)
      family = p->values->pdata[i];
  return strcmp (family, def) != 0 ? family : version;
}

/* The run's row in `runs` */
static gboolean
insert_run_row (ResDb *db, gint64 run_id, const SimScenario *s, const SimPoint *p, guint64 seed,
                GError **error)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db,
                      "INSERT INTO runs (run_id, scenario, point, point_label, seed, dlsim_version,"
                      " protocol_version, started_at, file) VALUES (?,?,?,?,?,?,?,datetime('now'),?)",
                      -1, &st, NULL);
  sqlite3_bind_int64 (st, 1, run_id);
  sqlite3_bind_text (st, 2, s->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (st, 3, (int) p->index);
  sqlite3_bind_text (st, 4, p->label, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 5, (sqlite3_int64) seed);
  sqlite3_bind_text (st, 6, PACKAGE_VERSION, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 7, run_version (p), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 8, s->path, -1, SQLITE_TRANSIENT);
  gboolean ok = step_done (db, st, error);
  sqlite3_finalize (st);
  return ok;
}

/* One row of `params` */
static gboolean
insert_param (ResDb *db, sqlite3_stmt *st, gint64 run_id, const char *key, const char *value,
              GError **error)
{
  sqlite3_bind_int64 (st, 1, run_id);
  sqlite3_bind_text (st, 2, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 3, value, -1, SQLITE_TRANSIENT);
  return step_done (db, st, error);
}

/* The run's `params`: the point's keys, the seed used, and provenance
 * (the build and the scenario text this run came from, and the run's
 * identity) */
static gboolean
insert_params (ResDb *db, gint64 run_id, const SimScenario *s, const SimPoint *p, guint64 seed,
               GError **error)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO params VALUES (?,?,?)", -1, &st, NULL);
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < p->keys->len; i++)
    ok = insert_param (db, st, run_id, p->keys->pdata[i], p->values->pdata[i], error);
  g_autofree char *sd = g_strdup_printf ("%" G_GUINT64_FORMAT, seed);
  g_autofree char *identity = res_run_identity (s, p, seed);
  const char *rows[][2] = { { "scenario.seed_used", sd },
                            { "provenance.build", DL_BUILD },
                            { "provenance.scenario_sha256", s->sha256 ? s->sha256 : "" },
                            { "provenance.run_identity", identity } };
  for (gsize i = 0; ok && i < G_N_ELEMENTS (rows); i++)
    ok = insert_param (db, st, run_id, rows[i][0], rows[i][1], error);
  sqlite3_finalize (st);
  return ok;
}

ResRun *
res_run_begin (ResDb *db, gint64 run_id, const SimScenario *s, const SimPoint *p, guint64 seed,
               GError **error)
{
  if (run_id <= 0 && !res_db_next_run_ids (db, 1, &run_id, error))
    return NULL;
  if (!res_db_exec (db, "BEGIN", error))
    return NULL;
  gboolean ok = insert_run_row (db, run_id, s, p, seed, error)
                && insert_params (db, run_id, s, p, seed, error);
  /* the runs row is committed before the run starts */
  if (!ok || !res_db_exec (db, "COMMIT; BEGIN", error))
    {
      res_db_exec (db, "ROLLBACK", NULL);
      return NULL;
    }
  ResRun *r = g_new0 (ResRun, 1);
  r->db = db;
  r->id = run_id;
  r->point = p;
  r->rounds = g_array_new (FALSE, TRUE, sizeof (RoundRow));
  r->violations = res_violations_new ();
  sqlite3_prepare_v2 (db->db, "INSERT INTO event_chunks VALUES (?,?,?)", -1, &r->ins_chunk, NULL);
  r->chunk_cap = CHUNK_ROWS * 128;
  r->chunk = g_malloc (r->chunk_cap);
  r->nodes = g_new0 (NodeJson, NODE_CACHE);
  /* a small cache, spilled to the file as it fills (also when the run
   * before ended within a readers' window), and the file to start its
   * writeback on (res-run-private.h, COMMIT_INTERVAL_US) */
  res_db_exec (db,
               "PRAGMA cache_size = -" G_STRINGIFY (RUN_CACHE_KIB) ";"
               " PRAGMA cache_spill = -" G_STRINGIFY (RUN_CACHE_KIB),
               NULL);
  r->writeback_fd = writeback_open (db);
  _res_wq_init (&r->to_writer);
  _res_wq_init (&r->free_items);
  _res_wq_init (&r->acks);
  r->writer_running = pthread_create (&r->writer, NULL, _res_writer_main, r) == 0;
  g_assert (r->writer_running);
  sqlite3_prepare_v2 (db->db, "INSERT INTO metrics VALUES (?,?,?,?,?,?)", -1, &r->ins_metric, NULL);
  return r;
}

double
res_run_writer_cpu_seconds (const ResRun *r)
{
  clockid_t clock;
  struct timespec ts;
  if (!r->writer_running || pthread_getcpuclockid (r->writer, &clock) != 0 || clock_gettime (clock, &ts) != 0)
    return 0;
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
run_free (ResRun *r)
{
  if (r->writer_running)
    _res_sync_writer (r, TRUE);
  _res_wq_clear (&r->to_writer, g_free);
  _res_wq_clear (&r->free_items, g_free);
  _res_wq_clear (&r->acks, g_free);
  sqlite3_finalize (r->ins_chunk);
  g_free (r->chunk);
  g_free (r->nodes);
  if (r->writeback_fd >= 0)
    close (r->writeback_fd);
  sqlite3_finalize (r->ins_metric);
  g_array_unref (r->rounds);
  res_violations_free (r->violations);
  g_free (r->write_error);
  g_free (r);
}

void
res_run_abort (ResRun *r, const char *outcome)
{
  if (r->writer_running)
    _res_sync_writer (r, TRUE);
  if (outcome)
    {
      sqlite3_stmt *st = NULL;
      sqlite3_prepare_v2 (r->db->db, "UPDATE runs SET outcome = ? WHERE run_id = ?", -1, &st, NULL);
      sqlite3_bind_text (st, 1, outcome, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (st, 2, r->id);
      sqlite3_step (st);
      sqlite3_finalize (st);
    }
  res_db_exec (r->db, "COMMIT", NULL);
  run_free (r);
}

/* A run that could not be written (a full disk, an I/O error; error says
 * why) leaves nothing: what it wrote since its last commit is rolled back
 * and its rows from earlier commits, its runs row first, are removed, so
 * that trying again does not leave one unfinished run per try.  Removing
 * them needs a little room for the journal; without it the error says
 * the run stays, unfinished. */
static void
discard_run (ResRun *r, GError **error)
{
  ResDb *db = r->db;
  if (!sqlite3_get_autocommit (db->db))
    res_db_exec (db, "ROLLBACK", NULL);
  g_autoptr (GError) e = NULL;
  gboolean removed = res_db_exec (db, "BEGIN", &e) && res_db_delete_run (db, r->id, &e)
                     && res_db_exec (db, "COMMIT", &e);
  if (!removed && !sqlite3_get_autocommit (db->db))
    res_db_exec (db, "ROLLBACK", NULL);
  if (error && *error)
    {
      char *msg = removed ? g_strdup_printf ("%s (run %" G_GINT64_FORMAT " not recorded)", (*error)->message, r->id)
                          : g_strdup_printf ("%s (run %" G_GINT64_FORMAT " stays unfinished: %s)", (*error)->message,
                                             r->id, e->message);
      g_free ((*error)->message);
      (*error)->message = msg;
    }
}

/* A peer's row of the peers table into st's parameters */
static void
bind_peer (sqlite3_stmt *st, gint64 run_id, const char *name, const SimPeerResult *pr)
{
  sqlite3_bind_int64 (st, 1, run_id);
  sqlite3_bind_text (st, 2, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double (st, 3, dl_time_to_s (pr->joined));
  if (pr->left == DL_TIME_NEVER)
    sqlite3_bind_null (st, 4);
  else
    sqlite3_bind_double (st, 4, dl_time_to_s (pr->left));
  sqlite3_bind_text (st, 5, sim_peer_outcome_name (pr->outcome), -1, SQLITE_STATIC);
  sqlite3_bind_int (st, 6, (int) pr->rounds);
  sqlite3_bind_double (st, 7, pr->speed);
  sqlite3_bind_int (st, 8, pr->synced);
  sqlite3_bind_int (st, 9, (int) pr->retries_received);
  sqlite3_bind_int (st, 10, (int) pr->fails_received);
  if (isnan (pr->accuracy))
    {
      sqlite3_bind_null (st, 11);
      sqlite3_bind_null (st, 12);
    }
  else
    {
      sqlite3_bind_double (st, 11, pr->accuracy);
      sqlite3_bind_double (st, 12, pr->loss);
    }
  for (int k = 0; k < 2; k++)
    {
      uint64_t bps = k ? pr->downlink_bps : pr->uplink_bps;
      if (bps)
        sqlite3_bind_int64 (st, 13 + k, (sqlite3_int64) bps);
      else
        sqlite3_bind_null (st, 13 + k);
    }
}

/* The run's peers rows, and their keys of the summary.  The steps of
 * res_run_finish below take ok and write nothing once it is FALSE. */
static gboolean
write_peers (ResRun *r, ResSummary *sum, gboolean ok, GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO peers VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
  guint n = r->n_peers;
  for (guint i = 1; ok && i <= n; i++)
    {
      const SimPeerResult *pr = &r->peers[i];
      if (pr->outcome == SIM_PEER_ABSENT)
        continue;
      char name[24];
      res_node_name (name, i);
      bind_peer (st, r->id, name, pr);
      ok = step_done (db, st, error);
      _res_summary_add_peer (sum, name, pr);
    }
  sqlite3_finalize (st);
  return ok;
}

/* The run's rounds rows */
static gboolean
write_rounds (ResRun *r, gboolean ok, GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO rounds VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL);
  for (guint k = 0; ok && k < r->rounds->len; k++)
    {
      RoundRow *row = &g_array_index (r->rounds, RoundRow, k);
      if (!row->seen)
        continue;
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_int (st, 2, (int) k + 1);
      double v[3] = { row->list_s, row->start_s, row->end_s };
      for (int c = 0; c < 3; c++)
        if (isnan (v[c]))
          sqlite3_bind_null (st, 3 + c);
        else
          sqlite3_bind_double (st, 3 + c, v[c]);
      if (row->participants >= 0)
        sqlite3_bind_int64 (st, 6, row->participants);
      else
        sqlite3_bind_null (st, 6);
      sqlite3_bind_int64 (st, 7, row->retries);
      sqlite3_bind_int64 (st, 8, row->excluded);
      ok = step_done (db, st, error);
    }
  sqlite3_finalize (st);
  return ok;
}

/* The run's traffic rows, one per message type sent */
static gboolean
write_traffic (ResRun *r, gboolean ok, GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO traffic VALUES (?,?,?,?)", -1, &st, NULL);
  for (int t = 0; ok && t < PROTO_MSG_N_TYPES; t++)
    {
      if (!r->traffic_msgs[t])
        continue;
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_text (st, 2, proto_msg_type_name ((ProtoMsgType) t), -1, SQLITE_STATIC);
      sqlite3_bind_int64 (st, 3, (sqlite3_int64) r->traffic_msgs[t]);
      sqlite3_bind_int64 (st, 4, (sqlite3_int64) r->traffic_bytes[t]);
      ok = step_done (db, st, error);
    }
  sqlite3_finalize (st);
  return ok;
}

/* The run's summary rows, in order */
static gboolean
write_summary (ResRun *r, const ResSummary *sum, gboolean ok, GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO summary VALUES (?,?,?)", -1, &st, NULL);
  for (guint i = 0; ok && i < _res_summary_len (sum); i++)
    {
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_text (st, 2, _res_summary_key (sum, i), -1, SQLITE_STATIC);
      /* a number becomes an INTEGER or a REAL (the column is NUMERIC), as
       * its text would: a count past INT64_MAX goes as text, a REAL */
      guint64 n;
      char buf[24];
      if (_res_summary_number (sum, i, &n) && n <= G_MAXINT64)
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) n);
      else
        bind_text_or_null (st, 3, _res_summary_value (sum, i, buf));
      ok = step_done (db, st, error);
    }
  sqlite3_finalize (st);
  return ok;
}

/* The point's expectations checked against the summary, a row each;
 * each failed one also a line into out_failed, and *checked counted */
static gboolean
write_expectations (ResRun *r, ResSummary *sum, GPtrArray *out_failed, guint *checked, gboolean ok,
                    GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "INSERT INTO expectations VALUES (?,?,?,?,?)", -1, &st, NULL);
  for (guint i = 0; ok && i < r->point->expects->len; i++)
    {
      const SimExpect *e = &g_array_index (r->point->expects, SimExpect, i);
      char buf[24];
      const char *actual = _res_summary_lookup (sum, e->key, buf);
      gboolean passed = sim_expect_check (e, actual);
      g_autofree char *expected = g_strdup_printf ("%s %s", sim_op_name (e->op), e->value);
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_text (st, 2, e->key, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (st, 3, expected, -1, SQLITE_TRANSIENT);
      bind_text_or_null (st, 4, actual ? actual : NULL);
      sqlite3_bind_int (st, 5, passed);
      ok = step_done (db, st, error);
      (*checked)++;
      if (!passed && out_failed)
        g_ptr_array_add (out_failed, g_strdup_printf ("%s: expected %s, actual %s", e->key, expected,
                                                      actual ? (*actual ? actual : "(none)")
                                                      : g_str_has_prefix (e->key, "metric.") ? "(not measured in this run)"
                                                                                              : "(no such peer)"));
    }
  sqlite3_finalize (st);
  return ok;
}

/* The run's outcome into its runs row, written last */
static gboolean
write_outcome (ResRun *r, const SimResult *res, double wall, gboolean ok, GError **error)
{
  ResDb *db = r->db;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db, "UPDATE runs SET outcome = ?, wall_seconds = ?, sim_end_s = ? WHERE run_id = ?",
                      -1, &st, NULL);
  sqlite3_bind_text (st, 1, sim_outcome_name (res->outcome), -1, SQLITE_STATIC);
  sqlite3_bind_double (st, 2, wall);
  sqlite3_bind_double (st, 3, dl_time_to_s (res->end));
  sqlite3_bind_int64 (st, 4, r->id);
  ok = ok && step_done (db, st, error);
  sqlite3_finalize (st);
  return ok;
}

gboolean
res_run_finish (ResRun *r, const SimResult *res, double wall, GPtrArray *out_failed, guint *out_checked,
                GError **error)
{
  ResDb *db = r->db;
  gboolean ok = TRUE;
  if (r->writer_running)
    _res_sync_writer (r, TRUE);
  if (r->write_error)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, r->write_error);
      discard_run (r, error);
      run_free (r);
      return FALSE;
    }
  g_autoptr (ResSummary) sum = _res_summary_new ();
  ok = write_peers (r, sum, ok, error);
  ok = write_rounds (r, ok, error);
  ok = write_traffic (r, ok, error);
  _res_summary_add_run (sum, res);
  ok = write_summary (r, sum, ok, error);
  guint checked = 0;
  ok = write_expectations (r, sum, out_failed, &checked, ok, error);
  ok = ok && res_violations_write (r->violations, db->db, r->id)
       && res_violations_check (r->violations, res, r->point, db->db, r->id, out_failed, &checked);
  if (!ok && error && !*error)
    g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, sqlite3_errmsg (db->db));
  if (out_checked)
    *out_checked = checked;
  ok = write_outcome (r, res, wall, ok, error);
  ok = ok && res_db_exec (db, "COMMIT", error);
  if (!ok)
    discard_run (r, error);
  run_free (r);
  return ok;
}
