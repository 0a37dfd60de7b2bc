/* sim-ramp.c — how a flow's congestion window grows, a round trip at a
 * time: in slow start to cwnd x growth - lag (TCP with a delayed ACK at
 * each round's end goes 10, 19, 37, 73 segments), and with HyStart, from
 * the round where CUBIC's HyStart would end slow start, by x 1.05 a round
 * (ns-3's CUBIC before any loss).  A leaf of sim-flows.c (it includes
 * only its own header, sim-flows.h for SimFlowsWindow, and base/, and
 * calls nothing back): sim-flows.c caps a ramping flow at its window over
 * its round trip and calls _sim_ramp_grow at each of its ramp events.
 *
 * Not modelled: a round trip that grows with a queue (the window's round
 * trip is the path's, twice its latency), loss, and CUBIC's cubic term. */
#include "config.h"

#include "sim/sim-ramp-private.h"

#include <math.h>

/* ns-3's TcpCubic defaults (HyStartLowWindow, HyStartAckDelta, and
 * CntClamp: one segment more per 20 acknowledged while no loss was seen) */
#define HYSTART_LOW_WINDOW 16
#define HYSTART_ACK_DELTA (2 * DL_MS)
#define HYSTART_AFTER 1.05f

/* CUBIC's HyStart as ns-3 3.37 runs it (tcp-cubic.cc; docs/world.md,
 * "HyStart"): on each ACK, once the window is at least 16 segments, an
 * ACK within 2 ms of the last one continues an ACK train, and a train
 * longer than the smallest round trip ends slow start (the window becomes
 * the threshold).  The train restarts at each round's first ACK, but that
 * ACK is checked before the restart: if the last ACK of the round before
 * came within 2 ms, the train spans a whole round trip and slow start ends
 * there.  In the model's terms, with t the time a segment takes at the
 * path's slower link (the ACK train's spacing: one ACK every 2 segments),
 * round k's ACKs take (W_k - 2) t, the round lasts rtt + 2 t (the first
 * segment stored and forwarded once), and slow start ends with the next
 * window W_{k+1} in the first round where 2 t <= 2 ms, W_{k+1} - 2
 * segments >= 16 and rtt + 2 t - (W_k - 2) t <= 2 ms.  Past a window of
 * one bandwidth-delay product the flow is at its share and the model's own
 * rule ends the ramp.  (ns-3's other rule, a round trip grown past twice
 * its smallest, needs a queue the model does not have.)  Then the window
 * grows one segment per 20 acknowledged: it stays as it is for the round
 * after (whose 20 segments are acknowledged only in the next), then x 1.05
 * a round.  Returns the growths left before that round, plus one (0:
 * HyStart never ends slow start); cap: the slower link, bytes per ns. */
static guint32
hystart_growths (const SimFlowsWindow *win, double cap, SimRampKind k)
{
  if (win->hystart_seg == 0)
    return 0;
  double seg = (double) win->hystart_seg, w = (double) win->cwnd_bytes;
  double t = seg / cap, rtt = (double) win->rtt_ns + 2 * t;
  if (2 * t > (double) HYSTART_ACK_DELTA)
    return 0;
  for (guint32 n = 1; n < 64 && (w / seg) * t < rtt; n++)
    {
      double next = MAX (w, w * (double) k.growth - (double) k.lag);
      if (next / seg - 2 >= HYSTART_LOW_WINDOW && rtt - (w / seg - 2) * t <= (double) HYSTART_ACK_DELTA)
        return n + 1;
      w = next;
    }
  return 0;
}

SimRampKind
_sim_ramp_kind (const SimFlowsWindow *win, double cap_bpns)
{
  SimRampKind k = { win->growth > 1 ? (float) win->growth : 2, (guint32) MIN (win->lag_bytes, G_MAXUINT32), 0 };
  k.hy = hystart_growths (win, cap_bpns, k);
  return k;
}

void
_sim_ramp_start (SimRampWin *v, double cwnd, DlTime rtt, DlTime t_ramp, SimRampKind k)
{
  *v = (SimRampWin) { .cwnd = cwnd, .rtt = rtt, .t_ramp = t_ramp, .growth = k.growth, .lag = k.lag, .hy = k.hy };
}

void
_sim_ramp_grow (SimRampWin *v)
{
  v->cwnd = MAX (v->cwnd, v->cwnd * (double) v->growth - (double) v->lag);
  if (v->hy > 0 && --v->hy <= 1)
    {
      /* out of slow start: one round at the window (the first 20 segments
         acknowledged), then CUBIC's growth */
      v->growth = v->hy == 1 ? 1 : HYSTART_AFTER;
      v->lag = 0;
    }
  v->t_ramp = dl_time_add (v->t_ramp, v->rtt);
}
