/* sim-flows-solve.c — sim_flows_update: what is re-solved after flows
 * were added, popped or grew (see sim-flows.c), by the incremental solve
 * where it is cheaper, else by sim-flows-fill.c's whole filling, and
 * each re-solved flow's next event (over the leaves sim-flows-heap.c,
 * sim-flows-win.c and sim-flows-fill.c; nothing calls it back). */
#include "config.h"

#include "sim/sim-flows-private.h"

/* Whether flow x's next event (its completion, or in slow start its
 * window's growth) stands as long as its rate does not move: it has one
 * (solved, and not a growth just made), that is an entry in the
 * completion heap.  Its entry's position says so without a load of the
 * entry (flow_end): the two callers of _sim_flows_heap_set, incr_flow
 * and settle_flow, never give it DL_TIME_NEVER (end_time stops one
 * short, and a growth is taken only before that end).  At 2 000 gossip
 * peers under tcp that load missed the cache in incr_windowed's loop
 * over the re-computed resources' flows (docs/performance.md, gs21).
 * A ramping flow's too: its bytes
 * left, and whether they fit in its window (the end of its slow start),
 * are counted at its own events only (its start, its growths, its rate's
 * moves), never by a solve that merely visits it, so that its end does
 * not depend on which other flows' events solve its component. */
static inline gboolean
keeps_end (const Flow *x)
{
  return x->hpos != NONE;
}

/* The filling (sim-flows-fill.c), seen from one resource: it saturates
 * at the first key (share, res) in its chain of keys (its share at the
 * start; then, each time its entry comes up, its share then if that is
 * more) at which its share is no more than the key.  Its share at a key is its capacity
 * less the rates of its flows fixed before that key elsewhere, subtracted
 * in the order they were fixed (by the key of the event that fixed them,
 * then in the slot order of that resource, which is seq order), over its
 * flows left.  So one resource's saturation can be computed alone from
 * its neighbours' saturations, with the same arithmetic in the same
 * order as the filling (_sim_flows_res_eval, in sim-flows-fill.c), and a change re-computes only the
 * resources whose inputs change: the dirty ones, then, in key order, a
 * neighbour of one whose saturation moved or changed, where it had
 * counted on it (a flow fixed there before its own key).  This is
 * SimGrid's selective update of its LMM (src/kernel/lmm: only the
 * constraints a modified variable reaches are solved again), made exact:
 * the events are taken in the filling's order, so every rate is the one
 * a solve from scratch gives, bit for bit (sim_flows_check compares).
 * A resource that is not re-computed keeps its key and its flows their
 * rates and their completions; so do the flows of one re-computed that
 * saturates where it did (res_moved), and those fixed before its last key
 * and its new one by their other resource (slot_kept: visited from that
 * one if it moved): only the fresh flows and the others of the moved
 * resources are visited (moved_next).  Without windows (fluid) that is all.
 * With windows (incr_windowed), a ramping flow's cap is an input of
 * the evaluation like a neighbour's saturation (the first of the two, in the
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
  array_cut (f->iheap, n);
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

/* _sim_flows_res_eval, its result kept in nkey and nlvl for this solve (evald) until
 * an input moves (incr_saturated), so that incr_run's turn need not
 * evaluate again (res_eval_kept) */
static gboolean
res_eval_keep (SimFlows *f, guint32 r, double *key, double *lvl)
{
  Res *x = res_at (f, r);
  if (!_sim_flows_res_eval (f, r, key, lvl))
    {
      x->evald = 0;
      return FALSE;
    }
  x->nkey = *key;
  x->nlvl = *lvl;
  x->evald = f->iepoch;
  return TRUE;
}

/* (re-)computes r's entry from what is known now */
static void
res_schedule (SimFlows *f, guint32 r)
{
  Res *x = res_at (f, r);
  double key, lvl;
  if (!res_eval_keep (f, r, &key, &lvl))
    {
      x->pend = NAN;
      return;
    }
  if (key != x->pend)
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
  array_cut (f->touched, 0);
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
      if (z && z->act == f->iepoch)
        z->evald = 0;   /* (it sees r's saturation now: evaluated again) */
      else if (z && (isinf (z->key) || ikey_before (x->nkey, r, z->key, o)) && !same)
        res_activate (f, o);
    }
}

/* The evaluation at an entry's turn: its last evaluation, if none of its
 * inputs moved since (res_eval_keep's), else a new one;
 * counted in the work either way, so that the choice of a whole solve
 * is the same as when each turn evaluated again. */
static gboolean
res_eval_kept (SimFlows *f, guint32 r, double *key, double *lvl)
{
  Res *x = res_at (f, r);
  if (x->evald == f->iepoch)
    {
      f->work += x->count + 1;
      *key = x->nkey;
      *lvl = x->nlvl;
      return TRUE;
    }
  return res_eval_keep (f, r, key, lvl);
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
      if (!res_eval_kept (f, e.res, &key, &lvl))
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
  if (rate == y->rate && keeps_end (y))
    return FALSE;
  recount (y, y->rate, now);
  y->rate = rate;
  y->fixed = y->capped = FALSE;
  DlTime end = end_time (now, y->rem, y->rate);
  if (end != flow_end (f, y) || y->ramp)
    {
      y->ramp = FALSE;
      _sim_flows_heap_set (f, j, end);
    }
  return TRUE;
}

/* Whether re-computed resource x (r) saturates elsewhere than in the
 * last solve: at another key or share, or now and not then, or then and
 * not now; read before its key is set (incr_set_keys).  What its flows
 * see of it is that alone (res_known: its key and share, once it
 * saturates), so the flows of one that did not move keep their rates,
 * whatever was added there (those flows are fresh) or popped. */
static inline gboolean
res_moved (const SimFlows *f, const Res *x)
{
  if (x->act != f->iepoch)
    return FALSE;
  return x->done ? x->nkey != x->key || x->nlvl != x->lvl : !isinf (x->key);
}

/* Whether the flow in slot e of resource x (r, which moved) need not be
 * visited from r: its other resource's last key comes before r's last
 * key and before its new one (a last key at INFINITY comes before r's
 * only if r's was INFINITY too, and then r saturates now, at a finite
 * key).  If that one did not move, it fixed the flow then and fixes it
 * now, at the same share (incr_rate's and incr_flow's first key; a
 * ramping flow's cap, which did not move either, came before it or
 * after it both times): its rate stays.  If it moved, the flow is
 * visited from there: r's last key cannot come before that one's.
 * Read from the slot and the other's record, not the flow's: at 2 000
 * gossip peers under tcp the flows' records were the settling loop's LL
 * misses (docs/performance.md, cg23b). */
static inline gboolean
slot_kept (SimFlows *f, guint32 r, const Res *x, const Slot *e)
{
  if (e->other == NONE)
    return FALSE;
  double k = res_at (f, e->other)->key;
  return ikey_before (k, e->other, x->key, r) && (!x->done || ikey_before (k, e->other, x->nkey, r));
}

/* A walk over the flows whose rates an incremental solve can move, each
 * once, before the re-computed resources take their keys: the fresh
 * ones (added, grown, out of slow start: their next event is to be
 * made), then those of the resources that moved, but the slots kept.
 * Any other flow's resources saturate where they did (or do not, as
 * they did not) and its cap did not move (a growth makes it fresh), so
 * its rate comes out the same, bit for bit, and with it whether it is
 * capped; its next event stands (keeps_end: not fresh).  settle_flow
 * would do nothing else to it: a ramping flow is capped (it would have
 * left slow start when it was not) and has its FlowWin (a FlowTail's
 * flow is expanded at its first solve, fresh), and one out of slow
 * start has its FlowTail since it left (or keeps a FlowWin whose round
 * trip or window does not fit one, _sim_flows_to_tail).  Its
 * completions are taken in (time, seq) order whichever order the flows
 * are settled in (sim-flows-heap.c). */
typedef struct {
  guint fi;             /* the next in fresh */
  guint ri;             /* the resource in act_res */
  guint32 si;           /* the next slot in it */
  guint32 epoch;
} MovedIter;

static inline void
moved_iter_init (SimFlows *f, MovedIter *it)
{
  *it = (MovedIter) { 0, 0, 0, ++f->epoch };
}

static gboolean
moved_next (SimFlows *f, MovedIter *it, guint32 *out)
{
  while (it->fi < f->fresh->len)
    {
      guint32 j = g_array_index (f->fresh, guint32, it->fi++);
      Flow *x = flow_at (f, j);
      if (x->live && !keeps_end (x) && x->mark != it->epoch)
        {
          x->mark = it->epoch;
          *out = j;
          return TRUE;
        }
    }
  for (; it->ri < f->act_res->len; it->ri++, it->si = 0)
    {
      guint32 r = g_array_index (f->act_res, guint32, it->ri), si = it->si;
      const Res *y = res_at (f, r);
      if (si == 0 && !res_moved (f, y))
        continue;   /* (past its first slot: it moved) */
      for (; si < y->len; si++)
        {
          const Slot *e = &y->slots[si];
          if (e->flow == NONE || slot_kept (f, r, y, e))
            continue;
          Flow *x = flow_at (f, e->flow);
          if (x->mark != it->epoch)
            {
              x->mark = it->epoch;
              it->si = si + 1;
              *out = e->flow;
              return TRUE;
            }
        }
    }
  return FALSE;
}

/* After an incremental solve's flows took their rates: the re-computed
 * resources take their keys, and the dirty ones are clean. */
static void
incr_set_keys (SimFlows *f)
{
  for (guint i = 0; i < f->act_res->len; i++)
    {
      Res *x = res_at (f, g_array_index (f->act_res, guint32, i));
      x->key = x->done ? x->nkey : INFINITY;
      x->lvl = x->done ? x->nlvl : 0;
    }
  for (guint i = 0; i < f->dirty->len; i++)
    res_at (f, g_array_index (f->dirty, guint32, i))->dirty = FALSE;
  array_cut (f->dirty, 0);
}

/* The flows whose rates can move take them (moved_next), and the
 * re-computed resources their keys (returns how many flows' rates
 * moved: a flow not visited would not count, its rate does not move).
 * The dirty resources are among the re-computed ones.  A resource that
 * saturates neither before nor now is no flow's bottleneck: its flows'
 * rates come from their other resource, so they are visited from there
 * if that one moved. */
static guint
incr_commit (SimFlows *f, DlTime now)
{
  guint32 n = 0;
  MovedIter it;
  moved_iter_init (f, &it);
  for (guint32 j; moved_next (f, &it, &j);)
    n += incr_flow (f, j, now);
  incr_set_keys (f);
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
  array_cut (f->iheap, 0);
  array_cut (f->act_res, 0);
  array_cut (f->touched, 0);
  for (guint i = 0; i < f->dirty->len; i++)
    res_activate (f, g_array_index (f->dirty, guint32, i));
  if (!incr_run (f))
    return FALSE;
  f->solved += incr_commit (f, now);
  return TRUE;
}

/* Flow y's (index j) rate from its resources' keys and, in slow start,
 * its cap: the first of them to fix it, in the filling's order (*capped:
 * its cap). */
static double
incr_rate (SimFlows *f, guint32 j, const Flow *y, gboolean *capped)
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
  FlowHot h = hot_at (f, j);   /* (not its window's record: the evaluation read this) */
  double w = h.w != 0 ? h.w : 1.0;
  *capped = FALSE;
  if (h.cap != 0)
    {
      double rate = h.cap;
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
  if (keeps_end (x))
    return x->rate;
  if (x->ramping && x->tail && x->t_upd != now)
    _sim_flows_expand (f, x, dl_time_add (x->t_upd, flow_rtt (f, x)));   /* (added before this instant) */
  recount (x, x->rate, now);
  if (x->ramping && x->rem <= flow_cwnd (f, x))
    {
      x->ramping = FALSE;
      hot_sync (f, j);
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
  array_cut (f->unramped, 0);
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
      x->rate = incr_rate (f, j, x, &capped);
      x->capped = capped;
      f->solved++;
    }
  gboolean at_share = x->ramping && !x->capped;   /* (slow start ends: an event of its own) */
  if (at_share)
    {
      x->ramping = FALSE;
      hot_sync (f, j);
    }
  if (x->ramping && x->tail)
    _sim_flows_expand (f, x, dl_time_add (now, flow_rtt (f, x)));   /* (added at now) */
  if (!x->ramping && x->win != NONE && !x->tail)
    _sim_flows_to_tail (f, x);
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
      _sim_flows_heap_set (f, j, end);
    }
}

/* The incremental solve with windows (FALSE: not made, nothing changed
 * but the scratch and the fresh flows' bytes left; the caller fills the
 * components whole).  Its seeds: the dirty resources and those of the
 * flows whose slow start ended before it (their caps are gone).  Then
 * the flows whose rates can move take them (moved_next: the fresh ones,
 * and those of the re-computed resources that moved, incr_rate,
 * settle_flow); no other flow's can move: its resources saturate where
 * they did, its cap did not move (a growth or a start makes it fresh),
 * and its next event stands (keeps_end).  So no component is walked: the
 * cost is what changed, as without windows. */
static gboolean
incr_windowed (SimFlows *f, DlTime now)
{
  array_cut (f->unramped, 0);
  for (guint i = 0; i < f->fresh->len; i++)
    {
      guint32 j = g_array_index (f->fresh, guint32, i);
      if (flow_at (f, j)->live && !keeps_end (flow_at (f, j)))
        prepare_flow (f, j, now);   /* (listed twice: the second changes nothing) */
    }
  if (f->dirty->len + f->unramped->len > INCR_MAX_DIRTY)
    return FALSE;
  f->iepoch = ++f->epoch;
  f->work = 0;
  array_cut (f->iheap, 0);
  array_cut (f->act_res, 0);
  array_cut (f->touched, 0);
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
  MovedIter it;
  moved_iter_init (f, &it);
  for (guint32 j; moved_next (f, &it, &j);)
    settle_flow (f, j, now, keeps_end (flow_at (f, j)) ? flow_at (f, j)->rate : -1, TRUE);
  incr_set_keys (f);
  return TRUE;
}

/* The components of the dirty resources filled whole. */
static void
solve_whole (SimFlows *f, DlTime now)
{
  _sim_flows_collect_components (f, ++f->epoch);
  prepare (f, now);
  _sim_flows_fill (f, now);
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

/* A whole solve reads no fresh list: a large one (a burst: at 1 000
 * peers all-to-all a million flows start at one instant, 4 MB) is given
 * back before the solve fills the completion heap, so that the two are
 * not resident at once (issue 44). */
#define FRESH_KEEP 65536   /* entries: 256 KiB, kept as they are */

static void
drop_fresh (SimFlows *f)
{
  if (f->fresh->len <= FRESH_KEEP)
    return;
  g_array_unref (f->fresh);
  f->fresh = g_array_new (FALSE, FALSE, sizeof (guint32));
}

void
sim_flows_update (SimFlows *f, DlTime now)
{
  if (f->dirty->len > 0 && !(f->windowed == 0 ? incremental (f, now) : incr_windowed (f, now)))
    {
      drop_fresh (f);
      solve_whole (f, now);
    }
  array_cut (f->fresh, 0);
}
