/* res-writer.c — the writer thread of a run's recording: batches of events
 * and metrics rows go from the simulation thread to SQLite through queues
 * (res-run-private.h). */
#include "config.h"

#include "results/res-run-private.h"

#include <math.h>
#include <string.h>

void
wq_init (WQueue *q)
{
  pthread_mutex_init (&q->lock, NULL);
  pthread_cond_init (&q->ready, NULL);
  g_queue_init (&q->items);
}

void
wq_clear (WQueue *q, GDestroyNotify free_item)
{
  g_queue_clear_full (&q->items, free_item);
  pthread_cond_destroy (&q->ready);
  pthread_mutex_destroy (&q->lock);
}

void
wq_push (WQueue *q, gpointer item)
{
  pthread_mutex_lock (&q->lock);
  g_queue_push_tail (&q->items, item);
  pthread_cond_signal (&q->ready);
  pthread_mutex_unlock (&q->lock);
}

gpointer
wq_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  while (g_queue_is_empty (&q->items))
    pthread_cond_wait (&q->ready, &q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

gpointer
wq_try_pop (WQueue *q)
{
  pthread_mutex_lock (&q->lock);
  gpointer item = g_queue_pop_head (&q->items);
  pthread_mutex_unlock (&q->lock);
  return item;
}

/* What the simulation hands the writer thread. */
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

gpointer
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

Item *
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
void
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
void
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

