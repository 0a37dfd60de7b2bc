/* sim-engine.c — pending events in a radix heap on 128-bit keys
 * (time << 64 | seq << SLOT_BITS | slot); event records (argument,
 * generation, and the index of the (handler, context) pair in a table) in a
 * pool indexed by slot, recycled through a LIFO free list.
 *
 * Why a radix heap (docs/performance.md, "Engine"): a simulation's event
 * queue is monotone — nothing is scheduled before now, and seq grows — and a
 * radix heap is the priority queue for monotone keys.  A key goes into the
 * bucket of the highest 4-bit digit in which it differs from the last key
 * popped and its own value of that digit (bucket_of: buckets by digit
 * value, not by bit, the idea of the two-level radix heap of Ahuja,
 * Mehlhorn, Orlin and Tarjan, J. ACM 37(2), 1990);
 * pushing is an append.  Popping takes the smallest key of the lowest
 * non-empty bucket and moves the rest of that bucket down to lower buckets,
 * each key always to a strictly lower digit.  Every access is to the end or the
 * whole of a contiguous array, so at 100 000 LPs (1.6 million pending
 * events) the cost is streaming, not one cache miss per heap level; and no
 * branch depends on a comparison of random keys.
 *
 * The order is exactly (time, seq): keys are unique and a radix heap pops
 * them in order.
 *
 * An event id is the record's slot and a generation that grows each time
 * the slot is used.  Cancellation is lazy: a cancelled record is marked
 * (no action, so its id is stale at once) and its key stays until it is
 * popped, when it is dropped without running.  When more than half the
 * pending keys are cancelled the buckets are swept.
 *
 * seq has SEQ_BITS bits.  When it runs out (2^36 schedules), the pending
 * events are renumbered 0..n-1 in (time, seq) order, which keeps every
 * tie-break.
 *
 * Not modelled here: anything but ordering — no parallelism, no rollback. */
#include "config.h"

#include "sim/sim-engine.h"
#include "sim/sim-engine-keys.h"
#include "base/dl-huge.h"

#include <string.h>

#define SLOT_BITS 28
#define SEQ_BITS (64 - SLOT_BITS)
#define SLOT_MASK ((UINT64_C (1) << SLOT_BITS) - 1)
#define MAX_RECORDS ((uint32_t) 1 << SLOT_BITS)
#define SEQ_LIMIT (UINT64_C (1) << SEQ_BITS)
#define DIGIT_BITS 4
#define DIGITS (1u << DIGIT_BITS)
#define N_BUCKETS (1 + 128 / DIGIT_BITS * DIGITS)   /* bucket_of */
#define MASK_WORDS ((N_BUCKETS + 63) / 64)
#define PREFETCH_FROM 32768
#define PF_HANDLERS 4

/* (time, seq, slot) as one unsigned 128-bit number (sim-engine-keys.h) */
typedef SimEngineKey Key;

typedef struct {
  Key *keys;
  uint32_t len;
  uint32_t cap;
} Bucket;

/* 16 bytes, four to a cache line: what a pop reads, and the generation
 * its id checks.  The handler and its context are an index into the
 * engine's table of the (handler, context) pairs scheduled so far (a
 * simulation has a few dozen): at 1 000 peers a million events are pending,
 * and records of 32 bytes (two pointers) were 32 MiB of cache misses
 * (docs/performance.md, "World"). */
typedef struct {
  uint64_t arg;        /* the free list link while free */
  uint32_t gen;        /* >= 1 once used: an id is gen << SLOT_BITS | slot */
  uint16_t action;     /* index in actions[]; NO_ACTION when free, run or cancelled */
  uint16_t pad;
} EventRecord;

G_STATIC_ASSERT (sizeof (EventRecord) == 16);

#define NO_ACTION 0
#define MAX_ACTIONS UINT16_MAX

typedef struct {
  SimHandler handler;
  void *ctx;
  /* what the handler reads first from the record arg points to
   * (sim_engine_prefetch_arg), pf_bytes 0 if nothing */
  uint32_t pf_offset, pf_bytes;
} Action;

#define FREE_END UINT32_MAX

struct SimEngine {
  DlTime now;
  uint64_t next_seq;
  uint64_t events_run;
  gboolean stop;
  SimPollFn poll;            /* sim_engine_set_poll: asked every poll_every events */
  void *poll_ctx;
  uint32_t poll_every, poll_left;

  Key last;                  /* the last key popped; every pending key is > it */
  Bucket buckets[N_BUCKETS];
  uint64_t nonempty[MASK_WORDS];
  uint32_t queued;           /* keys in the buckets */
  uint64_t key_cap;          /* the buckets' capacities, summed (bucket_grow) */
  uint32_t cancelled;        /* of which cancelled */

  EventRecord *records;
  Action *actions;           /* [0] unused (NO_ACTION) */
  uint32_t n_actions, cap_actions;
  uint32_t last_action;      /* the pair the last schedule used */
  SimHandler pf_handler[PF_HANDLERS];  /* sim_engine_prefetch_arg */
  uint32_t pf_offset[PF_HANDLERS], pf_bytes[PF_HANDLERS];
  uint32_t n_pf;
  uint32_t records_cap;
  uint32_t records_used;     /* slots ever taken: the rest were never touched */
  uint32_t free_head;        /* released slots, LIFO */
  SimEventId last_id;        /* the last event scheduled (sim_engine_is_last) */
};

static inline Key
make_key (DlTime time, uint64_t seq, uint32_t slot)
{
  return ((Key) (uint64_t) time << 64) | (seq << SLOT_BITS) | slot;
}

static inline uint32_t
key_slot (Key k)
{
  return (uint32_t) ((uint64_t) k & SLOT_MASK);
}

static inline DlTime
key_time (Key k)
{
  return (DlTime) (uint64_t) (k >> 64);
}

/* The bucket of key k, relative to the last key popped: 0 if equal;
 * else, with L the digit of DIGIT_BITS bits in which they first differ
 * from the top, 1 + L * DIGITS + k's value of that digit.  Keys above last
 * order as their buckets: a higher bucket's keys are all larger.  The
 * popped bucket's other keys share all of the min's digits from L up, so
 * each goes to a bucket below L's (pop_min_at).  A key moves at most
 * once a digit on its way down: with one bucket a bit (a binary radix
 * heap), PHOLD at 1 000 LPs moved each about nine times (callgrind, 2026-12-02;
 * docs/performance.md, "PHOLD's streams on one line"). */
static inline uint32_t
bucket_of (Key k, Key last)
{
  Key x = k ^ last;
  uint64_t hi = (uint64_t) (x >> 64), lo = (uint64_t) x;
  uint32_t bit;
  if (hi)
    bit = 127 - (uint32_t) __builtin_clzll (hi);
  else if (lo)
    bit = 63 - (uint32_t) __builtin_clzll (lo);
  else
    return 0;
  uint32_t level = bit / DIGIT_BITS;
  return 1 + level * DIGITS + ((uint32_t) (k >> (level * DIGIT_BITS)) & (DIGITS - 1));
}

/* Returns the record of a pending (live) id, or NULL. */
static inline EventRecord *
lookup (const SimEngine *e, SimEventId id)
{
  if (id == SIM_EVENT_NONE)
    return NULL;
  uint64_t slot = id & SLOT_MASK;
  if (slot >= e->records_used)
    return NULL;
  EventRecord *rec = &e->records[slot];
  if (rec->gen != (id >> SLOT_BITS) || rec->action == NO_ACTION)
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
  for (uint32_t b = 0; b < N_BUCKETS; b++)
    _sim_engine_keys_free (e->buckets[b].keys, e->buckets[b].cap);
  if ((gsize) e->records_cap * sizeof (EventRecord) >= DL_HUGE)
    dl_huge_free (e->records, (gsize) e->records_cap * sizeof (EventRecord));
  else
    g_free (e->records);
  g_free (e->actions);
  g_free (e);
}

DlTime
sim_engine_now (const SimEngine *e)
{
  return e->now;
}

/* The pool doubles; its new records are not touched here (a realloc this
 * large moves pages, it does not copy them), so a burst's untaken slack
 * is never resident: at 3 000 peers all-to-all, 2^24 records for about 9
 * million events were 124 MB written at growth (issue 44).  From 2 MiB
 * the pool is a mapping on a huge-page boundary (dl-huge.h), whose huge
 * pages a growth keeps; there the untaken slack is resident only up to
 * the 2 MiB page the last record taken is on.  Capacities are 1 024
 * doubled, so the pool crosses DL_HUGE exactly. */
static void
grow_records (SimEngine *e)
{
  uint32_t old = e->records_cap;
  if (old >= MAX_RECORDS)
    g_error ("sim-engine: more than %u pending events", MAX_RECORDS);
  uint32_t cap = old ? MIN (old * 2, MAX_RECORDS) : 1024;
  gsize old_b = (gsize) old * sizeof (EventRecord), new_b = (gsize) cap * sizeof (EventRecord);
  if (new_b < DL_HUGE)
    e->records = g_renew (EventRecord, e->records, cap);
  else if (old_b >= DL_HUGE)
    e->records = dl_huge_grow (e->records, old_b, new_b);
  else
    {
      EventRecord *r = dl_huge_grow (NULL, 0, new_b);
      memcpy (r, e->records, old_b);
      g_free (e->records);
      e->records = r;
    }
  e->records_cap = cap;
}

/* A slot never used: the next one, in slot order (as the free list held
 * them when growth threaded them onto it, lowest first). */
static inline uint32_t
take_fresh (SimEngine *e)
{
  if (G_UNLIKELY (e->records_used == e->records_cap))
    grow_records (e);
  uint32_t slot = e->records_used++;
  EventRecord *rec = &e->records[slot];
  rec->action = NO_ACTION;
  rec->pad = 0;
  rec->gen = 0;
  return slot;
}

static inline void
release (SimEngine *e, uint32_t slot)
{
  EventRecord *rec = &e->records[slot];
  rec->action = NO_ACTION;
  rec->arg = e->free_head;
  e->free_head = slot;
}

static void
bucket_grow (SimEngine *e, Bucket *bk)
{
  uint32_t more = bk->cap ? bk->cap : 64;
  bk->keys = _sim_engine_keys_resize (bk->keys, bk->cap, bk->cap + more);
  bk->cap += more;
  e->key_cap += more;
}

/* A bucket that a pop has just emptied gives its storage back when the
 * buckets hold more than twice the room the pending keys need: each
 * bucket used to keep the largest size it ever had, and a burst left
 * every bucket it passed through that large (229 MiB for 26 MiB of keys
 * at 100 000 PHOLD LPs: issue 44).  Small buckets are kept. */
#define SHRINK_FROM 4096        /* keys: a smaller bucket keeps its room */

static inline void
bucket_shrink (SimEngine *e, Bucket *bk)
{
  if (bk->cap >= SHRINK_FROM && e->key_cap > 2 * (uint64_t) e->queued + (uint64_t) SHRINK_FROM * 8)
    {
      e->key_cap -= bk->cap;
      _sim_engine_keys_free (bk->keys, bk->cap);
      bk->keys = NULL;
      bk->cap = 0;
    }
}

static inline void
bucket_push (SimEngine *e, uint32_t b, Key k)
{
  Bucket *bk = &e->buckets[b];
  if (G_UNLIKELY (bk->len == bk->cap))
    bucket_grow (e, bk);
  bk->keys[bk->len++] = k;
  e->nonempty[b >> 6] |= UINT64_C (1) << (b & 63);
}

static inline void
bucket_mark_empty (SimEngine *e, uint32_t b)
{
  e->nonempty[b >> 6] &= ~(UINT64_C (1) << (b & 63));
}

/* The lowest non-empty bucket, or N_BUCKETS. */
static inline uint32_t
first_bucket (const SimEngine *e, uint32_t from)
{
  for (uint32_t w = from >> 6; w < MASK_WORDS; w++)
    {
      uint64_t m = e->nonempty[w];
      if (w == from >> 6)
        m &= ~UINT64_C (0) << (from & 63);
      if (m)
        return w * 64 + (uint32_t) __builtin_ctzll (m);
    }
  return N_BUCKETS;
}

/* Index of the smallest key of a non-empty bucket. */
static inline uint32_t
bucket_min (const Bucket *bk)
{
  uint32_t best = 0;
  Key m = bk->keys[0];
  for (uint32_t i = 1; i < bk->len; i++)
    if (bk->keys[i] < m)
      {
        m = bk->keys[i];
        best = i;
      }
  return best;
}

/* Pops the smallest key, keys[i] of the lowest non-empty bucket b: it
 * becomes last, and the rest of its bucket moves down relative to it. */
static Key
pop_min_at (SimEngine *e, uint32_t b, uint32_t i)
{
  Bucket *bk = &e->buckets[b];
  Key m = bk->keys[i];
  e->last = m;
  e->queued--;
  if (b == 0)
    {
      bk->keys[i] = bk->keys[--bk->len];
    }
  else
    {
      /* Every other key of bucket b goes to a bucket below b. */
      Key *keys = bk->keys;
      uint32_t n = bk->len;
      keys[i] = keys[n - 1];
      bk->len = 0;
      bucket_mark_empty (e, b);
      for (uint32_t j = 0; j + 1 < n; j++)
        {
          uint32_t to = bucket_of (keys[j], m);
          Bucket *dst = &e->buckets[to];
          if (G_UNLIKELY (dst->len == dst->cap))
            bucket_grow (e, dst);
          dst->keys[dst->len++] = keys[j];
          e->nonempty[to >> 6] |= UINT64_C (1) << (to & 63);
        }
      bucket_shrink (e, bk);
    }
  if (e->buckets[b].len == 0)
    bucket_mark_empty (e, b);
  return m;
}

/* Drops the cancelled keys from every bucket. */
static void
sweep_cancelled (SimEngine *e)
{
  for (uint32_t b = 0; b < N_BUCKETS; b++)
    {
      Bucket *bk = &e->buckets[b];
      uint32_t n = 0;
      for (uint32_t j = 0; j < bk->len; j++)
        {
          uint32_t slot = key_slot (bk->keys[j]);
          if (e->records[slot].action == NO_ACTION)
            release (e, slot);
          else
            bk->keys[n++] = bk->keys[j];
        }
      bk->len = n;
      if (n == 0)
        bucket_mark_empty (e, b);
    }
  e->queued -= e->cancelled;
  e->cancelled = 0;
}

static int
key_cmp (const void *a, const void *b)
{
  Key x = *(const Key *) a, y = *(const Key *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* seq ran out: renumber the pending events 0..n-1 in (time, seq) order. */
static void
renumber (SimEngine *e)
{
  sweep_cancelled (e);
  Key *all = g_new (Key, e->queued ? e->queued : 1);
  uint32_t n = 0;
  for (uint32_t b = 0; b < N_BUCKETS; b++)
    {
      Bucket *bk = &e->buckets[b];
      if (bk->len == 0)
        continue;   /* keys may be NULL: memcpy from NULL is undefined */
      memcpy (all + n, bk->keys, bk->len * sizeof (Key));
      n += bk->len;
      bk->len = 0;
    }
  memset (e->nonempty, 0, sizeof e->nonempty);
  qsort (all, n, sizeof (Key), key_cmp);
  e->last = make_key (e->now, 0, 0);
  for (uint32_t i = 0; i < n; i++)
    {
      Key k = make_key (key_time (all[i]), i + 1, key_slot (all[i]));
      bucket_push (e, bucket_of (k, e->last), k);
    }
  e->next_seq = (uint64_t) n + 1;
  g_free (all);
}

/* The index of the pair (handler, ctx), added if new: the last one used is
 * tried first (a handler mostly schedules itself or its neighbour), then
 * the table in order. */
static uint32_t
action_add (SimEngine *e, SimHandler handler, void *ctx)
{
  for (uint32_t i = 1; i < e->n_actions; i++)
    if (e->actions[i].handler == handler && e->actions[i].ctx == ctx)
      return e->last_action = i;
  if (e->n_actions >= MAX_ACTIONS)
    g_error ("sim-engine: more than %u distinct (handler, context) pairs", MAX_ACTIONS - 1);
  if (e->n_actions == e->cap_actions)
    {
      e->cap_actions = e->cap_actions ? 2 * e->cap_actions : 32;
      e->actions = g_renew (Action, e->actions, e->cap_actions);
    }
  if (e->n_actions == 0)
    e->actions[e->n_actions++] = (Action) { NULL, NULL, 0, 0 };   /* NO_ACTION */
  Action a = { handler, ctx, 0, 0 };
  for (uint32_t h = 0; h < e->n_pf; h++)
    if (e->pf_handler[h] == handler)
      {
        a.pf_offset = e->pf_offset[h];
        a.pf_bytes = e->pf_bytes[h];
      }
  e->actions[e->n_actions] = a;
  return e->last_action = e->n_actions++;
}

static inline uint32_t
action_of (SimEngine *e, SimHandler handler, void *ctx)
{
  uint32_t i = e->last_action;
  if (i != NO_ACTION && e->actions[i].handler == handler && e->actions[i].ctx == ctx)
    return i;
  return action_add (e, handler, ctx);
}

static inline SimEventId
schedule (SimEngine *e, DlTime when, SimHandler handler, void *ctx, uint64_t arg)
{
  if (G_UNLIKELY (e->next_seq >= SEQ_LIMIT))
    renumber (e);
  uint32_t slot;
  if (e->free_head != FREE_END)
    {
      slot = e->free_head;
      e->free_head = (uint32_t) e->records[slot].arg;
      /* the next free record, most likely a miss at large sizes: loaded
       * before the next schedule writes it */
      if (e->free_head != FREE_END)
        __builtin_prefetch (&e->records[e->free_head], 1);
    }
  else
    slot = take_fresh (e);
  EventRecord *rec = &e->records[slot];
  rec->action = (uint16_t) action_of (e, handler, ctx);
  rec->arg = arg;
  rec->gen++;
  if (G_UNLIKELY (rec->gen == 0))  /* gen wrapped: skip 0 */
    rec->gen = 1;

  Key k = make_key (when, e->next_seq++, slot);
  bucket_push (e, bucket_of (k, e->last), k);
  e->queued++;
  return e->last_id = ((uint64_t) rec->gen << SLOT_BITS) | slot;
}

SimEventId
sim_engine_schedule_at (SimEngine *e, DlTime when, SimHandler handler, void *ctx, uint64_t arg)
{
  g_return_val_if_fail (e != NULL, SIM_EVENT_NONE);
  g_return_val_if_fail (handler != NULL, SIM_EVENT_NONE);
  if (when < e->now || when >= DL_TIME_NEVER)
    return SIM_EVENT_NONE;
  return schedule (e, when, handler, ctx, arg);
}

SimEventId
sim_engine_schedule_in (SimEngine *e, DlTime delay, SimHandler handler, void *ctx, uint64_t arg)
{
  g_return_val_if_fail (e != NULL, SIM_EVENT_NONE);
  g_return_val_if_fail (handler != NULL, SIM_EVENT_NONE);
  if (delay < 0)
    return SIM_EVENT_NONE;
  DlTime when = dl_time_add (e->now, delay);
  if (when >= DL_TIME_NEVER)
    return SIM_EVENT_NONE;
  return schedule (e, when, handler, ctx, arg);
}

gboolean
sim_engine_cancel (SimEngine *e, SimEventId id)
{
  EventRecord *rec = lookup (e, id);
  if (!rec)
    return FALSE;
  rec->action = NO_ACTION;
  e->cancelled++;
  if (e->cancelled > 1024 && e->cancelled > e->queued / 2)
    sweep_cancelled (e);
  return TRUE;
}

gboolean
sim_engine_is_pending (const SimEngine *e, SimEventId id)
{
  return lookup (e, id) != NULL;
}

gboolean
sim_engine_is_last (const SimEngine *e, SimEventId id)
{
  return id == e->last_id && lookup (e, id) != NULL;
}

DlTime
sim_engine_event_time (const SimEngine *e, SimEventId id)
{
  /* the time is in the event's key only (a times array by slot, written
   * at every schedule for this call alone, was a cache miss per event at
   * large sizes): O(pending), for tests and diagnostics */
  if (!lookup (e, id))
    return DL_TIME_NEVER;
  uint32_t slot = (uint32_t) (id & SLOT_MASK);
  for (uint32_t b = 0; b < N_BUCKETS; b++)
    for (uint32_t j = 0; j < e->buckets[b].len; j++)
      if (key_slot (e->buckets[b].keys[j]) == slot)
        return key_time (e->buckets[b].keys[j]);
  g_assert_not_reached ();
}

/* The smallest live key's time, without changing anything: the lowest bucket
 * with a live key holds the smallest one. */
DlTime
sim_engine_next_time (const SimEngine *e)
{
  for (uint32_t b = first_bucket (e, 0); b < N_BUCKETS; b = first_bucket (e, b + 1))
    {
      const Bucket *bk = &e->buckets[b];
      gboolean found = FALSE;
      Key m = 0;
      for (uint32_t j = 0; j < bk->len; j++)
        if (e->records[key_slot (bk->keys[j])].action != NO_ACTION && (!found || bk->keys[j] < m))
          {
            m = bk->keys[j];
            found = TRUE;
          }
      if (found)
        return key_time (m);
    }
  return DL_TIME_NEVER;
}

uint64_t
sim_engine_pending (const SimEngine *e)
{
  return e->queued - e->cancelled;
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

gboolean
sim_engine_stopping (const SimEngine *e)
{
  return e->stop;
}

void
sim_engine_debug_set_next_seq (SimEngine *e, uint64_t seq)
{
  g_return_if_fail (seq >= e->next_seq && seq <= SEQ_LIMIT);
  e->next_seq = seq;
}

/* Starts loading what the next two events will read, which is most likely
 * a miss at large sizes (from PREFETCH_FROM pending events, whose records no
 * longer fit in a 2 MiB L2; below it the scan costs more than it saves), so
 * that it arrives while this event's handler runs: the record of the event
 * after next, and what the next event's argument points to when its handler
 * asked for that (sim_engine_prefetch_arg) — its record was loaded the same
 * way one event earlier.  Only short buckets are scanned; the next pop scans
 * them again from L1. */
static inline void
prefetch_record (const SimEngine *e, uint32_t slot)
{
  __builtin_prefetch (&e->records[slot]);
}

static inline void
prefetch_next (const SimEngine *e)
{
  if (e->queued < PREFETCH_FROM)
    return;
  uint32_t b = first_bucket (e, 0);
  const Bucket *bk = &e->buckets[b];
  if (bk->len > 8)
    return;
  /* the smallest two keys of the lowest bucket */
  uint32_t i1 = 0, i2 = UINT32_MAX;
  for (uint32_t j = 1; j < bk->len; j++)
    if (bk->keys[j] < bk->keys[i1])
      {
        i2 = i1;
        i1 = j;
      }
    else if (i2 == UINT32_MAX || bk->keys[j] < bk->keys[i2])
      i2 = j;
  uint32_t slot1 = key_slot (bk->keys[i1]);
  prefetch_record (e, slot1);
  if (e->n_pf)
    {
      const EventRecord *r1 = &e->records[slot1];
      const Action *a = &e->actions[r1->action];   /* NO_ACTION's asks for nothing */
      if (a->pf_bytes)
        {
          /* every line of [offset, offset + bytes), whatever arg's alignment */
          uintptr_t p = (uintptr_t) r1->arg + a->pf_offset;
          uintptr_t end = p + a->pf_bytes;
          for (p &= ~(uintptr_t) 63; p < end; p += 64)
            __builtin_prefetch ((const void *) p);
        }
    }
  if (i2 != UINT32_MAX)
    prefetch_record (e, key_slot (bk->keys[i2]));
  else
    {
      uint32_t b2 = first_bucket (e, b + 1);
      if (b2 < N_BUCKETS && e->buckets[b2].len <= 8)
        prefetch_record (e, key_slot (e->buckets[b2].keys[bucket_min (&e->buckets[b2])]));
    }
}

void
sim_engine_prefetch_arg (SimEngine *e, SimHandler handler, size_t offset, size_t bytes)
{
  g_return_if_fail (e->n_pf < PF_HANDLERS);
  e->pf_handler[e->n_pf] = handler;
  e->pf_offset[e->n_pf] = (uint32_t) offset;
  e->pf_bytes[e->n_pf] = (uint32_t) bytes;
  e->n_pf++;
  /* pairs already scheduled take it too (new ones in action_add) */
  for (uint32_t i = 1; i < e->n_actions; i++)
    if (e->actions[i].handler == handler)
      {
        e->actions[i].pf_offset = (uint32_t) offset;
        e->actions[i].pf_bytes = (uint32_t) bytes;
      }
}

/* Pops keys until a live one, and runs it if its time is <= end.  Returns
 * FALSE, with nothing popped, if the next live event is after end or there
 * is none. */
static inline gboolean
run_next (SimEngine *e, DlTime end)
{
  for (;;)
    {
      if (e->queued == 0)
        return FALSE;
      uint32_t b = first_bucket (e, 0);
      uint32_t i = bucket_min (&e->buckets[b]);
      Key m = e->buckets[b].keys[i];
      uint32_t slot = key_slot (m);
      EventRecord *rec = &e->records[slot];
      if (rec->action == NO_ACTION)
        {
          /* Cancelled: take it out where it is.  Popping it would make it
           * last, and its time may be after now, where new events still go. */
          Bucket *bk = &e->buckets[b];
          bk->keys[i] = bk->keys[--bk->len];
          if (bk->len == 0)
            bucket_mark_empty (e, b);
          e->queued--;
          release (e, slot);
          e->cancelled--;
          continue;
        }
      if (key_time (m) > end)
        return FALSE;
      pop_min_at (e, b, i);
      const Action *act = &e->actions[rec->action];
      SimHandler handler = act->handler;
      void *ctx = act->ctx;
      uint64_t arg = rec->arg;
      release (e, slot);
      prefetch_next (e);
      DlTime t = key_time (m);
      g_assert (t >= e->now);
      e->now = t;
      e->events_run++;
      e->stop = FALSE;   /* sim_engine_stopping: this event's own call */
      handler (e, ctx, arg);
      return TRUE;
    }
}

gboolean
sim_engine_step (SimEngine *e)
{
  return run_next (e, DL_TIME_NEVER - 1);
}

void
sim_engine_set_poll (SimEngine *e, uint32_t every, SimPollFn poll, void *ctx)
{
  g_return_if_fail (every > 0 || !poll);
  e->poll = poll;
  e->poll_ctx = ctx;
  e->poll_every = e->poll_left = poll ? every : 0;
}

/* The poll's turn came (every poll_every events): TRUE if it says stop. */
static gboolean
poll_due (SimEngine *e)
{
  e->poll_left = e->poll_every;
  return e->poll (e->poll_ctx);
}

SimRunResult
sim_engine_run_until (SimEngine *e, DlTime end)
{
  e->stop = FALSE;
  for (;;)
    {
      if (!run_next (e, end))
        {
          if (e->queued == e->cancelled)
            return SIM_RUN_EMPTY;
          if (end > e->now)
            e->now = end;
          return SIM_RUN_TIME_REACHED;
        }
      if (e->stop || (e->poll && --e->poll_left == 0 && poll_due (e)))
        {
          e->stop = FALSE;
          return SIM_RUN_STOPPED;
        }
    }
}
void
sim_engine_debug_check (const SimEngine *e)
{
  uint32_t total = 0, canc = 0;
  for (uint32_t b = 0; b < N_BUCKETS; b++)
    {
      const Bucket *bk = &e->buckets[b];
      gboolean bit = (e->nonempty[b >> 6] >> (b & 63)) & 1;
      if (bit != (bk->len > 0))
        g_error ("bucket %u bit %d len %u", b, bit, bk->len);
      for (uint32_t j = 0; j < bk->len; j++)
        {
          if (bucket_of (bk->keys[j], e->last) != b)
            g_error ("key in bucket %u belongs to %u", b, bucket_of (bk->keys[j], e->last));
          if (bk->keys[j] <= e->last && !(b == 0 && bk->keys[j] == e->last))
            g_error ("key below last in bucket %u", b);
          total++;
          if (e->records[key_slot (bk->keys[j])].action == NO_ACTION)
            canc++;
        }
    }
  if (total != e->queued || canc != e->cancelled)
    g_error ("counts %u/%u %u/%u", total, e->queued, canc, e->cancelled);
}
