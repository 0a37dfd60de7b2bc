/* res-writer.c — the writer thread of a run's recording: batches of events
 * and metrics rows go from the simulation thread to SQLite through queues
 * (res-run-private.h). */
#define _GNU_SOURCE 1   /* sync_file_range */
#include "config.h"

#include "results/res-run-private.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/prctl.h>

void
_res_wq_init (WQueue *q)
{
  pthread_mutex_init (&q->lock, NULL);
  pthread_cond_init (&q->ready, NULL);
  g_queue_init (&q->items);
}

void
_res_wq_clear (WQueue *q, GDestroyNotify free_item)
{
  g_queue_clear_full (&q->items, free_item);
  pthread_cond_destroy (&q->ready);
  pthread_mutex_destroy (&q->lock);
}

void
_res_wq_push (WQueue *q, gpointer item)
{
  pthread_mutex_lock (&q->lock);
  g_queue_push_tail (&q->items, item);
  pthread_cond_signal (&q->ready);
  pthread_mutex_unlock (&q->lock);
}

gpointer
_res_wq_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  while (g_queue_is_empty (&q->items))
    pthread_cond_wait (&q->ready, &q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

gpointer
_res_wq_try_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

/* A node's name in the results: S, pN, or "" for none. */
gsize
res_node_name (char buf[24], ProtoNodeId id)
{
  if (id == PROTO_SERVER)
    {
      buf[0] = 'S';
      buf[1] = '\0';
      return 1;
    }
  else if (id == PROTO_NO_NODE)
    {
      buf[0] = '\0';
      return 0;
    }
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
      return (gsize) n + 1;
    }
}

/* ---- events as JSON chunks ----
 *
 * Events are stored CHUNK_ROWS at a time, as one event_chunks row holding a
 * JSON array of rows [t_s, node, kind, round, other, detail, state, msg,
 * value], trailing nulls left out (seq is the chunk's first_seq plus the
 * row's index); the
 * `events` view (res-file.c) unfolds them with json_each.  One SQLite row
 * per thousand events instead of one per event: the writer thread does
 * about half the work it did, and a recorded run costs about +50 % instead
 * of +170 % (docs/performance.md, "Recording").  Times are written from
 * the integer nanoseconds as S.NNNNNNNNN without its trailing zeros (one
 * digit stays), which SQLite reads back as the same double as
 * dl_time_to_s (both are the double nearest to t / 10^9). */

/* The writers below put text at p, in room the caller has made (put_row),
 * and return the end.  Those that may write null set *last to that end
 * when they write a value instead: put_row cuts the row after its last
 * value. */
static inline char *
put_uint (char *p, guint64 v)
{
  char tmp[24];
  int n = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) > 0);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}

static inline char *
put_lit (char *p, const char *s, gsize n)
{
  memcpy (p, s, n);
  return p + n;
}

static inline char *
put_int_or_null (char *p, gint64 v, char **last)
{
  if (v < 0)
    return put_lit (p, "null", 4);
  return *last = put_uint (p, (guint64) v);
}

/* "00" to "99" */
static const char digits2[201] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

static inline void
put2 (char *p, guint v)
{
  p[0] = digits2[2 * v];
  p[1] = digits2[2 * v + 1];
}

static char *
put_time (char *p, DlTime t)
{
  if (t < 0)
    {
      *p++ = '-';
      t = -t;
    }
  p = put_uint (p, (guint64) (t / DL_S));
  *p++ = '.';
  /* the nine digits of the nanoseconds, in two independent halves and two
   * at a time: a chain of nine divisions by 10 was a sixth of the writer's
   * own time (perf annotate) */
  guint f = (guint) (t % DL_S);
  guint hi = f / 100000, lo = f % 100000;   /* 4 and 5 digits */
  guint lo3 = lo % 1000;
  put2 (p, hi / 100);
  put2 (p + 2, hi % 100);
  put2 (p + 4, lo / 1000);
  p[6] = (char) ('0' + lo3 / 100);
  put2 (p + 7, lo3 % 100);
  /* trailing zeros say nothing (the same decimal, so the same double);
   * one digit stays, so that SQLite reads a REAL.  They are counted from f,
   * not read back from the digits just stored (that stalled on store
   * forwarding: a twentieth of the writer's time) */
  int n = 9;
  if (f % 100000000 == 0)   /* 0, or a single digit then zeros */
    n = 1;
  else
    {
      if (f % 10000 == 0)
        {
          f /= 10000;
          n -= 4;
        }
      if (f % 100 == 0)
        {
          f /= 100;
          n -= 2;
        }
      if (f % 10 == 0)
        n -= 1;
    }
  return p + n;
}

/* A JSON string (RFC 8259 §7), or null for NULL and "" (the columns' NULL):
 * at most 6 bytes per byte of s, plus 2. */
static char *
put_str_or_null (char *p, const char *s, char **last)
{
  if (!s || !*s)
    return put_lit (p, "null", 4);
  *p++ = '"';
  for (const unsigned char *c = (const unsigned char *) s; *c; c++)
    {
      if (*c == '"' || *c == '\\')
        {
          *p++ = '\\';
          *p++ = (char) *c;
        }
      else if (*c < 0x20)
        {
          static const char hex[] = "0123456789abcdef";
          p = put_lit (p, "\\u00", 4);
          *p++ = hex[*c >> 4];
          *p++ = hex[*c & 15];
        }
      else
        *p++ = (char) *c;
    }
  *p++ = '"';
  return *last = p;
}

/* "s" (n bytes of s, nothing to escape) */
static inline char *
put_quoted (char *p, const char *s, gsize n)
{
  *p++ = '"';
  p = put_lit (p, s, n);
  *p++ = '"';
  return p;
}

/* A name from the program's own tables (states, messages, observation
 * kinds: letters, digits and dashes, nothing to escape), or null for NULL
 * and "".  Its JSON is kept by address (the same few names make every
 * row; strlen and the quoting were a tenth of the writer's time). */
static inline char *
put_name_or_null (ResRun *r, char *p, const char *s, char **last)
{
  if (!s)
    return put_lit (p, "null", 4);
  NameJson *c = &r->names[((guintptr) s >> 3) % NAME_CACHE];
  if (G_UNLIKELY (c->key != s))
    {
      gsize n = strlen (s);
      if (n + 2 > sizeof c->json)
        return *last = put_quoted (p, s, n);   /* longer than any name the program has: not kept */
      c->key = s;
      c->len = n ? (guint8) (n + 2) : 0;
      put_quoted (c->json, s, n);
    }
  if (c->len == 0)
    return put_lit (p, "null", 4);
  memcpy (p, c->json, sizeof c->json);   /* whole: a fixed-size copy */
  return *last = p + c->len;
}

/* A node's name (S or pN), or null.  Ids below NODE_CACHE keep theirs. */
static inline char *
put_node_or_null (ResRun *r, char *p, ProtoNodeId id, char **last)
{
  if (id == PROTO_NO_NODE)
    return put_lit (p, "null", 4);
  char name[24];
  if (G_UNLIKELY (id >= NODE_CACHE))
    return *last = put_quoted (p, name, res_node_name (name, id));
  NodeJson *c = &r->nodes[id];
  if (G_UNLIKELY (c->len == 0))
    c->len = (guint8) (put_quoted (c->json, name, res_node_name (name, id)) - c->json);
  memcpy (p, c->json, sizeof c->json);
  return *last = p + c->len;
}

/* The most a row takes besides its escaped strings: the time (at most 30
 * bytes), round and value (20 each), two nodes and three names copied whole
 * (2 * 7 + 3 * 39), brackets, commas and nulls. */
#define ROW_ROOM 256

/* One row without its seq (the view counts it from the chunk's first),
 * appended to the chunk. */
static void
put_row (ResRun *r, const Item *it, const EventRow *e)
{
  const char *detail = e->detail_at == NO_TEXT ? NULL : it->text + e->detail_at;
  const char *fact_kind = e->kind ? NULL : it->text + e->kind_at;
  /* 6 bytes per byte of what may need escaping */
  gsize room = ROW_ROOM + (detail ? 6 * strlen (detail) : 0) + (fact_kind ? 6 * strlen (fact_kind) + 2 : 0);
  /* and a byte after the row for the ',' or ']' that follows it */
  if (G_UNLIKELY (r->chunk_len + room + 1 > r->chunk_cap))
    {
      r->chunk_cap = MAX (2 * r->chunk_cap, r->chunk_len + room);
      r->chunk = g_realloc (r->chunk, r->chunk_cap);
    }
  char *p = r->chunk + r->chunk_len;
  char *start = p;
  /* trailing nulls are left out: json_extract reads a missing element as
   * NULL (most rows end in one or two; 7 % fewer bytes).  last is the end
   * of the last value written (finding ",null" in the text just written
   * stalled on store forwarding: a fifth of the writer's own time) */
  char *last;
  *p++ = '[';
  p = last = put_time (p, e->t);
  *p++ = ',';
  p = e->node_world ? (last = put_lit (p, "\"world\"", 7)) : put_node_or_null (r, p, e->node, &last);
  *p++ = ',';
  /* a fact's kind comes from the caller: escaped */
  p = fact_kind ? put_str_or_null (p, fact_kind, &last) : put_name_or_null (r, p, e->kind, &last);
  *p++ = ',';
  p = put_int_or_null (p, e->round, &last);
  *p++ = ',';
  p = put_node_or_null (r, p, e->other, &last);
  *p++ = ',';
  p = put_str_or_null (p, detail, &last);
  *p++ = ',';
  p = put_name_or_null (r, p, e->state, &last);
  *p++ = ',';
  p = put_name_or_null (r, p, e->msg, &last);
  *p++ = ',';
  put_int_or_null (p, e->value, &last);
  p = last;
  *p++ = ']';
  g_assert ((gsize) (p - start) <= room);
  r->chunk_len += (gsize) (p - start);
}

/* Keeps the writer's first failure (a full disk, an I/O error): SQLite may
 * have rolled back the run's transaction with it, so nothing more is
 * written, and res_run_finish fails the run with this message. */
static void
write_failed (ResRun *r)
{
  if (!r->write_error)
    r->write_error = g_strdup (sqlite3_errmsg (r->db->db));
}

/* Inserts the chunk being built, if it holds any row. */
static void
write_chunk (ResRun *r)
{
  if (r->chunk_rows == 0)
    return;
  r->chunk[r->chunk_len++] = ']';   /* in the byte put_row kept after the row */
  sqlite3_bind_int64 (r->ins_chunk, 1, r->id);
  sqlite3_bind_int64 (r->ins_chunk, 2, r->chunk_first);
  sqlite3_bind_text (r->ins_chunk, 3, r->chunk, (int) r->chunk_len, SQLITE_STATIC);
  if (!r->write_error && sqlite3_step (r->ins_chunk) != SQLITE_DONE)
    write_failed (r);
  sqlite3_reset (r->ins_chunk);
  r->chunk_len = 0;
  r->chunk_rows = 0;
  /* start writing what SQLite spilled to the file (asynchronous: the
   * kernel queues the dirty pages and returns) */
  if (r->writeback_fd >= 0 && ++r->chunks_since_writeback == WRITEBACK_CHUNKS)
    {
      sync_file_range (r->writeback_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
      r->chunks_since_writeback = 0;
    }
}

/* Writer thread: the only user of the connection while a run records. */
static void
write_events (ResRun *r, Item *it)
{
  for (guint i = 0; i < it->n; i++)
    {
      /* a chunk's rows have consecutive seqs */
      if (r->chunk_rows > 0 && it->rows[i].seq != r->chunk_first + r->chunk_rows)
        write_chunk (r);
      if (r->chunk_rows == 0)
        {
          r->chunk[r->chunk_len++] = '[';   /* chunk_len is 0: the buffer holds it */
          r->chunk_first = it->rows[i].seq;
        }
      else
        r->chunk[r->chunk_len++] = ',';   /* in the byte put_row kept after the row */
      put_row (r, it, &it->rows[i]);
      if (++r->chunk_rows == CHUNK_ROWS)
        write_chunk (r);
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
  if (sqlite3_step (st) != SQLITE_DONE)
    write_failed (r);
  sqlite3_reset (st);
}

gpointer
_res_writer_main (gpointer data)
{
  ResRun *r = data;
  gint64 last_commit = g_get_monotonic_time ();
  gboolean readers_window = FALSE;
  /* its own name in top, perf and gdb */
  prctl (PR_SET_NAME, "dlsim-writer", 0, 0, 0);
  for (;;)
    {
      Item *it = _res_wq_pop (&r->to_writer);
      switch (it->kind)
        {
        case ITEM_EVENTS:
          if (!r->write_error)
            write_events (r, it);
          break;
        case ITEM_METRIC:
          if (!r->write_error)
            write_metric (r, it);
          break;
        case ITEM_SYNC:
        case ITEM_STOP:
          {
            if (!r->write_error)
              write_chunk (r);   /* everything handed over is in the database */
            gboolean stop = it->kind == ITEM_STOP;
            _res_wq_push (&r->acks, it);
            if (stop)
              return NULL;
            continue;
          }
        }
      /* a commit a second (res-run-private.h): a long run that crashes
       * keeps its events up to the last second, and readers get in */
      gint64 now = g_get_monotonic_time ();
      if (r->write_error)
        ;
      else if (now - last_commit >= COMMIT_INTERVAL_US)
        {
          /* cache_spill = N applies at once; the boolean form would wait
           * for the end of the transaction (pragma.c, setAllPagerFlags) */
          if (sqlite3_exec (r->db->db, "COMMIT; BEGIN; PRAGMA cache_spill = -" G_STRINGIFY (READERS_WINDOW_KIB), NULL,
                            NULL, NULL)
              != SQLITE_OK)
            write_failed (r);
          last_commit = now;
          readers_window = TRUE;
        }
      else if (readers_window && now - last_commit >= READERS_WINDOW_US)
        {
          sqlite3_exec (r->db->db, "PRAGMA cache_spill = -" G_STRINGIFY (RUN_CACHE_KIB), NULL, NULL, NULL);
          readers_window = FALSE;
        }
      it->n = 0;
      _res_wq_push (&r->free_items, it);
    }
}

Item *
_res_take_item (ResRun *r, ItemKind kind)
{
  Item *it = _res_wq_try_pop (&r->free_items);
  if (!it && r->items_out < MAX_ITEMS)
    {
      it = g_new (Item, 1);
      r->items_out++;
    }
  else if (!it)
    it = _res_wq_pop (&r->free_items);   /* the writer is behind: wait for it (memory stays bounded) */
  it->kind = kind;
  it->n = 0;
  return it;
}

/* Hands the batch being filled to the writer. */
void
_res_flush_events (ResRun *r)
{
  if (r->cur && r->cur->n > 0)
    {
      _res_wq_push (&r->to_writer, r->cur);
      r->cur = NULL;
    }
}

/* Waits until the writer has written everything handed to it; the calling
 * thread may then use the connection (the writer waits for the next item). */
void
_res_sync_writer (ResRun *r, gboolean stop)
{
  _res_flush_events (r);
  _res_wq_push (&r->to_writer, _res_take_item (r, stop ? ITEM_STOP : ITEM_SYNC));
  Item *ack = _res_wq_pop (&r->acks);
  g_free (ack);
  r->items_out--;
  if (stop)
    {
      pthread_join (r->writer, NULL);
      r->writer_running = FALSE;
    }
}

