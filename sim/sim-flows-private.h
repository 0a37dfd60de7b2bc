/* sim-flows-private.h — the records that the files of the flows' sharing
 * share (sim-flows.c, sim-flows-heap.c, sim-flows-win.c, sim-flows-fill.c,
 * sim-flows-solve.c), their inline accessors, and the few functions one of
 * them gives another (the leading underscore: private to sim/).  Nothing
 * outside sim/sim-flows*.c includes it.
 *
 * Who calls whom (no circle): sim-flows.c (adding, popping, cancelling)
 * calls the leaves sim-flows-heap.c (the completion heap) and
 * sim-flows-win.c (the windows' records); sim-flows-solve.c
 * (sim_flows_update: what is re-solved, the incremental solve) calls
 * those two and sim-flows-fill.c (the whole-component filling, one
 * resource's evaluation for the incremental solve, and
 * sim_flows_check), a leaf that calls nothing but this header's
 * inlines.  None of them calls sim-flows.c. */
#pragma once

#include "base/dl-avec.h"
#include "sim/sim-flows.h"
#include "sim/sim-ramp-private.h"

#include <math.h>

#define NONE G_MAXUINT32
#define IN_TIE (G_MAXUINT32 - 1)   /* Flow.hpos: its entry is in the tie (sim-flows-heap.c) */

/* A flow in flight: 64 bytes, one cache line (a million are in flight
 * at 1 000 peers; the array keeps each on its line: dl-avec.h).  Its next event at its rate, its completion or (ramp)
 * its window's growth, is its completion heap entry's key (flow_end): a
 * live flow has an entry exactly when it has a next event. */
typedef struct {
  double rem;           /* bytes left at t_upd */
  double rate;          /* bytes per ns since t_upd (0: not solved yet) */
  DlTime t_upd;
  guint32 user;
  guint32 seq;          /* the order of adding: ties at one completion time
                           (renumbered, in order, when the counter wraps) */
  guint32 res[2];
  guint32 pos[2];       /* its slot in res[k]'s (free: pos[0], the next free flow) */
  guint32 hpos;         /* its entry in the completion heap, NONE: none,
                           IN_TIE: in the tie, at tie_t */
  guint32 mark;         /* the solve that last visited it */
  guint32 win;          /* its window (FlowWin, or FlowTail once tail is set), NONE: none */
  guint8 live : 1;      /* added and not popped */
  guint8 fixed : 1;     /* in the solve under way: its rate is set */
  guint8 ramping : 1;   /* in slow start: capped at its window / round trip */
  guint8 capped : 1;    /* in the last solve: fixed at its cap */
  guint8 ramp : 1;      /* its next event is its window's growth, not its completion */
  guint8 tail : 1;      /* win is a FlowTail: out of slow start, or not solved yet */
  guint8 kept : 1;      /* in a whole solve, from prepare to settle_flow: its next event
                           stood before it, and its rate has not moved (fix_flow) */
  guint8 kind;          /* a FlowTail not solved yet: its growth (kinds) */
} Flow;

G_STATIC_ASSERT (sizeof (Flow) == 64);

/* A flow's window (sim-ramp-private.h). */
typedef SimRampWin FlowWin;

/* What a window keeps once its flow is out of slow start: the window
 * (whole bytes, as its connection keeps it) and the round trip (for its
 * weight and its share's bytes per round trip).  A quarter of a FlowWin:
 * at 1 000 peers a million flows are in flight, nearly all past slow
 * start.  A flow with a window starts as a FlowTail too (its growth in
 * kinds), and becomes a FlowWin at its first solve only if its window
 * caps it: at 1 000 peers a million flows start at one instant, and
 * their share is below their first window's rate. */
typedef struct {
  guint32 cwnd;         /* bytes (free: the next free one) */
  guint32 rtt;          /* ns */
} FlowTail;

/* What the evaluation (_sim_flows_res_eval) and incr_rate read of a
 * flow with a window, kept apart from its records (SimFlows.hot, by
 * flow): its weight, and its cap while in slow start.  Without it an
 * evaluation (then res_eval) loaded per slot the flow's 64-byte record
 * and then its window's, two dependent loads of two arrays that at
 * 2 000 gossip peers no longer sit in a 1 MiB L2 (16 000 flows: 1 MB
 * of records, 0.6 MB of windows; 256 KB of these): cachegrind counted
 * 1.2 of res_eval's 1.8 million LL misses there (docs/performance.md,
 * sl23 and rk26).  Copies: hot_sync sets them where a flow's window,
 * slow start or window size moves, and sim_flows_check compares them
 * with their sources. */
typedef struct {
  double w;             /* flow_weight; 0: no window (nor an entry to read) */
  double cap;           /* in slow start: its window / its round trip, bytes per ns; 0: not */
} FlowHot;

/* a window's growth (sim-ramp-private.h) */
typedef SimRampKind FlowKind;

/* one of a resource's flows, and the other resource that flow crosses:
 * what an evaluation needs, 8 bytes in a row instead of a record each */
typedef struct {
  guint32 flow;         /* NONE: a hole (a flow that left) */
  guint32 other;        /* NONE: none */
} Slot;

typedef struct {
  double cap;           /* bytes per ns; 0: not set */
  Slot *slots;          /* its flows, in the order they were added (seq
                           order), with holes where flows left */
  guint32 len, size;    /* slots used, allocated */
  guint32 holes;        /* (compacted, in order, once over count) */
  guint32 count;
  guint32 mark;         /* the solve that last visited it */
  gboolean dirty;       /* a flow was added or popped since the last solve */
  double left;          /* in a solve: capacity not yet given to fixed flows */
  guint32 unfixed;      /* in a solve: its flows not yet fixed */
  double wextra;        /* in a solve: the sum of (weight - 1) of those flows
                           (0 without windows: their weight is 1) */
  double key, lvl;      /* in the last solve: the share of the key it saturated
                           at and its share then (key INFINITY: it did not) */
  double nkey, nlvl;    /* in an incremental solve: the new key and share
                           (while not done: its last evaluation's, see evald) */
  double pend;          /* in an incremental solve: its entry's key in iheap */
  guint32 act;          /* the incremental solve that activated it */
  guint32 touched;      /* that solve, while its entry waits to be computed again */
  gboolean done;        /* in that solve: saturated (nkey, nlvl set) */
  guint32 wlive;        /* with timeouts: live flows with a window whose res_b it is */
  guint32 conv;         /* the most of them at once since it was last empty */
  guint32 evald;        /* the incremental solve (Res.act's epoch) whose last
                           evaluation of it still stands: no input moved since */
} Res;

/* a resource's share, or (flow set) a ramping flow's cap */
typedef struct {
  double share;
  guint32 res;
  guint32 flow;         /* a flow's index + 1 (0: a resource) */
} ResKey;

/* an incremental solve's event: a resource's saturation at its key
 * (share, res), or (old) where its saturation was in the last solve */
typedef struct {
  double share;
  guint32 res;
  guint32 old;          /* 0: a new key; 1: the old one (after a new one at the same key) */
} IEnt;

/* what a resource sees of a flow fixed elsewhere: when (the key of the
 * event that fixed it: a neighbour's saturation or the flow's own cap),
 * in which order (its seq), and what it takes */
typedef struct {
  double share;         /* the event's key: (share, res), or (share, flow) */
  guint32 res;
  guint32 flow;         /* a cap's flow's index + 1 (0: a neighbour's saturation) */
  double rate, w;
  guint64 seq;          /* (its slot in the resource: slots are in seq order) */
} Input;

/* a flow held for a timeout (sim_flows_set_timeouts): handed back at t */
typedef struct {
  DlTime t;
  guint64 seq, user, cwnd;
  guint32 res[2];
} Held;

/* a completion heap entry (sim-flows-heap.c) */
typedef struct {
  DlTime t_end;
  guint32 flow;
  guint32 seq;          /* the flow's seq */
} HeapEnt;

struct SimFlows {
  DlAvec flows;         /* Flow, by index, each on its line (dl-avec.h); a
                           free one is on the free list */
  guint32 free;         /* first free flow (its pos[0] the next), NONE */
  GArray *wins;         /* FlowWin, by index; free ones listed from free_win */
  guint32 free_win;
  GArray *tails;        /* FlowTail, by index; free ones listed from free_tail */
  guint32 free_tail;
  GArray *kinds;        /* FlowKind: the growths seen (at most 256) */
  GArray *hot;          /* FlowHot, by flow, zeroed when made: up to the last flow
                           that had a window (none: without windows, no memory) */
  DlAvec res;           /* Res, by resource id, on lines (dl-avec.h) */
  GArray *dirty;        /* guint32: resources with dirty set */
  GArray *heap;         /* HeapEnt: completions by (t_end, seq), but the tie's */
  /* the tie: completions at one time apart from the heap (sim-flows-heap.c) */
  guint64 *tie;         /* seq << 32 | flow, live from tie_head to tie_len */
  guint32 tie_head, tie_len, tie_size;
  guint32 tie_live;     /* the flows whose entry it is (hpos IN_TIE) */
  DlTime tie_t;
  gboolean tie_sorted;  /* tie_head to tie_len ascending */
  gboolean tie_closed;  /* taken from: it takes only entries after its last */
  DlTime tie_rival_t;   /* the time most refused entries had (a majority vote) */
  guint32 tie_rival_n;  /* its votes: more than tie_live, and it takes the tie's place */
  guint32 epoch;
  guint64 seq;          /* the next flow's seq (at 2^32: the live ones renumbered) */
  guint live;
  guint64 solved;
  /* a solve's scratch, kept between solves */
  GArray *comp_res;                /* guint32: the components' resources, in the walk's
                                      order (their flows: comp_next) */
  guint comp_nflows;               /* their flows */
  GArray *cancelled;               /* guint32: sim_flows_cancel's flows */
  GArray *rheap;                   /* ResKey: min-heap by (share, res) */
  GArray *caps;                    /* ResKey: the ramping flows' caps, sorted */
  guint windowed;                  /* live flows with a window */
  GArray *iheap;                   /* IEnt: an incremental solve's events */
  GArray *inputs;                  /* Input: one resource's, in _sim_flows_res_eval */
  GArray *act_res;                 /* guint32: the resources it activated */
  GArray *touched;                 /* guint32: those whose entry waits (Res.touched) */
  GArray *unramped;                /* guint32: flows whose slow start ended before a solve */
  GArray *fresh;                   /* guint32: flows added or grown since the last update
                                      (their next event to be made; stale ones skipped) */
  guint64 work;                    /* its cost so far (flows looked at) */
  guint32 iepoch;                  /* its epoch (Res.act) */
  /* timeouts where flows converge (0: none) */
  DlTime min_rto;
  double queue_bdp;
  double seg_bytes;
  GArray *held;                    /* Held, by (t, seq) */
};

static inline Flow *
flow_at (const SimFlows *f, guint32 i)
{
  return (Flow *) dl_avec_at (&f->flows, i);
}

static inline FlowWin *
win_of (SimFlows *f, const Flow *x)
{
  return &g_array_index (f->wins, FlowWin, x->win);
}

static inline FlowTail *
tail_of (SimFlows *f, const Flow *x)
{
  return &g_array_index (f->tails, FlowTail, x->win);
}

/* a flow's round trip and window, wherever its window is (it has one) */
static inline DlTime
flow_rtt (SimFlows *f, const Flow *x)
{
  return x->tail ? (DlTime) tail_of (f, x)->rtt : win_of (f, x)->rtt;
}

static inline double
flow_cwnd (SimFlows *f, const Flow *x)
{
  return x->tail ? (double) tail_of (f, x)->cwnd : win_of (f, x)->cwnd;
}

/* Array a cut to its first len elements (len at most its length) without
 * a call into GLib: g_array_set_size to a shorter length goes through
 * g_array_remove_range (its checks, a memmove of nothing): 1.6 % of
 * the push-pull reproduction at 20 000 nodes, where nearly every message
 * is a solve of its own (perf, docs/performance.md, gg19).  Only for SimFlows' arrays: made by
 * g_array_new (FALSE, ...), with no clear function, nothing to clear. */
static inline void
array_cut (GArray *a, guint len)
{
  a->len = len;
}

static inline Res *
res_at (SimFlows *f, guint32 r)
{
  return (Res *) dl_avec_at (&f->res, r);
}

/* Where resource z saturates, as far as the incremental solve under way
 * knows: once re-computed, its new key (none before it saturates); else
 * its last (sim-flows-solve.c, and its evaluation in sim-flows-fill.c). */
static inline gboolean
res_known (const SimFlows *f, const Res *z, double *key, double *lvl)
{
  if (z->act == f->iepoch)
    {
      *key = z->nkey;
      *lvl = z->nlvl;
      return z->done;
    }
  *key = z->key;
  *lvl = z->lvl;
  return !isinf (z->key);
}

/* flow x's next event (DL_TIME_NEVER: none, not solved since its start
 * or its last growth) */
static inline DlTime
flow_end (const SimFlows *f, const Flow *x)
{
  if (x->hpos == IN_TIE)
    return f->tie_t;
  return x->hpos == NONE ? DL_TIME_NEVER : g_array_index (f->heap, HeapEnt, x->hpos).t_end;
}

/* A flow's weight in the sharing: 1 without a window; with one, (1 s /
 * its round trip)^(1/2), so that where flows of different round trips
 * share a bottleneck the shorter one gets more, as ns-3's CUBIC gives
 * (docs/world.md, "ns-3": mixed round trips). */
static inline double
flow_weight (SimFlows *f, const Flow *x)
{
  return x->win == NONE ? 1.0 : sqrt ((double) DL_S / (double) flow_rtt (f, x));
}

/* What flow x's FlowHot holds, from its records (hot_sync, sim_flows_check) */
static inline FlowHot
hot_of_records (SimFlows *f, const Flow *x)
{
  if (x->win == NONE)
    return (FlowHot) { 0, 0 };
  return (FlowHot) { flow_weight (f, x), x->ramping ? flow_cwnd (f, x) / (double) flow_rtt (f, x) : 0 };
}

/* Flow i's FlowHot made again from its records: where it is added or
 * unlinked, its window grows or its slow start ends.  A flow that never
 * had a window past the array's end keeps it as it is. */
static inline void
hot_sync (SimFlows *f, guint32 i)
{
  const Flow *x = flow_at (f, i);
  if (i >= f->hot->len)
    {
      if (x->win == NONE)
        return;
      g_array_set_size (f->hot, i + 1);
    }
  g_array_index (f->hot, FlowHot, i) = hot_of_records (f, x);
}

/* flow j's FlowHot, when some flow has a window (f->windowed) */
static inline FlowHot
hot_at (const SimFlows *f, guint32 j)
{
  return j < f->hot->len ? g_array_index (f->hot, FlowHot, j) : (FlowHot) { 0, 0 };
}

static inline DlTime
end_time (DlTime now, double rem, double rate)
{
  if (rem <= 0)
    return now;
  double dt = ceil (rem / rate);
  if (!(dt < (double) (DL_TIME_NEVER - 1 - now)))
    return DL_TIME_NEVER - 1;
  return now + (DlTime) dt;
}

/* x's bytes left now, at the rate it had since t_upd */
static inline void
recount (Flow *x, double rate, DlTime now)
{
  if (rate > 0)
    x->rem = MAX (0.0, x->rem - rate * (double) (now - x->t_upd));
  x->t_upd = now;
}

/* A walk over the components' flows (_sim_flows_collect_components):
 * each once, in the order its walk found them, its resources' slots in
 * order.  A fresh epoch marks the flows seen; nothing may change the
 * slots meanwhile. */
typedef struct {
  guint ri;             /* the resource in comp_res */
  guint32 si;           /* the next slot in it */
  guint32 epoch;
} CompIter;

static inline void
comp_iter_init (SimFlows *f, CompIter *it)
{
  *it = (CompIter) { 0, 0, ++f->epoch };
}

static inline gboolean
comp_next (SimFlows *f, CompIter *it, guint32 *out)
{
  for (; it->ri < f->comp_res->len; it->ri++, it->si = 0)
    {
      const Res *y = res_at (f, g_array_index (f->comp_res, guint32, it->ri));
      while (it->si < y->len)
        {
          guint32 j = y->slots[it->si++].flow;
          if (j != NONE && flow_at (f, j)->mark != it->epoch)
            {
              flow_at (f, j)->mark = it->epoch;
              *out = j;
              return TRUE;
            }
        }
    }
  return FALSE;
}

/* the completion heap (sim-flows-heap.c) */
void _sim_flows_heap_set (SimFlows *f, guint32 fl, DlTime t_end);
void _sim_flows_heap_remove (SimFlows *f, guint32 fl);
gboolean _sim_flows_heap_first (SimFlows *f, DlTime now, HeapEnt *out);
DlTime _sim_flows_heap_next (const SimFlows *f);
void _sim_flows_heap_drop_stale (SimFlows *f);
void _sim_flows_heap_reseq (SimFlows *f);
void _sim_flows_heap_clear (SimFlows *f);

/* the windows' records (sim-flows-win.c) */
void _sim_flows_win_new (SimFlows *f, Flow *x);
void _sim_flows_tail_new (SimFlows *f, Flow *x);
void _sim_flows_expand (SimFlows *f, Flow *x, DlTime t_ramp);
void _sim_flows_to_tail (SimFlows *f, Flow *x);

/* the whole-component filling (sim-flows-fill.c) */
void _sim_flows_collect_components (SimFlows *f, guint32 epoch);
void _sim_flows_fill (SimFlows *f, DlTime now);
gboolean _sim_flows_res_eval (SimFlows *f, guint32 r, double *key, double *lvl);
