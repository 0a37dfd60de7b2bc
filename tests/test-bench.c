/* test-bench.c — bench/: what `dlsim bench` runs and the arithmetic of its
 * readings, without timing anything.  The worlds bench scale and bench
 * record build (peers, rounds, version, min_participants, aggregation,
 * sharing, links, model); the median and bench record's reading from
 * given wall times; phold --compare's choice of the fastest runs, its
 * refusal of runs that processed different events, and its ratios; and
 * small real runs that end as they must (completed, the same PHOLD events
 * on the engine and the reference). */
#include "config.h"

#include "bench/bench-run.h"
#include "results/res-query.h"

#include <check.h>
#include <string.h>

/* ------------------------------------------------------------ median */

START_TEST (test_median)
{
  double odd[] = { 3, 1, 2 };
  ck_assert_double_eq (bench_median (odd, 3), 2);
  ck_assert_double_eq (odd[0], 3);   /* not sorted in place */
  ck_assert_double_eq (odd[1], 1);
  double even[] = { 4, 1, 3, 2 };
  ck_assert_double_eq (bench_median (even, 4), 3);   /* the upper middle */
  double one[] = { 5 };
  ck_assert_double_eq (bench_median (one, 1), 5);
  double two[] = { 9, -1 };
  ck_assert_double_eq (bench_median (two, 2), 9);
}
END_TEST

START_TEST (test_record_reading)
{
  double with[] = { 1.5, 1.0, 2.0 };
  double without[] = { 1.0, 0.5, 1.25 };
  double writer[] = { 0.75, 0.25, 0.5 };
  BenchRecordReading r;
  bench_record_reading (with, 3, without, 3, writer, 3, &r);
  ck_assert_double_eq (r.with_median, 1.5);
  ck_assert_double_eq (r.with_min, 1.0);
  ck_assert_double_eq (r.with_max, 2.0);
  ck_assert_double_eq (r.without_median, 1.0);
  ck_assert_double_eq (r.without_min, 0.5);
  ck_assert_double_eq (r.without_max, 1.25);
  ck_assert_double_eq (r.median_ratio, 1.5);
  /* pairs: 1.5 / 1.0, 1.0 / 0.5, 2.0 / 1.25 = 1.5, 2, 1.6: median 1.6 */
  ck_assert_double_eq_tol (r.paired_median, 1.6, 1e-12);
  ck_assert_double_eq (r.fastest_ratio, 2.0);
  ck_assert_double_eq (r.writer_median, 0.5);
  ck_assert_double_eq (r.writer_percent, 50);
  /* one run fewer without events: only the runs that have a partner pair */
  double without2[] = { 3.0, 0.5 };
  bench_record_reading (with, 3, without2, 2, writer, 3, &r);
  /* pairs 0.5, 2: the median is the upper one */
  ck_assert_double_eq (r.paired_median, 2.0);
  ck_assert_double_eq (r.without_median, 3.0);
  ck_assert_double_eq (r.without_max, 3.0);
}
END_TEST

/* ------------------------------------------------------------ phold --compare */

static BenchTimed
timed (guint64 events, guint64 checksum, double wall)
{
  return (BenchTimed) { .res = { .events = events, .checksum = checksum }, .wall_s = wall };
}

START_TEST (test_rates)
{
  ck_assert_double_eq (bench_rate (1000, 2.0), 500);
  ck_assert_double_eq (bench_rate (1000, 0), 0);
  ck_assert_double_eq (bench_rate (1000, -1), 0);
  BenchTimed t = timed (300, 1, 1.5);
  ck_assert_double_eq (bench_timed_rate (&t), 200);
}
END_TEST

START_TEST (test_comparison)
{
  BenchPholdComparison c;
  bench_phold_comparison_init (&c);
  ck_assert (c.engine.wall_s < 0 && c.reference.wall_s < 0 && c.plain.wall_s < 0);
  /* the first alternation is kept whatever its times */
  BenchTimed e = timed (1000, 7, 2.0), r = timed (1000, 7, 4.0), pl = timed (2000, 9, 3.0);
  ck_assert (bench_phold_comparison_add (&c, &e, &r, &pl));
  ck_assert_double_eq (c.engine.wall_s, 2.0);
  /* a faster engine, a slower reference, a faster plain loop */
  e = timed (1000, 7, 1.0), r = timed (1000, 7, 5.0), pl = timed (2000, 9, 2.0);
  ck_assert (bench_phold_comparison_add (&c, &e, &r, &pl));
  ck_assert_double_eq (c.engine.wall_s, 1.0);
  ck_assert_double_eq (c.reference.wall_s, 4.0);
  ck_assert_double_eq (c.plain.wall_s, 2.0);
  /* engine 1000/s, reference 250/s, plain 1000/s */
  ck_assert_double_eq (bench_phold_comparison_ratio_reference (&c), 4.0);
  ck_assert_double_eq (bench_phold_comparison_ratio_plain (&c), 1.0);
  /* a run whose event sequence differs (the checksum, then the count) is
   * refused, and none of its times is kept even if faster */
  e = timed (1000, 8, 0.5), r = timed (1000, 7, 0.5), pl = timed (2000, 9, 1.5);
  ck_assert (!bench_phold_comparison_add (&c, &e, &r, &pl));
  e = timed (999, 7, 0.5);
  ck_assert (!bench_phold_comparison_add (&c, &e, &r, &pl));
  ck_assert_double_eq (c.engine.wall_s, 1.0);
  ck_assert_double_eq (c.reference.wall_s, 4.0);
  /* a reference that took no time has no rate: the ratio is 0 */
  BenchPholdComparison z;
  bench_phold_comparison_init (&z);
  e = timed (10, 1, 1.0), r = timed (10, 1, 0), pl = timed (10, 2, 0);
  ck_assert (bench_phold_comparison_add (&z, &e, &r, &pl));
  ck_assert_double_eq (bench_phold_comparison_ratio_reference (&z), 0);
  ck_assert_double_eq (bench_phold_comparison_ratio_plain (&z), 0);
}
END_TEST

/* The engine and the reference process the same events: compare passes,
 * and what it keeps is what a run of each gives (timing aside). */
START_TEST (test_compare_runs)
{
  BenchPholdParams p;
  bench_phold_params_init (&p);
  p.n_lps = 50;
  p.events_per_lp = 2;
  p.end = 2 * DL_S;
  BenchPholdComparison c;
  BenchTimed e, r;
  ck_assert (bench_phold_compare (&p, 2, &c, &e, &r));
  BenchPholdResult ref = bench_phold_run_reference (&p);
  ck_assert_uint_gt (ref.events, 0);
  ck_assert_uint_eq (c.engine.res.events, ref.events);
  ck_assert_uint_eq (c.engine.res.checksum, ref.checksum);
  ck_assert_uint_eq (c.reference.res.checksum, ref.checksum);
  ck_assert (c.plain.wall_s >= 0);
}
END_TEST

/* ------------------------------------------------------------ the worlds */

START_TEST (test_scale_config)
{
  g_autoptr (GError) error = NULL;
  BenchScaleParams p = { .peers = 100, .rounds = 3, .model_size = 100000, .seed = 1 };
  SimWorldConfig cfg;
  ck_assert (bench_scale_config (&p, &cfg, &error));
  ck_assert_uint_eq (cfg.n_peers, 100);
  ck_assert_uint_eq (cfg.max_peers, 100);
  ck_assert_uint_eq (cfg.proto.min_participants, 100);   /* 0: everyone */
  ck_assert_uint_eq (cfg.proto.rounds, 3);
  ck_assert_uint_eq (cfg.seed, 1);
  ck_assert_int_eq (cfg.model.kind, LEARN_MODEL_NONE);
  ck_assert_uint_eq (cfg.model.size, 100000);
  ck_assert (!cfg.sharing_fifo);
  ck_assert (cfg.time_limit >= 1000 * DL_H);
  /* the default network: what a scenario without [network] gets */
  SimWorldConfig dflt;
  sim_world_config_init (&dflt);
  ck_assert_uint_eq (cfg.uplink_bps, dflt.uplink_bps);
  ck_assert_uint_eq (cfg.downlink_bps, dflt.downlink_bps);
  sim_world_config_clear (&dflt);
  sim_world_config_clear (&cfg);

  /* the default family's version and aggregation (--version, --secure):
   * its own tests (protocol/disco/tests/test-protocol.c) */
  p = (BenchScaleParams) { .peers = 50, .min_participants = 5, .rounds = 2, .model_size = 10, .seed = 9,
                           .fifo = TRUE };
  ck_assert (bench_scale_config (&p, &cfg, &error));
  ck_assert_uint_eq (cfg.proto.min_participants, 5);
  ck_assert_uint_eq (cfg.n_peers, 50);
  ck_assert_uint_eq (cfg.seed, 9);
  ck_assert (cfg.sharing_fifo);
  sim_world_config_clear (&cfg);

  /* more than the peers: everyone */
  p = (BenchScaleParams) { .peers = 4, .min_participants = 5, .rounds = 1, .model_size = 1 };
  ck_assert (bench_scale_config (&p, &cfg, &error));
  ck_assert_uint_eq (cfg.proto.min_participants, 4);
  sim_world_config_clear (&cfg);
}
END_TEST

START_TEST (test_record_config)
{
  SimWorldConfig cfg;
  g_autoptr (GError) error = NULL;
  ck_assert (bench_record_config (&cfg, 3, 20, 4, 1000, &error));
  ck_assert_uint_eq (cfg.uplink_bps, 1000000000);
  ck_assert_uint_eq (cfg.downlink_bps, 1000000000);
  ck_assert_uint_eq (cfg.n_peers, 20);
  ck_assert_uint_eq (cfg.proto.min_participants, 20);
  ck_assert_uint_eq (cfg.proto.rounds, 4);
  ck_assert_uint_eq (cfg.seed, 3);
  ck_assert_uint_eq (cfg.model.size, 1000);
  sim_world_config_clear (&cfg);
}
END_TEST

/* Small real runs: a scale run completes its rounds with every peer; a
 * record run records twice and reads its times. */
START_TEST (test_runs)
{
  g_autoptr (GError) error = NULL;
  BenchScaleParams p = { .peers = 5, .rounds = 2, .model_size = 10, .seed = 1 };
  SimWorldConfig cfg;
  ck_assert (bench_scale_config (&p, &cfg, &error));
  RunnerResult rr;
  double peak = 0;
  ck_assert_msg (bench_scale_run (&cfg, &rr, &peak, &error), "%s", error ? error->message : "?");
  ck_assert_int_eq (rr.result.outcome, SIM_OUTCOME_COMPLETED);
  ck_assert_uint_eq (rr.result.rounds_completed, 2);
  ck_assert_uint_eq (rr.result.peers_finished, 5);
  ck_assert (peak > 0);
  runner_result_clear (&rr);
  sim_world_config_clear (&cfg);

  ck_assert (bench_record_config (&cfg, 1, 3, 1, 10, &error));
  BenchRecordReading rd;
  ck_assert_int_eq (bench_record_run (&cfg, 1, &rd, &error), BENCH_RECORD_DONE);
  ck_assert (rd.with_min > 0 && rd.with_min == rd.with_max && rd.with_median == rd.with_min);
  ck_assert (rd.without_min > 0);
  ck_assert_double_eq (rd.paired_median, rd.with_median / rd.without_median);
  sim_world_config_clear (&cfg);

  /* a run that cannot complete in its time limit: the status says so */
  ck_assert (bench_record_config (&cfg, 1, 3, 2, 10, &error));
  cfg.time_limit = 1;
  ck_assert_int_eq (bench_record_run (&cfg, 1, &rd, &error), BENCH_RECORD_INCOMPLETE);
  sim_world_config_clear (&cfg);
}
END_TEST

static Suite *
bench_suite (void)
{
  Suite *s = suite_create ("bench");
  TCase *tc = tcase_create ("readings");
  tcase_add_test (tc, test_median);
  tcase_add_test (tc, test_record_reading);
  tcase_add_test (tc, test_rates);
  tcase_add_test (tc, test_comparison);
  suite_add_tcase (s, tc);
  tc = tcase_create ("runs");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_compare_runs);
  tcase_add_test (tc, test_scale_config);
  tcase_add_test (tc, test_record_config);
  tcase_add_test (tc, test_runs);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  res_init ();
  SRunner *sr = srunner_create (bench_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
