/* sim-engine.c — pending events in a binary min-heap of (time, seq, slot)
 * entries; event records (handler, context, argument, heap position) in a
 * pool indexed by slot, recycled through a free list.  Sifting moves a hole
 * rather than swapping, and keeps each record's heap position current so
 * that cancel is O(log n).
 *
 * Not modelled here: anything but ordering — no parallelism, no rollback. */
#include "config.h"

#include "sim/sim-engine.h"

typedef struct {
  DlTime time;
  uint64_t seq;
  uint32_t slot;
} HeapEntry;

typedef struct {
  SimHandler handler;
  void *ctx;
  uint64_t arg;
  uint32_t heap_pos;  /* index in heap while pending; next free slot when free */
  uint32_t gen;       /* bumped when the record is released */
} EventRecord;

#define FREE_END UINT32_MAX

struct SimEngine {
  DlTime now;
  uint64_t next_seq;
  uint64_t events_run;
  gboolean stop;

  HeapEntry *heap;
  uint32_t heap_len;
  uint32_t heap_cap;

  EventRecord *records;
  uint32_t records_cap;
  uint32_t free_head;
};

static inline gboolean
entry_before (const HeapEntry *a, const HeapEntry *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline SimEventId
make_id (uint32_t slot, uint32_t gen)
{
  return ((uint64_t) gen << 32) | ((uint64_t) slot + 1);
}

/* Returns the record of a live id, or NULL. */
static inline EventRecord *
lookup (const SimEngine *e, SimEventId id)
{
  if (id == SIM_EVENT_NONE)
    return NULL;
  uint64_t slot1 = id & 0xffffffffu;
  if (slot1 == 0 || slot1 > e->records_cap)
    return NULL;
  EventRecord *rec = &e->records[slot1 - 1];
  if (rec->gen != (uint32_t) (id >> 32) || rec->handler == NULL)
    return NULL;
  return rec;
}

SimEngine *
sim_engine_new (void)
{
  SimEngine *e = g_new0 (SimEngine, 1);
  e->free_head = FREE_END;
  return e;
}

void
sim_engine_free (SimEngine *e)
{
  if (!e)
    return;
  g_free (e->heap);
  g_free (e->records);
  g_free (e);
}

DlTime
sim_engine_now (const SimEngine *e)
{
  return e->now;
}

static void
grow_records (SimEngine *e)
{
  uint32_t old = e->records_cap;
  uint32_t cap = old ? old * 2 : 1024;
  g_assert (cap > old);
  e->records = g_renew (EventRecord, e->records, cap);
  e->records_cap = cap;
  /* Thread the new records onto the free list, lowest slot first. */
  for (uint32_t i = cap; i > old; i--)
    {
      EventRecord *rec = &e->records[i - 1];
      rec->handler = NULL;
      rec->ctx = NULL;
      rec->gen = 0;
      rec->heap_pos = e->free_head;
      e->free_head = i - 1;
    }
}

static inline void
sift_up (SimEngine *e, uint32_t pos, HeapEntry item)
{
  HeapEntry *h = e->heap;
  while (pos > 0)
    {
      uint32_t parent = (pos - 1) / 2;
      if (!entry_before (&item, &h[parent]))
        break;
      h[pos] = h[parent];
      e->records[h[pos].slot].heap_pos = pos;
      pos = parent;
    }
  h[pos] = item;
  e->records[item.slot].heap_pos = pos;
}

static inline void
sift_down (SimEngine *e, uint32_t pos, HeapEntry item)
{
  HeapEntry *h = e->heap;
  uint32_t n = e->heap_len;
  for (;;)
    {
      uint32_t child = 2 * pos + 1;
      if (child >= n)
        break;
      if (child + 1 < n && entry_before (&h[child + 1], &h[child]))
        child++;
      if (!entry_before (&h[child], &item))
        break;
      h[pos] = h[child];
      e->records[h[pos].slot].heap_pos = pos;
      pos = child;
    }
  h[pos] = item;
  e->records[item.slot].heap_pos = pos;
}

/* Removes the entry at pos from the heap. */
static void
heap_remove_at (SimEngine *e, uint32_t pos)
{
  g_assert (pos < e->heap_len);
  e->heap_len--;
  if (pos == e->heap_len)
    return;
  HeapEntry last = e->heap[e->heap_len];
  if (pos > 0 && entry_before (&last, &e->heap[(pos - 1) / 2]))
    sift_up (e, pos, last);
  else
    sift_down (e, pos, last);
}

static void
release (SimEngine *e, uint32_t slot)
{
  EventRecord *rec = &e->records[slot];
  rec->handler = NULL;
  rec->ctx = NULL;
  rec->gen++;
  rec->heap_pos = e->free_head;
  e->free_head = slot;
}

SimEventId
sim_engine_schedule_at (SimEngine *e, DlTime when, SimHandler handler, void *ctx, uint64_t arg)
{
  g_return_val_if_fail (e != NULL, SIM_EVENT_NONE);
  g_return_val_if_fail (handler != NULL, SIM_EVENT_NONE);
  if (when < e->now || when >= DL_TIME_NEVER)
    return SIM_EVENT_NONE;

  if (e->free_head == FREE_END)
    grow_records (e);
  if (e->heap_len == e->heap_cap)
    {
      e->heap_cap = e->heap_cap ? e->heap_cap * 2 : 1024;
      e->heap = g_renew (HeapEntry, e->heap, e->heap_cap);
    }
  uint32_t slot = e->free_head;
  EventRecord *rec = &e->records[slot];
  e->free_head = rec->heap_pos;
  rec->handler = handler;
  rec->ctx = ctx;
  rec->arg = arg;

  HeapEntry item = { .time = when, .seq = e->next_seq++, .slot = slot };
  e->heap_len++;
  sift_up (e, e->heap_len - 1, item);
  return make_id (slot, rec->gen);
}

SimEventId
sim_engine_schedule_in (SimEngine *e, DlTime delay, SimHandler handler, void *ctx, uint64_t arg)
{
  g_return_val_if_fail (e != NULL, SIM_EVENT_NONE);
  if (delay < 0)
    return SIM_EVENT_NONE;
  DlTime when = dl_time_add (e->now, delay);
  return sim_engine_schedule_at (e, when, handler, ctx, arg);
}

gboolean
sim_engine_cancel (SimEngine *e, SimEventId id)
{
  EventRecord *rec = lookup (e, id);
  if (!rec)
    return FALSE;
  uint32_t slot = (uint32_t) (id & 0xffffffffu) - 1;
  heap_remove_at (e, rec->heap_pos);
  release (e, slot);
  return TRUE;
}

gboolean
sim_engine_is_pending (const SimEngine *e, SimEventId id)
{
  return lookup (e, id) != NULL;
}

DlTime
sim_engine_event_time (const SimEngine *e, SimEventId id)
{
  EventRecord *rec = lookup (e, id);
  return rec ? e->heap[rec->heap_pos].time : DL_TIME_NEVER;
}

DlTime
sim_engine_next_time (const SimEngine *e)
{
  return e->heap_len ? e->heap[0].time : DL_TIME_NEVER;
}

uint64_t
sim_engine_pending (const SimEngine *e)
{
  return e->heap_len;
}

uint64_t
sim_engine_events_run (const SimEngine *e)
{
  return e->events_run;
}

void
sim_engine_stop (SimEngine *e)
{
  e->stop = TRUE;
}

/* Pops and runs the first event. */
static inline void
run_first (SimEngine *e)
{
  HeapEntry top = e->heap[0];
  EventRecord *rec = &e->records[top.slot];
  SimHandler handler = rec->handler;
  void *ctx = rec->ctx;
  uint64_t arg = rec->arg;

  e->heap_len--;
  if (e->heap_len > 0)
    sift_down (e, 0, e->heap[e->heap_len]);
  release (e, top.slot);

  g_assert (top.time >= e->now);
  e->now = top.time;
  e->events_run++;
  handler (e, ctx, arg);
}

gboolean
sim_engine_step (SimEngine *e)
{
  if (e->heap_len == 0)
    return FALSE;
  run_first (e);
  return TRUE;
}

SimRunResult
sim_engine_run_until (SimEngine *e, DlTime end)
{
  e->stop = FALSE;
  for (;;)
    {
      if (e->heap_len == 0)
        return SIM_RUN_EMPTY;
      if (e->heap[0].time > end)
        {
          if (end > e->now)
            e->now = end;
          return SIM_RUN_TIME_REACHED;
        }
      run_first (e);
      if (e->stop)
        {
          e->stop = FALSE;
          return SIM_RUN_STOPPED;
        }
    }
}
