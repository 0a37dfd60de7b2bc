/* sim-flows.c — max-min fair sharing of resources among flows (a leaf:
 * it includes only its own header, base/ and the windows' growth, its own
 * leaf sim-ramp.c, and calls nothing back).
 *
 * The solve is progressive filling (Bertsekas and Gallager, Data Networks,
 * §6.5.2): raise every unfixed flow's rate together; the resource whose
 * capacity left divided by its unfixed flows is smallest saturates first,
 * its flows are fixed at that share and leave the others; repeat.  A heap
 * of resources by share gives the next one; a resource's share only grows
 * as flows are fixed elsewhere, so a stale heap entry is pushed again with
 * its current share when it comes up (no decrease-key).
 *
 * What is re-solved: the resources whose saturation a change can move
 * (the incremental solve, below), from those where a flow was added,
 * popped or grew its window, or whose capacity changed, since the last
 * solve; or where that is dearer, the components (flows and the
 * resources they cross, joined by shared resources) that hold them,
 * filled whole.  A flow elsewhere keeps its rate, its bytes left at its
 * last solve and its next event in the heap: nothing about it changes
 * (lazy, as SimGrid's selective update of its LMM).  Nor does anything
 * change for a flow re-solved whose rate comes out the same, bit for bit,
 * in slow start or not: its bytes left are counted again (and in slow
 * start, whether they fit in its window) only at its own events, its
 * start, its rate's moves, its growths, so its end depends on its own
 * rates alone, not on which solves of its component it saw.
 *
 * Slow start (sim_flows_add_window): a flow with a round trip and a
 * congestion window is also capped at window / round trip, a limit of its
 * own in the filling (a capped flow is fixed at its cap when that is
 * below every share it could get).  The window grows every round trip,
 * doubling or as the caller says (x growth - lag: TCP with a delayed ACK
 * at each round's end goes 10, 19, 37, 73 segments) (a ramp event: the
 * resources the grown flow crosses are re-solved then, incr_windowed)
 * until the flow
 * gets less than its cap (it has reached its share) or everything it has
 * left fits in its window (the last round goes at the share, as TCP's
 * last burst goes at line rate); from then on it is a flow without a
 * cap.  So in round k it moves its window's bytes, as TCP's burst and
 * wait do, and the ramp costs at most log_growth(bytes / initial
 * window) re-solves.  With HyStart (a TCP flow's hystart_seg), slow start
 * may end early where CUBIC's HyStart would end it (sim-ramp.c); the
 * window then stays one round and grows by x 1.05 a round trip after,
 * ns-3's CUBIC before any loss,
 * until the flow is at its share: a ramp event a round, at most
 * log_1.05(share / window) of them.
 *
 * Round trips in the sharing: a flow with a window weighs (1 s / its
 * round trip)^(1/2), and the filling is weighted (a flow's rate is its
 * weight times the level at which its bottleneck saturates).  ns-3's
 * CUBIC gives a flow with a 10 ms round trip 1.3 to 4.6 times what one
 * with 100 ms gets on a shared bottleneck, about 10^(1/2) in the middle;
 * SimGrid's LV08 weighs by 1 / round trip, 10 times (docs/world.md).
 * Without windows every weight is 1 and the solve is the unweighted one,
 * operation for operation.
 *
 * Timeouts where flows converge (sim_flows_set_timeouts): where two or
 * more flows with windows have shared a receiver's side (res_b) at once
 * and each one's part of the pipe into it, (bandwidth-delay product +
 * the switch's queue) / n, is under 32 segments, the last of them to end
 * there is held one minimum retransmission timeout before it is handed
 * back: with so few segments in flight a flow that loses one cannot get
 * three duplicate ACKs and waits for its timer (the incast of datacenter
 * TCP; ns-3's all-to-all rounds, docs/world.md, "Why all-to-all is
 * off").  It takes no bandwidth while held.  Which flow loses, and how
 * many times, is a packet's luck: the term is the round's expected
 * lateness in one timeout, not a packet model.
 *
 * Not modelled: anything else below the fluid model.  No loss, no
 * congestion avoidance once at the share (a flow at its share keeps its
 * share, whatever the others do), no delayed ACKs, no queueing delay in
 * the round trip, no header bytes (the caller adds them); without a
 * window a flow gets its fair share from its first byte (SimGrid's CM02
 * model without its TCP factors).  Time is integer ns; a completion is
 * rounded up to the next ns. */
#include "config.h"

#include "sim/sim-flows.h"
#include "sim/sim-ramp-private.h"

#include <math.h>

#define NONE G_MAXUINT32

/* A flow in flight: 64 bytes, one cache line (a million are in flight
 * at 1 000 peers).  Its next event at its rate, its completion or (ramp)
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
  guint32 hpos;         /* its entry in the completion heap, NONE: none */
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
  double nkey, nlvl;    /* in an incremental solve: the new key and share */
  double pend;          /* in an incremental solve: its entry's key in iheap */
  guint32 act;          /* the incremental solve that activated it */
  guint32 touched;      /* that solve, while its entry waits to be computed again */
  gboolean done;        /* in that solve: saturated (nkey, nlvl set) */
  guint32 wlive;        /* with timeouts: live flows with a window whose res_b it is */
  guint32 conv;         /* the most of them at once since it was last empty */
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

/* a completion heap entry (see "the completion heap") */
typedef struct {
  DlTime t_end;
  guint32 flow;
  guint32 seq;          /* the flow's seq */
} HeapEnt;


struct SimFlows {
  GArray *flows;        /* Flow, by index; a free one is on the free list */
  guint32 free;         /* first free flow (its pos[0] the next), NONE */
  GArray *wins;         /* FlowWin, by index; free ones listed from free_win */
  guint32 free_win;
  GArray *tails;        /* FlowTail, by index; free ones listed from free_tail */
  guint32 free_tail;
  GArray *kinds;        /* FlowKind: the growths seen (at most 256) */
  GArray *res;          /* Res, by resource id */
  GArray *dirty;        /* guint32: resources with dirty set */
  GArray *heap;         /* HeapEnt: completions by (t_end, seq) */
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
  GArray *inputs;                  /* Input: one resource's, in res_eval */
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
  return &g_array_index (f->flows, Flow, i);
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
  f->wins = g_array_new (FALSE, FALSE, sizeof (FlowWin));
  f->free_win = NONE;
  f->tails = g_array_new (FALSE, FALSE, sizeof (FlowTail));
  f->free_tail = NONE;
  f->kinds = g_array_new (FALSE, FALSE, sizeof (FlowKind));
  f->res = g_array_new (FALSE, TRUE, sizeof (Res));
  f->dirty = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->heap = g_array_new (FALSE, FALSE, sizeof (HeapEnt));
  f->comp_res = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->cancelled = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->rheap = g_array_new (FALSE, FALSE, sizeof (ResKey));
  f->caps = g_array_new (FALSE, FALSE, sizeof (ResKey));
  f->iheap = g_array_new (FALSE, FALSE, sizeof (IEnt));
  f->inputs = g_array_new (FALSE, FALSE, sizeof (Input));
  f->act_res = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->touched = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->unramped = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->fresh = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->held = g_array_new (FALSE, FALSE, sizeof (Held));
  return f;
}

void
sim_flows_free (SimFlows *f)
{
  if (!f)
    return;
  g_array_unref (f->flows);
  g_array_unref (f->wins);
  g_array_unref (f->tails);
  g_array_unref (f->kinds);
  for (guint i = 0; i < f->res->len; i++)
    g_free (res_at (f, i)->slots);
  g_array_unref (f->res);
  g_array_unref (f->dirty);
  g_array_unref (f->heap);
  g_array_unref (f->comp_res);
  g_array_unref (f->cancelled);
  g_array_unref (f->rheap);
  g_array_unref (f->caps);
  g_array_unref (f->iheap);
  g_array_unref (f->inputs);
  g_array_unref (f->act_res);
  g_array_unref (f->touched);
  g_array_unref (f->unramped);
  g_array_unref (f->fresh);
  g_array_unref (f->held);
  g_free (f);
}

static void mark_dirty (SimFlows *f, guint32 r);

static void
res_ensure (SimFlows *f, guint32 r)
{
  if (r >= f->res->len)
    {
      guint old = f->res->len;
      g_array_set_size (f->res, MAX (r + 1, old * 2));
      for (guint i = old; i < f->res->len; i++)
        {
          res_at (f, i)->key = INFINITY;
        }
    }
}

void
sim_flows_set_capacity (SimFlows *f, guint32 r, uint64_t bps)
{
  g_return_if_fail (r != NONE && bps > 0);
  res_ensure (f, r);
  Res *x = res_at (f, r);
  double cap = (double) bps / 8e9;
  if (x->cap == cap)
    return;
  x->cap = cap;
  if (x->count > 0)
    mark_dirty (f, r);   /* its flows' shares change from now (the next update) */
}

gboolean
sim_flows_has_capacity (const SimFlows *f, guint32 r)
{
  return r < f->res->len && g_array_index (f->res, Res, r).cap > 0;
}

void
sim_flows_set_timeouts (SimFlows *f, DlTime min_rto, double queue_bdp, guint64 seg_bytes)
{
  g_return_if_fail (min_rto >= 0 && queue_bdp >= 0 && seg_bytes > 0 && f->live == 0);
  f->min_rto = min_rto;
  f->queue_bdp = queue_bdp;
  f->seg_bytes = (double) seg_bytes;
}

guint
sim_flows_count (const SimFlows *f)
{
  return f->live + f->held->len;
}

guint64
sim_flows_solved (const SimFlows *f)
{
  return f->solved;
}

/* ---------------------------------------------------------------- the completion heap */

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

/* flow x's next event (DL_TIME_NEVER: none, not solved since its start
 * or its last growth) */
static inline DlTime
flow_end (const SimFlows *f, const Flow *x)
{
  return x->hpos == NONE ? DL_TIME_NEVER : g_array_index (f->heap, HeapEnt, x->hpos).t_end;
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
static void
heap_set (SimFlows *f, guint32 fl, DlTime t_end)
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
static void
heap_remove (SimFlows *f, guint32 fl)
{
  Flow *x = flow_at (f, fl);
  guint pos = x->hpos;
  x->hpos = NONE;
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

/* a FlowWin for x (x->win), not filled in */
static void
win_new (SimFlows *f, Flow *x)
{
  if (f->free_win != NONE)
    {
      x->win = f->free_win;
      f->free_win = win_of (f, x)->lag;
    }
  else
    {
      x->win = f->wins->len;
      g_array_set_size (f->wins, x->win + 1);
    }
  x->tail = FALSE;
}

/* a FlowTail for x (x->win), not filled in */
static void
tail_new (SimFlows *f, Flow *x)
{
  if (f->free_tail != NONE)
    {
      x->win = f->free_tail;
      f->free_tail = tail_of (f, x)->cwnd;
    }
  else
    {
      x->win = f->tails->len;
      g_array_set_size (f->tails, x->win + 1);
    }
  x->tail = TRUE;
}

/* k's index in kinds (added if new; past 255, more than a Flow holds) */
static guint
kind_of (SimFlows *f, FlowKind k)
{
  for (guint i = 0; i < f->kinds->len; i++)
    {
      const FlowKind *o = &g_array_index (f->kinds, FlowKind, i);
      if (o->growth == k.growth && o->lag == k.lag && o->hy == k.hy)
        return i;
    }
  if (f->kinds->len <= G_MAXUINT8)
    g_array_append_val (f->kinds, k);
  return f->kinds->len - 1 + (f->kinds->len > G_MAXUINT8 + 1);
}

/* A flow that starts as a FlowTail and is in slow start gets its FlowWin,
 * which grows first at t_ramp. */
static void
expand (SimFlows *f, Flow *x, DlTime t_ramp)
{
  FlowTail t = *tail_of (f, x);
  FlowKind k = g_array_index (f->kinds, FlowKind, x->kind);
  tail_of (f, x)->cwnd = f->free_tail;
  f->free_tail = x->win;
  win_new (f, x);
  _sim_ramp_start (win_of (f, x), (double) t.cwnd, (DlTime) t.rtt, t_ramp, k);
}

/* the bytes per ns of x's slower link (HyStart's ACK spacing) */
static double
path_cap (SimFlows *f, const Flow *x)
{
  double cap = INFINITY;
  for (int i = 0; i < 2; i++)
    if (x->res[i] != NONE)
      cap = MIN (cap, res_at (f, x->res[i])->cap);
  return cap;
}

/* Resource r's slots in order, the holes left out; each flow's pos
 * follows its slot. */
static void
res_compact (SimFlows *f, guint32 r)
{
  Res *y = res_at (f, r);
  guint32 n = 0;
  for (guint32 s = 0; s < y->len; s++)
    if (y->slots[s].flow != NONE)
      {
        Flow *x = flow_at (f, y->slots[s].flow);
        x->pos[x->res[0] == r ? 0 : 1] = n;
        y->slots[n++] = y->slots[s];
      }
  y->len = n;
  y->holes = 0;
}

/* flow i (its seq the newest) joins r, after r's other flows */
static void
res_append (SimFlows *f, guint32 r, guint32 i, guint32 other)
{
  Res *y = res_at (f, r);
  if (y->len == y->size && y->holes > 0)
    res_compact (f, r);
  if (y->len == y->size)
    {
      y->size = MAX (4, y->size * 2);
      y->slots = g_renew (Slot, y->slots, y->size);
    }
  Flow *x = flow_at (f, i);
  x->pos[x->res[0] == r ? 0 : 1] = y->len;
  y->slots[y->len++] = (Slot) { i, other };
  y->count++;
}

/* the flow in r's slot s leaves: a hole, until they outnumber the flows */
static void
res_drop (SimFlows *f, guint32 r, guint32 s)
{
  Res *y = res_at (f, r);
  y->slots[s].flow = NONE;
  y->holes++;
  y->count--;
  if (y->count == 0)
    y->len = y->holes = 0;
  else if (y->holes > y->count)
    res_compact (f, r);
}

void
sim_flows_add (SimFlows *f, DlTime now, guint32 res_a, guint32 res_b, guint64 bytes, guint64 user)
{
  sim_flows_add_window (f, now, res_a, res_b, bytes, user, NULL);
}

static int
u64_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The seq counter at 2^32: the live and the held flows' seqs become 0,
 * 1, ... in their order, and the heap entries take their flows' new ones,
 * so ties still go by the order of adding (every order between seqs is
 * kept: the slots' and the heap's stand). */
static void
renumber_seqs (SimFlows *f)
{
  guint32 nf = f->flows->len;
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));   /* seq << 32 | who */
  for (guint32 i = 0; i < nf; i++)
    if (flow_at (f, i)->live)
      {
        guint64 k = (guint64) flow_at (f, i)->seq << 32 | i;
        g_array_append_val (keys, k);
      }
  for (guint i = 0; i < f->held->len; i++)
    {
      guint64 k = g_array_index (f->held, Held, i).seq << 32 | (guint64) (nf + i);
      g_array_append_val (keys, k);
    }
  g_array_sort (keys, u64_cmp);
  for (guint k = 0; k < keys->len; k++)
    {
      guint32 who = (guint32) g_array_index (keys, guint64, k);
      if (who < nf)
        flow_at (f, who)->seq = k;
      else
        g_array_index (f->held, Held, who - nf).seq = k;
    }
  for (guint i = 0; i < f->heap->len; i++)
    {
      HeapEnt *e = &g_array_index (f->heap, HeapEnt, i);
      e->seq = flow_at (f, e->flow)->seq;
    }
  f->seq = keys->len;
}

void
_sim_flows_set_next_seq (SimFlows *f, guint64 seq)
{
  f->seq = seq;
}

void
sim_flows_add_window (SimFlows *f, DlTime now, guint32 res_a, guint32 res_b, guint64 bytes, guint64 user,
                      const SimFlowsWindow *win)
{
  g_return_if_fail (bytes > 0 && (res_a != NONE || res_b != NONE) && res_a != res_b && user <= G_MAXUINT32);
  guint32 i;
  if (f->free != NONE)
    {
      i = f->free;
      f->free = flow_at (f, i)->pos[0];
    }
  else
    {
      i = f->flows->len;
      g_array_set_size (f->flows, i + 1);
    }
  Flow *x = flow_at (f, i);
  if (f->seq > G_MAXUINT32)
    renumber_seqs (f);
  *x = (Flow) { .rem = (double) bytes, .t_upd = now, .user = (guint32) user, .seq = (guint32) f->seq++,
                .res = { res_a, res_b }, .live = TRUE, .hpos = NONE, .win = NONE };
  if (win && win->rtt_ns > 0 && win->cwnd_bytes > 0)
    {
      FlowKind k = _sim_ramp_kind (win, win->hystart_seg ? path_cap (f, x) : INFINITY);
      guint kind = kind_of (f, k);
      if (kind <= G_MAXUINT8 && win->rtt_ns <= (DlTime) G_MAXUINT32 && win->cwnd_bytes < G_MAXUINT32)
        {
          tail_new (f, x);
          *tail_of (f, x) = (FlowTail) { (guint32) win->cwnd_bytes, (guint32) win->rtt_ns };
          x->kind = (guint8) kind;
        }
      else
        {
          win_new (f, x);
          _sim_ramp_start (win_of (f, x), (double) win->cwnd_bytes, win->rtt_ns, dl_time_add (now, win->rtt_ns), k);
        }
      x->ramping = bytes > win->cwnd_bytes;   /* (else it all goes in its first window) */
    }
  for (int k = 0; k < 2; k++)
    {
      x->pos[k] = NONE;
      guint32 r = x->res[k];
      if (r == NONE)
        continue;
      g_return_if_fail (sim_flows_has_capacity (f, r));
      res_append (f, r, i, x->res[1 - k]);
      mark_dirty (f, r);
    }
  f->live++;
  f->windowed += x->win != NONE;
  g_array_append_val (f->fresh, i);
  if (f->min_rto > 0 && x->win != NONE && res_b != NONE)
    {
      Res *y = res_at (f, res_b);
      if (y->wlive == 0)
        y->conv = 0;   /* a new convergence */
      y->wlive++;
      y->conv = MAX (y->conv, y->wlive);
    }
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
      res_drop (f, r, x->pos[k]);
      mark_dirty (f, r);
    }
  x->live = FALSE;
  f->windowed -= x->win != NONE;
  if (f->min_rto > 0 && x->win != NONE && x->res[1] != NONE)
    res_at (f, x->res[1])->wlive--;
  if (x->win != NONE && x->tail)
    {
      tail_of (f, x)->cwnd = f->free_tail;
      f->free_tail = x->win;
    }
  else if (x->win != NONE)
    {
      win_of (f, x)->lag = f->free_win;
      f->free_win = x->win;
    }
  x->win = NONE;
  x->tail = FALSE;
  x->ramping = FALSE;
  x->pos[0] = f->free;
  f->free = i;
  f->live--;
}

DlTime
sim_flows_next (const SimFlows *f)
{
  /* (no entry in the heap is stale: the top is live) */
  DlTime t = f->heap->len ? g_array_index (f->heap, HeapEnt, 0).t_end : DL_TIME_NEVER;
  return f->held->len ? MIN (t, g_array_index (f->held, Held, 0).t) : t;
}

/* A ramp event of flow i: its window doubles, and its component is
 * re-solved at the next update (which gives it its next event). */
static void
ramp (SimFlows *f, guint32 i)
{
  Flow *x = flow_at (f, i);
  _sim_ramp_grow (win_of (f, x));   /* (no event in the heap until the update) */
  x->ramp = FALSE;
  g_array_append_val (f->fresh, i);
  for (int k = 0; k < 2; k++)
    if (x->res[k] != NONE)
      mark_dirty (f, x->res[k]);
}

gboolean
sim_flows_pop (SimFlows *f, DlTime now, guint64 *user)
{
  return sim_flows_pop_window (f, now, user, NULL);
}

/* Whether flow x, about to end, is the last of flows that converged on
 * its res_b with too little pipe each (see "Timeouts where flows
 * converge" above); resets the resource's count once it is empty. */
static gboolean
times_out (SimFlows *f, const Flow *x)
{
  if (f->min_rto == 0 || x->win == NONE || x->res[1] == NONE)
    return FALSE;
  Res *y = res_at (f, x->res[1]);
  if (y->count > 1)
    return FALSE;
  guint32 n = y->conv;
  y->conv = 0;
  double pipe = y->cap * (double) flow_rtt (f, x) * (1 + f->queue_bdp) / f->seg_bytes;
  return n >= 2 && pipe / n < 32;
}

/* x ends now, held for a timeout: its record goes, its user comes back
 * at now + min_rto (sim_flows_pop_window) with a window of one segment,
 * TCP's after a timeout */
static void
hold (SimFlows *f, const Flow *x, DlTime now)
{
  Held h = { dl_time_add (now, f->min_rto), x->seq, x->user, (guint64) f->seg_bytes, { x->res[0], x->res[1] } };
  guint i = f->held->len;
  while (i > 0)
    {
      const Held *p = &g_array_index (f->held, Held, i - 1);
      if (p->t < h.t || (p->t == h.t && p->seq < h.seq))
        break;
      i--;
    }
  g_array_insert_val (f->held, i, h);
}

/* the first held flow, if it is due by now and before the heap's top */
static gboolean
pop_held (SimFlows *f, DlTime now, guint64 *user, guint64 *cwnd_bytes)
{
  if (f->held->len == 0)
    return FALSE;
  Held h = g_array_index (f->held, Held, 0);
  if (h.t > now)
    return FALSE;
  if (f->heap->len)
    {
      HeapEnt top = g_array_index (f->heap, HeapEnt, 0);
      if (top.t_end < h.t || (top.t_end == h.t && top.seq < h.seq))
        return FALSE;
    }
  g_array_remove_index (f->held, 0);
  *user = h.user;
  if (cwnd_bytes)
    *cwnd_bytes = h.cwnd;
  return TRUE;
}

gboolean
sim_flows_pop_window (SimFlows *f, DlTime now, guint64 *user, guint64 *cwnd_bytes)
{
  for (;;)
    {
      if (pop_held (f, now, user, cwnd_bytes))
        return TRUE;
      if (f->heap->len == 0)
        return FALSE;
      HeapEnt top = g_array_index (f->heap, HeapEnt, 0);
      if (top.t_end > now)
        return FALSE;
      Flow *x = flow_at (f, top.flow);
      heap_remove (f, top.flow);
      if (x->ramp)
        {
          ramp (f, top.flow);
          continue;
        }
      if (times_out (f, x))
        {
          hold (f, x, now);
          unlink_flow (f, top.flow);
          continue;
        }
      *user = x->user;
      if (cwnd_bytes)
        *cwnd_bytes = x->win == NONE ? 0
                      : (guint64) MAX (flow_cwnd (f, x), x->ramping ? 0 : x->rate * (double) flow_rtt (f, x));
      unlink_flow (f, top.flow);
      return TRUE;
    }
}

guint
sim_flows_cancel (SimFlows *f, guint32 res, GArray *users)
{
  if (res == NONE || res >= f->res->len)
    return 0;
  guint n = 0;
  Res *y = res_at (f, res);
  g_array_set_size (f->cancelled, 0);   /* (its flows first: leaving, they move the others' slots) */
  for (guint32 s = 0; s < y->len; s++)
    if (y->slots[s].flow != NONE)
      g_array_append_val (f->cancelled, y->slots[s].flow);
  for (guint i = 0; i < f->cancelled->len; i++, n++)
    {
      guint32 j = g_array_index (f->cancelled, guint32, i);
      Flow *x = flow_at (f, j);
      guint64 u = x->user;
      g_array_append_val (users, u);
      if (x->hpos != NONE)
        heap_remove (f, j);
      unlink_flow (f, j);
    }
  g_array_set_size (f->cancelled, 0);
  for (guint i = 0; i < f->held->len;)
    {
      Held *h = &g_array_index (f->held, Held, i);
      if (h->res[0] != res && h->res[1] != res)
        {
          i++;
          continue;
        }
      g_array_append_val (users, h->user);   /* (held: its last segment not yet repaired) */
      g_array_remove_index (f->held, i);
      n++;
    }
  return n;
}

/* ---------------------------------------------------------------- the solve */

/* by share; at one share a flow's cap before a resource, then by index */
static inline gboolean
key_before (const ResKey *a, const ResKey *b)
{
  if (a->share != b->share)
    return a->share < b->share;
  if ((a->flow != 0) != (b->flow != 0))
    return a->flow != 0;
  return a->flow != 0 ? a->flow < b->flow : a->res < b->res;
}

static void
rheap_push_key (SimFlows *f, ResKey k)
{
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

static void
rheap_push (SimFlows *f, double share, guint32 r)
{
  rheap_push_key (f, (ResKey) { share, r, 0 });
}

static gint
key_cmp (gconstpointer a, gconstpointer b)
{
  return key_before (a, b) ? -1 : key_before (b, a) ? 1 : 0;
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

/* The least of the caps not taken yet (from *next on) and the heap's top,
 * taken: the caps do not move during a fill, so they are sorted once and
 * merged with the heap, in the order one heap of both would give. */
static ResKey
next_key (SimFlows *f, guint *next)
{
  const ResKey *c = (const ResKey *) (void *) f->caps->data;
  if (*next < f->caps->len && (f->rheap->len == 0 || key_before (&c[*next], (const ResKey *) (void *) f->rheap->data)))
    return c[(*next)++];
  return rheap_pop (f);
}

/* The share of resource x now, per unit of weight: what is left over its
 * unfixed flows' weights (never below a billionth of its capacity, so that
 * rounding cannot stall a flow).  Without windows the weights are 1, and
 * this is what is left over the number of unfixed flows, exactly. */
static inline double
res_share (const Res *x)
{
  return MAX (x->left, x->cap * 1e-9) / ((double) x->unfixed + x->wextra);
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

/* Whether flow x's next event (its completion, or in slow start its
 * window's growth) stands as long as its rate does not move: it has one
 * (solved, and not a growth just made).  A ramping flow's too: its bytes
 * left, and whether they fit in its window (the end of its slow start),
 * are counted at its own events only (its start, its growths, its rate's
 * moves), never by a solve that merely visits it, so that its end does
 * not depend on which other flows' events solve its component. */
static inline gboolean
keeps_end (const SimFlows *f, const Flow *x)
{
  return flow_end (f, x) != DL_TIME_NEVER;
}

/* x's bytes left now, at the rate it had since t_upd */
static inline void
recount (Flow *x, double rate, DlTime now)
{
  if (rate > 0)
    x->rem = MAX (0.0, x->rem - rate * (double) (now - x->t_upd));
  x->t_upd = now;
}

/* The components that hold a dirty resource, in a breadth-first walk:
 * their resources in comp_res (the dirty ones first), the number of
 * their flows in comp_nflows.  The flows are not listed (4 bytes a flow,
 * every flow at all-to-all): comp_next finds them again, in the order
 * this walk found them. */
static void
collect_components (SimFlows *f, guint32 epoch)
{
  /* (room for every resource: written in place; the whole-component
     walk, the fallback when the incremental solve would cost more) */
  g_array_set_size (f->comp_res, f->res->len);
  guint32 *res = (guint32 *) (void *) f->comp_res->data;
  guint nres = 0, nflows = 0;
  for (guint i = 0; i < f->dirty->len; i++)
    {
      guint32 r = g_array_index (f->dirty, guint32, i);
      Res *x = res_at (f, r);
      x->dirty = FALSE;
      if (x->mark != epoch)
        {
          x->mark = epoch;
          res[nres++] = r;
        }
    }
  g_array_set_size (f->dirty, 0);
  for (guint i = 0; i < nres; i++)
    {
      const Res *y = res_at (f, res[i]);
      for (const Slot *e = y->slots, *end = e + y->len; e < end; e++)
        {
          if (e->flow == NONE)
            continue;
          Flow *x = flow_at (f, e->flow);
          if (x->mark != epoch)
            {
              x->mark = epoch;
              nflows++;
              guint32 o = e->other;
              if (o != NONE && res_at (f, o)->mark != epoch)
                {
                  res_at (f, o)->mark = epoch;
                  res[nres++] = o;
                }
            }
        }
    }
  g_array_set_size (f->comp_res, nres);
  f->comp_nflows = nflows;
}

/* A walk over the components' flows (collect_components): each once, in
 * the order its walk found them, its resources' slots in order.  A fresh
 * epoch marks the flows seen; nothing may change the slots meanwhile. */
typedef struct {
  guint ri;             /* the resource in comp_res */
  guint32 si;           /* the next slot in it */
  guint32 epoch;
} CompIter;

static void
comp_iter_init (SimFlows *f, CompIter *it)
{
  *it = (CompIter) { 0, 0, ++f->epoch };
}

static gboolean
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

/* Fixes flow y (of weight w) at rate: it leaves the resources it crosses
 * but skip (the one being saturated, or NONE).  A kept flow whose rate
 * moves has its bytes left counted at its old rate up to now here, as
 * settle_flow would with that rate, which is not kept elsewhere. */
static void
fix_flow (SimFlows *f, Flow *y, double rate, double w, guint32 skip, DlTime now)
{
  y->fixed = TRUE;
  if (y->kept && rate != y->rate)
    {
      recount (y, y->rate, now);
      y->kept = FALSE;
    }
  y->rate = rate;
  for (int k = 0; k < 2; k++)
    {
      guint32 o = y->res[k];
      if (o != NONE && o != skip)
        {
          Res *z = res_at (f, o);
          z->left -= rate;
          z->unfixed--;
          z->wextra -= w - 1;
        }
    }
}

/* The sum of (weight - 1) over resource x's flows with windows, in its
 * slots' order, as res_eval sums it: the same whichever resource's change
 * started the walk (in the walk's order, where round trips differ, the
 * sum rounded by which flow's event solved the component), and the same
 * bit for bit as the incremental solve's. */
static double
res_wextra (SimFlows *f, const Res *x)
{
  double wextra = 0;
  for (const Slot *e = x->slots, *end = e + x->len; e < end && f->windowed; e++)
    if (e->flow != NONE && flow_at (f, e->flow)->win != NONE)
      wextra += flow_weight (f, flow_at (f, e->flow)) - 1;
  return wextra;
}

/* Weighted progressive filling of the component (every flow's rate is
 * its weight times a level that rises until a resource saturates), with
 * each ramping flow's cap as a limit of its own (at the level cap /
 * weight). */
static void
fill (SimFlows *f, DlTime now)
{
  g_array_set_size (f->rheap, 0);
  g_array_set_size (f->caps, 0);
  for (guint i = 0; i < f->comp_res->len; i++)
    {
      Res *x = res_at (f, g_array_index (f->comp_res, guint32, i));
      x->left = x->cap;
      x->unfixed = x->count;
      x->wextra = res_wextra (f, x);
      x->key = INFINITY;   /* (until it saturates) */
    }
  CompIter it;
  comp_iter_init (f, &it);
  for (guint32 j; comp_next (f, &it, &j);)
    {
      Flow *y = flow_at (f, j);
      if (y->ramping)
        g_array_append_val (f->caps, ((ResKey) { flow_cwnd (f, y) / (double) flow_rtt (f, y) / flow_weight (f, y), NONE,
                                                 j + 1 }));
    }
  g_array_sort (f->caps, key_cmp);
  for (guint i = 0; i < f->comp_res->len; i++)
    {
      guint32 r = g_array_index (f->comp_res, guint32, i);
      if (res_at (f, r)->unfixed)
        rheap_push (f, res_share (res_at (f, r)), r);
    }
  for (guint next = 0; f->rheap->len || next < f->caps->len;)
    {
      ResKey k = next_key (f, &next);
      if (k.flow)
        {
          Flow *y = flow_at (f, k.flow - 1);
          if (!y->fixed)
            {
              fix_flow (f, y, flow_cwnd (f, y) / (double) flow_rtt (f, y), flow_weight (f, y), NONE, now);
              y->capped = TRUE;
            }
          continue;
        }
      Res *x = res_at (f, k.res);
      if (x->unfixed == 0)
        continue;
      double share = res_share (x);
      if (share > k.share)
        {
          rheap_push (f, share, k.res);   /* grew since it was pushed */
          continue;
        }
      for (const Slot *e = x->slots, *end = e + x->len; e < end; e++)
        {
          if (e->flow == NONE)
            continue;
          Flow *y = flow_at (f, e->flow);
          if (!y->fixed)
            {
              double w = flow_weight (f, y);
              fix_flow (f, y, share * w, w, k.res, now);
            }
        }
      x->unfixed = 0;
      x->key = k.share;
      x->lvl = share;
    }
}

/* Flow x is out of slow start: its FlowWin gives way to a FlowTail (the
 * window in whole bytes: what its end reports is whole bytes too), unless
 * its round trip or window does not fit one (over 4.29 s, 4 GiB). */
static void
to_tail (SimFlows *f, Flow *x)
{
  FlowWin *v = win_of (f, x);
  if (v->rtt > (DlTime) G_MAXUINT32 || !(v->cwnd < (double) G_MAXUINT32))
    return;
  FlowTail t = { (guint32) v->cwnd, (guint32) v->rtt };
  v->lag = f->free_win;
  f->free_win = x->win;
  tail_new (f, x);
  *tail_of (f, x) = t;
}

/* ---------------------------------------------------------------- the incremental solve */

/* The filling above, seen from one resource: it saturates at the first
 * key (share, res) in its chain of keys (its share at the start; then,
 * each time its entry comes up, its share then if that is more) at which
 * its share is no more than the key.  Its share at a key is its capacity
 * less the rates of its flows fixed before that key elsewhere, subtracted
 * in the order they were fixed (by the key of the event that fixed them,
 * then in the slot order of that resource, which is seq order), over its
 * flows left.  So one resource's saturation can be computed alone from
 * its neighbours' saturations, with the same arithmetic in the same
 * order as the filling (res_eval), and a change re-computes only the
 * resources whose inputs change: the dirty ones, then, in key order, a
 * neighbour of one whose saturation moved or changed, where it had
 * counted on it (a flow fixed there before its own key).  This is
 * SimGrid's selective update of its LMM (src/kernel/lmm: only the
 * constraints a modified variable reaches are solved again), made exact:
 * the events are taken in the filling's order, so every rate is the one
 * a solve from scratch gives, bit for bit (sim_flows_check compares).
 * A resource that is not re-computed keeps its key and its flows their
 * rates and their completions.  Without windows (fluid) that is all.
 * With windows (incr_windowed), a ramping flow's cap is an input of
 * res_eval like a neighbour's saturation (the first of the two, in the
 * filling's order), each resource's weights are summed in its slots'
 * order by both solves (res_wextra), and a ramping flow leaves its cap
 * only at its own events (keeps_end): no component is walked. */

/* at most this many resources changed at one instant for the incremental
 * solve (an all-to-all start is one full solve) */
#define INCR_MAX_DIRTY 64

static inline gboolean
ikey_before (double sa, guint32 ra, double sb, guint32 rb)
{
  return sa != sb ? sa < sb : ra < rb;
}

static inline gboolean
ient_before (const IEnt *a, const IEnt *b)
{
  if (a->share != b->share)
    return a->share < b->share;
  return a->res != b->res ? a->res < b->res : a->old < b->old;
}

static void
iheap_push (SimFlows *f, double share, guint32 r, guint32 old)
{
  IEnt e = { share, r, old };
  g_array_append_val (f->iheap, e);
  IEnt *h = (IEnt *) (void *) f->iheap->data;
  guint pos = f->iheap->len - 1;
  while (pos > 0 && ient_before (&e, &h[(pos - 1) / 2]))
    {
      h[pos] = h[(pos - 1) / 2];
      pos = (pos - 1) / 2;
    }
  h[pos] = e;
}

static IEnt
iheap_pop (SimFlows *f)
{
  IEnt *h = (IEnt *) (void *) f->iheap->data;
  IEnt top = h[0], last = h[f->iheap->len - 1];
  guint n = f->iheap->len - 1, pos = 0;
  g_array_set_size (f->iheap, n);
  for (guint c; (c = 2 * pos + 1) < n; pos = c)
    {
      if (c + 1 < n && ient_before (&h[c + 1], &h[c]))
        c++;
      if (!ient_before (&h[c], &last))
        break;
      h[pos] = h[c];
    }
  if (n > 0)
    h[pos] = last;
  return top;
}

/* Where resource z saturates, as far as this solve knows: once
 * re-computed, its new key (none before it saturates); else its last. */
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

/* in the filling's order (key_before): by share; at one share a cap
 * before a saturation, caps by flow, saturations by resource; then by
 * seq (a resource's flows are fixed in its slots' order) */
static gint
input_cmp (gconstpointer pa, gconstpointer pb)
{
  const Input *a = pa, *b = pb;
  if (a->share != b->share)
    return a->share < b->share ? -1 : 1;
  if ((a->flow != 0) != (b->flow != 0))
    return a->flow != 0 ? -1 : 1;
  if (a->flow != b->flow)
    return a->flow < b->flow ? -1 : 1;
  if (a->res != b->res)
    return a->res < b->res ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* whether input in comes before resource r's saturation at share k */
static inline gboolean
input_before (const Input *in, double k, guint32 r)
{
  return in->share != k ? in->share < k : in->flow != 0 || in->res < r;
}

/* What resource r sees of flow y (of weight w, in slot s, whose other
 * resource is o): the first of its other resource's saturation and, in
 * slow start, its cap (TRUE, *in set), or FALSE: nothing before r's own. */
static gboolean
flow_input (SimFlows *f, guint32 j, double w, guint32 s, guint32 o, Input *in)
{
  double zk, zl;
  gboolean sat = o != NONE && res_known (f, res_at (f, o), &zk, &zl);
  if (sat)
    *in = (Input) { zk, o, 0, zl * w, w, s };
  const Flow *y = flow_at (f, j);
  if (!y->ramping)
    return sat;
  double rate = flow_cwnd (f, y) / (double) flow_rtt (f, y), c = rate / w;
  if (!sat || c <= zk)
    *in = (Input) { c, NONE, j + 1, rate, w, s };
  return TRUE;
}

/* in input_cmp's order (a total one: seqs differ), by insertion while
 * short (a resource's inputs are its flows: a handful, but for a hub) */
static void
inputs_sort (GArray *inputs)
{
  Input *in = (Input *) (void *) inputs->data;
  if (inputs->len > 32)
    {
      g_array_sort (inputs, input_cmp);
      return;
    }
  for (guint i = 1; i < inputs->len; i++)
    {
      Input v = in[i];
      guint k = i;
      for (; k > 0 && input_cmp (&v, &in[k - 1]) < 0; k--)
        in[k] = in[k - 1];
      in[k] = v;
    }
}

/* Resource r's saturation from what is known of its neighbours' (TRUE,
 * *key and *lvl set), or FALSE: its flows are all fixed elsewhere. */
static gboolean
res_eval (SimFlows *f, guint32 r, double *key, double *lvl)
{
  Res *x = res_at (f, r);
  g_array_set_size (f->inputs, x->count);   /* (room for one per flow, filled below) */
  Input *put = (Input *) (void *) f->inputs->data;
  guint n = 0;
  double wextra = 0;
  for (guint32 s = 0; s < x->len; s++)
    {
      Slot e = x->slots[s];
      if (e.flow == NONE)
        continue;
      double zk, zl;
      /* (s for its seq: the slots are in seq order) */
      if (f->windowed && flow_at (f, e.flow)->win != NONE)
        {
          double w = flow_weight (f, flow_at (f, e.flow));
          wextra += w - 1;
          n += flow_input (f, e.flow, w, s, e.other, &put[n]);
        }
      else if (e.other != NONE && res_known (f, res_at (f, e.other), &zk, &zl))
        put[n++] = (Input) { zk, e.other, 0, zl, 1, s };
    }
  g_array_set_size (f->inputs, n);
  f->work += x->count + 1;
  if (x->count == 0)
    return FALSE;
  inputs_sort (f->inputs);
  const Input *in = (const Input *) (void *) f->inputs->data;
  double left = x->cap;
  guint32 unfixed = x->count, i = 0;
  double k = MAX (left, x->cap * 1e-9) / ((double) unfixed + wextra);
  for (;;)
    {
      for (; i < f->inputs->len && input_before (&in[i], k, r); i++)
        {
          left -= in[i].rate;
          unfixed--;
          wextra -= in[i].w - 1;
        }
      if (unfixed == 0)
        return FALSE;
      double s = MAX (left, x->cap * 1e-9) / ((double) unfixed + wextra);
      if (s > k)
        {
          k = s;
          continue;
        }
      *key = k;
      *lvl = s;
      return TRUE;
    }
}

/* (re-)computes r's entry from what is known now */
static void
res_schedule (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  double key, lvl;
  if (!res_eval (f, r, &key, &lvl))
    x->pend = NAN;
  else if (key != x->pend)
    {
      x->pend = key;
      iheap_push (f, key, r, 0);
    }
}

/* r's entry is to be computed again before the next event: what it
 * knows of a neighbour changed */
static inline void
res_touch (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  if (x->touched == f->iepoch)
    return;
  x->touched = f->iepoch;
  g_array_append_val (f->touched, r);
}

/* The touched resources' entries, each computed once from what is known
 * after all the changes of one event (computing one at each change, as
 * its neighbours were activated one by one, gave the same last entry,
 * after entries that were stale before they came up). */
static void
res_flush (SimFlows *f)
{
  for (guint i = 0; i < f->touched->len; i++)
    {
      guint32 r = g_array_index (f->touched, guint32, i);
      res_at (f, r)->touched = 0;   /* (an epoch is never 0) */
      if (!res_at (f, r)->done)
        res_schedule (f, r);
    }
  g_array_set_size (f->touched, 0);
}

/* r is re-computed from now on: its last key is no longer known, so the
 * neighbours waiting on their own keys look again (unless it had none:
 * what they know of it, nothing, stays as it was) */
static void
res_activate (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  if (x->act == f->iepoch)
    return;
  x->act = f->iepoch;
  x->done = FALSE;
  x->pend = NAN;
  g_array_append_val (f->act_res, r);
  res_touch (f, r);
  if (isinf (x->key))
    return;
  iheap_push (f, x->key, r, 1);
  for (const Slot *e = x->slots, *end = e + x->len; e < end; e++)
    {
      guint32 o = e->other;
      if (e->flow != NONE && o != NONE && res_at (f, o)->act == f->iepoch && !res_at (f, o)->done)
        res_touch (f, o);
    }
}

/* The point of r's last saturation: unless it saturated again there, at
 * the same share, the neighbours whose flows it fixed then see a change. */
static void
incr_old (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  if (x->done && x->nkey == x->key && x->nlvl == x->lvl)
    return;
  for (guint32 s = 0; s < x->len; s++)
    {
      guint32 o = x->slots[s].other;
      Res *z = x->slots[s].flow != NONE && o != NONE ? res_at (f, o) : NULL;
      if (z && z->act != f->iepoch && (isinf (z->key) || ikey_before (x->key, r, z->key, o)))
        res_activate (f, o);
    }
}

/* r saturated (at nkey): the neighbours whose flows it fixes now, unless
 * they had the same from its last saturation, see a change. */
static void
incr_saturated (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  gboolean same = x->nkey == x->key && x->nlvl == x->lvl;
  for (guint32 s = 0; s < x->len; s++)
    {
      guint32 o = x->slots[s].other;
      Res *z = x->slots[s].flow != NONE && o != NONE ? res_at (f, o) : NULL;
      if (z && z->act != f->iepoch && (isinf (z->key) || ikey_before (x->nkey, r, z->key, o)) && !same)
        res_activate (f, o);
    }
}

/* The events in key order; FALSE if the solve turns out dearer than a
 * whole one, or if the order is not the filling's (a share that fell by
 * rounding): the caller then solves the components whole. */
static gboolean
incr_run (SimFlows *f)
{
  IEnt last = { -INFINITY, 0, 0 };
  for (res_flush (f); f->iheap->len; res_flush (f))
    {
      IEnt e = iheap_pop (f);
      if (ient_before (&e, &last) || f->work > 2 * (guint64) f->live + 256)
        return FALSE;
      last = e;
      Res *x = res_at (f, e.res);
      if (e.old)
        {
          incr_old (f, e.res);
          continue;
        }
      if (x->done || e.share != x->pend)
        continue;   /* stale */
      double key, lvl;
      if (!res_eval (f, e.res, &key, &lvl))
        {
          x->pend = NAN;
          continue;
        }
      if (key < e.share)
        return FALSE;
      if (key > e.share)
        {
          x->pend = key;
          iheap_push (f, key, e.res, 0);
          continue;
        }
      x->done = TRUE;
      x->nkey = key;
      x->nlvl = lvl;
      incr_saturated (f, e.res);
    }
  /* A resource left without a key has no flow left to fix: its last
   * evaluation found every flow of it fixed elsewhere (else its entry
   * would have come up), and since then what it knows of a neighbour
   * changed only by a touch, which evaluated it again (a neighbour that
   * saturated adds no input: it had one from each flow already). */
  return TRUE;
}

/* Flow j's rate, from its resources' keys (its first to saturate's
 * share, times its weight); if it moved (or j is new), its bytes left
 * and its completion from now, as a solve of its component makes them
 * (the same arithmetic).  Returns whether its rate was computed again
 * and moved. */
static gboolean
incr_flow (SimFlows *f, guint32 j, DlTime now)
{
  Flow *y = flow_at (f, j);
  double rate = y->rate, best_k = INFINITY, best_l = 0, zk, zl;
  guint32 best_r = NONE;
  gboolean moved = FALSE;
  for (int k = 0; k < 2; k++)
    {
      guint32 o = y->res[k];
      if (o == NONE)
        continue;
      moved |= res_at (f, o)->act == f->iepoch;
      if (res_known (f, res_at (f, o), &zk, &zl) && (best_r == NONE || ikey_before (zk, o, best_k, best_r)))
        {
          best_k = zk;
          best_l = zl;
          best_r = o;
        }
    }
  g_assert (best_r != NONE);
  if (moved)
    rate = best_l * flow_weight (f, y);
  if (rate == y->rate && keeps_end (f, y))
    return FALSE;
  recount (y, y->rate, now);
  y->rate = rate;
  y->fixed = y->capped = FALSE;
  DlTime end = end_time (now, y->rem, y->rate);
  if (end != flow_end (f, y) || y->ramp)
    {
      y->ramp = FALSE;
      heap_set (f, j, end);
    }
  return TRUE;
}

/* The flows of the re-computed resources take their rates (the others'
 * cannot move), and those resources their keys (returns how many flows'
 * rates moved).  The dirty resources are among the re-computed ones.  A
 * resource that saturates neither before nor now is no flow's
 * bottleneck: its flows' rates come from their other resource, so they
 * are visited from there if that one moved. */
static guint
incr_commit (SimFlows *f, DlTime now)
{
  guint32 epoch = ++f->epoch, n = 0;
  for (guint i = 0; i < f->dirty->len; i++)
    res_at (f, g_array_index (f->dirty, guint32, i))->dirty = FALSE;
  g_array_set_size (f->dirty, 0);
  for (guint i = 0; i < f->act_res->len; i++)
    {
      guint32 r = g_array_index (f->act_res, guint32, i);
      if (isinf (res_at (f, r)->key) && !res_at (f, r)->done)
        continue;
      const Res *y = res_at (f, r);
      for (const Slot *e = y->slots, *end = e + y->len; e < end; e++)
        {
          if (e->flow == NONE)
            continue;
          Flow *x = flow_at (f, e->flow);
          if (x->mark != epoch)
            {
              x->mark = epoch;
              n += incr_flow (f, e->flow, now);
            }
        }
    }
  for (guint i = 0; i < f->act_res->len; i++)
    {
      Res *x = res_at (f, g_array_index (f->act_res, guint32, i));
      x->key = x->done ? x->nkey : INFINITY;
      x->lvl = x->done ? x->nlvl : 0;
    }
  return n;
}

/* The incremental solve of what changed (FALSE: not made, nothing
 * changed; the caller solves the components whole). */
static gboolean
incremental (SimFlows *f, DlTime now)
{
  if (f->windowed > 0 || f->dirty->len > INCR_MAX_DIRTY)
    return FALSE;
  f->iepoch = ++f->epoch;
  f->work = 0;
  g_array_set_size (f->iheap, 0);
  g_array_set_size (f->act_res, 0);
  g_array_set_size (f->touched, 0);
  for (guint i = 0; i < f->dirty->len; i++)
    res_activate (f, g_array_index (f->dirty, guint32, i));
  if (!incr_run (f))
    return FALSE;
  f->solved += incr_commit (f, now);
  return TRUE;
}

/* Flow y's rate from its resources' keys and, in slow start, its cap: the
 * first of them to fix it, in the filling's order (*capped: its cap). */
static double
incr_rate (SimFlows *f, const Flow *y, gboolean *capped)
{
  double best_k = INFINITY, best_l = 0, zk, zl;
  guint32 best_r = NONE;
  for (int k = 0; k < 2; k++)
    {
      guint32 o = y->res[k];
      if (o != NONE && res_known (f, res_at (f, o), &zk, &zl)
          && (best_r == NONE || ikey_before (zk, o, best_k, best_r)))
        {
          best_k = zk;
          best_l = zl;
          best_r = o;
        }
    }
  double w = flow_weight (f, y);
  *capped = FALSE;
  if (y->ramping)
    {
      double rate = flow_cwnd (f, y) / (double) flow_rtt (f, y);
      if (best_r == NONE || rate / w <= best_k)
        {
          *capped = TRUE;
          return rate;
        }
    }
  g_assert (best_r != NONE);
  return best_l * w;
}

/* Before a solve: flow j's rate then (-1: its next event does not stand,
 * it was added or grew; its bytes left are counted now, and if they fit
 * in its window in slow start, slow start ends: listed in unramped, it
 * sends them at its share). */
static double
prepare_flow (SimFlows *f, guint32 j, DlTime now)
{
  Flow *x = flow_at (f, j);
  x->fixed = x->capped = FALSE;
  if (keeps_end (f, x))
    return x->rate;
  if (x->ramping && x->tail && x->t_upd != now)
    expand (f, x, dl_time_add (x->t_upd, flow_rtt (f, x)));   /* (added before this instant) */
  recount (x, x->rate, now);
  if (x->ramping && x->rem <= flow_cwnd (f, x))
    {
      x->ramping = FALSE;
      g_array_append_val (f->unramped, j);
    }
  return -1;
}

/* prepare_flow for each flow of the components collected; those whose
 * next event stands are kept (Flow.kept: their rate then is the one
 * they hold until fix_flow moves it, 8 bytes a flow not copied aside) */
static void
prepare (SimFlows *f, DlTime now)
{
  g_array_set_size (f->unramped, 0);
  CompIter it;
  comp_iter_init (f, &it);
  for (guint32 j; comp_next (f, &it, &j);)
    flow_at (f, j)->kept = prepare_flow (f, j, now) >= 0;
}

/* After the solve, flow j, whose rate was `was` before it (incr: the
 * incremental solve's, whose rate is given here; j crosses a re-computed
 * resource): a ramping flow below its cap has reached its share (slow
 * start ends); if its rate moved, or its next event did not stand, it
 * gets its next event from now. */
static void
settle_flow (SimFlows *f, guint32 j, DlTime now, double was, gboolean incr)
{
  Flow *x = flow_at (f, j);
  gboolean capped;
  if (incr)
    {
      x->rate = incr_rate (f, x, &capped);
      x->capped = capped;
      f->solved++;
    }
  gboolean at_share = x->ramping && !x->capped;   /* (slow start ends: an event of its own) */
  if (at_share)
    x->ramping = FALSE;
  if (x->ramping && x->tail)
    expand (f, x, dl_time_add (now, flow_rtt (f, x)));   /* (added at now) */
  if (!x->ramping && x->win != NONE && !x->tail)
    to_tail (f, x);
  if (was >= 0 && x->rate == was && !at_share)
    return;   /* its next event stands */
  if (was >= 0)
    recount (x, was, now);
  DlTime end = end_time (now, x->rem, x->rate);
  gboolean ramp_first = x->ramping && win_of (f, x)->t_ramp < end;
  if (ramp_first)
    end = win_of (f, x)->t_ramp;
  if (end != flow_end (f, x) || ramp_first != (gboolean) x->ramp)
    {
      x->ramp = ramp_first;
      heap_set (f, j, end);
    }
}

/* The incremental solve with windows (FALSE: not made, nothing changed
 * but the scratch and the fresh flows' bytes left; the caller fills the
 * components whole).  Its seeds: the dirty resources and those of the
 * flows whose slow start ended before it (their caps are gone).  Then
 * the flows of the re-computed resources take their rates (incr_rate,
 * settle_flow); no other flow's can move: its resources keep their keys,
 * its cap did not move (a growth or a start dirties the flow's
 * resources), and its next event stands (keeps_end).  So no component is
 * walked: the cost is what changed, as without windows. */
static gboolean
incr_windowed (SimFlows *f, DlTime now)
{
  g_array_set_size (f->unramped, 0);
  for (guint i = 0; i < f->fresh->len; i++)
    {
      guint32 j = g_array_index (f->fresh, guint32, i);
      if (flow_at (f, j)->live && !keeps_end (f, flow_at (f, j)))
        prepare_flow (f, j, now);   /* (listed twice: the second changes nothing) */
    }
  if (f->dirty->len + f->unramped->len > INCR_MAX_DIRTY)
    return FALSE;
  f->iepoch = ++f->epoch;
  f->work = 0;
  g_array_set_size (f->iheap, 0);
  g_array_set_size (f->act_res, 0);
  g_array_set_size (f->touched, 0);
  for (guint i = 0; i < f->dirty->len; i++)
    res_activate (f, g_array_index (f->dirty, guint32, i));
  for (guint i = 0; i < f->unramped->len; i++)
    for (int k = 0; k < 2; k++)
      {
        guint32 r = flow_at (f, g_array_index (f->unramped, guint32, i))->res[k];
        if (r != NONE)
          res_activate (f, r);   /* (its cap is gone) */
      }
  if (!incr_run (f))
    return FALSE;
  for (guint i = 0; i < f->act_res->len; i++)
    {
      Res *x = res_at (f, g_array_index (f->act_res, guint32, i));
      x->key = x->done ? x->nkey : INFINITY;
      x->lvl = x->done ? x->nlvl : 0;
    }
  for (guint i = 0; i < f->dirty->len; i++)
    res_at (f, g_array_index (f->dirty, guint32, i))->dirty = FALSE;
  g_array_set_size (f->dirty, 0);
  guint32 epoch = ++f->epoch;
  for (guint i = 0; i < f->act_res->len; i++)
    {
      const Res *y = res_at (f, g_array_index (f->act_res, guint32, i));
      for (const Slot *e = y->slots, *end = e + y->len; e < end; e++)
        {
          Flow *x = e->flow != NONE ? flow_at (f, e->flow) : NULL;
          if (x && x->mark != epoch)
            {
              x->mark = epoch;
              settle_flow (f, e->flow, now, keeps_end (f, x) ? x->rate : -1, TRUE);
            }
        }
    }
  return TRUE;
}

/* The components of the dirty resources filled whole. */
static void
solve_whole (SimFlows *f, DlTime now)
{
  collect_components (f, ++f->epoch);
  prepare (f, now);
  fill (f, now);
  f->solved += f->comp_nflows;
  CompIter it;
  comp_iter_init (f, &it);
  for (guint32 j; comp_next (f, &it, &j);)
    {
      Flow *x = flow_at (f, j);
      /* kept: its rate did not move (a rate that moved was counted in
       * fix_flow, as -1 says: nothing more to count) */
      double was = x->kept ? x->rate : -1;
      x->kept = FALSE;
      settle_flow (f, j, now, was, FALSE);
    }
}

void
sim_flows_update (SimFlows *f, DlTime now)
{
  if (f->dirty->len > 0 && !(f->windowed == 0 ? incremental (f, now) : incr_windowed (f, now)))
    solve_whole (f, now);
  g_array_set_size (f->fresh, 0);
}

/* ---------------------------------------------------------------- the check */

/* Solves every component whole, as sim_flows_update's full path does, and
 * compares each flow's rate and each resource's key with what the
 * updates left, bit for bit (the weights' sums are in each resource's
 * slots' order, whatever the walk's: res_wextra), then puts them back. */
static gboolean
check_from_scratch (SimFlows *f, GString *why)
{
  if (f->dirty->len)
    return TRUE;   /* (not solved yet) */
  guint nf = f->flows->len, nr = f->res->len;
  g_autofree double *rate = g_new (double, nf);
  g_autofree guint8 *capped = g_new (guint8, nf);
  g_autofree double *key = g_new (double, 2 * (gsize) nr);
  for (guint32 i = 0; i < nf; i++)
    {
      rate[i] = flow_at (f, i)->rate;
      capped[i] = flow_at (f, i)->capped;
      flow_at (f, i)->fixed = flow_at (f, i)->capped = FALSE;
    }
  for (guint32 r = 0; r < nr; r++)
    {
      key[2 * r] = res_at (f, r)->key;
      key[2 * r + 1] = res_at (f, r)->lvl;
      if (res_at (f, r)->count)
        g_array_append_val (f->dirty, r);
    }
  collect_components (f, ++f->epoch);
  fill (f, 0);   /* (no flow is kept outside a whole solve: fix_flow counts nothing) */
  gboolean ok = TRUE;
  for (guint32 i = 0; i < nf && ok; i++)
    if (flow_at (f, i)->live && flow_at (f, i)->rate != rate[i])
      {
        g_string_append_printf (why, "flow %u: rate %.17g, from scratch %.17g", i, rate[i], flow_at (f, i)->rate);
        ok = FALSE;
      }
  for (guint32 r = 0; r < nr && ok; r++)
    if (res_at (f, r)->count && res_at (f, r)->key != key[2 * r])
      {
        g_string_append_printf (why, "resource %u: key %.17g, from scratch %.17g", r, key[2 * r], res_at (f, r)->key);
        ok = FALSE;
      }
  for (guint32 i = 0; i < nf; i++)
    {
      flow_at (f, i)->rate = rate[i];
      flow_at (f, i)->capped = capped[i];
    }
  for (guint32 r = 0; r < nr; r++)
    {
      res_at (f, r)->key = key[2 * r];
      res_at (f, r)->lvl = key[2 * r + 1];
    }
  return ok;
}

gboolean
sim_flows_check (SimFlows *f, GString *why)
{
  guint nres = f->res->len;
  g_autofree double *sum = g_new0 (double, nres);
  g_autofree double *top = g_new0 (double, nres);
  for (guint32 i = 0; i < f->flows->len; i++)
    {
      Flow *x = flow_at (f, i);
      if (!x->live || flow_end (f, x) == DL_TIME_NEVER)
        continue;   /* free, or added and not solved yet */
      for (int k = 0; k < 2; k++)
        if (x->res[k] != NONE)
          {
            sum[x->res[k]] += x->rate;
            top[x->res[k]] = MAX (top[x->res[k]], x->rate / flow_weight (f, x));
          }
    }
  for (guint32 i = 0; i < f->flows->len; i++)
    {
      Flow *x = flow_at (f, i);
      DlTime end = x->live ? flow_end (f, x) : DL_TIME_NEVER;
      if (end != DL_TIME_NEVER && !x->ramp && end != end_time (x->t_upd, x->rem, x->rate))
        {
          g_string_append_printf (why, "flow %u: completion %" G_GINT64_FORMAT " ns, its bytes left and rate give %"
                                  G_GINT64_FORMAT, i, end, end_time (x->t_upd, x->rem, x->rate));
          return FALSE;
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
      if (!x->live || flow_end (f, x) == DL_TIME_NEVER)
        continue;
      gboolean bottleneck = x->ramping && x->rate >= win_of (f, x)->cwnd / (double) win_of (f, x)->rtt * (1 - 1e-9);
      for (int k = 0; k < 2; k++)
        {
          guint32 r = x->res[k];
          if (r != NONE && sum[r] >= res_at (f, r)->cap * (1 - 1e-9)
              && x->rate / flow_weight (f, x) >= top[r] * (1 - 1e-9))
            bottleneck = TRUE;
        }
      if (!bottleneck)
        {
          g_string_append_printf (why, "flow %u (resources %u, %u) at %.9g bytes/ns has no bottleneck", i, x->res[0],
                                  x->res[1], x->rate);
          return FALSE;
        }
    }
  return check_from_scratch (f, why);
}
