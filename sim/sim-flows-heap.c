/* sim-flows-heap.c — the flows' completions (a leaf of sim-flows.c and
 * sim-flows-solve.c: it includes only sim-flows-private.h and calls
 * nothing back): each live flow's next event, its completion or its
 * window's growth, by (time, seq), in a run or a heap.
 *
 * The run: an entry that comes after every entry added to the run so far
 * is appended to it, a ring in (time, seq) order, so its first entry is
 * its least.  In an all-to-all every completion is added so (a flow's
 * end after those of the flows added before it: issue 44, 3 004 999 of
 * 3 004 999 at 1 000 peers), and the heap below stays empty: adding and
 * taking the least are O(1), and taking it writes no other flow's hpos
 * (in the heap, its sift-down rewrote one flow record a level, ten
 * levels at a million flows: perf, 9.6 % of the 1 000-peer run).  The
 * others go to the heap.  An entry taken out of the middle of the run
 * (a flow cancelled, or whose completion moved) stays there as a hole
 * (flow NONE) until the first entry passes it; once the holes are more
 * than the live entries, the run is closed up.  The least entry is the
 * lesser of the run's first and the heap's top, so the order is the one
 * heap alone gave: (time, seq) orders the live flows totally. */
#include "config.h"

#include "sim/sim-flows-private.h"

/* A 4-ary min-heap of (t_end, flow, seq) entries, 16 bytes, the keys in
 * the array itself: a comparison reads no flow record (perf: the
 * sift-down that read two records per comparison was 17 % of a 1 000-peer
 * all-to-all).  Ties at one t_end go by the flows' seq (32 bits: the
 * live flows' are renumbered when the counter wraps, renumber_seqs).
 * The entry's t_end is the flow's next event (flow_end).  A flow keeps its entry's position (hpos): a flow whose
 * completion changes moves its entry, and a flow cancelled takes it out,
 * so no entry is stale and the heap holds one per flow at most. */
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

/* the run's entry number k */
static inline HeapEnt *
run_at (const SimFlows *f, guint32 k)
{
  return &f->run[k & f->run_mask];
}

/* the run's size doubled (its entries keep their numbers) */
static void
run_grow (SimFlows *f)
{
  guint32 size = f->run ? 2 * (f->run_mask + 1) : 1024;
  g_assert (size <= RUN_BIT);
  HeapEnt *r = g_new (HeapEnt, size);
  for (guint32 k = f->run_head; k != f->run_tail; k++)
    r[k & (size - 1)] = *run_at (f, k);
  g_free (f->run);
  f->run = r;
  f->run_mask = size - 1;
}

/* e appended to the run (it comes after every entry added to it) */
static void
run_append (SimFlows *f, HeapEnt e)
{
  if (!f->run || f->run_tail - f->run_head > f->run_mask)
    run_grow (f);
  *run_at (f, f->run_tail) = e;
  flow_at (f, e.flow)->hpos = RUN_BIT | (f->run_tail & RUN_NUM);
  f->run_tail++;
}

/* the run without its holes, its live entries renumbered in order */
static void
run_close_up (SimFlows *f)
{
  guint32 w = f->run_head;
  for (guint32 k = f->run_head; k != f->run_tail; k++)
    {
      HeapEnt e = *run_at (f, k);
      if (e.flow == NONE)
        continue;
      *run_at (f, w) = e;
      flow_at (f, e.flow)->hpos = RUN_BIT | (w & RUN_NUM);
      w++;
    }
  f->run_tail = w;
  f->run_dead = 0;
}

/* The run's entry at hpos taken out: a hole, passed if it is first (so
 * the first entry is live), the run closed up once its holes are more
 * than its live entries. */
static void
run_take (SimFlows *f, guint32 hpos)
{
  run_at (f, hpos)->flow = NONE;
  f->run_dead++;
  while (f->run_head != f->run_tail && run_at (f, f->run_head)->flow == NONE)
    {
      f->run_head++;
      f->run_dead--;
    }
  if (f->run_dead > 64 && f->run_dead > f->run_tail - f->run_head - f->run_dead)
    run_close_up (f);
}

/* whether e may be appended to the run: after its last entry added (a
 * hole keeps its key: every live entry is at or before it) */
static inline gboolean
run_takes (const SimFlows *f, const HeapEnt *e)
{
  return f->run_head == f->run_tail || !ent_before (f, e, run_at (f, f->run_tail - 1));
}

/* e, a new entry, in the run if it comes last, else in the heap */
static void
heap_add (SimFlows *f, HeapEnt e)
{
  if (run_takes (f, &e))
    {
      run_append (f, e);
      return;
    }
  g_array_set_size (f->heap, f->heap->len + 1);
  heap_sift_up (f, f->heap->len - 1, e);
}

/* flow fl's entry at t_end, its next event: a new one, or its own moved
 * (out of the run and added again, or within the heap) */
void
_sim_flows_heap_set (SimFlows *f, guint32 fl, DlTime t_end)
{
  Flow *x = flow_at (f, fl);
  HeapEnt e = { t_end, fl, x->seq };
  if (x->hpos != NONE && (x->hpos & RUN_BIT))
    {
      run_take (f, x->hpos);
      x->hpos = NONE;
    }
  if (x->hpos == NONE)
    {
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
  guint pos = x->hpos;
  x->hpos = NONE;
  if (pos & RUN_BIT)
    {
      run_take (f, pos);
      return;
    }
  guint n = f->heap->len - 1;
  HeapEnt last = g_array_index (f->heap, HeapEnt, n);
  g_array_set_size (f->heap, n);
  if (pos == n)
    return;
  if (pos > 0 && ent_before (f, &last, &g_array_index (f->heap, HeapEnt, (pos - 1) / 4)))
    heap_sift_up (f, pos, last);
  else
    heap_sift_down (f, pos, last);
}

/* the least entry, the run's first or the heap's top (NULL: none) */
const HeapEnt *
_sim_flows_heap_top (const SimFlows *f)
{
  const HeapEnt *h = f->heap->len ? &g_array_index (f->heap, HeapEnt, 0) : NULL;
  if (f->run_head == f->run_tail)
    return h;
  const HeapEnt *r = run_at (f, f->run_head);
  return h && ent_before (f, h, r) ? h : r;
}

/* the entries' seqs taken from their flows again (renumber_seqs: the
 * order between live flows stands, so the run's order does; its holes,
 * whose keys would not, go) */
void
_sim_flows_heap_reseq (SimFlows *f)
{
  for (guint i = 0; i < f->heap->len; i++)
    {
      HeapEnt *e = &g_array_index (f->heap, HeapEnt, i);
      e->seq = flow_at (f, e->flow)->seq;
    }
  run_close_up (f);
  for (guint32 k = f->run_head; k != f->run_tail; k++)
    run_at (f, k)->seq = flow_at (f, run_at (f, k)->flow)->seq;
}

/* the run's memory given back (sim_flows_free) */
void
_sim_flows_heap_clear (SimFlows *f)
{
  g_clear_pointer (&f->run, g_free);
  f->run_mask = f->run_head = f->run_tail = f->run_dead = 0;
}
