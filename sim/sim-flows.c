/* sim-flows.c — max-min fair sharing of resources among flows (a leaf:
 * it includes only its own header, base/ and the windows' growth, its own
 * leaf sim-ramp.c, and calls nothing back).  This file keeps the flows on
 * their resources: adding, popping, cancelling, the timeouts' holds; the
 * completion heap (sim-flows-heap.c) and the windows' records
 * (sim-flows-win.c) are its leaves; the solve is sim-flows-solve.c
 * (sim_flows_update) over sim-flows-fill.c (the whole filling, and
 * sim_flows_check); they share sim-flows-private.h.
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
 * (the incremental solve, sim-flows-solve.c), from those where a flow was added,
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

#include "sim/sim-flows-private.h"

SimFlows *
sim_flows_new (void)
{
  SimFlows *f = g_new0 (SimFlows, 1);
  dl_avec_init (&f->flows, sizeof (Flow), FALSE);
  f->free = NONE;
  f->wins = g_array_new (FALSE, FALSE, sizeof (FlowWin));
  f->free_win = NONE;
  f->tails = g_array_new (FALSE, FALSE, sizeof (FlowTail));
  f->free_tail = NONE;
  f->kinds = g_array_new (FALSE, FALSE, sizeof (FlowKind));
  f->hot = g_array_new (FALSE, TRUE, sizeof (FlowHot));
  dl_avec_init (&f->res, sizeof (Res), TRUE);
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
  dl_avec_clear (&f->flows);
  g_array_unref (f->wins);
  g_array_unref (f->tails);
  g_array_unref (f->kinds);
  g_array_unref (f->hot);
  for (guint i = 0; i < f->res.len; i++)
    g_free (res_at (f, i)->slots);
  dl_avec_clear (&f->res);
  g_array_unref (f->dirty);
  g_array_unref (f->heap);
  _sim_flows_heap_clear (f);
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
  if (r >= f->res.len)
    {
      guint old = f->res.len;
      dl_avec_set_size (&f->res, MAX (r + 1, old * 2));
      for (guint i = old; i < f->res.len; i++)
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
  return r < f->res.len && ((const Res *) dl_avec_at (&f->res, r))->cap > 0;
}

void
sim_flows_prefetch (const SimFlows *f, guint32 r)
{
  if (r < f->res.len)
    __builtin_prefetch (dl_avec_at (&f->res, r), 0);
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
  guint32 nf = f->flows.len;
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
  _sim_flows_heap_drop_stale (f);
  for (guint k = 0; k < keys->len; k++)
    {
      guint32 who = (guint32) g_array_index (keys, guint64, k);
      if (who < nf)
        flow_at (f, who)->seq = k;
      else
        g_array_index (f->held, Held, who - nf).seq = k;
    }
  _sim_flows_heap_reseq (f);
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
      i = f->flows.len;
      dl_avec_set_size (&f->flows, i + 1);
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
          _sim_flows_tail_new (f, x);
          *tail_of (f, x) = (FlowTail) { (guint32) win->cwnd_bytes, (guint32) win->rtt_ns };
          x->kind = (guint8) kind;
        }
      else
        {
          _sim_flows_win_new (f, x);
          _sim_ramp_start (win_of (f, x), (double) win->cwnd_bytes, win->rtt_ns, dl_time_add (now, win->rtt_ns), k);
        }
      x->ramping = bytes > win->cwnd_bytes;   /* (else it all goes in its first window) */
    }
  hot_sync (f, i);
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
  hot_sync (f, i);
  x->pos[0] = f->free;
  f->free = i;
  f->live--;
}

DlTime
sim_flows_next (const SimFlows *f)
{
  DlTime t = _sim_flows_heap_next (f);
  return f->held->len ? MIN (t, g_array_index (f->held, Held, 0).t) : t;
}

/* A ramp event of flow i: its window doubles, and its component is
 * re-solved at the next update (which gives it its next event). */
static void
ramp (SimFlows *f, guint32 i)
{
  Flow *x = flow_at (f, i);
  _sim_ramp_grow (win_of (f, x));   /* (no event in the heap until the update) */
  hot_sync (f, i);
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
  HeapEnt top;
  if (_sim_flows_heap_first (f, now, &top) && (top.t_end < h.t || (top.t_end == h.t && top.seq < h.seq)))
    return FALSE;
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
      HeapEnt top;
      if (!_sim_flows_heap_first (f, now, &top))
        return FALSE;
      Flow *x = flow_at (f, top.flow);
      _sim_flows_heap_remove (f, top.flow);
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
  if (res == NONE || res >= f->res.len)
    return 0;
  guint n = 0;
  Res *y = res_at (f, res);
  array_cut (f->cancelled, 0);   /* (its flows first: leaving, they move the others' slots) */
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
        _sim_flows_heap_remove (f, j);
      unlink_flow (f, j);
    }
  array_cut (f->cancelled, 0);
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
