/* sim-flows-win.c — the flows' windows' records (a leaf of sim-flows.c
 * and sim-flows-solve.c: it includes only sim-flows-private.h, calls
 * only sim-ramp.c, and nothing back): a FlowWin while a flow is in slow
 * start, a FlowTail, a quarter of one, before and after it, each kept on
 * a free list. */
#include "config.h"

#include "sim/sim-flows-private.h"

/* a FlowWin for x (x->win), not filled in */
void
_sim_flows_win_new (SimFlows *f, Flow *x)
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
void
_sim_flows_tail_new (SimFlows *f, Flow *x)
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

/* A flow that starts as a FlowTail and is in slow start gets its FlowWin,
 * which grows first at t_ramp. */
void
_sim_flows_expand (SimFlows *f, Flow *x, DlTime t_ramp)
{
  FlowTail t = *tail_of (f, x);
  FlowKind k = g_array_index (f->kinds, FlowKind, x->kind);
  tail_of (f, x)->cwnd = f->free_tail;
  f->free_tail = x->win;
  _sim_flows_win_new (f, x);
  _sim_ramp_start (win_of (f, x), (double) t.cwnd, (DlTime) t.rtt, t_ramp, k);
}

/* Flow x is out of slow start: its FlowWin gives way to a FlowTail (the
 * window in whole bytes: what its end reports is whole bytes too), unless
 * its round trip or window does not fit one (over 4.29 s, 4 GiB). */
void
_sim_flows_to_tail (SimFlows *f, Flow *x)
{
  FlowWin *v = win_of (f, x);
  if (v->rtt > (DlTime) G_MAXUINT32 || !(v->cwnd < (double) G_MAXUINT32))
    return;
  FlowTail t = { (guint32) v->cwnd, (guint32) v->rtt };
  v->lag = f->free_win;
  f->free_win = x->win;
  _sim_flows_tail_new (f, x);
  *tail_of (f, x) = t;
}
