/* test-sim-windows.c — tests/test-sim's suite of flows with windows
 * (sim/sim-flows.c): a ramp's end counted at its own events, slow start
 * against its analytic bound (tests/slow-start-bound.h), CUBIC's HyStart
 * against its rule, what a window leaves a plain flow, timeouts where
 * flows converge, round trips weighing the shares, and the solve's
 * copies of the flows' weights and caps kept. */
#include "config.h"

#include "sim/sim-flows.h"
#include "tests/slow-start-bound.h"
#include "tests/test-sim.h"

#include <check.h>
#include <math.h>

/* A ramping flow A (100 Mbit/s up 0, down 1; 100 ms round trip, windows
 * of 14 480, 28 960, 57 920 bytes) of 54 480 bytes: 40 000 left at its
 * first growth, more than its window; 11 040 left at its second, where
 * they fit in its window of 57 920, and the last round goes at the share.
 * A flow C (1 000 bytes from up 0 into a 1 Mbit/s downlink 2: its rate
 * there, 8 ms) starts during A's ramp and ends before A's next growth, in
 * A's component at a rate that leaves A's cap its bottleneck.  A's end is
 * the same to the ns with C as without, wherever C falls: A's bytes left
 * and the end of its slow start are counted at A's own events, not at the
 * solves of C's start and end (at 150 ms A's bytes left already fit in
 * its window of 28 960; a solve that counted them there ended A's slow
 * start 50 ms early). */
static DlTime
ramp_with_other (DlTime t_c)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_set_capacity (f, 0, 100 * MBPS);
  sim_flows_set_capacity (f, 1, 100 * MBPS);
  sim_flows_set_capacity (f, 2, 1 * MBPS);
  SimFlowsWindow win = { 100 * DL_MS, 14480, 2, 0, 0 };
  sim_flows_add_window (f, 0, 0, 1, 54480, 0, &win);
  sim_flows_update (f, 0);
  DlTime now = 0, done[2] = { DL_TIME_NEVER, DL_TIME_NEVER }, t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      if (t_c >= 0 && t_c < t)
        {
          now = t_c;
          t_c = -1;
          sim_flows_add_window (f, now, 0, 2, 1000, 1, &win);
        }
      else
        {
          now = t;
          guint64 u;
          while (sim_flows_pop (f, now, &u))
            done[u] = now;
        }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_int_lt (t_c, 0);
  if (done[1] != DL_TIME_NEVER)
    ck_assert_int_lt (done[1], done[0]);
  return done[0];
}

static const DlTime ramp_other_at[] = { 60 * DL_MS, 123456789, 150 * DL_MS, 190 * DL_MS + 7 };

START_TEST (test_flows_ramp_own_events)
{
  DlTime alone = ramp_with_other (-1);
  ck_assert_int_gt (alone, 200 * DL_MS);   /* (two rounds in slow start, then the rest) */
  ck_assert_int_eq (ramp_with_other (ramp_other_at[_i]), alone);
}
END_TEST

/* Slow start, the analytic bound (tests/slow-start-bound.h), doubling. */
static double
slow_start_ns (double S, double C, double R, double W)
{
  return slow_start_bound_ns (S, C, R, W, 2, 0);
}

static const struct {
  guint64 bytes, bps;
  DlTime rtt;
  double growth;
  guint64 lag;
} ss_cases[] = {
  { 1000000, 100 * MBPS, 100 * DL_MS, 2, 0 },    /* 6 rounds, then 87 760 bytes at line rate */
  { 40000000, 100 * MBPS, 100 * DL_MS, 2, 0 },   /* reaches the link's share after 7 rounds */
  { 10000, 10 * MBPS, 2 * DL_MS, 2, 0 },         /* fits in the initial window: line rate */
  { 4000000, 1000 * MBPS, 200 * DL_MS, 2, 0 },
  { 100000, 10 * MBPS, 20 * DL_MS, 2, 0 },       /* BDP 25 000 bytes: 1 round, then line rate */
  { 100000, 100 * MBPS, 100 * DL_MS, 2, 1448 },  /* 10, 19, 37 segments: 3 rounds where doubling takes 2 */
  { 1000000, 100 * MBPS, 100 * DL_MS, 1.5, 0 },  /* SCTP's growth with a SACK every second packet */
};

/* One flow with a window takes the analytic slow-start time, and its ramp
 * costs at most one event per doubling (log2 of size over window). */
START_TEST (test_flows_slow_start_alone)
{
  const guint64 iw = 10 * 1448;
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, ss_cases[_i].bps);
  SimFlowsWindow win = { ss_cases[_i].rtt, iw, ss_cases[_i].growth, ss_cases[_i].lag };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, ss_cases[_i].bytes, 0, &win);
  sim_flows_update (f, 0);
  DlTime now = 0, t, done = DL_TIME_NEVER;
  guint events = 0;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      now = t;
      events++;
      guint64 u, cwnd;
      while (sim_flows_pop_window (f, now, &u, &cwnd))
        {
          done = now;
          ck_assert_uint_ge (cwnd, iw);
        }
      sim_flows_update (f, now);
    }
  double want = slow_start_bound_ns ((double) ss_cases[_i].bytes, (double) ss_cases[_i].bps / 8e9,
                                    (double) ss_cases[_i].rtt, (double) iw, ss_cases[_i].growth, (double) ss_cases[_i].lag);
  ck_assert_msg (fabs ((double) done - want) <= 2, "%" G_GUINT64_FORMAT " bytes: %" G_GINT64_FORMAT " ns, want %.0f",
                 ss_cases[_i].bytes, done, want);
  ck_assert_uint_le (events, 2 + (guint) ceil (log ((double) ss_cases[_i].bytes / (double) iw) / log (ss_cases[_i].growth - 0.1)));
}
END_TEST

/* CUBIC's HyStart as ns-3 3.37 runs it, written out from its rule
 * (docs/world.md, "HyStart"): a round's ACKs come one every 2 segments at
 * the link's rate, t = seg / C apart, over (W - 2) t; a round lasts R + 2 t;
 * slow start (2W - 1 segment a round) ends with the next window in the
 * first round where 2 t <= 2 ms, that window less 2 segments is at least
 * 16 segments, and the gap to the next round's first ACK, R + 2 t - (W -
 * 2) t, is at most 2 ms; the window then grows one segment per 20
 * acknowledged: the same window for one round (its 20th segment is
 * acknowledged in the next), then x 1.05 a round; all in rounds of R while
 * what is left does not fit in the window and it is below C R; the rest
 * goes at C. */
static double
hystart_bound_ns (double S, double C, double R, double seg)
{
  double W = 10 * seg, t = 2 * (seg / C), time = 0, left = S;
  gboolean ss = TRUE, train = t <= 2e6, held = FALSE;
  while (left > W && W < C * R)
    {
      double next = ss ? 2 * W - seg : held ? W * 1.05 : W;
      held = !ss;
      if (ss && train && next / seg - 2 >= 16 && R + t - (W / seg - 2) * (t / 2) <= 2e6)
        ss = FALSE;
      left -= W;
      W = next;
      time += R;
    }
  return time + left / C;
}

static const struct {
  guint64 bytes, bps;
  DlTime rtt;
} hy_cases[] = {
  { 100000, 1000 * MBPS, 2 * DL_MS },     /* 1 Gbit/s, 1 ms one way: out at 19 segments */
  { 1000000, 1000 * MBPS, 2 * DL_MS },
  { 4000000, 1000 * MBPS, 2 * DL_MS },
  { 40000000, 1000 * MBPS, 2 * DL_MS },   /* reaches the link's share at x 1.05 a round */
  { 4000000, 1000 * MBPS, 20 * DL_MS },   /* 10 ms one way: rounds 18 ms apart, no train */
  { 1000000, 10 * MBPS, 2 * DL_MS },      /* ACKs 2.4 ms apart: no train */
};

/* A TCP flow with HyStart (hystart_seg) takes the time of HyStart's rule,
 * and its ramp stops once it is at the link's share. */
START_TEST (test_flows_hystart)
{
  const guint64 seg = 1502;
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, hy_cases[_i].bps);
  sim_flows_set_capacity (f, 1, hy_cases[_i].bps);
  SimFlowsWindow win = { hy_cases[_i].rtt, 10 * seg, 2, seg, seg };
  sim_flows_add_window (f, 0, 0, 1, hy_cases[_i].bytes, 0, &win);
  sim_flows_update (f, 0);
  DlTime t, done = DL_TIME_NEVER;
  guint events = 0;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      events++;
      guint64 u;
      while (sim_flows_pop (f, t, &u))
        done = t;
      sim_flows_update (f, t);
    }
  double C = (double) hy_cases[_i].bps / 8e9, R = (double) hy_cases[_i].rtt;
  double want = hystart_bound_ns ((double) hy_cases[_i].bytes, C, R, (double) seg);
  ck_assert_msg (fabs ((double) done - want) <= 1e-6 * want, "%" G_GUINT64_FORMAT " bytes: %" G_GINT64_FORMAT " ns, want %.0f",
                 hy_cases[_i].bytes, done, want);
  ck_assert_uint_le (events, 3 + (guint) ceil (log (C * R / (10.0 * (double) seg)) / log (1.05)));
}
END_TEST

/* A plain flow beside a ramping one gets what the window leaves: the link
 * is never idle, so the plain flow, which ends last, ends when both
 * flows' bytes have crossed it at its rate; the ramping one takes longer
 * than alone (it shares once at its share); the shares are max-min with
 * the window as a limit after every solve (flows_run). */
START_TEST (test_flows_window_leaves_the_rest)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 100 * MBPS);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 10000000, 0);
  SimFlowsWindow win = { 100 * DL_MS, 14480, 2, 0 };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, 1000000, 1, &win);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  double c = 100.0 * MBPS / 8e9;
  ck_assert_int_le (llabs (done[0] - (DlTime) ceil (11000000 / c)), 2);
  ck_assert_int_lt (done[1], done[0]);
  ck_assert_int_gt (done[1], (DlTime) slow_start_ns (1000000, c, 100 * DL_MS, 14480));
}
END_TEST

/* Timeouts where flows converge (sim_flows_set_timeouts): three flows
 * with windows that hold all their bytes (no slow start), each from its
 * own 100 Mbit/s uplink, into one 20 Mbit/s downlink, 1, 1 and 2 MB.
 * They share it evenly: the two 1 MB ones end at 3 MB / 2.5 MB/s = 1.2
 * s, the 2 MB one alone at 1.6 s.  With a 2 ms round trip the pipe into
 * the downlink is 5 000 B x (1 + 4 BDP of queue) = 16.5 segments of 1 514
 * B, 5.5 each, under 32: the last to end is held one min_rto (200 ms),
 * to 1.8 s, and comes back with a window of one segment.  Loop: 0 no
 * timeouts set; 1 set, 2 ms; 2 set, 100 ms (825 segments of pipe, 275
 * each: no hold); 3 set, flows without windows (fluid: no hold). */
START_TEST (test_flows_converge_timeout)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  if (_i != 0)
    sim_flows_set_timeouts (f, 200 * DL_MS, 4, 1514);
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  DlTime rtt = _i == 2 ? 100 * DL_MS : 2 * DL_MS;
  SimFlowsWindow win = { rtt, 4000000, 2, 0 };
  for (guint32 k = 1; k <= 3; k++)
    {
      sim_flows_set_capacity (f, k, 100 * MBPS);
      guint64 bytes = k == 3 ? 2000000 : 1000000;
      sim_flows_add_window (f, 0, k, 0, bytes, k, _i == 3 ? NULL : &win);
    }
  sim_flows_update (f, 0);
  DlTime done[4] = { 0 };
  guint64 cwnd[4] = { 0 };
  DlTime t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      guint64 u, c;
      while (sim_flows_pop_window (f, t, &u, &c))
        {
          done[u] = t;
          cwnd[u] = c;
        }
      sim_flows_update (f, t);
      if (_i == 1 && t == done[1])
        ck_assert_uint_eq (sim_flows_count (f), 1);   /* the 2 MB one, not yet held */
    }
  ck_assert_int_le (llabs (done[1] - 1200 * DL_MS), 2);
  ck_assert_int_le (llabs (done[2] - 1200 * DL_MS), 2);
  DlTime last = _i == 1 ? 1800 * DL_MS : 1600 * DL_MS;
  ck_assert_msg (llabs (done[3] - last) <= 2, "loop %d: the last flow at %" G_GINT64_FORMAT " ns, want %" G_GINT64_FORMAT,
                 _i, done[3], last);
  if (_i == 1)
    ck_assert_uint_eq (cwnd[3], 1514);
}
END_TEST

/* A flow held for its timeout (test_flows_converge_timeout's, at 1.6 s)
 * whose sender's uplink is cancelled (a crash) ends then, with the
 * others: it is not handed back at 1.8 s. */
START_TEST (test_flows_converge_timeout_cancel)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_timeouts (f, 200 * DL_MS, 4, 1514);
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  SimFlowsWindow win = { 2 * DL_MS, 4000000, 2, 0 };
  for (guint32 k = 1; k <= 3; k++)
    {
      sim_flows_set_capacity (f, k, 100 * MBPS);
      sim_flows_add_window (f, 0, k, 0, k == 3 ? 2000000 : 1000000, k, &win);
    }
  sim_flows_update (f, 0);
  guint64 u;
  DlTime t;
  guint popped = 0;
  while ((t = sim_flows_next (f)) < 1700 * DL_MS)
    {
      while (sim_flows_pop (f, t, &u))
        popped++;
      sim_flows_update (f, t);
    }
  ck_assert_uint_eq (popped, 2);
  ck_assert_uint_eq (sim_flows_count (f), 1);   /* the held one */
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 3, users), 1);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 3);
  ck_assert_uint_eq (sim_flows_count (f), 0);
  ck_assert_int_eq (sim_flows_next (f), DL_TIME_NEVER);
}
END_TEST

/* Round trips in the sharing: two flows with windows past slow start
 * (their windows hold all their bytes), round trips of 10 and 100 ms, on
 * one 20 Mbit/s link: the 10 ms one gets 10^(1/2) times the other's
 * rate (weights (1 s / round trip)^(1/2)), so it ends at S / (C x
 * w1 / (w1 + w2)); the other ends when both have crossed, at 2 S / C
 * (the link is never idle); the shares are weighted max-min after every
 * solve.  With one round trip for both, they share evenly (loop 1). */
START_TEST (test_flows_round_trips_weigh)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  const double S = 4000000;
  DlTime rtt2 = _i == 0 ? 100 * DL_MS : 10 * DL_MS;
  SimFlowsWindow a = { 10 * DL_MS, (guint64) S, 2, 0 }, b = { rtt2, (guint64) S, 2, 0 };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, (guint64) S, 0, &a);
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, (guint64) S, 1, &b);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  double c = 20.0 * MBPS / 8e9;
  double w1 = sqrt (1e9 / 10e6), w2 = sqrt (1e9 / (double) rtt2);
  ck_assert_int_le (llabs (done[0] - (DlTime) ceil (S / (c * w1 / (w1 + w2)))), 2);
  ck_assert_int_le (llabs (done[1] - (DlTime) ceil (2 * S / c)), 2);
}
END_TEST

/* The copies the solve reads instead of a flow's records (its weight and
 * its cap in slow start, sim-flows-private.h's FlowHot) kept at every
 * event that moves them: A (40 MB) ramps until it gets its share, and its
 * slow start ends in the solve (settle_flow); B (1 MB) ramps until its
 * bytes left fit in its window, which ends its slow start before the
 * solve (prepare_flow); each growth moves the cap (ramp); a flow added
 * has its copy made, and one popped has it cleared, so that C, without
 * a window, takes a popped flow's place with nothing of it.
 * sim_flows_check compares every copy with its records after every
 * update: with the copy's update taken out of any one of those five
 * places, it fails here. */
START_TEST (test_flows_hot_copies_kept)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  for (guint32 r = 0; r < 4; r++)
    sim_flows_set_capacity (f, r, 100 * MBPS);
  SimFlowsWindow win = { 100 * DL_MS, 14480, 2, 0, 0 };
  sim_flows_add_window (f, 0, 0, 1, 40000000, 0, &win);
  sim_flows_add_window (f, 0, 2, 3, 1000000, 1, &win);
  sim_flows_update (f, 0);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  DlTime now = 0, t;
  guint popped = 0;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      now = t;
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        {
          ck_assert_uint_lt (u, 3);
          if (popped++ == 0)
            sim_flows_add (f, now, 0, 1, 1000, 2);   /* (C: where a popped flow was) */
        }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_uint_eq (popped, 3);
}
END_TEST

Suite *
test_sim_windows_suite (void)
{
  Suite *s = suite_create ("sim-windows");
  TCase *tf = tcase_create ("flows");
  tcase_add_loop_test (tf, test_flows_ramp_own_events, 0, G_N_ELEMENTS (ramp_other_at));
  tcase_add_loop_test (tf, test_flows_slow_start_alone, 0, G_N_ELEMENTS (ss_cases));
  tcase_add_loop_test (tf, test_flows_hystart, 0, G_N_ELEMENTS (hy_cases));
  tcase_add_test (tf, test_flows_window_leaves_the_rest);
  tcase_add_loop_test (tf, test_flows_round_trips_weigh, 0, 2);
  tcase_add_loop_test (tf, test_flows_converge_timeout, 0, 4);
  tcase_add_test (tf, test_flows_converge_timeout_cancel);
  tcase_add_test (tf, test_flows_hot_copies_kept);
  suite_add_tcase (s, tf);
  return s;
}
