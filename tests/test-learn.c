/* test-learn.c — learn/: weight vectors (refcounting without copies,
 * OpenBLAS arithmetic, order-fixed mean). */
#include "config.h"

#include "learn/learn-weights.h"

#include <check.h>

START_TEST (test_weights_ref_shares_memory)
{
  const float v[] = { 1, 2, 3 };
  LearnWeights *w = learn_weights_new_from (v, 3);
  ck_assert (!learn_weights_is_shared (w));
  LearnWeights *r = learn_weights_ref (w);
  ck_assert_ptr_eq (r, w);
  ck_assert_ptr_eq (learn_weights_data (r), learn_weights_data (w));
  ck_assert (learn_weights_is_shared (w));
  learn_weights_unref (r);
  ck_assert (!learn_weights_is_shared (w));
  ck_assert_uint_eq (learn_weights_byte_size (w), 12);
  LearnWeights *c = learn_weights_copy (w);
  ck_assert_ptr_ne (learn_weights_data (c), learn_weights_data (w));
  ck_assert (learn_weights_equal (c, w));
  learn_weights_unref (c);
  learn_weights_unref (w);
}
END_TEST

START_TEST (test_weights_arithmetic)
{
  const float a[] = { 1, -2, 3, 4 }, b[] = { 0.5f, 0.5f, -1, 2 }, c[] = { 2, 2, 2, 2 };
  g_autoptr (LearnWeights) x = learn_weights_new_from (a, 4);
  g_autoptr (LearnWeights) y = learn_weights_new_from (b, 4);
  g_autoptr (LearnWeights) z = learn_weights_new_from (c, 4);
  learn_weights_axpy (y, 2.0f, x);        /* y = b + 2a */
  const float want_axpy[] = { 2.5f, -3.5f, 5, 10 };
  for (int i = 0; i < 4; i++)
    ck_assert_float_eq (learn_weights_data (y)[i], want_axpy[i]);
  learn_weights_scal (y, 0.5f);
  ck_assert_float_eq (learn_weights_data (y)[3], 5);
  LearnWeights *ws[] = { x, z };
  g_autoptr (LearnWeights) m = learn_weights_mean (ws, 2);
  const float want_mean[] = { 1.5f, 0, 2.5f, 3 };
  for (int i = 0; i < 4; i++)
    ck_assert_float_eq (learn_weights_data (m)[i], want_mean[i]);
  g_autoptr (LearnWeights) s = learn_weights_sum (ws, 2);
  ck_assert_float_eq (learn_weights_data (s)[0], 3);
  ck_assert_double_eq_tol (learn_weights_max_abs_diff (x, z), 4.0, 1e-9);
  /* inputs untouched */
  ck_assert_float_eq (learn_weights_data (x)[1], -2);
}
END_TEST

START_TEST (test_weights_large)
{
  const gsize n = 1000003;
  g_autoptr (LearnWeights) a = learn_weights_new (n);
  g_autoptr (LearnWeights) b = learn_weights_new (n);
  float *da = learn_weights_data_mut (a), *db = learn_weights_data_mut (b);
  for (gsize i = 0; i < n; i++)
    {
      da[i] = (float) (i % 7);
      db[i] = 1.0f;
    }
  LearnWeights *ws[] = { a, b };
  g_autoptr (LearnWeights) m = learn_weights_mean (ws, 2);
  ck_assert_float_eq (learn_weights_data (m)[n - 1], ((float) ((n - 1) % 7) + 1.0f) / 2.0f);
}
END_TEST

static Suite *
learn_suite (void)
{
  Suite *s = suite_create ("learn");
  TCase *tc = tcase_create ("weights");
  tcase_add_test (tc, test_weights_ref_shares_memory);
  tcase_add_test (tc, test_weights_arithmetic);
  tcase_add_test (tc, test_weights_large);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (learn_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
