/* test-sim-drive.c — the driver of a SimFlows that tests/test-sim's
 * flows suites share (tests/test-sim.h): flows run to their ends, the
 * shares checked after every solve, a capacity changed on the way. */
#include "config.h"

#include "tests/test-sim.h"

#include <check.h>

/* Runs f from now until every flow is done: each flow's completion time
 * by its user value (< n), the shares checked max-min fair after every
 * solve; and, if t0 is not DL_TIME_NEVER, resource res's capacity set to
 * bps at t0 (a bandwidth trace's row), which must come before the last
 * completion. */
void
flows_run (SimFlows *f, DlTime now, guint32 res, DlTime t0, uint64_t bps, DlTime *done, guint n)
{
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_update (f, now);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  DlTime t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      ck_assert_int_ge (t, now);
      if (t > t0)
        {
          now = t0;
          t0 = DL_TIME_NEVER;
          sim_flows_set_capacity (f, res, bps);
        }
      else
        {
          now = t;
          guint64 u;
          while (sim_flows_pop (f, now, &u))
            {
              ck_assert_uint_lt (u, n);
              done[u] = now;
            }
        }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_int_eq (t0, DL_TIME_NEVER);
  ck_assert_uint_eq (sim_flows_count (f), 0);
}

void
flows_drain (SimFlows *f, DlTime now, DlTime *done, guint n)
{
  flows_run (f, now, 0, DL_TIME_NEVER, 0, done, n);
}
