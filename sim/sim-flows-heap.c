/* sim-flows-heap.c — the flows' completion heap (a leaf of sim-flows.c
 * and sim-flows-solve.c: it includes only sim-flows-private.h and calls
 * nothing back): each live flow's next event, its completion or its
 * window's growth, by (time, seq). */
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

/* flow fl's entry at t_end, its next event: a new one, or its own moved */
void
_sim_flows_heap_set (SimFlows *f, guint32 fl, DlTime t_end)
{
  Flow *x = flow_at (f, fl);
  HeapEnt e = { t_end, fl, x->seq };
  if (x->hpos == NONE)
    {
      g_array_set_size (f->heap, f->heap->len + 1);
      heap_sift_up (f, f->heap->len - 1, e);
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
