/* sim-flows-heap.c — the flows' completion heap and its tie (a leaf of
 * sim-flows.c and sim-flows-solve.c: it includes only
 * sim-flows-private.h and calls nothing back): each live flow's next
 * event, its completion or its window's growth, by (time, seq). */
#include "config.h"

#include "sim/sim-flows-private.h"

/* A 4-ary min-heap of (t_end, flow, seq) entries, 16 bytes, the keys in
 * the array itself: a comparison reads no flow record (perf: the
 * sift-down that read two records per comparison was 17 % of a 1 000-peer
 * all-to-all).  Ties at one t_end go by the flows' seq (32 bits: the
 * live flows' are renumbered when the counter wraps, renumber_seqs).
 * The entry's t_end is the flow's next event (flow_end).  A flow keeps
 * its entry's position (hpos): a flow whose completion changes moves its
 * entry, and a flow cancelled takes it out, so no entry of the heap is
 * stale and it holds one per flow at most.  (The tie, below, holds the
 * entries of one time apart.) */
static inline gboolean
ent_before (const SimFlows *f, const HeapEnt *a, const HeapEnt *b)
{
  (void) f;
  if (a->t_end != b->t_end)
    return a->t_end < b->t_end;
  return a->seq < b->seq;
}

static inline void
heap_place (SimFlows *f, HeapEnt *h, guint pos, HeapEnt e)
{
  h[pos] = e;
  flow_at (f, e.flow)->hpos = pos;
}

/* e, for pos, down to where it belongs */
static void
heap_sift_down (SimFlows *f, guint pos, HeapEnt e)
{
  HeapEnt *h = (HeapEnt *) (void *) f->heap->data;
  guint n = f->heap->len;
  for (;;)
    {
      guint c = 4 * pos + 1;
      if (c >= n)
        break;
      guint best = c;
      guint last = MIN (c + 4, n);
      for (guint k = c + 1; k < last; k++)
        if (ent_before (f, &h[k], &h[best]))
          best = k;
      if (!ent_before (f, &h[best], &e))
        break;
      heap_place (f, h, pos, h[best]);
      pos = best;
    }
  heap_place (f, h, pos, e);
}

/* e, for pos, up to where it belongs */
static void
heap_sift_up (SimFlows *f, guint pos, HeapEnt e)
{
  HeapEnt *h = (HeapEnt *) (void *) f->heap->data;
  while (pos > 0)
    {
      guint parent = (pos - 1) / 4;
      if (!ent_before (f, &e, &h[parent]))
        break;
      heap_place (f, h, pos, h[parent]);
      pos = parent;
    }
  heap_place (f, h, pos, e);
}

/* a new entry, e */
static void
heap_add (SimFlows *f, HeapEnt e)
{
  g_array_set_size (f->heap, f->heap->len + 1);
  heap_sift_up (f, f->heap->len - 1, e);
}

/* The tie: the entries of one time, tie_t, apart from the heap, as keys
 * seq << 32 | flow (8 bytes), appended in any order while it is open
 * and sorted once, in place, before its first is taken (then it is
 * closed: it takes only keys after its last, the others go to the heap).
 * The first taken is the lesser of the heap's top and the tie's first by
 * (time, seq): the order of the heap alone.  Why (perf, 3 000 peers,
 * docs/performance.md, bs21): a round's Payloads all end at one time, a
 * third of all entries, added in ascending runs of seq (the order the
 * solve walks the resources); in the heap each was a sift-down through
 * the whole heap, a cache miss on a child line and one on a flow record
 * at each level.
 *
 * An entry leaves the tie lazily: its flow's hpos becomes something
 * other than IN_TIE and the key stays, stale, until it is reached; a key
 * stands only while its flow's hpos is IN_TIE and its seq the key's (a
 * reused record has a new seq).  A flow that leaves and comes back has
 * two keys alike: the first reached is taken, the other is stale then.
 * A tie of at most TIE_SPILL keys, or of none live, gives way to a new
 * time: its flows go to the heap.  So does one outnumbered by the
 * entries it refused that had one time (the majority vote of those
 * entries, Boyer and Moore's, picks that time): at 3 000 peers the
 * Payloads end at two times 1 ns apart, 29 970 of them at the first
 * added and 8 967 030 at the other. */
#define TIE_SPILL 4
#define TIE_KEEP 65536   /* keys kept allocated when it empties (512 KiB) */
#define SORT_SMALL 16

static inline guint64
tie_key (guint32 seq, guint32 fl)
{
  return (guint64) seq << 32 | fl;
}

static inline gboolean
tie_stands (const SimFlows *f, guint64 k)
{
  const Flow *x = flow_at (f, (guint32) k);
  return x->hpos == IN_TIE && x->seq == (guint32) (k >> 32);
}

static void
tie_reset (SimFlows *f, DlTime t)
{
  f->tie_head = f->tie_len = 0;
  f->tie_live = 0;
  f->tie_t = t;
  f->tie_sorted = TRUE;
  f->tie_closed = FALSE;
  f->tie_rival_n = 0;
  if (f->tie_size > TIE_KEEP)
    {
      g_clear_pointer (&f->tie, g_free);
      f->tie_size = 0;
    }
}

/* the tie's flows to the heap, and the tie empty at t */
static void
tie_spill (SimFlows *f, DlTime t)
{
  for (guint32 k = f->tie_head; f->tie_live > 0 && k < f->tie_len; k++)
    if (tie_stands (f, f->tie[k]))
      {
        guint32 fl = (guint32) f->tie[k];
        flow_at (f, fl)->hpos = NONE;   /* (a second key alike is stale now) */
        heap_add (f, (HeapEnt) { f->tie_t, fl, flow_at (f, fl)->seq });
        f->tie_live--;
      }
  tie_reset (f, t);
}

/* an entry at t != tie_t refused: its vote; whether t outnumbers the tie */
static gboolean
tie_outvoted (SimFlows *f, DlTime t)
{
  if (f->tie_rival_n > 0 && t != f->tie_rival_t)
    {
      f->tie_rival_n--;
      return FALSE;
    }
  f->tie_rival_t = t;
  return ++f->tie_rival_n > f->tie_live;
}

/* whether the tie takes key, at t (a tie that gives way is spilled) */
static gboolean
tie_takes (SimFlows *f, DlTime t, guint64 key)
{
  if (t != f->tie_t && (f->tie_live == 0 || f->tie_len - f->tie_head <= TIE_SPILL || tie_outvoted (f, t)))
    tie_spill (f, t);
  if (t != f->tie_t)
    return FALSE;
  if (f->tie_len > f->tie_head && key < f->tie[f->tie_len - 1])
    {
      if (f->tie_closed)
        return FALSE;
      f->tie_sorted = FALSE;
    }
  return TRUE;
}

static void
tie_append (SimFlows *f, Flow *x, guint64 key)
{
  if (f->tie_len == f->tie_size)
    {
      f->tie_size = MAX (64, 2 * f->tie_size);
      f->tie = g_renew (guint64, f->tie, f->tie_size);
    }
  f->tie[f->tie_len++] = key;
  x->hpos = IN_TIE;
  f->tie_live++;
}

/* flow x's key (its first alike, if it is the tie's first) leaves it */
static void
tie_leave (SimFlows *f, Flow *x, guint32 fl)
{
  x->hpos = NONE;
  if (f->tie_head < f->tie_len && f->tie[f->tie_head] == tie_key (x->seq, fl))
    f->tie_head++;
  if (--f->tie_live == 0)
    tie_reset (f, f->tie_t);
}

static inline void
key_swap (guint64 *a, guint64 *b)
{
  guint64 t = *a;
  *a = *b;
  *b = t;
}

static void
keys_sift (guint64 *a, gsize p, gsize m)
{
  for (gsize c; (c = 2 * p + 1) < m; p = c)
    {
      if (c + 1 < m && a[c + 1] > a[c])
        c++;
      if (a[p] >= a[c])
        break;
      key_swap (&a[p], &a[c]);
    }
}

/* a[0..n) by a binary heap (introsort's fallback past its depth) */
static void
keys_heapsort (guint64 *a, gsize n)
{
  for (gsize i = n / 2; i-- > 0;)
    keys_sift (a, i, n);
  for (gsize m = n; m-- > 1;)
    {
      key_swap (&a[0], &a[m]);
      keys_sift (a, 0, m);
    }
}

/* a[0..n) ascending, in place (an introsort: no memory beside it, where
 * a merge of the runs would need as much again at the peak of memory);
 * past depth levels of quicksort, by heapsort */
void
_sim_flows_sort_keys (guint64 *a, gsize n, guint depth)
{
  while (n > SORT_SMALL)
    {
      if (depth-- == 0)
        {
          keys_heapsort (a, n);
          return;
        }
      gsize mid = n / 2;   /* (the median of three to a[0]: Hoare's pivot) */
      if (a[mid] < a[0])
        key_swap (&a[mid], &a[0]);
      if (a[n - 1] < a[mid])
        key_swap (&a[n - 1], &a[mid]);
      if (a[mid] < a[0])
        key_swap (&a[mid], &a[0]);
      key_swap (&a[0], &a[mid]);
      guint64 p = a[0];
      gsize i = 0, j = n;
      for (;;)
        {
          while (a[--j] > p)
            ;
          while (a[i] < p)
            i++;
          if (i >= j)
            break;
          key_swap (&a[i++], &a[j]);
        }
      _sim_flows_sort_keys (a + j + 1, n - j - 1, depth);   /* a[0..j] <= p <= a[j+1..n) */
      n = j + 1;
    }
  for (gsize i = 1; i < n; i++)
    {
      guint64 k = a[i];
      gsize j = i;
      for (; j > 0 && a[j - 1] > k; j--)
        a[j] = a[j - 1];
      a[j] = k;
    }
}

/* the tie's first standing key (it has one): sorted, and closed */
static guint64
tie_first (SimFlows *f)
{
  if (!f->tie_sorted)
    {
      gsize n = f->tie_len - f->tie_head;
      _sim_flows_sort_keys (f->tie + f->tie_head, n, 2 * g_bit_storage (n));
      f->tie_sorted = TRUE;
    }
  f->tie_closed = TRUE;
  while (!tie_stands (f, f->tie[f->tie_head]))
    f->tie_head++;
  return f->tie[f->tie_head];
}

/* flow fl's entry at t_end, its next event: a new one, or its own moved */
void
_sim_flows_heap_set (SimFlows *f, guint32 fl, DlTime t_end)
{
  Flow *x = flow_at (f, fl);
  if (x->hpos == IN_TIE)
    {
      if (t_end == f->tie_t)
        return;
      tie_leave (f, x, fl);
    }
  HeapEnt e = { t_end, fl, x->seq };
  if (x->hpos == NONE)
    {
      guint64 key = tie_key (x->seq, fl);
      if (tie_takes (f, t_end, key))
        tie_append (f, x, key);
      else
        heap_add (f, e);
      return;
    }
  guint pos = x->hpos;
  if (ent_before (f, &e, &g_array_index (f->heap, HeapEnt, pos)))
    heap_sift_up (f, pos, e);
  else
    heap_sift_down (f, pos, e);
}

/* takes flow fl's entry out (it has one) */
void
_sim_flows_heap_remove (SimFlows *f, guint32 fl)
{
  Flow *x = flow_at (f, fl);
  if (x->hpos == IN_TIE)
    {
      tie_leave (f, x, fl);
      return;
    }
  guint pos = x->hpos;
  x->hpos = NONE;
  guint n = f->heap->len - 1;
  HeapEnt last = g_array_index (f->heap, HeapEnt, n);
  array_cut (f->heap, n);
  if (pos == n)
    return;
  if (pos > 0 && ent_before (f, &last, &g_array_index (f->heap, HeapEnt, (pos - 1) / 4)))
    heap_sift_up (f, pos, last);
  else
    heap_sift_down (f, pos, last);
}

/* the first entry, of the heap's and the tie's, if it is due by now */
gboolean
_sim_flows_heap_first (SimFlows *f, DlTime now, HeapEnt *out)
{
  const HeapEnt *top = f->heap->len ? &g_array_index (f->heap, HeapEnt, 0) : NULL;
  if (f->tie_live > 0 && f->tie_t <= now && (!top || f->tie_t <= top->t_end))
    {
      guint64 k = tie_first (f);
      HeapEnt e = { f->tie_t, (guint32) k, (guint32) (k >> 32) };
      if (!top || ent_before (f, &e, top))
        {
          *out = e;
          return TRUE;
        }
    }
  if (!top || top->t_end > now)
    return FALSE;
  *out = *top;
  return TRUE;
}

/* the time of the first entry (DL_TIME_NEVER: none) */
DlTime
_sim_flows_heap_next (const SimFlows *f)
{
  DlTime t = f->heap->len ? g_array_index (f->heap, HeapEnt, 0).t_end : DL_TIME_NEVER;
  return f->tie_live > 0 ? MIN (t, f->tie_t) : t;
}

/* Before the flows' seqs are renumbered (renumber_seqs): the tie's stale
 * keys go (after it, a stale key could not be told). */
void
_sim_flows_heap_drop_stale (SimFlows *f)
{
  guint32 n = 0;
  for (guint32 k = f->tie_head; k < f->tie_len; k++)
    if (tie_stands (f, f->tie[k]))
      f->tie[n++] = f->tie[k];
  f->tie_head = 0;
  f->tie_len = n;
}

/* After it: the entries take their flows' new seqs (their order stands) */
void
_sim_flows_heap_reseq (SimFlows *f)
{
  for (guint i = 0; i < f->heap->len; i++)
    {
      HeapEnt *e = &g_array_index (f->heap, HeapEnt, i);
      e->seq = flow_at (f, e->flow)->seq;
    }
  for (guint32 k = f->tie_head; k < f->tie_len; k++)
    {
      guint32 fl = (guint32) f->tie[k];
      f->tie[k] = tie_key (flow_at (f, fl)->seq, fl);
    }
}

void
_sim_flows_heap_clear (SimFlows *f)
{
  g_clear_pointer (&f->tie, g_free);
  f->tie_size = f->tie_len = f->tie_head = f->tie_live = 0;
}
