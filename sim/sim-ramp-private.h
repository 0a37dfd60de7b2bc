/* sim-ramp-private.h — a flow's window in slow start and after it
 * (sim-ramp.c), for sim-flows.c, which calls it; it calls nothing back.
 * Nothing outside sim/ includes it. */
#pragma once

#include "sim/sim-flows.h"

/* A flow's window, apart so that a flow without one costs no more (a
 * million flows are in flight at 1 000 peers). */
typedef struct {
  double cwnd;          /* bytes */
  DlTime rtt;
  DlTime t_ramp;        /* in slow start: when it grows next */
  float growth;         /* every round trip: x growth - lag */
  guint32 lag;          /* (free: the next free one) */
  guint32 hy;           /* growths left before HyStart ends slow start, plus 1 (0: none) */
} SimRampWin;

/* a window's growth: cwnd x growth - lag every round trip */
typedef struct {
  float growth;
  guint32 lag;
  guint32 hy;           /* SimRampWin's hy at the start */
} SimRampKind;

/* The growth of win's window, with hy from HyStart (its growths left
 * before slow start ends, plus 1; 0: never) on a path whose slower link
 * moves cap_bpns bytes per ns. */
SimRampKind _sim_ramp_kind (const SimFlowsWindow *win, double cap_bpns);

/* v, a window of cwnd bytes and a round trip rtt that grows first at
 * t_ramp, as k says. */
void _sim_ramp_start (SimRampWin *v, double cwnd, DlTime rtt, DlTime t_ramp, SimRampKind k);

/* v's growth of one round trip: its window grows (and with HyStart, slow
 * start may end here), and it grows next one round trip later. */
void _sim_ramp_grow (SimRampWin *v);
