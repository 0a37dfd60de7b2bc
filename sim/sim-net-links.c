/* sim-net-links.c — a peer link's life: its setup (after link_setup, or
 * never: connect_failure, both ends behind symmetric NAT, a partition, a
 * link-fail action), its coming up, its failure, its close from one end
 * and the close notice that reaches the other, which with sharing = fair
 * waits behind the messages its closer sent before it (the close_waits
 * map).  The machines are told LINK_UP, LINK_FAILED and LINK_CLOSED
 * through the callbacks sim-world.c sets.
 *
 * Under sim-net.c (sim-world-private.h draws the world's files), which
 * lets a waiting close notice go once its last message has left
 * (_sim_net_close_wait_take, _sim_net_ev_close_arrive): it calls only
 * sim-net-maps.c's look-ups, sim-net-chan.c's latency and the engine,
 * never sim-net.c. */
#include "config.h"

#include "sim/sim-world-private.h"

/* Link l's close notice from side `side` waiting behind that side's
 * messages in flight (Link.waits): few links ever have one, so they wait
 * in the world's map, keyed by the link's record (64-byte aligned) and the
 * side. */
static inline uint64_t
close_wait_key (const Link *l, int side)
{
  return (uint64_t) (uintptr_t) l | (uint64_t) side;
}

CloseNote *
_sim_net_close_wait_take (SimWorld *w, Link *l, int side)
{
  l->waits = (guint8) (l->waits & ~(1u << side));
  return dl_word_map_steal (w->close_waits, close_wait_key (l, side));
}

static void
close_wait_put (SimWorld *w, Link *l, int side, CloseNote *c)
{
  l->waits = (guint8) (l->waits | (1u << side));
  dl_word_map_insert (w->close_waits, close_wait_key (l, side), c);
}

/* ---------------------------------------------------------------- links */

/* l's setup's event, no longer kept (SIM_EVENT_NONE: none was); the map
 * goes with its last entry, so that what a million setups at one instant
 * took is given back before the messages on those links fill the memory */
static SimEventId
setup_ev_take (SimWorld *w, Link *l)
{
  if (!w->link_setup_evs)
    return SIM_EVENT_NONE;
  SimEventId ev = (SimEventId) (uintptr_t) dl_word_map_steal (w->link_setup_evs, (uint64_t) (uintptr_t) l);
  if (dl_word_map_size (w->link_setup_evs) == 0)
    g_clear_pointer (&w->link_setup_evs, dl_word_map_free);
  return ev;
}

static void
ev_link_up (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  ProtoNodeId a = (ProtoNodeId) (arg >> 32), b = (ProtoNodeId) (arg & 0xffffffffu);
  Link *l = sim_link_get (w, a, b, FALSE);
  w->link_setups--;
  if (!l)
    return;
  l->pending = FALSE;
  setup_ev_take (w, l);
  Node *na = sim_node_at (w, a), *nb = sim_node_at (w, b);
  if (l->obj != 3 || na->status != NODE_ONLINE || nb->status != NODE_ONLINE)
    return;
  l->up = TRUE;
  l->cwnd[0] = l->cwnd[1] = 0;   /* a new connection starts cold */
  sim_fact (w, a, b, "link-up", NULL);
  ProtoInput in = { .kind = PROTO_IN_LINK_UP, .from = b };
  sim_dispatch_peer (w, na, &in);
  if (nb->status == NODE_ONLINE)
    {
      in.from = a;
      sim_dispatch_peer (w, nb, &in);
    }
  (void) e;
}

void
sim_net_link_failed (SimWorld *w, ProtoNodeId a, ProtoNodeId b, const char *why)
{
  Link *l = sim_link_get (w, a, b, TRUE);
  l->failed = TRUE;
  sim_fact (w, a, b, "link-failed", why);
  ProtoInput in = { .kind = PROTO_IN_LINK_FAILED, .from = b };
  Node *na = sim_node_at (w, a), *nb = sim_node_at (w, b);
  if (na && na->status == NODE_ONLINE && sim_link_obj (l, sim_link_side (a, b)))
    sim_dispatch_peer (w, na, &in);
  in.from = a;
  if (nb && nb->status == NODE_ONLINE && sim_link_obj (l, sim_link_side (b, a)))
    sim_dispatch_peer (w, nb, &in);
}

void
sim_net_connect_link (SimWorld *w, ProtoNodeId a, ProtoNodeId b)
{
  Link *l = sim_link_get (w, a, b, TRUE);
  Node *na = sim_node_at (w, a), *nb = sim_node_at (w, b);
  const char *why = NULL;
  if (l->never)
    why = "link-fail action";
  else if (sim_partitioned (w, a, b))
    why = "partition";
  else if (na->nat_symmetric && nb->nat_symmetric)
    why = "both behind symmetric NAT";
  else if (dl_random_bernoulli (w->rng_links, w->cfg.connect_failure))
    why = "connect_failure";
  if (why)
    {
      sim_net_link_failed (w, a, b, why);
      return;
    }
  l->pending = TRUE;
  l->gen++;
  w->link_setups++;
  SimEventId ev = sim_engine_schedule_in (w->engine, dl_time_add (w->cfg.link_setup, sim_link_extra_setup (w, l)), ev_link_up,
                                         w, ((uint64_t) MIN (a, b) << 32) | MAX (a, b));
  if (!w->link_setup_evs)
    w->link_setup_evs = dl_word_map_new (NULL);
  dl_word_map_insert (w->link_setup_evs, (uint64_t) (uintptr_t) l, (gpointer) (uintptr_t) ev);
}

void
sim_net_cancel_link_setup (SimWorld *w, Link *l)
{
  sim_engine_cancel (w->engine, setup_ev_take (w, l));
  l->pending = FALSE;
  w->link_setups--;
}

static DlTime
link_latency (SimWorld *w, ProtoNodeId a, ProtoNodeId b, DlRandom *r)
{
  return dl_dist_sample_time (_sim_net_latency_of (w, a, b, PROTO_VIA_LINK, FALSE), r);
}

/* A link close notice arrives: the other end is told, if it still holds
 * that link (not one made since) */
void
_sim_net_ev_close_arrive (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  const CloseNote *c = (const CloseNote *) (uintptr_t) arg;
  w->timed_pending--;
  Link *l = sim_link_get (w, c->self, c->other, FALSE);
  Node *o = sim_node_at (w, c->other);
  if (!l || l->gen != c->gen)
    return;   /* the pair has connected again since */
  l->up = FALSE;
  if (o && o->status == NODE_ONLINE && sim_link_obj (l, sim_link_side (c->other, c->self)))
    {
      ProtoInput in = { .kind = PROTO_IN_LINK_CLOSED, .from = c->self };
      sim_dispatch_peer (w, o, &in);
    }
  (void) e;
}

void
sim_net_close_link (SimWorld *w, ProtoNodeId self, ProtoNodeId other, gboolean notify)
{
  Link *l = sim_link_get (w, self, other, FALSE);
  if (!l)
    return;
  sim_link_set_obj (l, sim_link_side (self, other), FALSE);
  Node *sn = sim_node_at (w, self);
  if (sn)
    sn->link_closes++;
  gboolean was_up = l->up && !l->dead;
  Node *o = sim_node_at (w, other);
  gboolean notice = was_up && notify && o && o->status == NODE_ONLINE && sim_link_obj (l, sim_link_side (other, self));
  /* with a notice on its way the link stays up for the other end, which
   * may still send on it: that goes on the wire and is lost at this end */
  l->up = notice;
  l->dead = FALSE;
  l->failed = FALSE;
  if (l->pending)
    sim_net_cancel_link_setup (w, l);
  if (notice)
    {
      /* the close reaches the other end after the link's latency (SCTP's
       * shutdown crosses the link as data does); if that end destroys its
       * own side first, it never hears of it */
      CloseNote *c = g_new (CloseNote, 1);
      *c = (CloseNote) { .self = self, .other = other, .gen = l->gen,
                         .latency = link_latency (w, self, other, w->rng_close) };
      g_ptr_array_add (w->close_notes, c);
      w->timed_pending++;
      /* behind what this end sent on the link before closing it: in the
       * channel's queue (fair), or arriving up to last_arrival (fifo) */
      int side = sim_link_side (self, other);
      DlTime now = sim_engine_now (w->engine);
      if (w->flows && l->q[side])
        {
          /* an earlier close of this side still waiting is of an earlier
           * connection (stale when it arrives): let it go now */
          if ((l->waits >> side) & 1)
            sim_engine_schedule_at (w->engine, now, _sim_net_ev_close_arrive, w,
                                    (uint64_t) (uintptr_t) _sim_net_close_wait_take (w, l, side));
          close_wait_put (w, l, side, c);
        }
      else
        sim_engine_schedule_at (w->engine, MAX (dl_time_add (now, c->latency), l->last_arrival[side]),
                                _sim_net_ev_close_arrive, w, (uint64_t) (uintptr_t) c);
    }
}
