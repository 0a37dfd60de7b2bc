/* sim-flows.c — max-min fair sharing of resources among flows (a leaf:
 * it includes only its own header and base/, and calls nothing back).
 *
 * The solve is progressive filling (Bertsekas and Gallager, Data Networks,
 * §6.5.2): raise every unfixed flow's rate together; the resource whose
 * capacity left divided by its unfixed flows is smallest saturates first,
 * its flows are fixed at that share and leave the others; repeat.  A heap
 * of resources by share gives the next one; a resource's share only grows
 * as flows are fixed elsewhere, so a stale heap entry is pushed again with
 * its current share when it comes up (no decrease-key).
 *
 * What is re-solved: the components (flows and the resources they cross,
 * joined by shared resources) that hold a resource where a flow was added
 * or popped since the last solve.  A flow outside them keeps its rate, its
 * bytes left at its last solve and its completion in the heap: nothing
 * about it changes (lazy, as SimGrid's selective update of its LMM).
 *
 * Not modelled: anything below the fluid model.  No slow start, no
 * congestion window, no loss, no header bytes: a flow gets its fair share
 * from its first byte (SimGrid's CM02 model without its TCP factors).
 * Time is integer ns; a completion is rounded up to the next ns. */
#include "config.h"

#include "sim/sim-flows.h"

#include <math.h>

#define NONE G_MAXUINT32

typedef struct {
  double rem;           /* bytes left at t_upd */
  double rate;          /* bytes per ns since t_upd (0: not solved yet) */
  DlTime t_upd, t_end;  /* t_end: when it completes at that rate (in the heap) */
  guint64 user;
  guint64 seq;          /* the order of adding: ties at one completion time */
  guint32 res[2];
  guint32 next[2], prev[2];  /* in the list of res[k] */
  guint32 heap;         /* its index in the completion heap, NONE outside */
  guint32 mark;         /* the solve that last visited it */
  gboolean fixed;       /* in the solve under way: its rate is set */
} Flow;

typedef struct {
  double cap;           /* bytes per ns; 0: not set */
  guint32 head, tail;   /* its flows, in the order they were added */
  guint32 count;
  guint32 mark;         /* the solve that last visited it */
  gboolean dirty;       /* a flow was added or popped since the last solve */
  double left;          /* in a solve: capacity not yet given to fixed flows */
  guint32 unfixed;      /* in a solve: its flows not yet fixed */
} Res;

typedef struct {
  double share;
  guint32 res;
} ResKey;

struct SimFlows {
  GArray *flows;        /* Flow, by index; a free one is on the free list */
  guint32 free;         /* first free flow (its next[0] the next), NONE */
  GArray *res;          /* Res, by resource id */
  GArray *dirty;        /* guint32: resources with dirty set */
  GArray *heap;         /* guint32 flow indices: completion heap by (t_end, seq) */
  guint32 epoch;
  guint64 seq;
  guint live;
  guint64 solved;
  /* a solve's scratch, kept between solves */
  GArray *comp_res, *comp_flows;   /* guint32 */
  GArray *rheap;                   /* ResKey: min-heap by (share, res) */
};

static inline Flow *
flow_at (SimFlows *f, guint32 i)
{
  return &g_array_index (f->flows, Flow, i);
}

static inline Res *
res_at (SimFlows *f, guint32 r)
{
  return &g_array_index (f->res, Res, r);
}

SimFlows *
sim_flows_new (void)
{
  SimFlows *f = g_new0 (SimFlows, 1);
  f->flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  f->free = NONE;
  f->res = g_array_new (FALSE, TRUE, sizeof (Res));
  f->dirty = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->heap = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->comp_res = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->comp_flows = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->rheap = g_array_new (FALSE, FALSE, sizeof (ResKey));
  return f;
}

void
sim_flows_free (SimFlows *f)
{
  if (!f)
    return;
  g_array_unref (f->flows);
  g_array_unref (f->res);
  g_array_unref (f->dirty);
  g_array_unref (f->heap);
  g_array_unref (f->comp_res);
  g_array_unref (f->comp_flows);
  g_array_unref (f->rheap);
  g_free (f);
}

static void
res_ensure (SimFlows *f, guint32 r)
{
  if (r >= f->res->len)
    {
      guint old = f->res->len;
      g_array_set_size (f->res, MAX (r + 1, old * 2));
      for (guint i = old; i < f->res->len; i++)
        res_at (f, i)->head = res_at (f, i)->tail = NONE;
    }
}

void
sim_flows_set_capacity (SimFlows *f, guint32 r, uint64_t bps)
{
  g_return_if_fail (r != NONE && bps > 0);
  res_ensure (f, r);
  Res *x = res_at (f, r);
  g_return_if_fail (x->count == 0 || x->cap == (double) bps / 8e9);
  x->cap = (double) bps / 8e9;
}

gboolean
sim_flows_has_capacity (const SimFlows *f, guint32 r)
{
  return r < f->res->len && g_array_index (f->res, Res, r).cap > 0;
}

guint
sim_flows_count (const SimFlows *f)
{
  return f->live;
}

guint64
sim_flows_solved (const SimFlows *f)
{
  return f->solved;
}

/* ---------------------------------------------------------------- the completion heap */

static inline gboolean
flow_before (SimFlows *f, guint32 a, guint32 b)
{
  const Flow *x = flow_at (f, a), *y = flow_at (f, b);
  return x->t_end < y->t_end || (x->t_end == y->t_end && x->seq < y->seq);
}

static inline void
heap_set (SimFlows *f, guint pos, guint32 fl)
{
  g_array_index (f->heap, guint32, pos) = fl;
  flow_at (f, fl)->heap = pos;
}

static void
heap_up (SimFlows *f, guint pos)
{
  guint32 fl = g_array_index (f->heap, guint32, pos);
  while (pos > 0)
    {
      guint parent = (pos - 1) / 2;
      guint32 p = g_array_index (f->heap, guint32, parent);
      if (!flow_before (f, fl, p))
        break;
      heap_set (f, pos, p);
      pos = parent;
    }
  heap_set (f, pos, fl);
}

static void
heap_down (SimFlows *f, guint pos)
{
  guint n = f->heap->len;
  guint32 fl = g_array_index (f->heap, guint32, pos);
  for (;;)
    {
      guint c = 2 * pos + 1;
      if (c >= n)
        break;
      if (c + 1 < n && flow_before (f, g_array_index (f->heap, guint32, c + 1), g_array_index (f->heap, guint32, c)))
        c++;
      guint32 cf = g_array_index (f->heap, guint32, c);
      if (!flow_before (f, cf, fl))
        break;
      heap_set (f, pos, cf);
      pos = c;
    }
  heap_set (f, pos, fl);
}

/* fl's t_end changed: put it where it belongs (in the heap or not yet) */
static void
heap_place (SimFlows *f, guint32 fl)
{
  Flow *x = flow_at (f, fl);
  if (x->heap == NONE)
    {
      g_array_append_val (f->heap, fl);
      x->heap = f->heap->len - 1;
      heap_up (f, x->heap);
      return;
    }
  guint pos = x->heap;
  heap_up (f, pos);
  if (flow_at (f, fl)->heap == pos)
    heap_down (f, pos);
}

static void
heap_remove (SimFlows *f, guint32 fl)
{
  guint pos = flow_at (f, fl)->heap;
  guint last = f->heap->len - 1;
  flow_at (f, fl)->heap = NONE;
  if (pos != last)
    {
      guint32 moved = g_array_index (f->heap, guint32, last);
      g_array_set_size (f->heap, last);
      heap_set (f, pos, moved);
      heap_up (f, pos);
      if (flow_at (f, moved)->heap == pos)
        heap_down (f, pos);
    }
  else
    g_array_set_size (f->heap, last);
}

/* ---------------------------------------------------------------- flows on resources */

static void
mark_dirty (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  if (!x->dirty)
    {
      x->dirty = TRUE;
      g_array_append_val (f->dirty, r);
    }
}

void
sim_flows_add (SimFlows *f, DlTime now, guint32 res_a, guint32 res_b, guint64 bytes, guint64 user)
{
  g_return_if_fail (bytes > 0 && (res_a != NONE || res_b != NONE) && res_a != res_b);
  guint32 i;
  if (f->free != NONE)
    {
      i = f->free;
      f->free = flow_at (f, i)->next[0];
    }
  else
    {
      i = f->flows->len;
      g_array_set_size (f->flows, i + 1);
    }
  Flow *x = flow_at (f, i);
  *x = (Flow) { .rem = (double) bytes, .t_upd = now, .t_end = DL_TIME_NEVER, .user = user, .seq = f->seq++,
                .res = { res_a, res_b }, .heap = NONE };
  for (int k = 0; k < 2; k++)
    {
      x->next[k] = x->prev[k] = NONE;
      guint32 r = x->res[k];
      if (r == NONE)
        continue;
      g_return_if_fail (sim_flows_has_capacity (f, r));
      Res *y = res_at (f, r);
      x->prev[k] = y->tail;
      if (y->tail != NONE)
        {
          Flow *t = flow_at (f, y->tail);
          t->next[t->res[0] == r ? 0 : 1] = i;
        }
      else
        y->head = i;
      y->tail = i;
      y->count++;
      mark_dirty (f, r);
    }
  f->live++;
}

static void
unlink_flow (SimFlows *f, guint32 i)
{
  Flow *x = flow_at (f, i);
  for (int k = 0; k < 2; k++)
    {
      guint32 r = x->res[k];
      if (r == NONE)
        continue;
      Res *y = res_at (f, r);
      if (x->prev[k] != NONE)
        {
          Flow *p = flow_at (f, x->prev[k]);
          p->next[p->res[0] == r ? 0 : 1] = x->next[k];
        }
      else
        y->head = x->next[k];
      if (x->next[k] != NONE)
        {
          Flow *n = flow_at (f, x->next[k]);
          n->prev[n->res[0] == r ? 0 : 1] = x->prev[k];
        }
      else
        y->tail = x->prev[k];
      y->count--;
      mark_dirty (f, r);
    }
  x->next[0] = f->free;
  f->free = i;
  f->live--;
}

DlTime
sim_flows_next (const SimFlows *f)
{
  if (f->heap->len == 0)
    return DL_TIME_NEVER;
  guint32 top = g_array_index (f->heap, guint32, 0);
  return g_array_index (f->flows, Flow, top).t_end;
}

gboolean
sim_flows_pop (SimFlows *f, DlTime now, guint64 *user)
{
  if (f->heap->len == 0)
    return FALSE;
  guint32 top = g_array_index (f->heap, guint32, 0);
  if (flow_at (f, top)->t_end > now)
    return FALSE;
  *user = flow_at (f, top)->user;
  heap_remove (f, top);
  unlink_flow (f, top);
  return TRUE;
}

/* ---------------------------------------------------------------- the solve */

static inline gboolean
key_before (const ResKey *a, const ResKey *b)
{
  return a->share < b->share || (a->share == b->share && a->res < b->res);
}

static void
rheap_push (SimFlows *f, double share, guint32 r)
{
  ResKey k = { share, r };
  g_array_append_val (f->rheap, k);
  ResKey *h = (ResKey *) (void *) f->rheap->data;
  guint pos = f->rheap->len - 1;
  while (pos > 0)
    {
      guint parent = (pos - 1) / 2;
      if (!key_before (&k, &h[parent]))
        break;
      h[pos] = h[parent];
      pos = parent;
    }
  h[pos] = k;
}

static ResKey
rheap_pop (SimFlows *f)
{
  ResKey *h = (ResKey *) (void *) f->rheap->data;
  ResKey top = h[0];
  guint n = f->rheap->len - 1;
  ResKey last = h[n];
  g_array_set_size (f->rheap, n);
  guint pos = 0;
  for (;;)
    {
      guint c = 2 * pos + 1;
      if (c >= n)
        break;
      if (c + 1 < n && key_before (&h[c + 1], &h[c]))
        c++;
      if (!key_before (&h[c], &last))
        break;
      h[pos] = h[c];
      pos = c;
    }
  if (n > 0)
    h[pos] = last;
  return top;
}

/* The share of resource x now: what is left over its unfixed flows (never
 * below a billionth of its capacity, so that rounding cannot stall a flow). */
static inline double
res_share (const Res *x)
{
  return MAX (x->left, x->cap * 1e-9) / x->unfixed;
}

static DlTime
end_time (DlTime now, double rem, double rate)
{
  if (rem <= 0)
    return now;
  double dt = ceil (rem / rate);
  if (!(dt < (double) (DL_TIME_NEVER - 1 - now)))
    return DL_TIME_NEVER - 1;
  return now + (DlTime) dt;
}

void
sim_flows_update (SimFlows *f, DlTime now)
{
  if (f->dirty->len == 0)
    return;
  guint32 epoch = ++f->epoch;
  g_array_set_size (f->comp_res, 0);
  g_array_set_size (f->comp_flows, 0);
  /* the components that hold a dirty resource, in a breadth-first walk */
  for (guint i = 0; i < f->dirty->len; i++)
    {
      guint32 r = g_array_index (f->dirty, guint32, i);
      Res *x = res_at (f, r);
      x->dirty = FALSE;
      if (x->mark != epoch)
        {
          x->mark = epoch;
          g_array_append_val (f->comp_res, r);
        }
    }
  g_array_set_size (f->dirty, 0);
  for (guint i = 0; i < f->comp_res->len; i++)
    {
      guint32 r = g_array_index (f->comp_res, guint32, i);
      for (guint32 j = res_at (f, r)->head; j != NONE;)
        {
          Flow *x = flow_at (f, j);
          int side = x->res[0] == r ? 0 : 1;
          guint32 nx = x->next[side];
          if (x->mark != epoch)
            {
              x->mark = epoch;
              g_array_append_val (f->comp_flows, j);
              guint32 o = x->res[1 - side];
              if (o != NONE && res_at (f, o)->mark != epoch)
                {
                  res_at (f, o)->mark = epoch;
                  g_array_append_val (f->comp_res, o);
                }
            }
          j = nx;
        }
    }
  /* bytes left now, at the rates they had */
  for (guint i = 0; i < f->comp_flows->len; i++)
    {
      Flow *x = flow_at (f, g_array_index (f->comp_flows, guint32, i));
      if (x->rate > 0)
        x->rem = MAX (0.0, x->rem - x->rate * (double) (now - x->t_upd));
      x->t_upd = now;
      x->fixed = FALSE;
    }
  /* progressive filling */
  g_array_set_size (f->rheap, 0);
  for (guint i = 0; i < f->comp_res->len; i++)
    {
      guint32 r = g_array_index (f->comp_res, guint32, i);
      Res *x = res_at (f, r);
      x->left = x->cap;
      x->unfixed = x->count;
      if (x->unfixed)
        rheap_push (f, res_share (x), r);
    }
  while (f->rheap->len)
    {
      ResKey k = rheap_pop (f);
      Res *x = res_at (f, k.res);
      if (x->unfixed == 0)
        continue;
      double share = res_share (x);
      if (share > k.share)
        {
          rheap_push (f, share, k.res);   /* grew since it was pushed */
          continue;
        }
      for (guint32 j = x->head; j != NONE;)
        {
          Flow *y = flow_at (f, j);
          int side = y->res[0] == k.res ? 0 : 1;
          if (!y->fixed)
            {
              y->fixed = TRUE;
              y->rate = share;
              guint32 o = y->res[1 - side];
              if (o != NONE)
                {
                  Res *z = res_at (f, o);
                  z->left -= share;
                  z->unfixed--;
                }
            }
          j = y->next[side];
        }
      x->unfixed = 0;
    }
  for (guint i = 0; i < f->comp_flows->len; i++)
    {
      guint32 j = g_array_index (f->comp_flows, guint32, i);
      Flow *x = flow_at (f, j);
      DlTime end = end_time (now, x->rem, x->rate);
      if (end != x->t_end || x->heap == NONE)
        {
          x->t_end = end;
          heap_place (f, j);
        }
    }
  f->solved += f->comp_flows->len;
}

/* ---------------------------------------------------------------- the check */

gboolean
sim_flows_check (SimFlows *f, GString *why)
{
  guint nres = f->res->len;
  g_autofree double *sum = g_new0 (double, nres);
  g_autofree double *top = g_new0 (double, nres);
  for (guint32 i = 0; i < f->flows->len; i++)
    {
      Flow *x = flow_at (f, i);
      if (x->heap == NONE)
        continue;   /* free, or added and not solved yet */
      for (int k = 0; k < 2; k++)
        if (x->res[k] != NONE)
          {
            sum[x->res[k]] += x->rate;
            top[x->res[k]] = MAX (top[x->res[k]], x->rate);
          }
    }
  for (guint r = 0; r < nres; r++)
    if (sum[r] > res_at (f, r)->cap * (1 + 1e-9))
      {
        g_string_append_printf (why, "resource %u: %.9g bytes/ns given, capacity %.9g", r, sum[r], res_at (f, r)->cap);
        return FALSE;
      }
  for (guint32 i = 0; i < f->flows->len; i++)
    {
      Flow *x = flow_at (f, i);
      if (x->heap == NONE)
        continue;
      gboolean bottleneck = FALSE;
      for (int k = 0; k < 2; k++)
        {
          guint32 r = x->res[k];
          if (r != NONE && sum[r] >= res_at (f, r)->cap * (1 - 1e-9) && x->rate >= top[r] * (1 - 1e-9))
            bottleneck = TRUE;
        }
      if (!bottleneck)
        {
          g_string_append_printf (why, "flow %u (resources %u, %u) at %.9g bytes/ns has no bottleneck", i, x->res[0],
                                  x->res[1], x->rate);
          return FALSE;
        }
    }
  return TRUE;
}
