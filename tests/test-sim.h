/* test-sim.h — what the files of tests/test-sim share: the suites its
 * main (test-sim.c, the engine's) runs beside its own, and the driver
 * of a SimFlows that both flows suites use (test-sim-drive.c). */
#pragma once

#include "sim/sim-flows.h"

#include <check.h>

#define MBPS 1000000u

/* the flows' max-min sharing, cancels, order, the incremental solve and
 * the naive model (test-sim-flows.c) */
Suite *test_sim_flows_suite (void);
/* flows with windows against their analytic bounds (test-sim-windows.c) */
Suite *test_sim_windows_suite (void);

/* Runs f from now until every flow is done: done[u], each flow's
 * completion time by its user value u (< n); the shares checked after
 * every solve; resource res's capacity set to bps at t0 unless t0 is
 * DL_TIME_NEVER (test-sim-drive.c says more). */
void flows_run (SimFlows *f, DlTime now, guint32 res, DlTime t0, uint64_t bps, DlTime *done, guint n);
/* flows_run with no capacity change */
void flows_drain (SimFlows *f, DlTime now, DlTime *done, guint n);
