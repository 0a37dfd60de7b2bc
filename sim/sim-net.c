/* sim-net.c — the simulated network: messages and streams (peer links in
 * sim-net-links.c).
 *
 * Two models of bandwidth ([network] sharing, docs/world.md):
 * - fair: a message is a flow over the sender's uplink and the receiver's
 *   downlink; concurrent flows share both max-min fairly (sim-flows.c),
 *   then the message pays its latency.  A channel (one direction of a
 *   link's data channel, of a peer's coordinator stream) is ordered and
 *   reliable, as SCTP's ordered data channel and the WebSocket's TCP are:
 *   its messages go one after the other, each a flow once the one before
 *   it has left.  DISCO opens a channel per peer pair and sends every
 *   Payload of a round at once (exchangeWeightUpdates: payloads.forEach),
 *   so a round's Payloads are concurrent flows.
 *   With [network] transport = tcp or sctp, each flow also has slow start
 *   (sim_flows_add_window): the window it starts with is its channel's
 *   connection's (_sim_net_conn_window, sim-net-chan.c: the initial
 *   window on a new or idle one).
 * - fifo: a message occupies the sender's uplink (FIFO, at its rate), then
 *   propagation latency, then the receiver's downlink (FIFO, at its rate):
 *   whole message after whole message, which makes all-to-all rounds up
 *   to 2x too slow (kept for comparison).
 * A node's rates are its [network] (or peers.capacity) ones, and with a
 * bandwidth trace (sim-bwtrace.h) its device's rows' from their instants
 * on: fair re-solves the flows in flight then, fifo serializes a message
 * over the rates to come (serialized_at).
 * Latency is sampled per message.  Per (sender, receiver, channel) delivery is ordered:
 * a later message never arrives before an earlier one, whatever the jitter.
 * The coordinator's own links are not rate-limited.  Weight messages are
 * charged their real wire size.  A graceful close is a close frame behind
 * what the peer sent; a crash loses what had not left its uplink.
 *
 * Links (sim-net-links.c): after the initiator has the answer, a link
 * comes up after link_setup, or never (connect_failure, both ends behind
 * symmetric NAT, a partition, a link-fail action): the machines are told
 * LINK_FAILED.  A link a side closes is closed for the other side too; an
 * open link hit by link-down dies silently (what is sent on it is lost).
 *
 * The lowest of the world's files above its leaves (sim-world-private.h
 * draws them): it calls
 * only sim-net-links.c (a link's setup and close) and the leaves
 * sim-net-chan.c, sim-net-rates.c, sim-net-rules.c, sim-net-msg.c,
 * sim-net-maps.c, sim-flows.c and sim-engine.c; what it delivers goes to
 * a machine through the callbacks sim-world.c sets. */
#include "config.h"

#include "sim/sim-world-private.h"
#include "sim/sim-net-chan-private.h"
#include "sim/sim-net-msg-private.h"
#include "sim/sim-flows.h"
#include "protocol/replica/proto-replica.h"

#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* What a message of `bytes` occupies links for: its bytes cut into
 * segments of mss, each with its headers.  Not the bytes the run counts
 * (traffic, bytes_sent): those are the message's own. */
static guint64
wire_bytes (const SimWorld *w, gsize bytes)
{
  return bytes + (bytes + w->cfg.mss_bytes - 1) / w->cfg.mss_bytes * w->cfg.header_bytes;
}

static DlTime
tx_time (gsize bytes, uint64_t bps)
{
  if (bps == 0)
    return 0;
  /* ceil(bytes * 8 * 1e9 / bps) in integer ns */
  __uint128_t num = (__uint128_t) bytes * 8u * 1000000000u;
  return (DlTime) ((num + bps - 1) / bps);
}


/* When `bytes` that start on node n's uplink (down: its downlink) at
 * `start` have left it: at its rate then, and with a bandwidth trace at
 * each later rate of its device from that row's instant on (the message
 * on the wire goes on at the new rate, as the flows of sharing = fair do).
 * In bit-ns, exact: ceil of what is left over the last rate. */
static DlTime
serialized_at (const Node *n, int down, DlTime start, gsize bytes)
{
  if (!n->rates)
    return dl_time_add (start, tx_time (bytes, down ? n->down_bps : n->up_bps));
  uint64_t bps = down ? n->down_bps0 : n->up_bps0;
  guint i = 0;
  for (; i < n->n_rates && n->rates[i].at <= start; i++)
    bps = down ? n->rates[i].down_bps : n->rates[i].up_bps;
  __uint128_t left = (__uint128_t) bytes * 8u * 1000000000u;
  DlTime t = start;
  for (; i < n->n_rates; i++)
    {
      __uint128_t can = (__uint128_t) bps * (uint64_t) (n->rates[i].at - t);
      if (can >= left)
        break;
      left -= can;
      t = n->rates[i].at;
      bps = down ? n->rates[i].down_bps : n->rates[i].up_bps;
    }
  __uint128_t dt = (left + bps - 1) / bps;
  return dl_time_add (t, dt < (__uint128_t) DL_TIME_NEVER ? (DlTime) dt : DL_TIME_NEVER);
}

/* ---------------------------------------------------------------- network */

static void ev_arrive (SimEngine *e, void *ctx, uint64_t arg);
static void ev_deliver (SimEngine *e, void *ctx, uint64_t arg);

/* Message records come from slabs (base/dl-slab.h: malloc and free of one
 * per message were 5 % of a 1 000-peer run, and its header per record
 * costs memory with a million in flight at 1 000 peers), and so do links
 * (half a million at 1 000 peers, never freed before the world).  The
 * slabs live as long as the world. */
#define MSG_SLAB 4096
#define BODY_SLAB 1024
#define LINK_SLAB 1024

/* With the engine: the network's records, and the engine's hints for its
 * events.  A message's arrival and delivery each read its record first, a
 * cache miss when a million are in flight: the engine loads it one event
 * ahead, for the arrival only the fields it reads (from `bytes_lo` to
 * `bytes_hi`). */
void
sim_net_init (SimWorld *w)
{
  dl_slab_init (&w->msgs, sizeof (Msg), MSG_SLAB);
  dl_slab_init (&w->bodies, sizeof (MsgBody), BODY_SLAB);
  dl_slab_init (&w->link_slab, sizeof (Link), LINK_SLAB);
  sim_engine_prefetch_arg (w->engine, ev_arrive, offsetof (Msg, bytes_lo),
                           offsetof (Msg, bytes_hi) + 1 - offsetof (Msg, bytes_lo));
  sim_engine_prefetch_arg (w->engine, ev_deliver, 0, sizeof (Msg));
  if (!w->cfg.sharing_fifo)
    w->flows = sim_flows_new ();
  if (w->flows && w->cfg.transport != SIM_TRANSPORT_FLUID)
    sim_flows_set_timeouts (w->flows, w->cfg.min_rto, w->cfg.queue_bdp, w->cfg.mss_bytes + w->cfg.header_bytes);
  _sim_net_rates_init (w);
}

/* m's wire bytes: 40 bits, in two fields (a Msg is 48 bytes) */
static inline gsize
msg_bytes (const Msg *m)
{
  return (gsize) m->bytes_lo | ((gsize) m->bytes_hi << 32);
}

static inline void
msg_set_bytes (Msg *m, gsize bytes)
{
  g_assert (bytes >> 40 == 0);
  m->bytes_lo = (guint32) bytes;
  m->bytes_hi = (guint8) (bytes >> 32);
}

/* With the world: the messages still in flight, then the slabs (and the
 * links'). */
void
sim_net_free (SimWorld *w)
{
  g_clear_pointer (&w->flows, sim_flows_free);
  g_clear_pointer (&w->rates_by_peer, g_array_unref);
  g_clear_pointer (&w->rates_by_time, g_array_unref);
  dl_slab_clear (&w->link_slab);
  g_clear_pointer (&w->link_slow, dl_word_map_free);
  g_clear_pointer (&w->link_setup_evs, dl_word_map_free);
  g_clear_pointer (&w->msg_extras, dl_word_map_free);
  if (!w->msgs.slabs)
    return;
  /* the bodies still held (live_bodies of them): the scan stops at the
   * last, rather than read every body ever carved */
  guint64 live = w->live_bodies;
  for (guint i = 0; live > 0 && i < dl_slab_carved (&w->bodies); i++)
    {
      MsgBody *b = dl_slab_at (&w->bodies, i);
      if (b->refs)
        {
          proto_msg_clear (&b->msg);
          live--;
        }
    }
  w->last_body = NULL;
  dl_slab_clear (&w->bodies);
  dl_slab_clear (&w->msgs);
}

static void schedule_msg (SimWorld *w, Msg *m, Link *l, DlTime extra);

void
sim_net_send (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  if (w->flows)
    {
      /* the sender's uplink and the receiver's downlink (node_res), which
       * the flow reads first when it starts below: loaded while the
       * message is made and its link found */
      sim_flows_prefetch (w->flows, 2 * (guint32) from);
      sim_flows_prefetch (w->flows, 2 * (guint32) to + 1);
    }
  Msg *m = _sim_net_msg_new (w);
  /* a coordinator replica speaks to a peer as the coordinator, on the
   * peer's stream; to another replica on the replicas' own network */
  if (proto_node_is_replica (from))
    {
      if (proto_node_is_replica (to))
        m->internal = TRUE;
      else
        {
          m->server = (guint8) proto_replica_index (from);
          from = PROTO_SERVER;
        }
    }
  m->from = from;
  m->to = to;
  m->via = via;
  m->node = msg->node;
  gsize bytes = _sim_net_msg_wire_size (w, msg);
  msg_set_bytes (m, bytes);
  w->result.messages++;
  w->result.bytes += bytes;
  if (from != PROTO_SERVER && !m->internal)
    sim_node_at (w, from)->bytes_sent += bytes;
  if (w->rec.traffic)
    w->rec.traffic (w->rec.user_data, msg->type, bytes);
  m->body = _sim_net_msg_body_take (w, msg);

  Link *l = NULL;
  if (via == PROTO_VIA_LINK)
    {
      l = sim_link_get (w, from, to, FALSE);
      if (!l || !l->up || l->dead)
        {
          sim_fact (w, from, to, "lost", l && l->dead ? "link died (link-down)" : "link not open");
          sim_net_msg_free (w, m);
          return;
        }
      Node *dst = sim_node_at (w, to);
      m->closes = dst ? dst->link_closes : 0;
      m->doomed = !sim_link_obj (l, sim_link_side (to, from));
    }
  else if (!m->internal)
    {
      /* a peer's coordinator stream: the message belongs to the stream it
       * goes on; a broken one (a crashed replica, a reconnect under way)
       * takes nothing */
      Node *n = sim_node_at (w, to == PROTO_SERVER ? from : to);
      if (n)
        {
          m->stream = n->stream;
          if (n->stream_down || (from == PROTO_SERVER && n->server != m->server))
            {
              sim_fact (w, from, to, "lost", "the coordinator stream is down");
              sim_net_msg_free (w, m);
              return;
            }
        }
    }
  if (sim_partitioned (w, from, to))
    {
      sim_fact (w, from, to, "lost", "partition");
      sim_net_msg_free (w, m);
      return;
    }
  schedule_msg (w, m, l, _sim_net_rules_take_delay (w, from, to, m));
}

/* ---------------------------------------------------------------- fair sharing */

static void ev_flows (SimEngine *e, void *ctx, uint64_t arg);

/* A node's resources in the flows: its uplink and its downlink.  The
 * coordinator's (PROTO_SERVER, 0: resources 0 and 1) only with
 * [network] server_uplink or server_downlink. */
static guint32
node_res (SimWorld *w, ProtoNodeId id, int down)
{
  if (id == PROTO_SERVER)
    {
      uint64_t bps = down ? w->cfg.server_downlink_bps : w->cfg.server_uplink_bps;
      if (bps == 0)
        return SIM_FLOWS_NONE;
      if (!sim_flows_has_capacity (w->flows, (guint32) down))
        sim_flows_set_capacity (w->flows, (guint32) down, bps);
      return (guint32) down;
    }
  if (!sim_node_at (w, id))
    return SIM_FLOWS_NONE;
  guint32 r = 2 * (guint32) id + (guint32) down;
  if (!sim_flows_has_capacity (w->flows, r))
    sim_flows_set_capacity (w->flows, r, down ? sim_node_at (w, id)->down_bps : sim_node_at (w, id)->up_bps);
  return r;
}

/* The flows are solved at this instant, after whatever else happens at it
 * (every send of a handler is one batch). */
static void
flows_tick_now (SimWorld *w)
{
  DlTime now = sim_engine_now (w->engine);
  if (w->flows_ticking)
    return;
  if (w->flows_ev != SIM_EVENT_NONE)
    {
      if (w->flows_at <= now)
        return;
      sim_engine_cancel (w->engine, w->flows_ev);
    }
  w->flows_at = now;
  w->flows_ev = sim_engine_schedule_at (w->engine, now, ev_flows, w, 0);
}

/* a queue's link to m (MsgRef, sim-world-private.h), and back */
static inline guint32
msg_ref (const Msg *m)
{
  return m ? m->idx + 1 : 0;
}

static inline Msg *
msg_of (SimWorld *w, guint32 ref)
{
  return ref ? dl_slab_at (&w->msgs, ref - 1) : NULL;
}

/* m is delivered at t.  Deliveries scheduled one after the other for one
 * instant, with no other event scheduled between them, would run one
 * after the other: they are one engine event, the first message's, and
 * the rest follow it through `next` (free once a message has left its
 * channel's queue).  A round's Payloads that leave at one instant are
 * one event, not one each (issue 44: an event per message in flight). */
static void
deliver_at (SimWorld *w, DlTime t, Msg *m)
{
  m->next = 0;
  if (w->deliver_at == t && sim_engine_is_last (w->engine, w->deliver_ev))
    {
      msg_of (w, w->deliver_tail)->next = msg_ref (m);
      w->deliver_tail = msg_ref (m);
      return;
    }
  w->deliver_ev = sim_engine_schedule_at (w->engine, t, ev_deliver, w, (uint64_t) (uintptr_t) m);
  w->deliver_at = t;
  w->deliver_tail = msg_ref (m);
}

static void flow_start (SimWorld *w, Msg *m, Link *l);

/* Under tcp or sctp, what the switch between the sender's uplink and the
 * receiver's downlink adds: it forwards a packet once it has it whole,
 * so m's last segment crosses the downlink after it has left the uplink
 * (a fluid flow counts its bytes on both links at once). */
static DlTime
store_and_forward (const SimWorld *w, const Msg *m)
{
  Node *dst = w->cfg.transport == SIM_TRANSPORT_FLUID ? NULL : sim_node_at ((SimWorld *) w, m->to);
  if (!dst || m->to == PROTO_SERVER || m->from == PROTO_SERVER)
    return 0;
  return tx_time (MIN (wire_bytes (w, msg_bytes (m)), w->cfg.mss_bytes + w->cfg.header_bytes), dst->down_bps);
}

/* ---------------------------------------------------------------- flows */

/* m has left (with window cwnd, 0: none): its latency, its channel's
 * order, its delivery; and the next message on its channel goes */
static void
flow_done (SimWorld *w, Msg *m, DlTime now, Link *l, guint64 cwnd)
{
  _sim_net_conn_sent (w, m, l, cwnd);
  DlTime t = dl_time_add (now, dl_time_add (m->wire_done, store_and_forward (w, m)));
  m->wire_done = now;
  /* the channel's last arrival is m's before the next message starts:
   * that one finds its connection busy, not idle (_sim_net_conn_window) */
  DlTime *last = _sim_net_channel_last (w, m, l);
  t = MAX (t, *last);
  *last = t;
  guint32 *tail = NULL;
  guint32 *q = _sim_net_channel_queue (w, m, l, &tail);
  if (q && *q == msg_ref (m))
    {
      *q = m->next;
      if (!*q)
        *tail = 0;
      else
        flow_start (w, msg_of (w, m->next), l);   /* (the same channel: the same link) */
    }
  deliver_at (w, t, m);
  int side = sim_link_side (m->from, m->to);
  if (l && q && !*q && (l->waits >> side) & 1)
    {
      /* the sender closed the link behind this message: the notice follows it */
      CloseNote *c = _sim_net_close_wait_take (w, l, side);
      sim_engine_schedule_at (w->engine, MAX (t, dl_time_add (now, c->latency)), _sim_net_ev_close_arrive, w,
                              (uint64_t) (uintptr_t) c);
    }
}

/* m's flow starts now; l is its link if the caller has it (NULL: looked
 * up where needed) */
static void
flow_start (SimWorld *w, Msg *m, Link *l)
{
  guint32 up = node_res (w, m->from, 0), down = node_res (w, m->to, 1);
  if (up == SIM_FLOWS_NONE && down == SIM_FLOWS_NONE)
    {
      flow_done (w, m, sim_engine_now (w->engine), NULL, 0);   /* coordinator to a node not there: no limit */
      return;
    }
  /* the round trip: the latency m pays, both ways (wire_done holds it); a
   * delay rule holds the message, not its ACKs, and its extra makes the
   * message D later, not every round trip of its slow start */
  DlTime now = sim_engine_now (w->engine), lat = m->wire_done - _sim_net_msg_take_extra (w, m), rtt = dl_time_add (lat, lat);
  SimFlowsWindow win;
  gboolean ss = _sim_net_conn_window (w, m, l, now, rtt, &win);
  sim_flows_add_window (w->flows, now, up, down, wire_bytes (w, msg_bytes (m)), m->idx, ss ? &win : NULL);
  flows_tick_now (w);
}

static void
ev_flows (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  DlTime now = sim_engine_now (e);
  w->flows_ev = SIM_EVENT_NONE;
  w->flows_ticking = TRUE;
  guint64 u, cwnd;
  while (sim_flows_pop_window (w->flows, now, &u, &cwnd))
    {
      Msg *m = dl_slab_at (&w->msgs, (guint) u);
      flow_done (w, m, now, m->via == PROTO_VIA_LINK ? sim_link_get (w, m->from, m->to, FALSE) : NULL, cwnd);
    }
  sim_flows_update (w->flows, now);
  w->flows_ticking = FALSE;
  DlTime next = sim_flows_next (w->flows);
  if (next != DL_TIME_NEVER)
    {
      w->flows_at = next;
      w->flows_ev = sim_engine_schedule_at (e, next, ev_flows, w, 0);
    }
  (void) arg;
}

/* ---------------------------------------------------------------- bandwidth trace */

static void ev_rate (SimEngine *e, void *ctx, uint64_t arg);

void
sim_net_schedule_rates (SimWorld *w)
{
  for (guint i = 0; w->rates_by_time && i < w->rates_by_time->len; i++)
    sim_engine_schedule_at (w->engine, g_array_index (w->rates_by_time, SimRateChange, i).at, ev_rate, w, i);
}

static void
set_rates (SimWorld *w, Node *n, const SimRateChange *r)
{
  n->up_bps = r->up_bps;
  n->down_bps = r->down_bps;
  if (!w->flows)
    return;   /* fifo: serialized_at reads the rows */
  for (guint32 k = 0; k < 2; k++)
    {
      guint32 res = 2 * (guint32) n->id + k;
      if (sim_flows_has_capacity (w->flows, res))   /* (else set when its first flow starts) */
        sim_flows_set_capacity (w->flows, res, k ? r->down_bps : r->up_bps);
    }
  flows_tick_now (w);   /* the flows in progress re-solved at this instant */
}

/* A bandwidth trace's row: its device's nodes (the peer and every return
 * of it) have its rates from now on.  The timeline tells it on the
 * device's latest session. */
static void
ev_rate (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  const SimRateChange *r = &g_array_index (w->rates_by_time, SimRateChange, arg);
  Node *n = sim_node_at (w, r->peer);
  if (n)
    set_rates (w, n, r);
  const GArray *so = w->cfg.session_origin;
  for (guint k = 0; so && k < so->len; k++)
    if (g_array_index (so, guint, k) == r->peer && (n = sim_node_at (w, w->cfg.max_peers + 1 + k)))
      set_rates (w, n, r);
  Node *dev = sim_node_at (w, r->peer);
  char up[32], down[32], buf[128];
  _sim_net_rates_format (up, sizeof up, r->up_bps);
  _sim_net_rates_format (down, sizeof down, r->down_bps);
  g_snprintf (buf, sizeof buf, "uplink %s, downlink %s (bandwidth_trace line %u)", up, down, r->line);
  sim_fact (w, dev && dev->latest ? dev->latest : r->peer, PROTO_NO_NODE, "rate", buf);
  (void) e;
}

/* A crash stops node id's uplink (sharing = fair): the flows it was
 * sending end now, and they and the messages queued behind them on its
 * channels are lost ("the sender crashed before it was sent", told now
 * rather than when they would have arrived), so the receivers' downlinks
 * go to the other senders from this instant.  A close notice still waiting
 * behind them is never sent. */
void
sim_net_uplink_stopped (SimWorld *w, ProtoNodeId id)
{
  if (!w->flows || id == PROTO_SERVER || !sim_node_at (w, id))
    return;
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (sim_flows_cancel (w->flows, 2 * (guint32) id, users) == 0)
    return;
  DlTime now = sim_engine_now (w->engine);
  for (guint i = 0; i < users->len; i++)
    {
      Msg *m = dl_slab_at (&w->msgs, (guint) g_array_index (users, guint64, i));
      Link *l = m->via == PROTO_VIA_LINK ? sim_link_get (w, m->from, m->to, FALSE) : NULL;
      guint32 *tail = NULL;
      guint32 *q = _sim_net_channel_queue (w, m, l, &tail);
      Msg *x = q && *q == msg_ref (m) ? m : NULL;
      if (!x)
        x = m, m->next = 0;   /* a message outside any queue */
      else
        *q = *tail = 0;
      while (x)
        {
          Msg *nx = msg_of (w, x->next);
          x->next = 0;
          x->wire_done = DL_TIME_NEVER;   /* never fully left the uplink */
          deliver_at (w, now, x);
          x = nx;
        }
      int side = sim_link_side (m->from, m->to);
      if (l && (l->waits >> side) & 1)
        {
          _sim_net_close_wait_take (w, l, side);   /* (freed with the world's close_notes) */
          w->timed_pending--;
        }
    }
  flows_tick_now (w);
}

/* Puts m on the wire: the sender's uplink (FIFO), the latency, the extra
 * delay of a delay rule, and the channel's order; or, with sharing = fair,
 * its channel's queue, whose head is a flow.  l is m's link when it goes
 * on one. */
static void
schedule_msg (SimWorld *w, Msg *m, Link *l, DlTime extra)
{
  DlTime now = sim_engine_now (w->engine);
  ProtoNodeId from = m->from;
  ProtoVia via = m->via;
  Node *src = sim_node_at (w, from);
  DlTime t = now;
  if (w->flows && !m->internal)
    {
      DlRandom *r = src ? src->rng_net : w->rng_links;
      m->wire_done = dl_time_add (dl_dist_sample_time (_sim_net_latency_of (w, from, m->to, via, FALSE), r), extra);
      _sim_net_msg_set_extra (w, m, extra);
      w->in_flight++;
      guint32 *tail = NULL;
      guint32 *q = _sim_net_channel_queue (w, m, l, &tail);
      m->next = 0;
      if (q && *q)
        {
          msg_of (w, *tail)->next = msg_ref (m);   /* behind the channel's message in flight */
          *tail = msg_ref (m);
          return;
        }
      if (q)
        *q = *tail = msg_ref (m);
      flow_start (w, m, l);
      return;
    }
  if (src)
    {
      DlTime start = MAX (now, src->up_free);
      src->up_free = serialized_at (src, 0, start, wire_bytes (w, msg_bytes (m)));
      t = src->up_free;
    }
  else if (m->internal)
    {
      /* a replica's uplink to the others: a crash loses what has not left it */
      SimServer *sv = &w->servers[proto_replica_index (from)];
      DlTime start = MAX (now, sv->up_free);
      sv->up_free = dl_time_add (start, tx_time (msg_bytes (m), w->cfg.replica_uplink_bps));
      t = sv->up_free;
    }
  m->wire_done = t;
  DlRandom *r = src ? src->rng_net : w->rng_links;
  t = dl_time_add (t, dl_dist_sample_time (_sim_net_latency_of (w, from, m->to, via, m->internal), r));
  t = dl_time_add (t, extra);
  /* reliable, ordered per channel: never before the previous arrival */
  DlTime *last = _sim_net_channel_last (w, m, l);
  t = MAX (t, *last);
  *last = t;
  if (!m->internal)
    w->in_flight++;   /* the replicas' own traffic is not the run's: heartbeats never end */
  sim_engine_schedule_at (w->engine, t, ev_arrive, w, (uint64_t) (uintptr_t) m);
}

/* A WebSocket close frame: the coordinator sees a graceful close only after
 * everything the peer sent before it, in order, with the stream's latency
 * (RFC 6455 §1.4: the close frame follows the data on the same stream). */
#define CLOSE_FRAME_BYTES 8
void
sim_net_close_stream (SimWorld *w, Node *n)
{
  if (n->stream_down)
    return;   /* nothing to close: its stream already broke */
  Msg *m = _sim_net_msg_new (w);
  m->from = n->id;
  m->to = PROTO_SERVER;
  m->via = PROTO_VIA_SERVER;
  m->close = TRUE;
  m->stream = n->stream;
  /* no body: a close frame carries no message */
  msg_set_bytes (m, CLOSE_FRAME_BYTES);
  schedule_msg (w, m, NULL, 0);
}

static void
ev_arrive (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Msg *m = (Msg *) (uintptr_t) arg;
  Node *dst = sim_node_at (w, m->to);
  DlTime t = sim_engine_now (e);
  if (dst)
    {
      DlTime start = MAX (t, dst->down_free);
      dst->down_free = serialized_at (dst, 1, start, wire_bytes (w, msg_bytes (m)));
      t = dst->down_free;
    }
  deliver_at (w, t, m);
}

static void
deliver_one (SimWorld *w, Msg *m)
{
  char kind[64];
  SimEngine *e = w->engine;
  ProtoMsg msg;
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = m->from, .via = m->via,
                    .msg = sim_net_msg_view (m, &msg) };
  if (m->internal)
    {
      guint k = proto_replica_index (m->to);
      const SimServer *from = &w->servers[proto_replica_index (m->from)];
      if (from->crashed && m->wire_done > from->crashed_at)
        ;   /* it had not left the sender's uplink when it crashed */
      else if (k < w->n_servers)
        sim_dispatch_server (w, k, &in);   /* nothing if it crashed */
      sim_net_msg_free (w, m);
      return;
    }
  w->in_flight--;
  w->last_arrival = sim_engine_now (e);
  Node *src = sim_node_at (w, m->from);
  Node *peer = m->via == PROTO_VIA_SERVER ? sim_node_at (w, m->to == PROTO_SERVER ? m->from : m->to) : NULL;
  if (peer && m->stream != peer->stream)
    sim_fact (w, m->from, m->to, "lost", "its coordinator stream broke");
  else if (m->close)
    {
      src->coord_closed = TRUE;
      sim_fact (w, m->from, PROTO_SERVER, "stream-closed", "close frame delivered");
      ProtoInput ci = { .kind = PROTO_IN_STREAM_CLOSED, .from = m->from };
      sim_dispatch_coord (w, &ci);
    }
  else if (src && src->status == NODE_CRASHED && m->wire_done > src->left)
    /* a crash loses what had not fully left the sender's uplink */
    sim_fact (w, m->from, m->to, "lost", "the sender crashed before it was sent");
  else if (m->to == PROTO_SERVER)
    {
      if (_sim_net_rules_take_drop (w, m->from, m->to, in.msg))
        sim_fact (w, m->from, PROTO_SERVER, "drop", _sim_net_rules_kind_name (in.msg, kind));
      else if (src && !src->coord_closed)
        sim_dispatch_coord (w, &in);
    }
  else
    {
      Node *dst = sim_node_at (w, m->to);
      if (!dst || dst->status != NODE_ONLINE)
        ;  /* to a gone node: vanishes */
      else if (_sim_net_rules_take_drop (w, m->from, m->to, in.msg))
        sim_fact (w, m->to, m->from, "drop", _sim_net_rules_kind_name (in.msg, kind));
      else if (m->via == PROTO_VIA_LINK && w->cfg.loss > 0 && dl_random_bernoulli (w->rng_loss, w->cfg.loss))
        /* [network] loss: each message on a peer link is lost with this
         * probability, independently (its own "loss" stream: a run without
         * loss draws nothing from it) */
        sim_fact (w, m->from, m->to, "lost", "[network] loss");
      else if (m->via == PROTO_VIA_LINK)
        {
          /* what was sent on an open link arrives unless the receiver has
           * destroyed its end meanwhile (a close flushes what was sent).
           * Its end is there if it has closed none since (it was there at
           * the send, unless the message is doomed: the receiver's close
           * notice was still on its way), else the link says; so the
           * link's record, a cache miss, is read only after a close */
          gboolean open = dst->link_closes == m->closes && !m->doomed;
          if (!open && !m->doomed)
            {
              const Link *l = sim_link_get (w, m->from, m->to, FALSE);   /* links live as long as the world */
              open = l && sim_link_obj (l, sim_link_side (m->to, m->from));
            }
          if (!open)
            sim_fact (w, m->from, m->to, "lost", "the receiver closed the link");
          else
            sim_dispatch_peer (w, dst, &in);
        }
      else
        sim_dispatch_peer (w, dst, &in);
    }
  sim_net_msg_free (w, m);
}

/* How many of a chain's deliveries ahead of the one it feeds ev_deliver
 * loads what they read, a step a delivery: the message's record, then
 * its nodes' (the receiver's fields a message reads, SIM_NODE_MSG_BYTES
 * in sim-world-private.h, the sender's first line and the stream's) and
 * its body's first line, then the host's stages (the receiver's machine record, then
 * the family's: sim_host_prefetch), each step reading what the one before
 * loaded.  Why (perf, 3 000 peers, docs/performance.md, nt22): a round's
 * Payloads are one chain of millions, each to another receiver, and its
 * records were loaded one at a time as the delivery read them (the
 * message's, the nodes', the machine's, DISCO's link record of the
 * sender), while only the next message's record was asked for ahead. */
#define AHEAD (2 + SIM_HOST_PREFETCH_STAGES)

static inline void
prefetch_lines (const void *p, gsize bytes)
{
  for (uintptr_t a = (uintptr_t) p & ~(uintptr_t) 63; a < (uintptr_t) p + bytes; a += 64)
    __builtin_prefetch ((const void *) a);
}

/* step k for m, the delivery k + 1 after this one (ahead[k] in
 * ev_deliver): the farther ahead, the earlier the step; k = 0, the next
 * delivery, takes the last */
static inline void
deliver_ahead (SimWorld *w, const Msg *m, guint k)
{
  if (m->internal || !m->body)   /* (a close frame has none) */
    return;
  Node *dst = sim_node_at (w, m->to);
  if (k == AHEAD - 2)
    {
      Node *src = sim_node_at (w, m->from);
      if (dst)
        prefetch_lines (dst, SIM_NODE_MSG_BYTES);
      if (src)
        {
          __builtin_prefetch (src);
          if (m->via == PROTO_VIA_SERVER)
            __builtin_prefetch (&src->stream);
        }
      __builtin_prefetch (m->body);
      return;
    }
  if (dst && dst->status == NODE_ONLINE && dst->peer)   /* (a node may have no machine) */
    sim_host_prefetch (dst->peer, m->body->msg.type, m->from, m->node, AHEAD - 3 - k);
}

/* A chain of deliveries at one instant (deliver_at), in the order they
 * were scheduled.  If one stops the engine, the rest wait in an event of
 * their own at this instant; it runs after whatever the delivered ones
 * scheduled at this instant, where single events would have run before.
 * A world never resumes after a stop (sim_world_run refuses a finished
 * world: every stop finishes it), so no run sees the difference.  The
 * messages behind the one delivered stay in the chain (nothing frees
 * them or changes their `next` meanwhile: a delivery scheduled now
 * starts a chain of its own, this event is no longer pending), so their
 * records are read ahead (AHEAD). */
static void
ev_deliver (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Msg *m = (Msg *) (uintptr_t) arg;
  Msg *ahead[AHEAD];   /* the messages 1 .. AHEAD after m (NULL: the chain ends before) */
  Msg *x = m;
  for (guint k = 0; k < AHEAD; k++)
    ahead[k] = x = x ? msg_of (w, x->next) : NULL;
  while (m)
    {
      for (guint k = 0; k + 1 < AHEAD && ahead[k]; k++)
        deliver_ahead (w, ahead[k], k);
      deliver_one (w, m);
      m = ahead[0];
      memmove (ahead, ahead + 1, (AHEAD - 1) * sizeof *ahead);
      ahead[AHEAD - 1] = ahead[AHEAD - 2] ? msg_of (w, ahead[AHEAD - 2]->next) : NULL;
      if (ahead[AHEAD - 1])
        __builtin_prefetch (ahead[AHEAD - 1]);
      if (m && sim_engine_stopping (e))
        {
          sim_engine_schedule_at (e, sim_engine_now (e), ev_deliver, w, (uint64_t) (uintptr_t) m);
          return;
        }
    }
}
