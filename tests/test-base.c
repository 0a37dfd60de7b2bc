/* test-base.c — base/: unit parsing (good and bad inputs), random stream
 * reproducibility and independence, distribution moments against theory;
 * the sorted search's tests are test-base-sorted.c's. */
#include "config.h"

#include "base/dl-dist.h"
#include "base/dl-error.h"
#include "base/dl-random.h"
#include "base/dl-units.h"
#include "base/dl-wordmap.h"
#include "base/dl-idset.h"
#include "base/dl-idmap.h"
#include "tests/test-base.h"

#include <check.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

/* ---- durations ---- */

static const struct { const char *text; DlTime ns; } good_durations[] = {
  { "250ms", 250 * DL_MS }, { "1.5s", 1500 * DL_MS }, { "2min", 2 * DL_MIN },
  { "1h", DL_H }, { "1m30s", 90 * DL_S }, { "9min30s", 570 * DL_S },
  { "0", 0 }, { "10us", 10 * DL_US }, { "5ns", 5 }, { "  3s ", 3 * DL_S },
  { "0.001s", DL_MS }, { "1h 2min 3.5s", DL_H + 2 * DL_MIN + 3500 * DL_MS },
  { "0.25h", 15 * DL_MIN }, { "30min", 30 * DL_MIN }, { "2562047h", 2562047 * DL_H },
};

START_TEST (test_duration_good)
{
  DlTime t = -1;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dl_parse_duration (good_durations[_i].text, &t, &error),
                 "'%s' rejected: %s", good_durations[_i].text, error ? error->message : "");
  ck_assert_int_eq (t, good_durations[_i].ns);
}
END_TEST

static const struct { const char *text; const char *needle; } bad_durations[] = {
  { "", "empty" }, { "5", "without a unit" }, { "5x", "unknown duration unit 'x'" },
  { "-1s", "negative" }, { "s", "not a duration" }, { "1.5", "without a unit" },
  { "1s2", "without a unit" }, { "abc", "not a duration" }, { "99999999999h", "too large" },
  { "2 days", "unknown duration unit 'days'" },
  /* once "unknown duration unit 'e'" */
  { "1e300s", "'1e300s': a duration takes no exponent (e or E)" }, { "1E-3s", "takes no exponent" },
  { "2.5e3ms", "takes no exponent" }, { "5e", "unknown duration unit 'e'" },
  /* the whole hours fit below DL_TIME_NEVER, with their fraction they do not */
  { "2562047.9h", "too large" }, { "2562047h 1h", "too large" },
};

START_TEST (test_duration_bad)
{
  DlTime t = 12345;
  g_autoptr (GError) error = NULL;
  ck_assert (!dl_parse_duration (bad_durations[_i].text, &t, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert (error->domain == DL_ERROR);
  ck_assert_msg (strstr (error->message, bad_durations[_i].needle) != NULL,
                 "message '%s' lacks '%s'", error->message, bad_durations[_i].needle);
  ck_assert_int_eq (t, 12345); /* out parameter untouched on error */
}
END_TEST

/* ---- rates, sizes, counts per time ---- */

START_TEST (test_rate_size_per_time)
{
  uint64_t v;
  double d;
  ck_assert (dl_parse_rate ("20Mbps", &v, NULL));
  ck_assert_uint_eq (v, 20000000);
  ck_assert (dl_parse_rate ("1Gbps", &v, NULL));
  ck_assert_uint_eq (v, 1000000000);
  ck_assert (dl_parse_rate ("500kbps", &v, NULL));
  ck_assert_uint_eq (v, 500000);
  ck_assert (dl_parse_rate ("1.5 Mbps", &v, NULL));
  ck_assert_uint_eq (v, 1500000);
  ck_assert (dl_parse_size ("4KiB", &v, NULL));
  ck_assert_uint_eq (v, 4096);
  ck_assert (dl_parse_size ("10MB", &v, NULL));
  ck_assert_uint_eq (v, 10000000);
  ck_assert (dl_parse_size ("512", &v, NULL));
  ck_assert_uint_eq (v, 512);
  ck_assert (dl_parse_size ("2GiB", &v, NULL));
  ck_assert_uint_eq (v, UINT64_C (2147483648));
  ck_assert (dl_parse_per_time ("2/min", &d, NULL));
  ck_assert_double_eq_tol (d, 2.0 / 60, 1e-12);
  ck_assert (dl_parse_per_time ("0.5/s", &d, NULL));
  ck_assert_double_eq_tol (d, 0.5, 1e-12);
  ck_assert (dl_parse_per_time ("3/h", &d, NULL));
  ck_assert_double_eq_tol (d, 3.0 / 3600, 1e-12);
  ck_assert (dl_parse_per_time ("0", &d, NULL));
  ck_assert_double_eq (d, 0);
}
END_TEST

static const struct { DlUnitKind kind; const char *text; const char *needle; } bad_quantities[] = {
  { DL_UNIT_RATE, "20", "rate without a unit" },
  { DL_UNIT_RATE, "20MBps", "unknown rate unit 'MBps'" },
  { DL_UNIT_RATE, "-1Mbps", "negative" },
  { DL_UNIT_SIZE, "4KiBx", "unknown size unit 'KiBx'" },
  { DL_UNIT_SIZE, "", "empty" },
  { DL_UNIT_PER_TIME, "2", "without a unit" },
  { DL_UNIT_PER_TIME, "2/day", "unknown count per time unit '/day'" },
  { DL_UNIT_NUMBER, "1.5x", "not a number" },
  { DL_UNIT_NUMBER, "nan", "not a finite number" },
};

START_TEST (test_quantity_bad)
{
  double d = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (!dl_parse_quantity (bad_quantities[_i].kind, bad_quantities[_i].text, &d, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (strstr (error->message, bad_quantities[_i].needle) != NULL,
                 "message '%s' lacks '%s'", error->message, bad_quantities[_i].needle);
}
END_TEST

/* ---- distributions: parsing ---- */

START_TEST (test_dist_parse_good)
{
  DlDist d;
  ck_assert (dl_dist_parse ("40ms", DL_UNIT_DURATION, &d, NULL));
  ck_assert_int_eq (d.kind, DL_DIST_CONSTANT);
  ck_assert_double_eq (d.a, 40e6);
  ck_assert (dl_dist_parse ("exponential(30min)", DL_UNIT_DURATION, &d, NULL));
  ck_assert_int_eq (d.kind, DL_DIST_EXPONENTIAL);
  ck_assert_double_eq (d.a, 1800e9);
  ck_assert (dl_dist_parse ("lognormal(40ms, 0.5)", DL_UNIT_DURATION, &d, NULL));
  ck_assert_int_eq (d.kind, DL_DIST_LOGNORMAL);
  ck_assert_double_eq (d.a, 40e6);
  ck_assert_double_eq (d.b, 0.5);
  ck_assert (dl_dist_parse ("uniform( 1 , 2 )", DL_UNIT_NUMBER, &d, NULL));
  ck_assert_int_eq (d.kind, DL_DIST_UNIFORM);
  ck_assert (dl_dist_parse ("pareto(1s, 2.5)", DL_UNIT_DURATION, &d, NULL));
  ck_assert_double_eq (d.b, 2.5);
  ck_assert (dl_dist_parse ("gamma(2, 10Mbps)", DL_UNIT_RATE, &d, NULL));
  ck_assert_double_eq (d.a, 2);
  ck_assert_double_eq (d.b, 1e7);
  ck_assert (dl_dist_parse ("weibull(20min, 0.6)", DL_UNIT_DURATION, &d, NULL));
  ck_assert_int_eq (d.kind, DL_DIST_WEIBULL);
  ck_assert_double_eq (d.a, 1200e9);
  ck_assert_double_eq (d.b, 0.6);
  ck_assert (dl_dist_parse ("constant(3)", DL_UNIT_NUMBER, &d, NULL));
  ck_assert_double_eq (d.a, 3);
}
END_TEST

static const struct { const char *text; DlUnitKind unit; const char *needle; } bad_dists[] = {
  { "uniform(2, 1)", DL_UNIT_NUMBER, "needs a <= b" },
  { "normal(1s)", DL_UNIT_DURATION, "expected normal(mean, sd)" },
  { "foo(1)", DL_UNIT_NUMBER, "unknown distribution 'foo'" },
  { "exponential(0s)", DL_UNIT_DURATION, "needs mean > 0" },
  { "lognormal(1s, 2s)", DL_UNIT_DURATION, "argument 2 of lognormal(median, sigma)" },
  { "uniform(1s, 2s", DL_UNIT_DURATION, "missing ')'" },
  { "normal(1s, 5)", DL_UNIT_DURATION, "without a unit" },
  { "pareto(1s, 0)", DL_UNIT_DURATION, "needs scale > 0 and shape > 0" },
  { "normal(0, -1)", DL_UNIT_NUMBER, "needs sd >= 0" },
};

START_TEST (test_dist_parse_bad)
{
  DlDist d;
  g_autoptr (GError) error = NULL;
  ck_assert (!dl_dist_parse (bad_dists[_i].text, bad_dists[_i].unit, &d, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (strstr (error->message, bad_dists[_i].needle) != NULL,
                 "message '%s' lacks '%s'", error->message, bad_dists[_i].needle);
}
END_TEST

/* ---- random streams ---- */

START_TEST (test_stream_reproducible)
{
  g_autoptr (DlRandom) a = dl_random_new (42, "latency", 3);
  g_autoptr (DlRandom) b = dl_random_new (42, "latency", 3);
  for (int i = 0; i < 1000; i++)
    ck_assert_uint_eq (dl_random_u64 (a), dl_random_u64 (b));
}
END_TEST

START_TEST (test_stream_distinct)
{
  /* Changing any of seed, name or node changes the stream. */
  g_autoptr (DlRandom) base = dl_random_new (42, "latency", 3);
  g_autoptr (DlRandom) s = dl_random_new (43, "latency", 3);
  g_autoptr (DlRandom) n = dl_random_new (42, "latencz", 3);
  g_autoptr (DlRandom) d = dl_random_new (42, "latency", 4);
  g_autoptr (DlRandom) w = dl_random_new (42, "latency", DL_RANDOM_NO_NODE);
  uint64_t x = dl_random_u64 (base);
  ck_assert_uint_ne (x, dl_random_u64 (s));
  ck_assert_uint_ne (x, dl_random_u64 (n));
  ck_assert_uint_ne (x, dl_random_u64 (d));
  ck_assert_uint_ne (x, dl_random_u64 (w));
  ck_assert_uint_ne (dl_random_stream_key (1, "a", 0), dl_random_stream_key (1, "b", 0));
}
END_TEST

START_TEST (test_stream_independent_of_other_draws)
{
  /* Drawing from stream A never shifts stream B. */
  uint64_t first[16], second[16];
  {
    g_autoptr (DlRandom) b = dl_random_new (7, "compute", 1);
    for (int i = 0; i < 16; i++)
      first[i] = dl_random_u64 (b);
  }
  {
    g_autoptr (DlRandom) a = dl_random_new (7, "churn", DL_RANDOM_NO_NODE);
    g_autoptr (DlRandom) b = dl_random_new (7, "compute", 1);
    for (int i = 0; i < 16; i++)
      {
        for (int k = 0; k < 37; k++)
          (void) dl_random_exponential (a, 3.0);
        second[i] = dl_random_u64 (b);
      }
  }
  ck_assert_mem_eq (first, second, sizeof first);
}
END_TEST

START_TEST (test_stream_reseed)
{
  /* Re-seeding: the same salt on the same state gives the same stream, a
   * new salt another, and the stream up to it is the one before. */
  g_autoptr (DlRandom) a = dl_random_new (42, "latency", 3);
  g_autoptr (DlRandom) b = dl_random_new (42, "latency", 3);
  g_autoptr (DlRandom) c = dl_random_new (42, "latency", 3);
  g_autoptr (DlRandom) plain = dl_random_new (42, "latency", 3);
  for (int i = 0; i < 5; i++)
    {
      uint64_t x = dl_random_u64 (a);
      ck_assert_uint_eq (x, dl_random_u64 (b));
      ck_assert_uint_eq (x, dl_random_u64 (c));
      ck_assert_uint_eq (x, dl_random_u64 (plain));
    }
  dl_random_reseed (a, 7);
  dl_random_reseed (b, 7);
  dl_random_reseed (c, 8);
  uint64_t x = dl_random_u64 (a);
  ck_assert_uint_eq (x, dl_random_u64 (b));
  ck_assert_uint_ne (x, dl_random_u64 (c));
  (void) dl_random_u64 (plain);   /* the draw re-seeding takes */
  ck_assert_uint_ne (x, dl_random_u64 (plain));
}
END_TEST

START_TEST (test_stream_uncorrelated)
{
  /* Neighbouring node streams are uncorrelated: |pearson r| small. */
  g_autoptr (DlRandom) a = dl_random_new (1, "x", 0);
  g_autoptr (DlRandom) b = dl_random_new (1, "x", 1);
  const int n = 200000;
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (int i = 0; i < n; i++)
    {
      double x = dl_random_uniform (a), y = dl_random_uniform (b);
      ck_assert (x >= 0 && x < 1);
      sa += x; sb += y; saa += x * x; sbb += y * y; sab += x * y;
    }
  double cov = sab / n - (sa / n) * (sb / n);
  double r = cov / sqrt ((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
  ck_assert_msg (fabs (r) < 0.01, "correlation %g", r);
  ck_assert_double_eq_tol (sa / n, 0.5, 0.005);
}
END_TEST

START_TEST (test_random_below_unbiased)
{
  g_autoptr (DlRandom) r = dl_random_new (9, "below", 0);
  int counts[7] = { 0 };
  const int n = 70000;
  for (int i = 0; i < n; i++)
    {
      uint64_t v = dl_random_below (r, 7);
      ck_assert_uint_lt (v, 7);
      counts[v]++;
    }
  /* chi-square with 6 dof: 99.9% quantile is 22.46 */
  double chi = 0;
  for (int i = 0; i < 7; i++)
    chi += (counts[i] - n / 7.0) * (counts[i] - n / 7.0) / (n / 7.0);
  ck_assert_msg (chi < 22.46, "chi-square %g", chi);
}
END_TEST

/* ---- distributions: sample moments against theory ---- */

static const struct { const char *text; double var_tol; } moment_cases[] = {
  { "constant(3)", 0 },
  { "uniform(2, 5)", 0.02 },
  { "normal(10, 3)", 0.02 },
  { "lognormal(2, 0.5)", 0.03 },
  { "exponential(4)", 0.03 },
  { "pareto(1, 8)", 0.06 },
  { "gamma(2, 3)", 0.03 },
  { "gamma(0.3, 1)", 0.04 },
  { "weibull(2, 1.5)", 0.02 },
  { "weibull(3, 0.8)", 0.05 },
};

START_TEST (test_dist_moments)
{
  DlDist d;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dl_dist_parse (moment_cases[_i].text, DL_UNIT_NUMBER, &d, &error), "%s",
                 error ? error->message : "");
  g_autoptr (DlRandom) r = dl_random_new (2024, moment_cases[_i].text, 0);
  const int n = 400000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; i++)
    {
      double x = dl_dist_sample (&d, r);
      sum += x;
      sum2 += x * x;
    }
  double mean = sum / n, var = sum2 / n - mean * mean;
  double mu = dl_dist_mean (&d), sigma2 = dl_dist_variance (&d);
  /* mean within 5 standard errors */
  double se = sqrt (sigma2 / n);
  ck_assert_msg (fabs (mean - mu) <= 5 * se + 1e-12, "%s: mean %g, expected %g (se %g)",
                 moment_cases[_i].text, mean, mu, se);
  if (sigma2 == 0)
    ck_assert_double_eq_tol (var, 0, 1e-9);
  else
    ck_assert_msg (fabs (var - sigma2) <= moment_cases[_i].var_tol * sigma2,
                   "%s: variance %g, expected %g", moment_cases[_i].text, var, sigma2);
}
END_TEST

START_TEST (test_dist_sample_time_clamps)
{
  DlDist d;
  ck_assert (dl_dist_parse ("normal(1ms, 10ms)", DL_UNIT_DURATION, &d, NULL));
  g_autoptr (DlRandom) r = dl_random_new (1, "t", 0);
  int zeros = 0;
  for (int i = 0; i < 1000; i++)
    {
      DlTime t = dl_dist_sample_time (&d, r);
      ck_assert_int_ge (t, 0);
      zeros += t == 0;
    }
  ck_assert_int_gt (zeros, 300); /* about 46% of normal(1, 10) is negative */
}
END_TEST

START_TEST (test_time_add_saturates)
{
  ck_assert_int_eq (dl_time_add (DL_TIME_NEVER, 5), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_add (5, DL_TIME_NEVER), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_add (DL_TIME_NEVER - 10, 100), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_add (3 * DL_S, 2 * DL_MS), 3002 * DL_MS);
  char buf[DL_TIME_STR_LEN];
  ck_assert_str_eq (dl_time_format (1500 * DL_MS, buf), "1.500000s");
  ck_assert_str_eq (dl_time_format (DL_TIME_NEVER, buf), "never");
}
END_TEST

START_TEST (test_time_mul_saturates)
{
  ck_assert_int_eq (dl_time_mul (60 * DL_S, 5), 300 * DL_S);
  ck_assert_int_eq (dl_time_mul (60 * DL_S, 0), 0);
  ck_assert_int_eq (dl_time_mul (0, G_MAXUINT64), 0);
  ck_assert_int_eq (dl_time_mul (1281024 * DL_H, 2), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_mul (60 * DL_S, (guint64) G_MAXINT32 + 2), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_mul (DL_TIME_NEVER, 1), DL_TIME_NEVER);
  ck_assert_int_eq (dl_time_mul (DL_TIME_NEVER / 3, 3), DL_TIME_NEVER / 3 * 3);
  ck_assert_int_eq (dl_time_mul (DL_TIME_NEVER / 3 + 1, 3), DL_TIME_NEVER);
}
END_TEST

/* The word map against GHashTable as the reference: random inserts,
 * replacements and removals over a small key space (so runs of collisions
 * form and backward-shift deletion moves entries), with every key checked
 * after each step, and iteration visiting each entry once. */
START_TEST (test_word_map_matches_reference)
{
  DlRandom *r = dl_random_new (7, "wordmap", DL_RANDOM_NO_NODE);
  DlWordMap *m = dl_word_map_new (NULL);
  GHashTable *ref = g_hash_table_new (g_int64_hash, g_int64_equal);
  static gint64 keys[600];
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    keys[i] = (i % 3 == 0) ? (gint64) i : (gint64) ((guint64) i << 32 | (i * 7));
  for (guint step = 0; step < 20000; step++)
    {
      gint64 *k = &keys[dl_random_below (r, G_N_ELEMENTS (keys))];
      if (dl_random_below (r, 3) == 0)
        {
          gpointer want = g_hash_table_lookup (ref, k);
          ck_assert_ptr_eq (dl_word_map_steal (m, (uint64_t) *k), want);
          g_hash_table_remove (ref, k);
        }
      else
        {
          gpointer v = GUINT_TO_POINTER (step + 1);
          dl_word_map_insert (m, (uint64_t) *k, v);
          g_hash_table_insert (ref, k, v);
        }
      if (step % 97 == 0)
        for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
          ck_assert_ptr_eq (dl_word_map_lookup (m, (uint64_t) keys[i]), g_hash_table_lookup (ref, &keys[i]));
      ck_assert_uint_eq (dl_word_map_size (m), g_hash_table_size (ref));
    }
  guint seen = 0;
  uint64_t key;
  gpointer value;
  for (guint at = 0; dl_word_map_next (m, &at, &key, &value);)
    {
      gint64 k = (gint64) key;
      ck_assert_ptr_eq (value, g_hash_table_lookup (ref, &k));
      seen++;
    }
  ck_assert_uint_eq (seen, g_hash_table_size (ref));
  dl_word_map_remove_all (m);
  ck_assert_uint_eq (dl_word_map_size (m), 0);
  ck_assert_ptr_null (dl_word_map_lookup (m, 3));
  g_hash_table_unref (ref);
  dl_word_map_free (m);
  dl_random_free (r);
}
END_TEST

/* The id set against GHashTable: random adds of small ids, ids around the
 * bitset's limit and the largest ids (PROTO_NO_NODE's UINT32_MAX among
 * them), emptied and refilled, every candidate checked after each fill. */
START_TEST (test_id_set_matches_reference)
{
  DlRandom *r = dl_random_new (11, "idset", DL_RANDOM_NO_NODE);
  DlIdSet s;
  dl_id_set_init (&s);
  GHashTable *ref = g_hash_table_new (g_int64_hash, g_int64_equal);
  static gint64 ids[400];
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    ids[i] = i < 300 ? (gint64) i * 3
             : i < 350 ? (gint64) DL_ID_SET_DENSE - 25 + (i - 300)
                       : (gint64) UINT32_MAX - (i - 350);
  for (guint fill = 0; fill < 30; fill++)
    {
      dl_id_set_remove_all (&s);
      g_hash_table_remove_all (ref);
      guint n = (guint) dl_random_below (r, 2 * G_N_ELEMENTS (ids));
      for (guint k = 0; k < n; k++)
        {
          gint64 *id = &ids[dl_random_below (r, G_N_ELEMENTS (ids))];
          ck_assert_int_eq (dl_id_set_add (&s, (uint32_t) *id), g_hash_table_add (ref, id));
        }
      ck_assert_uint_eq (dl_id_set_size (&s), g_hash_table_size (ref));
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          ck_assert_int_eq (dl_id_set_contains (&s, (uint32_t) ids[i]), g_hash_table_contains (ref, &ids[i]));
          /* a neighbour never added (odd small ids are not candidates) */
          if (i < 300)
            ck_assert (!dl_id_set_contains (&s, (uint32_t) ids[i] + 1));
        }
    }
  /* the bitset stops at the limit: ids beyond it never grow it */
  ck_assert_uint_le (s.words, DL_ID_SET_DENSE / 64);
  g_hash_table_unref (ref);
  dl_id_set_clear (&s);
  dl_random_free (r);
}
END_TEST

/* the map's insert, steal, lookup and next, by its width (narrow: 32-bit
 * values, GUINT_TO_POINTER's) */
static void
idm_insert (DlIdMap *m, uint32_t id, gpointer v)
{
  if (m->narrow)
    dl_id_map_insert32 (m, id, GPOINTER_TO_UINT (v));
  else
    dl_id_map_insert (m, id, v);
}

static gpointer
idm_steal (DlIdMap *m, uint32_t id)
{
  return m->narrow ? GUINT_TO_POINTER (dl_id_map_steal32 (m, id)) : dl_id_map_steal (m, id);
}

static gpointer
idm_lookup (const DlIdMap *m, uint32_t id)
{
  return m->narrow ? GUINT_TO_POINTER (dl_id_map_lookup32 (m, id)) : dl_id_map_lookup (m, id);
}

static gboolean
idm_next (const DlIdMap *m, guint *at, uint32_t *id, gpointer *v)
{
  guint32 v32 = 0;
  gboolean more = m->narrow ? dl_id_map_next32 (m, at, id, &v32) : dl_id_map_next (m, at, id, v);
  if (m->narrow)
    *v = GUINT_TO_POINTER (v32);
  return more;
}

/* a critical's text, one a line (g_return_val_if_fail's) */
static void
log_critical (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer ud)
{
  g_string_append_printf (ud, "%s\n", message);
  (void) domain, (void) level;
}

/* A map used through the functions of the other width: each call is
 * refused with a critical (the caller's bug, g_return_val_if_fail) and
 * changes nothing.  A wide lookup on a narrow map would read two 32-bit
 * values as one pointer. */
#ifndef G_DISABLE_CHECKS
START_TEST (test_id_map_width_misuse)
{
  g_autoptr (GString) log = g_string_new (NULL);
  guint handler = g_log_set_handler (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, log_critical, log);
  int x = 0;
  DlIdMap narrow, wide;
  dl_id_map_init_narrow (&narrow);
  dl_id_map_init (&wide);
  dl_id_map_insert32 (&narrow, 1, 7);
  dl_id_map_insert32 (&narrow, 2, 9);
  dl_id_map_insert (&wide, 1, &x);
  uint32_t id;
  gpointer v;
  guint32 v32;
  guint at = 0;
  ck_assert_ptr_null (dl_id_map_lookup (&narrow, 1));
  dl_id_map_insert (&narrow, 3, &x);
  ck_assert_ptr_null (dl_id_map_steal (&narrow, 1));
  ck_assert (!dl_id_map_next (&narrow, &at, &id, &v));
  dl_id_map_insert32 (&wide, 2, 5);
  ck_assert_uint_eq (dl_id_map_steal32 (&wide, 1), 0);
  ck_assert (!dl_id_map_next32 (&wide, &at, &id, &v32));
  g_log_remove_handler (G_LOG_DOMAIN, handler);
  /* nothing changed */
  ck_assert_uint_eq (dl_id_map_size (&narrow), 2);
  ck_assert_uint_eq (dl_id_map_lookup32 (&narrow, 1), 7);
  ck_assert_uint_eq (dl_id_map_lookup32 (&narrow, 3), 0);
  ck_assert_uint_eq (dl_id_map_size (&wide), 1);
  ck_assert_ptr_eq (dl_id_map_lookup (&wide, 1), &x);
  /* each refused, by name */
  static const char *const refused[] = { "dl_id_map_lookup:", "dl_id_map_insert:", "dl_id_map_steal:",
                                         "dl_id_map_next:", "dl_id_map_insert32:", "dl_id_map_steal32:",
                                         "dl_id_map_next32:" };
  g_auto (GStrv) lines = g_strsplit (log->str, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), G_N_ELEMENTS (refused) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    ck_assert_msg (g_str_has_prefix (lines[i], refused[i]), "critical %u: %s, expected %s...", i + 1, lines[i],
                   refused[i]);
  dl_id_map_clear (&narrow);
  dl_id_map_clear (&wide);
}
END_TEST
#endif

/* The id map against GHashTable: inserts, replacements and removals of
 * small ids, ids from 1 024 (beyond the array's bound while the map is
 * small: they move into the array as it grows) and the largest ids, every
 * candidate checked after each step; emptied, then filled again.  Loop
 * _i 0: a map of pointers, 1: a narrow one (32-bit values). */
START_TEST (test_id_map_matches_reference)
{
  DlRandom *r = dl_random_new (13, "idmap", DL_RANDOM_NO_NODE);
  DlIdMap m;
  if (_i)
    dl_id_map_init_narrow (&m);
  else
    dl_id_map_init (&m);
  GHashTable *ref = g_hash_table_new (g_int64_hash, g_int64_equal);
  static gint64 ids[700];
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    ids[i] = i < 500 ? (gint64) i * 2
             : i < 650 ? (gint64) 1024 + 3 * (i - 500)
                       : (gint64) UINT32_MAX - (i - 650);
  gboolean moved = FALSE;
  for (guint pass = 0; pass < 2; pass++)
    {
      for (guint step = 0; step < 6000; step++)
        {
          gint64 *id = &ids[dl_random_below (r, G_N_ELEMENTS (ids))];
          if (dl_random_below (r, 4) == 0)
            {
              ck_assert_ptr_eq (idm_steal (&m, (uint32_t) *id), g_hash_table_lookup (ref, id));
              g_hash_table_remove (ref, id);
            }
          else
            {
              gpointer v = GUINT_TO_POINTER (step + 1);
              idm_insert (&m, (uint32_t) *id, v);
              g_hash_table_insert (ref, id, v);
            }
          ck_assert_uint_eq (dl_id_map_size (&m), g_hash_table_size (ref));
          if (step % 101 == 0)
            for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
              ck_assert_ptr_eq (idm_lookup (&m, (uint32_t) ids[i]), g_hash_table_lookup (ref, &ids[i]));
          moved |= m.n_dense > 1024;
        }
      /* iteration visits each entry once, with its value */
      guint seen = 0;
      uint32_t id;
      gpointer v;
      for (guint at = 0; idm_next (&m, &at, &id, &v);)
        {
          gint64 k = id;
          ck_assert_ptr_eq (v, g_hash_table_lookup (ref, &k));
          seen++;
        }
      ck_assert_uint_eq (seen, g_hash_table_size (ref));
      dl_id_map_remove_all (&m);
      g_hash_table_remove_all (ref);
      ck_assert_uint_eq (dl_id_map_size (&m), 0);
      ck_assert_ptr_null (idm_lookup (&m, 2));
    }
  /* the array grew past its first bound (far ids moved into it), and never
   * to the largest ids */
  ck_assert (moved);
  ck_assert_uint_lt (m.n_dense, 1u << 20);
  g_hash_table_unref (ref);
  dl_id_map_clear (&m);
  dl_random_free (r);
}
END_TEST

/* dl_random_array_new's streams are dl_random_new's, node for node, each
 * on its own line: drawn in turn, through dl_random_* and GSL's samplers
 * alike, none shifts another. */
START_TEST (test_stream_array_as_new)
{
  enum { N = 5 };
  DlRandom *first = dl_random_array_new (N, 42, "phold");
  DlRandom *one[N];
  for (uint32_t i = 0; i < N; i++)
    {
      one[i] = dl_random_new (42, "phold", i);
      DlRandom *a = dl_random_array_at (first, i);
      ck_assert_uint_eq ((uintptr_t) a % DL_RANDOM_STREAM_BYTES, 0);
      ck_assert_ptr_eq (a, (char *) first + (gsize) i * DL_RANDOM_STREAM_BYTES);
    }
  for (int k = 0; k < 200; k++)
    for (uint32_t i = 0; i < N; i++)
      {
        DlRandom *a = dl_random_array_at (first, i);
        ck_assert_uint_eq (dl_random_u64 (a), dl_random_u64 (one[i]));
        ck_assert (dl_random_exponential (a, 2.0) == dl_random_exponential (one[i], 2.0));
        ck_assert (gsl_ran_flat (a, 1, 3) == gsl_ran_flat (one[i], 1, 3));
      }
  for (uint32_t i = 0; i < N; i++)
    dl_random_free (one[i]);
  dl_random_array_free (first);
}
END_TEST

/* dl_random_below gives, for every n, the draws of its first form (the
 * bound UINT64_MAX - UINT64_MAX % n, then x % n, a rejected x drawn
 * again), and leaves the stream where that form left it: n where a draw
 * is rejected often (just above 2^63) or never (1, UINT64_MAX). */
START_TEST (test_random_below_as_before)
{
  static const uint64_t ns[] = { 1, 2, 3, 7, 10, 1000, 1ull << 32, (1ull << 32) + 1, 1ull << 63,
                                 (1ull << 63) + 1, (1ull << 63) + 12345, UINT64_MAX / 3 * 2, UINT64_MAX - 1,
                                 UINT64_MAX };
  guint rejected = 0;
  for (gsize k = 0; k < G_N_ELEMENTS (ns); k++)
    {
      uint64_t n = ns[k];
      g_autoptr (DlRandom) a = dl_random_new (11, "below", (int64_t) k);
      g_autoptr (DlRandom) b = dl_random_new (11, "below", (int64_t) k);
      uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
      for (int i = 0; i < 20000; i++)
        {
          uint64_t x;
          while ((x = dl_random_u64 (b)) >= limit)
            rejected++;
          ck_assert_uint_eq (dl_random_below (a, n), x % n);
        }
      ck_assert_uint_eq (dl_random_u64 (a), dl_random_u64 (b));
    }
  ck_assert_uint_gt (rejected, 1000);   /* the rejection was exercised */
}
END_TEST

static Suite *
base_suite (void)
{
  Suite *s = suite_create ("base");
  TCase *tc = tcase_create ("units");
  tcase_add_loop_test (tc, test_duration_good, 0, G_N_ELEMENTS (good_durations));
  tcase_add_loop_test (tc, test_duration_bad, 0, G_N_ELEMENTS (bad_durations));
  tcase_add_test (tc, test_rate_size_per_time);
  tcase_add_loop_test (tc, test_quantity_bad, 0, G_N_ELEMENTS (bad_quantities));
  tcase_add_test (tc, test_time_add_saturates);
  tcase_add_test (tc, test_time_mul_saturates);
  suite_add_tcase (s, tc);

  tc = tcase_create ("random");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_stream_reproducible);
  tcase_add_test (tc, test_stream_distinct);
  tcase_add_test (tc, test_stream_independent_of_other_draws);
  tcase_add_test (tc, test_stream_uncorrelated);
  tcase_add_test (tc, test_stream_reseed);
  tcase_add_test (tc, test_stream_array_as_new);
  tcase_add_test (tc, test_random_below_unbiased);
  tcase_add_test (tc, test_random_below_as_before);
  suite_add_tcase (s, tc);

  tc = tcase_create ("dist");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_dist_parse_good);
  tcase_add_loop_test (tc, test_dist_parse_bad, 0, G_N_ELEMENTS (bad_dists));
  tcase_add_loop_test (tc, test_dist_moments, 0, G_N_ELEMENTS (moment_cases));
  tcase_add_test (tc, test_dist_sample_time_clamps);
  suite_add_tcase (s, tc);

  tc = tcase_create ("wordmap");
  tcase_add_test (tc, test_word_map_matches_reference);
  tcase_add_test (tc, test_id_set_matches_reference);
  tcase_add_loop_test (tc, test_id_map_matches_reference, 0, 2);
#ifndef G_DISABLE_CHECKS   /* the refusals are g_return_val_if_fail's */
  tcase_add_test (tc, test_id_map_width_misuse);
#endif
  suite_add_tcase (s, tc);

  tc = tcase_create ("records");
  tcase_set_timeout (tc, 60);   /* (3 000 growths under the sanitizers) */
  test_base_records_add (tc);
  suite_add_tcase (s, tc);

  tc = tcase_create ("sorted");
  test_base_sorted_add (tc);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (base_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
