/* slow-start-bound.h — the analytic slow-start time that
 * tests/test-sim-windows.c and protocol/disco/tests/test-disco-world.c
 * hold the flow model to: a flow of S bytes over a link of C bytes/ns
 * with round trip R and initial window W sends W, then W g - lag, and so
 * on, in whole rounds of R while what is left does not fit in the window
 * and the window is below the link's bandwidth-delay product C R; the
 * rest then goes at C.  Computed from that formula, not from the model. */
#pragma once

static inline double
slow_start_bound_ns (double S, double C, double R, double W, double g, double lag)
{
  double t = 0, left = S;
  while (left > W && W < C * R)
    {
      left -= W;
      W = W * g - lag;
      t += R;
    }
  return t + left / C;
}
