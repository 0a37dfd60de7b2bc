/* phold-ref.c — the reference for the engine benchmark: PHOLD on a bare
 * binary heap of (time, seq, lp) with a hole-moving sift, no event records,
 * no handles, no cancel, no handler dispatch.  It makes exactly the draws
 * of bench_phold_run_engine, so it processes the same events. */
#include "config.h"

#include "bench/phold.h"
#include "base/dl-random.h"

typedef struct {
  DlTime time;
  uint64_t seq;
  uint32_t lp;
} RefEntry;

typedef struct {
  RefEntry *a;
  uint32_t len;
  uint32_t cap;
  uint64_t seq;
} RefHeap;

static inline gboolean
ref_before (const RefEntry *x, const RefEntry *y)
{
  return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static void
ref_push (RefHeap *h, DlTime t, uint32_t lp)
{
  if (h->len == h->cap)
    {
      h->cap = h->cap ? h->cap * 2 : 1024;
      h->a = g_renew (RefEntry, h->a, h->cap);
    }
  RefEntry item = { .time = t, .seq = h->seq++, .lp = lp };
  uint32_t pos = h->len++;
  while (pos > 0)
    {
      uint32_t parent = (pos - 1) / 2;
      if (!ref_before (&item, &h->a[parent]))
        break;
      h->a[pos] = h->a[parent];
      pos = parent;
    }
  h->a[pos] = item;
}

static RefEntry
ref_pop (RefHeap *h)
{
  RefEntry top = h->a[0];
  RefEntry item = h->a[--h->len];
  uint32_t n = h->len, pos = 0;
  for (;;)
    {
      uint32_t child = 2 * pos + 1;
      if (child >= n)
        break;
      if (child + 1 < n && ref_before (&h->a[child + 1], &h->a[child]))
        child++;
      if (!ref_before (&h->a[child], &item))
        break;
      h->a[pos] = h->a[child];
      pos = child;
    }
  if (n > 0)
    h->a[pos] = item;
  return top;
}

BenchPholdResult
bench_phold_run_reference (const BenchPholdParams *p)
{
  PholdLps *lps = bench_phold_lps_new (p);
  RefHeap h = { 0 };
  BenchPholdResult res = { 0 };
  for (uint32_t lp = 0; lp < p->n_lps; lp++)
    for (uint32_t k = 0; k < p->events_per_lp; k++)
      ref_push (&h, bench_phold_initial_delay (lps, lp), lp);
  res.max_pending = h.len;
  while (h.len > 0 && h.a[0].time <= p->end)
    {
      RefEntry ev = ref_pop (&h);
      uint32_t dest;
      DlTime delay;
      res.checksum = bench_phold_checksum_step (res.checksum, ev.time, ev.lp);
      bench_phold_draw (lps, ev.lp, &dest, &delay);
      ref_push (&h, ev.time + delay, dest);
      res.events++;
    }
  g_free (h.a);
  bench_phold_lps_free (lps);
  return res;
}

/* The plain reference: the same PHOLD parameters on a binary heap of 16-byte
 * (time, lp) entries, with one generator for all LPs and no tie-break
 * counter.  It does the least work PHOLD can be done with, so it is a floor
 * for any engine, not a check of one: its event sequence differs (other
 * draws, ties in heap order), only its rate is compared. */
typedef struct {
  DlTime time;
  uint64_t lp;
} PlainEntry;

G_STATIC_ASSERT (sizeof (PlainEntry) == 16);

typedef struct {
  PlainEntry *a;
  uint32_t len;
  uint32_t cap;
} PlainHeap;

static void
plain_push (PlainHeap *h, DlTime t, uint32_t lp)
{
  if (h->len == h->cap)
    {
      h->cap = h->cap ? h->cap * 2 : 1024;
      h->a = g_renew (PlainEntry, h->a, h->cap);
    }
  PlainEntry item = { .time = t, .lp = lp };
  uint32_t pos = h->len++;
  while (pos > 0)
    {
      uint32_t parent = (pos - 1) / 2;
      if (item.time >= h->a[parent].time)
        break;
      h->a[pos] = h->a[parent];
      pos = parent;
    }
  h->a[pos] = item;
}

static PlainEntry
plain_pop (PlainHeap *h)
{
  PlainEntry top = h->a[0];
  PlainEntry item = h->a[--h->len];
  uint32_t n = h->len, pos = 0;
  for (;;)
    {
      uint32_t child = 2 * pos + 1;
      if (child >= n)
        break;
      if (child + 1 < n && h->a[child + 1].time < h->a[child].time)
        child++;
      if (h->a[child].time >= item.time)
        break;
      h->a[pos] = h->a[child];
      pos = child;
    }
  if (n > 0)
    h->a[pos] = item;
  return top;
}

BenchPholdResult
bench_phold_run_plain (const BenchPholdParams *p)
{
  g_autoptr (DlRandom) r = dl_random_new (p->seed, "phold-plain", DL_RANDOM_NO_NODE);
  PlainHeap h = { 0 };
  BenchPholdResult res = { 0 };
  double mean = (double) p->mean_delay;
  for (uint32_t lp = 0; lp < p->n_lps; lp++)
    for (uint32_t k = 0; k < p->events_per_lp; k++)
      plain_push (&h, p->lookahead + (DlTime) dl_random_exponential (r, mean), lp);
  res.max_pending = h.len;
  while (h.len > 0 && h.a[0].time <= p->end)
    {
      PlainEntry ev = plain_pop (&h);
      uint32_t dest = (uint32_t) ev.lp;
      res.checksum = bench_phold_checksum_step (res.checksum, ev.time, dest);
      if (dl_random_uniform (r) < p->remote)
        dest = (uint32_t) dl_random_below (r, p->n_lps);
      plain_push (&h, ev.time + p->lookahead + (DlTime) dl_random_exponential (r, mean), dest);
      res.events++;
    }
  g_free (h.a);
  return res;
}
