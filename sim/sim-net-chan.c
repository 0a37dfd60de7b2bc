/* sim-net-chan.c — a channel (one direction of a link's data channel,
 * of a peer's coordinator stream, of the replicas' own network): the
 * latency a message on it pays, where its last arrival and its queue are
 * kept (the link, the peer's node, or the world's table), and under
 * transport tcp or sctp its connection: the window it keeps and the slow
 * start a flow on it begins with.
 *
 * A leaf under sim-net.c (sim-world-private.h draws the world's files):
 * it calls only sim-net-maps.c's look-ups and host/sim-peers.c's
 * sim_peer_region. */
#include "config.h"

#include "sim/sim-world-private.h"
#include "sim/sim-flows.h"
#include "sim/sim-net-chan-private.h"

/* The one-way latency a message pays: a peer link's (its region's local
 * one when both ends share a region), the replicas' own network, or the
 * coordinator stream's. */
const DlDist *
_sim_net_latency_of (const SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, gboolean internal)
{
  if (via == PROTO_VIA_LINK)
    return w->cfg.local_latency_set && sim_peer_region (&w->cfg, from) == sim_peer_region (&w->cfg, to)
           ? &w->cfg.local_latency : &w->cfg.latency;
  return internal ? &w->cfg.replica_latency : &w->cfg.server_latency;
}

/* ---------------------------------------------------------------- slow start */

/* m's connection under transport tcp or sctp: its window (0: a new
 * connection), kept by the link's sending side or by the peer's stream
 * and direction (a window of an earlier stream is not this one's); FALSE
 * for a channel with no record. */
static gboolean
conn_state (SimWorld *w, const Msg *m, Link *l, guint32 **cwnd)
{
  if (m->via == PROTO_VIA_LINK)
    {
      if (!l)
        l = sim_link_get (w, m->from, m->to, FALSE);
      if (!l)
        return FALSE;
      *cwnd = &l->cwnd[sim_link_side (m->from, m->to)];
      return TRUE;
    }
  Node *n = m->to == PROTO_SERVER ? sim_node_at (w, m->from) : m->from == PROTO_SERVER ? sim_node_at (w, m->to) : NULL;
  if (!n)
    return FALSE;
  if (n->stream_cwnd_of != n->stream)
    {
      n->stream_cwnd_of = n->stream;   /* a new stream: a new connection */
      n->stream_cwnd[0] = n->stream_cwnd[1] = 0;
    }
  *cwnd = &n->stream_cwnd[m->to == PROTO_SERVER ? 0 : 1];
  return TRUE;
}

/* SCTP on a peer link (transport = sctp: WebRTC's data channels), else
 * TCP (a WebSocket, or transport = tcp) */
static gboolean
conn_is_sctp (const SimWorld *w, const Msg *m)
{
  return w->cfg.transport == SIM_TRANSPORT_SCTP && m->via == PROTO_VIA_LINK;
}

/* The slow start of m's flow (FALSE: none, fluid): it starts with the
 * initial window on a new connection or one idle longer than its
 * retransmission timeout (Linux's tcp_slow_start_after_idle; RFC 4960
 * §7.2.1 for SCTP; never with [network] slow_start_after_idle = false),
 * else with the window its connection had.  Its last
 * message left when it arrived (_sim_net_channel_last) less half a round trip (after
 * a message held by a delay rule, that is D late: the idle time reads D
 * short).  Segments
 * are counted in wire bytes (mss plus header_bytes).
 * - TCP: 10 segments (RFC 6928); the window doubles every round trip,
 *   less the segment whose ACK the receiver delays at each round's end
 *   (10, 19, 37, 73: what ns-3's delayed ACKs give, docs/world.md); a
 *   timeout of the round trip plus Linux's 200 ms minimum; CUBIC's
 *   HyStart may end slow start early (sim-ramp.c, hystart_growths;
 *   [network] hystart = false: never).
 * - SCTP: min(4 MTU, max(2 MTU, 4 380 bytes)); at most one MTU more per
 *   SACK and a SACK every second packet (RFC 4960 §7.2.1, §6.2): x 1.5
 *   every round trip; RFC 4960's minimum timeout of 1 s. */
gboolean
_sim_net_conn_window (SimWorld *w, const Msg *m, Link *l, DlTime now, DlTime rtt, SimFlowsWindow *win)
{
  if (w->cfg.transport == SIM_TRANSPORT_FLUID || rtt <= 0)
    return FALSE;
  guint64 seg = w->cfg.mss_bytes + w->cfg.header_bytes;
  gboolean sctp = conn_is_sctp (w, m);
  guint64 iw = sctp ? MIN (4 * seg, MAX (2 * seg, 4380)) : 10 * seg;
  DlTime rto = sctp ? MAX (DL_S, rtt) : dl_time_add (rtt, 200 * DL_MS);
  *win = (SimFlowsWindow) { rtt, iw, sctp ? 1.5 : 2, sctp ? 0 : seg, sctp || !w->cfg.hystart ? 0 : seg };
  if (!l && m->via == PROTO_VIA_LINK)
    l = sim_link_get (w, m->from, m->to, FALSE);   /* (_sim_net_channel_last keeps a link's in it) */
  guint32 *cwnd;
  if (conn_state (w, m, l, &cwnd) && *cwnd != 0
      && (!w->cfg.slow_start_after_idle || now - (*_sim_net_channel_last (w, m, l) - rtt / 2) <= rto))
    win->cwnd_bytes = MAX (iw, *cwnd);
  return TRUE;
}

/* m's flow has left with window cwnd: its connection keeps it */
void
_sim_net_conn_sent (SimWorld *w, const Msg *m, Link *l, guint64 cwnd)
{
  guint32 *c;
  if (cwnd > 0 && conn_state (w, m, l, &c))
    *c = (guint32) MIN (cwnd, G_MAXUINT32);
}
