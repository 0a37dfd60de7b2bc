/* res-db.c — SQLite schema, the streaming recorder, summaries and
 * expectations. */
#include "config.h"

#include "results/res-db.h"
#include "results/res-violations.h"
#include "protocol/proto-peer.h"

#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

G_DEFINE_QUARK (res-error-quark, res_error)

struct ResDb {
  sqlite3 *db;
  char *path;
};

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, scenario TEXT, point INTEGER,"
  " point_label TEXT, seed INTEGER, dlsim_version TEXT, protocol_version TEXT, started_at TEXT,"
  " wall_seconds REAL, sim_end_s REAL, outcome TEXT, file TEXT, mode TEXT DEFAULT 'sim');"
  "CREATE TABLE IF NOT EXISTS params (run_id INTEGER, key TEXT, value TEXT);"
  "CREATE TABLE IF NOT EXISTS peers (run_id INTEGER, peer TEXT, joined_s REAL, left_s REAL,"
  " outcome TEXT, rounds INTEGER, speed REAL, synced INTEGER, retries_received INTEGER,"
  " fails_received INTEGER, accuracy REAL, loss REAL);"
  "CREATE TABLE IF NOT EXISTS rounds (run_id INTEGER, round INTEGER, list_s REAL, start_s REAL,"
  " end_s REAL, participants INTEGER, retries INTEGER, excluded INTEGER);"
  /* clustered by (run_id, seq): rows arrive in key order, so inserting is
   * an append and a run's events are one range, with no extra index */
  "CREATE TABLE IF NOT EXISTS events (run_id INTEGER, seq INTEGER, t_s REAL, node TEXT, kind TEXT,"
  " round INTEGER, other TEXT, detail TEXT, state TEXT, msg TEXT, value INTEGER,"
  " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS metrics (run_id INTEGER, t_s REAL, round INTEGER, peer TEXT, name TEXT,"
  " value REAL);"
  "CREATE TABLE IF NOT EXISTS traffic (run_id INTEGER, type TEXT, messages INTEGER, bytes INTEGER);"
  "CREATE TABLE IF NOT EXISTS summary (run_id INTEGER, key TEXT, value TEXT);"
  "CREATE TABLE IF NOT EXISTS expectations (run_id INTEGER, key TEXT, expected TEXT, actual TEXT,"
  " passed INTEGER);"
  /* a testbed node's own records (`dlsim node -o`), merged by `dlsim merge` */
  /* properties broken while the run executed (sim-props.h) */
  "CREATE TABLE IF NOT EXISTS violations (run_id INTEGER, t_s REAL, property TEXT, node TEXT,"
  " explanation TEXT);"
  "CREATE TABLE IF NOT EXISTS node_records (run_id INTEGER, seq INTEGER, line TEXT,"
  " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"

  "CREATE INDEX IF NOT EXISTS metrics_run ON metrics (run_id, name, round);"
  "CREATE INDEX IF NOT EXISTS params_run ON params (run_id, key);"
  "CREATE INDEX IF NOT EXISTS summary_run ON summary (run_id, key);"
  "CREATE INDEX IF NOT EXISTS peers_run ON peers (run_id);"
  "CREATE INDEX IF NOT EXISTS rounds_run ON rounds (run_id, round);";

static const char *const tables[] = {
  "runs", "params", "peers", "rounds", "events", "metrics", "traffic", "summary", "expectations",
  "violations", "node_records", NULL
};

static gboolean
exec (ResDb *db, const char *sql, GError **error)
{
  char *msg = NULL;
  if (sqlite3_exec (db->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, msg ? msg : "?");
      sqlite3_free (msg);
      return FALSE;
    }
  return TRUE;
}

ResDb *
res_db_open (const char *path, GError **error)
{
  ResDb *db = g_new0 (ResDb, 1);
  db->path = g_strdup (path);
  /* one connection per process, used by one thread: no SQLite mutexes */
  if (sqlite3_open_v2 (path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                       NULL) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", path, sqlite3_errmsg (db->db));
      res_db_close (db);
      return NULL;
    }
  sqlite3_busy_timeout (db->db, 60000);
  sqlite3_stmt *st = NULL;
  int version = 0;
  if (sqlite3_prepare_v2 (db->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: not a results database: %s", path,
                   sqlite3_errmsg (db->db));
      res_db_close (db);
      return NULL;
    }
  if (sqlite3_step (st) == SQLITE_ROW)
    version = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  if (version == 1)
    {
      /* version 1 had no runs.mode: every run in it was simulated */
      if (!exec (db, "ALTER TABLE runs ADD COLUMN mode TEXT DEFAULT 'sim'", error))
        {
          res_db_close (db);
          return NULL;
        }
      version = 2;
    }
  if (version == 2)
    version = 3;   /* 3 adds the node_records table, created below */
  if (version != 0 && version != RES_SCHEMA_VERSION)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SCHEMA,
                   "%s: results schema version %d, this dlsim writes version %d", path, version,
                   RES_SCHEMA_VERSION);
      res_db_close (db);
      return NULL;
    }
  g_autofree char *pragma = g_strdup_printf ("PRAGMA user_version = %d;", RES_SCHEMA_VERSION);
  if (!exec (db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536;"
                 " PRAGMA temp_store = MEMORY;", error)
      || !exec (db, schema, error) || !exec (db, pragma, error))
    {
      res_db_close (db);
      return NULL;
    }
  return db;
}

void
res_db_close (ResDb *db)
{
  if (!db)
    return;
  if (db->db)
    sqlite3_close (db->db);
  g_free (db->path);
  g_free (db);
}

sqlite3 *
res_db_handle (ResDb *db)
{
  return db->db;
}

gint64
res_db_max_run_id (ResDb *db)
{
  sqlite3_stmt *st = NULL;
  gint64 id = 0;
  if (sqlite3_prepare_v2 (db->db, "SELECT COALESCE(MAX(run_id), 0) FROM runs", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    id = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return id;
}

const char *const *
res_db_table_names (void)
{
  return tables;
}

gboolean
res_db_delete_run (ResDb *db, gint64 run_id, GError **error)
{
  for (int i = 0; tables[i]; i++)
    {
      g_autofree char *sql = g_strdup_printf ("DELETE FROM %s WHERE run_id = %" G_GINT64_FORMAT, tables[i], run_id);
      if (!exec (db, sql, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
res_db_merge (ResDb *db, const char *other, GError **error)
{
  char *q = sqlite3_mprintf ("ATTACH DATABASE %Q AS w", other);
  gboolean attached = exec (db, q, error);
  sqlite3_free (q);
  if (!attached)
    return FALSE;
  gboolean ok = exec (db, "BEGIN", error);
  for (guint i = 0; ok && tables[i]; i++)
    {
      g_autofree char *ins = g_strdup_printf ("INSERT INTO main.%s SELECT * FROM w.%s", tables[i], tables[i]);
      ok = exec (db, ins, error);
    }
  ok = ok && exec (db, "COMMIT", error);
  if (!ok)
    exec (db, "ROLLBACK", NULL);
  exec (db, "DETACH DATABASE w", NULL);
  return ok;
}

/* ---------------------------------------------------------------- runs */

/* An event row waiting for the next multi-row INSERT.  Strings that come
 * from static tables (kind, state, message names) are kept as pointers. */
typedef struct {
  gint64 seq;
  double t_s;
  char node[24];
  const char *kind;
  int round;           /* -1: NULL */
  char other[24];
  char detail[PROTO_OBS_DETAIL_LEN];
  const char *state;
  const char *msg;
  gint64 value;        /* -1: NULL */
  gboolean kind_owned; /* kind points into detail2 */
  char kind_buf[32];
} EventRow;

#define EVENT_BATCH 64

/* A blocking FIFO on a pthread mutex and condition variable (rather than
 * GAsyncQueue, whose futex-based locking ThreadSanitizer cannot follow). */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t ready;
  GQueue items;
} WQueue;

static void
wq_init (WQueue *q)
{
  pthread_mutex_init (&q->lock, NULL);
  pthread_cond_init (&q->ready, NULL);
  g_queue_init (&q->items);
}

static void
wq_clear (WQueue *q, GDestroyNotify free_item)
{
  g_queue_clear_full (&q->items, free_item);
  pthread_cond_destroy (&q->ready);
  pthread_mutex_destroy (&q->lock);
}

static void
wq_push (WQueue *q, gpointer item)
{
  pthread_mutex_lock (&q->lock);
  g_queue_push_tail (&q->items, item);
  pthread_cond_signal (&q->ready);
  pthread_mutex_unlock (&q->lock);
}

static gpointer
wq_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  while (g_queue_is_empty (&q->items))
    pthread_cond_wait (&q->ready, &q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

static gpointer
wq_try_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

/* What the simulation hands the writer thread. */
typedef enum { ITEM_EVENTS, ITEM_METRIC, ITEM_SYNC, ITEM_STOP } ItemKind;

typedef struct {
  ItemKind kind;
  guint n;                    /* ITEM_EVENTS: rows used */
  EventRow rows[EVENT_BATCH];
  /* ITEM_METRIC */
  double t_s;
  int round;
  char peer[24];
  char name[32];
  double value;
} Item;

typedef struct {
  double list_s, start_s, end_s;
  gint64 participants, retries, excluded;
  gboolean seen;
} RoundRow;

struct ResRun {
  ResDb *db;
  gint64 id;
  SimWorld *world;
  sqlite3_stmt *ins_event, *ins_metric;
  sqlite3_stmt *ins_events_batch;   /* EVENT_BATCH rows per statement */
  Item *cur;                        /* the batch being filled (simulation side) */
  gint64 seq;                       /* events.seq of the last row */
  WQueue to_writer;                 /* Item* for the writer thread */
  WQueue free_items;                /* Item* to reuse */
  WQueue acks;                      /* the writer's answers to ITEM_SYNC */
  pthread_t writer;
  gboolean writer_running;
  guint pending;          /* rows since the last commit */
  GArray *rounds;         /* RoundRow, index = round (0-based) */
  guint64 traffic_msgs[PROTO_MSG_N_TYPES];
  guint64 traffic_bytes[PROTO_MSG_N_TYPES];
  const SimPoint *point;
  gboolean no_events;
  const SimPeerResult *peers;   /* without a world: [1..n_peers] */
  guint n_peers;
  ResViolations *violations;
};

void
res_run_set_events (ResRun *run, gboolean events)
{
  run->no_events = !events;
}

static void
node_name (char buf[24], ProtoNodeId id)
{
  if (id == PROTO_SERVER)
    g_strlcpy (buf, "S", 24);
  else if (id == PROTO_NO_NODE)
    buf[0] = '\0';
  else
    {
      /* "p" and the decimal id, without printf (this is per event row) */
      char tmp[16];
      int n = 0;
      do
        tmp[n++] = (char) ('0' + id % 10);
      while ((id /= 10) > 0);
      buf[0] = 'p';
      for (int i = 0; i < n; i++)
        buf[1 + i] = tmp[n - 1 - i];
      buf[1 + n] = '\0';
    }
}

static void
bind_row (sqlite3_stmt *st, int base, gint64 run_id, const EventRow *e)
{
  sqlite3_bind_int64 (st, base + 1, run_id);
  sqlite3_bind_int64 (st, base + 2, e->seq);
  base++;
  sqlite3_bind_double (st, base + 2, e->t_s);
  if (e->node[0])
    sqlite3_bind_text (st, base + 3, e->node, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, base + 3);
  sqlite3_bind_text (st, base + 4, e->kind_owned ? e->kind_buf : e->kind, -1, SQLITE_STATIC);
  if (e->round >= 0)
    sqlite3_bind_int (st, base + 5, e->round);
  else
    sqlite3_bind_null (st, base + 5);
  if (e->other[0])
    sqlite3_bind_text (st, base + 6, e->other, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, base + 6);
  if (e->detail[0])
    sqlite3_bind_text (st, base + 7, e->detail, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, base + 7);
  if (e->state && *e->state)
    sqlite3_bind_text (st, base + 8, e->state, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, base + 8);
  if (e->msg)
    sqlite3_bind_text (st, base + 9, e->msg, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, base + 9);
  if (e->value >= 0)
    sqlite3_bind_int64 (st, base + 10, e->value);
  else
    sqlite3_bind_null (st, base + 10);
}

/* Writer thread: the only user of the connection while a run records. */
static void
write_events (ResRun *r, Item *it)
{
  if (it->n == EVENT_BATCH)
    {
      for (guint i = 0; i < EVENT_BATCH; i++)
        bind_row (r->ins_events_batch, (int) i * 11, r->id, &it->rows[i]);
      sqlite3_step (r->ins_events_batch);
      sqlite3_reset (r->ins_events_batch);
    }
  else
    for (guint i = 0; i < it->n; i++)
      {
        bind_row (r->ins_event, 0, r->id, &it->rows[i]);
        sqlite3_step (r->ins_event);
        sqlite3_reset (r->ins_event);
      }
}

static void
write_metric (ResRun *r, Item *it)
{
  sqlite3_stmt *st = r->ins_metric;
  sqlite3_bind_int64 (st, 1, r->id);
  sqlite3_bind_double (st, 2, it->t_s);
  sqlite3_bind_int (st, 3, it->round);
  if (it->peer[0])
    sqlite3_bind_text (st, 4, it->peer, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (st, 4);
  sqlite3_bind_text (st, 5, it->name, -1, SQLITE_STATIC);
  if (isnan (it->value))
    sqlite3_bind_null (st, 6);
  else
    sqlite3_bind_double (st, 6, it->value);
  sqlite3_step (st);
  sqlite3_reset (st);
}

static gpointer
writer_main (gpointer data)
{
  ResRun *r = data;
  guint pending = 0;
  for (;;)
    {
      Item *it = wq_pop (&r->to_writer);
      switch (it->kind)
        {
        case ITEM_EVENTS:
          write_events (r, it);
          pending += it->n;
          break;
        case ITEM_METRIC:
          write_metric (r, it);
          pending++;
          break;
        case ITEM_SYNC:
        case ITEM_STOP:
          {
            gboolean stop = it->kind == ITEM_STOP;
            wq_push (&r->acks, it);
            if (stop)
              return NULL;
            continue;
          }
        }
      /* batched transactions */
      if (pending >= 20000)
        {
          sqlite3_exec (r->db->db, "COMMIT; BEGIN", NULL, NULL, NULL);
          pending = 0;
        }
      it->n = 0;
      wq_push (&r->free_items, it);
    }
}

static Item *
take_item (ResRun *r, ItemKind kind)
{
  Item *it = wq_try_pop (&r->free_items);
  if (!it)
    it = g_new (Item, 1);
  it->kind = kind;
  it->n = 0;
  return it;
}

/* Hands the batch being filled to the writer. */
static void
flush_events (ResRun *r)
{
  if (r->cur && r->cur->n > 0)
    {
      wq_push (&r->to_writer, r->cur);
      r->cur = NULL;
    }
}

/* Waits until the writer has written everything handed to it; the calling
 * thread may then use the connection (the writer waits for the next item). */
static void
sync_writer (ResRun *r, gboolean stop)
{
  flush_events (r);
  wq_push (&r->to_writer, take_item (r, stop ? ITEM_STOP : ITEM_SYNC));
  Item *ack = wq_pop (&r->acks);
  g_free (ack);
  if (stop)
    {
      pthread_join (r->writer, NULL);
      r->writer_running = FALSE;
    }
}

void
res_run_drain (ResRun *r)
{
  if (r->writer_running)
    sync_writer (r, FALSE);
}

static EventRow *
next_row (ResRun *r)
{
  if (r->cur && r->cur->n == EVENT_BATCH)
    flush_events (r);
  if (!r->cur)
    r->cur = take_item (r, ITEM_EVENTS);
  EventRow *e = &r->cur->rows[r->cur->n++];
  e->seq = ++r->seq;
  return e;
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
          row = round_row (r, o->round);
          if (isnan (row->list_s))
            row->list_s = ts;
          row->participants = o->value;
          break;
        case PROTO_OBS_ROUND_START:
          row = round_row (r, o->round);
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
  EventRow *e = next_row (r);
  e->t_s = ts;
  node_name (e->node, node);
  e->kind = proto_obs_kind_name (o->kind);
  e->kind_owned = FALSE;
  e->round = o->round >= 0 ? o->round + 1 : -1;
  node_name (e->other, o->other);
  memcpy (e->detail, o->detail, sizeof e->detail);
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
  EventRow *e = next_row (r);
  e->t_s = dl_time_to_s (t);
  node_name (e->node, node);
  if (!e->node[0])
    g_strlcpy (e->node, "world", sizeof e->node);
  g_strlcpy (e->kind_buf, kind, sizeof e->kind_buf);
  e->kind_owned = TRUE;
  e->round = -1;
  node_name (e->other, other);
  g_strlcpy (e->detail, detail ? detail : "", sizeof e->detail);
  e->state = "world";
  e->msg = NULL;
  e->value = -1;
}

static void
rec_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  ResRun *r = ud;
  char name[24];
  node_name (name, node);
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
  flush_events (r);   /* keeps rows in the order they were observed */
  Item *it = take_item (r, ITEM_METRIC);
  it->t_s = dl_time_to_s (t);
  it->round = round + 1;
  node_name (it->peer, peer);
  g_strlcpy (it->name, name, sizeof it->name);
  it->value = v;
  wq_push (&r->to_writer, it);
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

void
res_run_set_world (ResRun *run, SimWorld *world)
{
  run->world = world;
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

ResRun *
res_run_begin (ResDb *db, gint64 run_id, const SimScenario *s, const SimPoint *p, guint64 seed,
               GError **error)
{
  if (run_id <= 0)
    run_id = res_db_max_run_id (db) + 1;
  if (!exec (db, "BEGIN", error))
    return NULL;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db->db,
                      "INSERT INTO runs (run_id, scenario, point, point_label, seed, dlsim_version,"
                      " protocol_version, started_at, file) VALUES (?,?,?,?,?,?,?,datetime('now'),?)",
                      -1, &st, NULL);
  const char *version = "";
  for (guint i = 0; i < p->keys->len; i++)
    if (strcmp (p->keys->pdata[i], "protocol.version") == 0)
      version = p->values->pdata[i];
  sqlite3_bind_int64 (st, 1, run_id);
  sqlite3_bind_text (st, 2, s->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (st, 3, (int) p->index);
  sqlite3_bind_text (st, 4, p->label, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 5, (sqlite3_int64) seed);
  sqlite3_bind_text (st, 6, PACKAGE_VERSION, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 7, version, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 8, s->path, -1, SQLITE_TRANSIENT);
  gboolean ok = step_done (db, st, error);
  sqlite3_finalize (st);
  if (ok)
    {
      sqlite3_prepare_v2 (db->db, "INSERT INTO params VALUES (?,?,?)", -1, &st, NULL);
      for (guint i = 0; ok && i < p->keys->len; i++)
        {
          sqlite3_bind_int64 (st, 1, run_id);
          sqlite3_bind_text (st, 2, p->keys->pdata[i], -1, SQLITE_TRANSIENT);
          sqlite3_bind_text (st, 3, p->values->pdata[i], -1, SQLITE_TRANSIENT);
          ok = step_done (db, st, error);
        }
      sqlite3_bind_int64 (st, 1, run_id);
      sqlite3_bind_text (st, 2, "scenario.seed_used", -1, SQLITE_STATIC);
      g_autofree char *sd = g_strdup_printf ("%" G_GUINT64_FORMAT, seed);
      sqlite3_bind_text (st, 3, sd, -1, SQLITE_TRANSIENT);
      ok = ok && step_done (db, st, error);
      /* provenance: the build and the scenario text this run came from */
      const char *prov[][2] = { { "provenance.build", DL_BUILD },
                                { "provenance.scenario_sha256", s->sha256 ? s->sha256 : "" } };
      for (gsize i = 0; ok && i < G_N_ELEMENTS (prov); i++)
        {
          sqlite3_bind_int64 (st, 1, run_id);
          sqlite3_bind_text (st, 2, prov[i][0], -1, SQLITE_STATIC);
          sqlite3_bind_text (st, 3, prov[i][1], -1, SQLITE_TRANSIENT);
          ok = step_done (db, st, error);
        }
      sqlite3_finalize (st);
    }
  /* the runs row is committed before the run starts */
  if (!ok || !exec (db, "COMMIT; BEGIN", error))
    {
      exec (db, "ROLLBACK", NULL);
      return NULL;
    }
  ResRun *r = g_new0 (ResRun, 1);
  r->db = db;
  r->id = run_id;
  r->point = p;
  r->rounds = g_array_new (FALSE, TRUE, sizeof (RoundRow));
  r->violations = res_violations_new ();
  sqlite3_prepare_v2 (db->db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?)", -1, &r->ins_event, NULL);
  GString *sql = g_string_new ("INSERT INTO events VALUES ");
  for (guint i = 0; i < EVENT_BATCH; i++)
    g_string_append (sql, i ? ",(?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?)");
  sqlite3_prepare_v2 (db->db, sql->str, -1, &r->ins_events_batch, NULL);
  g_string_free (sql, TRUE);
  wq_init (&r->to_writer);
  wq_init (&r->free_items);
  wq_init (&r->acks);
  r->writer_running = pthread_create (&r->writer, NULL, writer_main, r) == 0;
  g_assert (r->writer_running);
  sqlite3_prepare_v2 (db->db, "INSERT INTO metrics VALUES (?,?,?,?,?,?)", -1, &r->ins_metric, NULL);
  return r;
}

static void
run_free (ResRun *r)
{
  if (r->writer_running)
    sync_writer (r, TRUE);
  wq_clear (&r->to_writer, g_free);
  wq_clear (&r->free_items, g_free);
  wq_clear (&r->acks, g_free);
  sqlite3_finalize (r->ins_events_batch);
  sqlite3_finalize (r->ins_event);
  sqlite3_finalize (r->ins_metric);
  g_array_unref (r->rounds);
  res_violations_free (r->violations);
  g_free (r);
}

void
res_run_abort (ResRun *r, const char *outcome)
{
  if (r->writer_running)
    sync_writer (r, TRUE);
  if (outcome)
    {
      sqlite3_stmt *st = NULL;
      sqlite3_prepare_v2 (r->db->db, "UPDATE runs SET outcome = ? WHERE run_id = ?", -1, &st, NULL);
      sqlite3_bind_text (st, 1, outcome, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (st, 2, r->id);
      sqlite3_step (st);
      sqlite3_finalize (st);
    }
  exec (r->db, "COMMIT", NULL);
  run_free (r);
}

static void
add_summary (GHashTable *sum, GPtrArray *order, const char *key, char *value)
{
  g_ptr_array_add (order, g_strdup (key));
  g_hash_table_replace (sum, g_strdup (key), value);
}

static char *
fmt_double (double v)
{
  if (isnan (v))
    return g_strdup ("");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

gboolean
res_run_finish (ResRun *r, const SimResult *res, double wall, GPtrArray *out_failed, guint *out_checked,
                GError **error)
{
  ResDb *db = r->db;
  gboolean ok = TRUE;
  sqlite3_stmt *st = NULL;
  if (r->writer_running)
    sync_writer (r, TRUE);
  g_autoptr (GHashTable) sum = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (g_free);

  /* peers */
  sqlite3_prepare_v2 (db->db, "INSERT INTO peers VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
  guint n = r->world ? sim_world_n_nodes (r->world) : r->n_peers;
  for (guint i = 1; ok && i <= n; i++)
    {
      const SimPeerResult *pr = r->world ? sim_world_peer (r->world, i) : &r->peers[i];
      if (pr->outcome == SIM_PEER_ABSENT)
        continue;
      char name[24];
      node_name (name, i);
      sqlite3_bind_int64 (st, 1, r->id);
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
      ok = step_done (db, st, error);
      g_autofree char *k1 = g_strdup_printf ("peer.%s.outcome", name);
      g_autofree char *k2 = g_strdup_printf ("peer.%s.rounds", name);
      g_autofree char *k3 = g_strdup_printf ("peer.%s.synced", name);
      g_autofree char *k4 = g_strdup_printf ("peer.%s.retries_received", name);
      g_autofree char *k5 = g_strdup_printf ("peer.%s.fails_received", name);
      g_autofree char *k6 = g_strdup_printf ("peer.%s.state", name);
      add_summary (sum, order, k1, g_strdup (sim_peer_outcome_name (pr->outcome)));
      add_summary (sum, order, k2, g_strdup_printf ("%u", pr->rounds));
      add_summary (sum, order, k3, g_strdup (pr->synced ? "yes" : "no"));
      add_summary (sum, order, k4, g_strdup_printf ("%u", pr->retries_received));
      add_summary (sum, order, k5, g_strdup_printf ("%u", pr->fails_received));
      add_summary (sum, order, k6, g_strdup (pr->state ? pr->state : ""));
    }
  sqlite3_finalize (st);

  /* rounds */
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

  /* traffic */
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

  /* summary */
  add_summary (sum, order, "outcome", g_strdup (sim_outcome_name (res->outcome)));
  add_summary (sum, order, "rounds_completed", g_strdup_printf ("%u", res->rounds_completed));
  add_summary (sum, order, "peers_finished", g_strdup_printf ("%u", res->peers_finished));
  add_summary (sum, order, "peers_failed", g_strdup_printf ("%u", res->peers_failed));
  add_summary (sum, order, "peers_hung", g_strdup_printf ("%u", res->peers_hung));
  add_summary (sum, order, "retries", g_strdup_printf ("%u", res->retries));
  add_summary (sum, order, "exclusions", g_strdup_printf ("%u", res->exclusions));
  add_summary (sum, order, "model_syncs", g_strdup_printf ("%u", res->model_syncs));
  add_summary (sum, order, "stale_model_syncs", g_strdup_printf ("%u", res->stale_model_syncs));
  add_summary (sum, order, "empty_rounds_started", g_strdup_printf ("%u", res->empty_rounds_started));
  add_summary (sum, order, "messages_dropped", g_strdup_printf ("%u", res->messages_dropped));
  add_summary (sum, order, "final_accuracy", fmt_double (res->final_accuracy));
  add_summary (sum, order, "final_loss", fmt_double (res->final_loss));
  add_summary (sum, order, "consensus_distance", fmt_double (res->consensus_distance));
  add_summary (sum, order, "messages", g_strdup_printf ("%" G_GUINT64_FORMAT, res->messages));
  add_summary (sum, order, "bytes", g_strdup_printf ("%" G_GUINT64_FORMAT, res->bytes));
  add_summary (sum, order, "sim_time_s", fmt_double (dl_time_to_s (res->end)));
  {
    g_autoptr (GPtrArray) vk = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) vv = g_ptr_array_new ();
    res_violations_summary (res, vk, vv);
    for (guint i = 0; i < vk->len; i++)
      add_summary (sum, order, vk->pdata[i], vv->pdata[i]);
  }
  sqlite3_prepare_v2 (db->db, "INSERT INTO summary VALUES (?,?,?)", -1, &st, NULL);
  for (guint i = 0; ok && i < order->len; i++)
    {
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_text (st, 2, order->pdata[i], -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (st, 3, g_hash_table_lookup (sum, order->pdata[i]), -1, SQLITE_TRANSIENT);
      ok = step_done (db, st, error);
    }
  sqlite3_finalize (st);

  /* expectations */
  guint checked = 0;
  sqlite3_prepare_v2 (db->db, "INSERT INTO expectations VALUES (?,?,?,?,?)", -1, &st, NULL);
  for (guint i = 0; ok && i < r->point->expects->len; i++)
    {
      const SimExpect *e = &g_array_index (r->point->expects, SimExpect, i);
      const char *actual = g_hash_table_lookup (sum, e->key);
      gboolean passed = sim_expect_check (e, actual);
      g_autofree char *expected = g_strdup_printf ("%s %s", sim_op_name (e->op), e->value);
      sqlite3_bind_int64 (st, 1, r->id);
      sqlite3_bind_text (st, 2, e->key, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (st, 3, expected, -1, SQLITE_TRANSIENT);
      bind_text_or_null (st, 4, actual ? actual : NULL);
      sqlite3_bind_int (st, 5, passed);
      ok = step_done (db, st, error);
      checked++;
      if (!passed && out_failed)
        g_ptr_array_add (out_failed, g_strdup_printf ("%s: expected %s, actual %s", e->key, expected,
                                                      actual ? (*actual ? actual : "(none)") : "(no such peer)"));
    }
  sqlite3_finalize (st);
  ok = ok && res_violations_write (r->violations, db->db, r->id)
       && res_violations_check (r->violations, res, r->point, db->db, r->id, out_failed, &checked);
  if (!ok && error && !*error)
    g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, sqlite3_errmsg (db->db));
  if (out_checked)
    *out_checked = checked;

  /* the outcome last */
  sqlite3_prepare_v2 (db->db, "UPDATE runs SET outcome = ?, wall_seconds = ?, sim_end_s = ? WHERE run_id = ?",
                      -1, &st, NULL);
  sqlite3_bind_text (st, 1, sim_outcome_name (res->outcome), -1, SQLITE_STATIC);
  sqlite3_bind_double (st, 2, wall);
  sqlite3_bind_double (st, 3, dl_time_to_s (res->end));
  sqlite3_bind_int64 (st, 4, r->id);
  ok = ok && step_done (db, st, error);
  sqlite3_finalize (st);
  ok = ok && exec (db, "COMMIT", error);
  if (!ok)
    exec (db, "ROLLBACK", NULL);
  run_free (r);
  return ok;
}
