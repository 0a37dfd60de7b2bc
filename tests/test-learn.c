/* test-learn.c — learn/: weight vectors (refcounting without copies,
 * OpenBLAS arithmetic, order-fixed mean). */
#include "config.h"

#include "learn/learn-weights.h"
#include "learn/learn-data.h"
#include "learn/learn-model.h"
#include "tests/test-learn.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <check.h>
#include <stdio.h>

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


/* ---- models ---- */

static void
gradient_check (LearnModelKind kind)
{
  g_autoptr (DlRandom) r = dl_random_new (3, "gradcheck", 0);
  g_autoptr (LearnDataset) d = learn_dataset_synthetic (12, 5, 3, 1.5, r);
  LearnModel m = { .kind = kind, .features = 5, .classes = 3, .hidden = 4, .learning_rate = 0.1f, .batch_size = 4 };
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&m, r);
  g_autoptr (LearnWeights) w = learn_weights_copy (w0);
  float *wd = learn_weights_data_mut (w);
  gsize np = learn_model_n_params (&m);
  /* random weights so that the softmax is not at its symmetric point */
  for (gsize i = 0; i < np; i++)
    wd[i] += (float) (dl_random_uniform (r) - 0.5);
  g_autofree float *grad = g_new (float, np);
  gsize idx[12];
  for (gsize i = 0; i < 12; i++)
    idx[i] = i;
  learn_model_loss_grad (&m, wd, d, idx, 12, grad);
  const float eps = 1e-3f;   /* small enough not to cross a ReLU kink here */
  int bad = 0;
  for (gsize i = 0; i < np; i++)
    {
      float keep = wd[i];
      wd[i] = keep + eps;
      double lp = learn_model_loss_grad (&m, wd, d, idx, 12, NULL);
      wd[i] = keep - eps;
      double lm = learn_model_loss_grad (&m, wd, d, idx, 12, NULL);
      wd[i] = keep;
      double num = (lp - lm) / (2 * eps);
      if (fabs (num - grad[i]) > 2e-3 + 0.02 * fabs (num))
        {
          bad++;
          fprintf (stderr, "param %zu: numeric %g analytic %g\n", i, num, grad[i]);
        }
    }
  ck_assert_int_eq (bad, 0);
}

START_TEST (test_gradient_softmax) { gradient_check (LEARN_MODEL_SOFTMAX); }
END_TEST
START_TEST (test_gradient_mlp) { gradient_check (LEARN_MODEL_MLP); }
END_TEST

START_TEST (test_softmax_matches_long_trained_reference)
{
  g_autoptr (DlRandom) r = dl_random_new (11, "data", 0);
  g_autoptr (LearnDataset) all = learn_dataset_synthetic (2000, 10, 4, 3.0, r);
  LearnDataset *train = NULL, *test = NULL;
  learn_dataset_split (all, 0.25, r, &train, &test);
  ck_assert_uint_eq (test->n, 500);
  ck_assert_uint_eq (train->n, 1500);
  LearnModel m = { .kind = LEARN_MODEL_SOFTMAX, .features = 10, .classes = 4, .learning_rate = 0.1f, .batch_size = 32 };
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&m, r);
  double acc0, loss0, acc, loss, acc_ref, loss_ref;
  learn_model_evaluate (&m, w0, test, &acc0, &loss0);
  g_autoptr (DlRandom) order = dl_random_new (11, "order", 0);
  g_autoptr (LearnWeights) w = learn_model_train (&m, w0, train, 3, order);
  learn_model_evaluate (&m, w, test, &acc, &loss);
  LearnModel slow = m;
  slow.learning_rate = 0.05f;
  g_autoptr (LearnWeights) wref = learn_model_train (&slow, w0, train, 100, order);
  learn_model_evaluate (&m, wref, test, &acc_ref, &loss_ref);
  ck_assert_double_lt (loss, loss0);
  ck_assert_double_ge (acc_ref, 0.85);
  ck_assert_msg (acc >= acc_ref - 0.03, "3 epochs: %g, reference: %g", acc, acc_ref);
  ck_assert_double_lt (fabs (acc0 - 0.25), 0.1);   /* zero weights: chance */
  /* the MLP learns it too */
  LearnModel mlp = m;
  mlp.kind = LEARN_MODEL_MLP;
  mlp.hidden = 16;
  g_autoptr (LearnWeights) v0 = learn_model_initial_weights (&mlp, r);
  g_autoptr (LearnWeights) v = learn_model_train (&mlp, v0, train, 10, order);
  double acc_mlp, loss_mlp;
  learn_model_evaluate (&mlp, v, test, &acc_mlp, &loss_mlp);
  ck_assert_msg (acc_mlp >= acc_ref - 0.05, "mlp %g vs %g", acc_mlp, acc_ref);
  learn_dataset_free (train);
  learn_dataset_free (test);
}
END_TEST

START_TEST (test_train_is_reproducible_and_none_is_free)
{
  g_autoptr (DlRandom) r = dl_random_new (1, "data", 0);
  g_autoptr (LearnDataset) d = learn_dataset_synthetic (300, 4, 3, 2.0, r);
  LearnModel m = { .kind = LEARN_MODEL_SOFTMAX, .features = 4, .classes = 3, .learning_rate = 0.1f, .batch_size = 16 };
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&m, r);
  g_autoptr (DlRandom) o1 = dl_random_new (5, "order", 1);
  g_autoptr (DlRandom) o2 = dl_random_new (5, "order", 1);
  g_autoptr (LearnWeights) a = learn_model_train (&m, w0, d, 2, o1);
  g_autoptr (LearnWeights) b = learn_model_train (&m, w0, d, 2, o2);
  ck_assert (learn_weights_equal (a, b));
  LearnModel none = { .kind = LEARN_MODEL_NONE, .size = 1000 };
  g_autoptr (LearnWeights) n0 = learn_model_initial_weights (&none, r);
  ck_assert_uint_eq (learn_weights_len (n0), 1000);
  g_autoptr (LearnWeights) n1 = learn_model_train (&none, n0, d, 3, o1);
  ck_assert_ptr_eq (n1, n0);   /* no copy */
  double acc, loss;
  learn_model_evaluate (&none, n1, d, &acc, &loss);
  ck_assert (isnan (acc) && isnan (loss));
}
END_TEST

/* evaluated once per distinct model: each answer is learn_model_evaluate's
 * own, a second evaluation of the same bits comes from the copy, and a
 * vector changed in place since, another set or another model is
 * evaluated again */
START_TEST (test_evaluate_cached)
{
  g_autoptr (DlRandom) r = dl_random_new (3, "data", 0);
  g_autoptr (LearnDataset) d = learn_dataset_synthetic (400, 5, 3, 2.0, r);
  g_autoptr (LearnDataset) e = learn_dataset_synthetic (300, 5, 3, 2.0, r);
  LearnModel m = { .kind = LEARN_MODEL_SOFTMAX, .features = 5, .classes = 3, .learning_rate = 0.1f, .batch_size = 16 };
  LearnModel m2 = m;
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&m, r);
  g_autoptr (DlRandom) o = dl_random_new (3, "order", 0);
  g_autoptr (LearnWeights) a = learn_model_train (&m, w0, d, 1, o);
  g_autoptr (LearnWeights) a2 = learn_weights_copy (a);   /* the same bits, another vector */
  g_autoptr (LearnWeights) b = learn_model_train (&m, a, d, 1, o);
  LearnEvalCache c = { 0 };
  struct { const LearnModel *m; LearnWeights *w; LearnDataset *d; guint64 hits; } seq[] = {
    { &m, a, d, 0 }, { &m, a2, d, 1 }, { &m, a, d, 2 }, { &m, b, d, 2 }, { &m, a, d, 2 },
    { &m, a, e, 2 }, { &m2, a, e, 2 }, { &m2, a, e, 3 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
    {
      double acc, loss, acc_ref, loss_ref;
      learn_model_evaluate_cached (&c, seq[i].m, seq[i].w, seq[i].d, &acc, &loss);
      learn_model_evaluate (seq[i].m, seq[i].w, seq[i].d, &acc_ref, &loss_ref);
      ck_assert_msg (acc == acc_ref && loss == loss_ref, "step %u: %.17g %.17g, evaluated %.17g %.17g",
                     i, acc, loss, acc_ref, loss_ref);
      ck_assert_msg (c.hits == seq[i].hits, "step %u: %" G_GUINT64_FORMAT " hits", i, c.hits);
    }
  /* a vector its only holder changes in place after its evaluation */
  g_autoptr (LearnWeights) v = learn_weights_copy (b);
  double acc, loss, acc_ref, loss_ref;
  learn_model_evaluate_cached (&c, &m, v, d, &acc, &loss);
  float *vd = learn_weights_data_mut (v);
  for (gsize i = 0; i < learn_weights_len (v); i++)
    vd[i] = -vd[i];
  learn_model_evaluate_cached (&c, &m, v, d, &acc, &loss);
  learn_model_evaluate (&m, v, d, &acc_ref, &loss_ref);
  ck_assert_msg (loss == loss_ref && acc == acc_ref, "changed in place: %.17g, evaluated %.17g", loss, loss_ref);
  ck_assert_uint_eq (c.hits, 3);
  learn_eval_cache_clear (&c);
  ck_assert_ptr_null (c.weights);
}
END_TEST

/* ---- data ---- */

START_TEST (test_csv_roundtrip_and_errors)
{
  g_autoptr (DlRandom) r = dl_random_new (2, "csv", 0);
  g_autoptr (LearnDataset) d = learn_dataset_synthetic (50, 3, 5, 2.0, r);
  g_autofree char *dir = g_dir_make_tmp ("dlsim-csv-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "data.csv", NULL);
  ck_assert (learn_dataset_save_csv (d, path, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (LearnDataset) back = learn_dataset_load_csv (path, &error);
  ck_assert_msg (back != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (back->n, 50);
  ck_assert_uint_eq (back->features, 3);
  ck_assert_uint_eq (back->classes, 5);
  ck_assert_mem_eq (back->x, d->x, 50 * 3 * sizeof (float));
  ck_assert_mem_eq (back->y, d->y, 50 * sizeof (int32_t));

  struct { const char *text; const char *needle; } bad[] = {
    { "a,b,label\n1,2,0\n3,x,1\n", "data.csv:3: not a row of numbers" },
    { "1,2,0\n3,4\n", "data.csv:2: 2 columns, expected 3" },
    { "1,2,0\n3,4,1.5\n", "data.csv:2: the label" },
    { "1,2,-1\n", "data.csv:1: the label" },
    { "h1,h2\n", "no data rows" },
    { "5\n", "data.csv:1: a row needs at least one feature" },
    /* one label of a million would make a million classes (a softmax of
     * features x 1 000 001 weights a peer) */
    { "1,2,0\n1,2,1000000\n", "data.csv:2: the label (last column) must be an integer from 0 to 65535 (at most 65536 "
      "classes), got 1e+06" },
    /* past a float's range: once inf, silently */
    { "1,2,0\n3,1e39,1\n", "data.csv:2: column 2: 1e+39 is past a float's range" },
    { "1,2,0\n-1e39,4,1\n", "data.csv:2: column 1: -1e+39 is past a float's range" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ck_assert (g_file_set_contents (path, bad[i].text, -1, NULL));
      g_autoptr (GError) e = NULL;
      ck_assert (learn_dataset_load_csv (path, &e) == NULL);
      ck_assert_msg (strstr (e->message, bad[i].needle) != NULL, "'%s' lacks '%s'", e->message, bad[i].needle);
    }
  g_autoptr (GError) e = NULL;
  ck_assert (learn_dataset_load_csv ("/nonexistent/x.csv", &e) == NULL);
  ck_assert (strstr (e->message, "/nonexistent/x.csv") != NULL);
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

/* CSV through libcsv: a BOM, CRLF, quoted fields, a comment, and a quoted
 * first data row right after the header (once dropped as a second header) */
START_TEST (test_csv_quoting)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-csvq-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "q.csv", NULL);
  const char *text = "\xEF\xBB\xBF\"x 1\",\"x, 2\",label\r\n"
                     "\"1.5\",2,0\r\n"
                     "# a comment\r\n"
                     "\r\n"
                     " 3 , \"4\" ,1\r\n";
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (LearnDataset) d = learn_dataset_load_csv (path, &error);
  ck_assert_msg (d != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (d->n, 2);
  ck_assert_uint_eq (d->features, 2);
  ck_assert (d->x[0] == 1.5f && d->x[1] == 2.0f && d->x[2] == 3.0f && d->x[3] == 4.0f);
  ck_assert (d->y[0] == 0 && d->y[1] == 1);
  /* an unclosed quote is an error that names the file and line */
  ck_assert (g_file_set_contents (path, "1,2,0\n\"3,4,1\n", -1, NULL));
  g_autoptr (GError) e = NULL;
  ck_assert (learn_dataset_load_csv (path, &e) == NULL);
  ck_assert_msg (strstr (e->message, "q.csv:") != NULL, "%s", e->message);
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

static double
mean_max_class_share (const LearnDataset *d, const LearnPartition *p)
{
  double total = 0;
  guint counted = 0;
  for (guint k = 0; k < p->parts; k++)
    {
      GArray *a = p->idx[k];
      if (a->len == 0)
        continue;
      guint counts[64] = { 0 }, mx = 0;
      for (guint i = 0; i < a->len; i++)
        counts[d->y[g_array_index (a, gsize, i)]]++;
      for (guint c = 0; c < d->classes; c++)
        mx = MAX (mx, counts[c]);
      total += (double) mx / a->len;
      counted++;
    }
  return total / counted;
}

static void
assert_exact_cover (const LearnDataset *d, const LearnPartition *p)
{
  g_autofree guint *seen = g_new0 (guint, d->n);
  for (guint k = 0; k < p->parts; k++)
    for (guint i = 0; i < p->idx[k]->len; i++)
      seen[g_array_index (p->idx[k], gsize, i)]++;
  for (gsize i = 0; i < d->n; i++)
    ck_assert_uint_eq (seen[i], 1);
}

START_TEST (test_partitions)
{
  g_autoptr (DlRandom) r = dl_random_new (4, "part", 0);
  g_autoptr (LearnDataset) d = learn_dataset_synthetic (2000, 2, 10, 1.0, r);
  LearnPartitionSpec spec;
  ck_assert (learn_partition_spec_parse ("iid", &spec, NULL));
  g_autoptr (LearnPartition) iid = learn_partition_new (d, &spec, 10, r);
  assert_exact_cover (d, iid);
  for (guint k = 0; k < 10; k++)
    ck_assert_uint_eq (iid->idx[k]->len, 200);
  double s_iid = mean_max_class_share (d, iid);

  ck_assert (learn_partition_spec_parse ("dirichlet(0.05)", &spec, NULL));
  g_autoptr (LearnPartition) skew = learn_partition_new (d, &spec, 10, r);
  assert_exact_cover (d, skew);
  double s_skew = mean_max_class_share (d, skew);
  ck_assert (learn_partition_spec_parse ("dirichlet(100)", &spec, NULL));
  g_autoptr (LearnPartition) flat = learn_partition_new (d, &spec, 10, r);
  assert_exact_cover (d, flat);
  double s_flat = mean_max_class_share (d, flat);
  ck_assert_msg (s_skew > 0.6, "alpha 0.05: mean max-class share %g", s_skew);
  ck_assert_msg (s_flat < 0.2 && s_iid < 0.2, "alpha 100: %g, iid: %g", s_flat, s_iid);

  /* McMahan et al.'s split: rows sorted by label cut into 10 x 2 shards of
   * 100 rows (200 rows a label: each shard one label), 2 shards a part */
  ck_assert (learn_partition_spec_parse ("shards(2)", &spec, NULL));
  g_autoptr (LearnPartition) sh = learn_partition_new (d, &spec, 10, r);
  assert_exact_cover (d, sh);
  for (guint k = 0; k < 10; k++)
    {
      ck_assert_uint_eq (sh->idx[k]->len, 200);
      for (guint half = 0; half < 2; half++)
        for (guint i = 1; i < 100; i++)
          ck_assert_int_eq (d->y[g_array_index (sh->idx[k], gsize, half * 100 + i)],
                            d->y[g_array_index (sh->idx[k], gsize, half * 100)]);
      guint labels[10] = { 0 }, distinct = 0;
      for (guint i = 0; i < sh->idx[k]->len; i++)
        labels[d->y[g_array_index (sh->idx[k], gsize, i)]] = 1;
      for (int c = 0; c < 10; c++)
        distinct += labels[c];
      ck_assert_uint_le (distinct, 2);
    }

  const char *bad[] = { "dirichlet(0)", "dirichlet(x)", "shards(0)", "random", "" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      ck_assert (!learn_partition_spec_parse (bad[i], &spec, &e));
      ck_assert (strstr (e->message, "expected iid") != NULL);
    }
}
END_TEST

START_TEST (test_partition_by_column)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-col-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "leaf.csv", NULL);
  /* writers b, a, c (first appearance order: b=0, a=1, c=2) with 10, 20 and
   * 30 rows; the writer column in the middle */
  GString *csv = g_string_new ("x1,writer,x2,label\n");
  const char *names[] = { "b", "a", "c" };
  for (guint w = 0; w < 3; w++)
    for (guint i = 0; i < 10 * (w + 1); i++)
      g_string_append_printf (csv, "%u,%s,%u.5,%u\n", i, names[w], w, i % 2);
  ck_assert (g_file_set_contents (path, csv->str, (gssize) csv->len, NULL));
  g_string_free (csv, TRUE);
  g_autoptr (GError) e = NULL;
  g_autoptr (LearnDataset) d = learn_dataset_load_csv_by_column (path, "writer", &e);
  ck_assert_msg (d != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (d->n, 60);
  ck_assert_uint_eq (d->features, 2);
  ck_assert_uint_eq (d->classes, 2);
  ck_assert_uint_eq (d->groups, 3);
  ck_assert_int_eq (d->group[0], 0);
  ck_assert_int_eq (d->group[10], 1);
  ck_assert_int_eq (d->group[59], 2);
  ck_assert_float_eq (d->x[10 * 2 + 1], 1.5f);   /* row 10: x2 of writer a */

  /* the split keeps a quarter of each writer's rows for test */
  g_autoptr (DlRandom) r = dl_random_new (5, "data-split", DL_RANDOM_NO_NODE);
  LearnDataset *train = NULL, *test = NULL;
  learn_dataset_split (d, 0.25, r, &train, &test);
  guint per_test[3] = { 0 }, per_train[3] = { 0 };
  for (gsize i = 0; i < test->n; i++)
    per_test[test->group[i]]++;
  for (gsize i = 0; i < train->n; i++)
    per_train[train->group[i]]++;
  const guint want_test[3] = { 3, 5, 8 };   /* llround (0.25 x 10, 20, 30) */
  for (guint g = 0; g < 3; g++)
    {
      ck_assert_uint_eq (per_test[g], want_test[g]);
      ck_assert_uint_eq (per_train[g] + per_test[g], 10 * (g + 1));
    }
  /* one writer, one part */
  LearnPartitionSpec spec;
  ck_assert (learn_partition_spec_parse ("by-column(writer)", &spec, NULL));
  ck_assert_int_eq (spec.kind, LEARN_PARTITION_BY_COLUMN);
  ck_assert_str_eq (spec.column, "writer");
  g_autoptr (LearnPartition) p = learn_partition_new (train, &spec, 3, r);
  assert_exact_cover (train, p);
  for (guint k = 0; k < 3; k++)
    {
      ck_assert_uint_eq (p->idx[k]->len, per_train[k]);
      for (guint i = 0; i < p->idx[k]->len; i++)
        ck_assert_int_eq (train->group[g_array_index (p->idx[k], gsize, i)], (int32_t) k);
    }
  learn_dataset_free (train);
  learn_dataset_free (test);

  /* no such column; no header; a bad name */
  g_clear_error (&e);
  ck_assert (learn_dataset_load_csv_by_column (path, "author", &e) == NULL);
  ck_assert_msg (strstr (e->message, "leaf.csv:1: no column named 'author' in the header (x1, writer, x2, label)"),
                 "%s", e->message);
  ck_assert (g_file_set_contents (path, "1,2,0\n3,4,1\n", -1, NULL));
  g_clear_error (&e);
  ck_assert (learn_dataset_load_csv_by_column (path, "writer", &e) == NULL);
  ck_assert_msg (strstr (e->message, "needs a header line"), "%s", e->message);
  const char *bad[] = { "by-column()", "by-column(a b)", "by-column(x,y)" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    ck_assert_msg (!learn_partition_spec_parse (bad[i], &spec, NULL), "%s", bad[i]);
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

/* tools/sklearn-reference rebuilds dlsim's split in Python; its --self-test
 * checks the same rows for seed 42 that this asserts of the C code. */
START_TEST (test_split_matches_reference)
{
  g_autoptr (LearnDataset) d = learn_dataset_new (20, 1, 20);
  for (gsize i = 0; i < 20; i++)
    d->y[i] = (int32_t) i;
  g_autoptr (DlRandom) sr = dl_random_new (42, "data-split", DL_RANDOM_NO_NODE);
  LearnDataset *train = NULL, *test = NULL;
  learn_dataset_split (d, 0.25, sr, &train, &test);
  const int32_t want_test[] = { 17, 19, 8, 11, 15 }, want_train_head[] = { 13, 2, 16 };
  ck_assert_uint_eq (test->n, 5);
  for (guint i = 0; i < 5; i++)
    ck_assert_int_eq (test->y[i], want_test[i]);
  for (guint i = 0; i < 3; i++)
    ck_assert_int_eq (train->y[i], want_train_head[i]);
  learn_dataset_free (train);
  learn_dataset_free (test);
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
  tc = tcase_create ("models");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_gradient_softmax);
  tcase_add_test (tc, test_gradient_mlp);
  tcase_add_test (tc, test_softmax_matches_long_trained_reference);
  tcase_add_test (tc, test_train_is_reproducible_and_none_is_free);
  tcase_add_test (tc, test_evaluate_cached);
  suite_add_tcase (s, tc);
  tc = tcase_create ("data");
  tcase_add_test (tc, test_csv_roundtrip_and_errors);
  tcase_add_test (tc, test_csv_quoting);
  tcase_add_test (tc, test_partitions);
  tcase_add_test (tc, test_split_matches_reference);
  tcase_add_test (tc, test_partition_by_column);
  test_learn_sources_add (tc);   /* test-learn-sources.c */
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
