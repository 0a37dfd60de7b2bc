/* sim-flows-fill.c — the whole solve: weighted progressive filling of
 * the components that hold a changed resource (see sim-flows.c); the
 * incremental solve's evaluation of one resource, which must follow the
 * filling's arithmetic (_sim_flows_res_eval); and sim_flows_check, which
 * fills every component from scratch and compares (a leaf of
 * sim-flows-solve.c: it includes only sim-flows-private.h and calls
 * nothing back). */
#include "config.h"

#include "sim/sim-flows-private.h"

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
  array_cut (f->rheap, n);
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

/* The components that hold a dirty resource, in a breadth-first walk:
 * their resources in comp_res (the dirty ones first), the number of
 * their flows in comp_nflows.  The flows are not listed (4 bytes a flow,
 * every flow at all-to-all): comp_next finds them again, in the order
 * this walk found them. */
void
_sim_flows_collect_components (SimFlows *f, guint32 epoch)
{
  /* (room for every resource: written in place; the whole-component
     walk, the fallback when the incremental solve would cost more) */
  g_array_set_size (f->comp_res, f->res.len);
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
  array_cut (f->dirty, 0);
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
  array_cut (f->comp_res, nres);
  f->comp_nflows = nflows;
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
 * slots' order, as _sim_flows_res_eval sums it: the same whichever resource's change
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
void
_sim_flows_fill (SimFlows *f, DlTime now)
{
  array_cut (f->rheap, 0);
  array_cut (f->caps, 0);
  for (guint i = 0; i < f->comp_res->len; i++)
    {
      Res *x = res_at (f, g_array_index (f->comp_res, guint32, i));
      x->left = x->cap;
      x->unfixed = x->count;
      x->wextra = res_wextra (f, x);
      x->key = INFINITY;   /* (until it saturates) */
    }
  /* (the caps: only with windows, since a flow ramps only in one; a
     walk over every flow's record, 13 % of the filling at 1 000 peers
     of bench scale, where no flow has a window) */
  CompIter it;
  comp_iter_init (f, &it);
  for (guint32 j; f->windowed > 0 && comp_next (f, &it, &j);)
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

/* ---------------------------------------------------------------- one resource's saturation
 *
 * The incremental solve's evaluation (sim-flows-solve.c): the filling
 * above seen from one resource, its neighbours' saturations and its
 * flows' caps taken as inputs in the filling's order, with the filling's
 * arithmetic, so that the keys are the same bit for bit.  Kept beside
 * the filling, which it must follow. */

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

/* What resource r sees of flow j (its FlowHot h: its weight and cap, in
 * slot s, whose other resource is o): the first of its other resource's saturation and, in
 * slow start, its cap (TRUE, *in set), or FALSE: nothing before r's own. */
static gboolean
flow_input (SimFlows *f, guint32 j, FlowHot h, guint32 s, guint32 o, Input *in)
{
  double zk, zl, w = h.w;
  gboolean sat = o != NONE && res_known (f, res_at (f, o), &zk, &zl);
  if (sat)
    *in = (Input) { zk, o, 0, zl * w, w, s };
  if (h.cap == 0)
    return sat;
  double rate = h.cap, c = rate / w;
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
 * *key and *lvl set), or FALSE: its flows are all fixed elsewhere
 * (sim-flows-solve.c's incremental solve calls it: see there why it
 * gives the filling's keys, operation for operation). */
gboolean
_sim_flows_res_eval (SimFlows *f, guint32 r, double *key, double *lvl)
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
      FlowHot h;
      if (f->windowed && (h = hot_at (f, e.flow)).w != 0)
        {
          wextra += h.w - 1;
          n += flow_input (f, e.flow, h, s, e.other, &put[n]);
        }
      else if (e.other != NONE && res_known (f, res_at (f, e.other), &zk, &zl))
        put[n++] = (Input) { zk, e.other, 0, zl, 1, s };
    }
  array_cut (f->inputs, n);
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
  guint nf = f->flows.len, nr = f->res.len;
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
  _sim_flows_collect_components (f, ++f->epoch);
  _sim_flows_fill (f, 0);   /* (no flow is kept outside a whole solve: fix_flow counts nothing) */
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

/* The tie's count of the flows whose entry it holds (tie_live, which
 * says when it is empty, sim-flows-heap.c) against the flows, and its
 * keys, live and stale, against that count. */
static gboolean
check_tie (SimFlows *f, GString *why)
{
  guint32 n = 0;
  for (guint32 i = 0; i < f->flows.len; i++)
    n += flow_at (f, i)->live && flow_at (f, i)->hpos == IN_TIE;
  if (n != f->tie_live || n > f->tie_len - f->tie_head)
    {
      g_string_append_printf (why, "the tie: %u flows in it, it counts %u, holds %u keys", n, f->tie_live,
                              f->tie_len - f->tie_head);
      return FALSE;
    }
  return TRUE;
}

/* Each flow's FlowHot (what _sim_flows_res_eval reads) against its records: the
 * same bits, and an entry for every flow with a window. */
static gboolean
check_hot (SimFlows *f, GString *why)
{
  for (guint32 i = 0; i < f->flows.len; i++)
    {
      FlowHot h = hot_at (f, i), want = hot_of_records (f, flow_at (f, i));
      if (h.w != want.w || h.cap != want.cap)
        {
          g_string_append_printf (why, "flow %u: weight %.17g and cap %.17g kept, its records give %.17g and %.17g",
                                  i, h.w, h.cap, want.w, want.cap);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim_flows_check (SimFlows *f, GString *why)
{
  if (!check_tie (f, why) || !check_hot (f, why))
    return FALSE;
  guint nres = f->res.len;
  g_autofree double *sum = g_new0 (double, nres);
  g_autofree double *top = g_new0 (double, nres);
  for (guint32 i = 0; i < f->flows.len; i++)
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
  for (guint32 i = 0; i < f->flows.len; i++)
    {
      Flow *x = flow_at (f, i);
      DlTime end = x->live ? flow_end (f, x) : DL_TIME_NEVER;
      if (x->live && x->hpos != NONE && end == DL_TIME_NEVER)
        {
          /* (keeps_end, sim-flows-solve.c, reads an entry as a next event) */
          g_string_append_printf (why, "flow %u: a completion entry at DL_TIME_NEVER", i);
          return FALSE;
        }
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
  for (guint32 i = 0; i < f->flows.len; i++)
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
