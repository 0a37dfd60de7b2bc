/* test-learn-sources.c — learn/learn-sources.c's readers, part of
 * tests/test-learn (its "data" tcase): IDX files plain and gzipped, torn
 * and bad, a directory and scikit-learn's files missing, and a source's
 * parse and standardisation. */
#include "config.h"

#include "learn/learn-weights.h"
#include "learn/learn-data.h"
#include "learn/learn-model.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <check.h>
#include <stdio.h>
#include "tests/test-learn.h"

/* ---- IDX and scikit-learn sources (learn-sources.c) ---- */

/* An IDX file: magic 00 00 08 ndim, the dims big-endian, then the bytes. */
static GByteArray *
idx_bytes (guint ndim, const guint32 *dims, const guint8 *data, gsize n)
{
  GByteArray *b = g_byte_array_new ();
  guint8 head[4] = { 0, 0, 0x08, (guint8) ndim };
  g_byte_array_append (b, head, 4);
  for (guint i = 0; i < ndim; i++)
    {
      guint8 be[4] = { (guint8) (dims[i] >> 24), (guint8) (dims[i] >> 16), (guint8) (dims[i] >> 8), (guint8) dims[i] };
      g_byte_array_append (b, be, 4);
    }
  g_byte_array_append (b, data, (guint) n);
  return b;
}

static GByteArray *
gzip_bytes (const GByteArray *in)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr (GInputStream) src = g_memory_input_stream_new_from_data (in->data, in->len, NULL);
  g_autoptr (GInputStream) conv = g_converter_input_stream_new (src, G_CONVERTER (z));
  GByteArray *out = g_byte_array_new ();
  guint8 buf[4096];
  gssize got;
  while ((got = g_input_stream_read (conv, buf, sizeof buf, NULL, NULL)) > 0)
    g_byte_array_append (out, buf, (guint) got);
  ck_assert_int_eq (got, 0);
  return out;
}

/* Reads images and labels from memory: the first `ni` and `nl` bytes. */
static LearnDataset *
read_idx_mem (const GByteArray *im, gsize ni, const GByteArray *lb, gsize nl, gsize limit, GError **error)
{
  g_autoptr (GInputStream) a = g_memory_input_stream_new_from_data (im->data, (gssize) ni, NULL);
  g_autoptr (GInputStream) b = g_memory_input_stream_new_from_data (lb->data, (gssize) nl, NULL);
  return learn_dataset_read_idx (a, "images", b, "labels", limit, error);
}

START_TEST (test_idx_reads_plain_and_gzip)
{
  /* 3 images of 2x2, labels 2, 0, 1 */
  const guint8 px[12] = { 0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0 }, ys[3] = { 2, 0, 1 };
  const guint32 idim[3] = { 3, 2, 2 }, ldim[1] = { 3 };
  g_autoptr (GByteArray) im = idx_bytes (3, idim, px, 12);
  g_autoptr (GByteArray) lb = idx_bytes (1, ldim, ys, 3);
  g_autoptr (GByteArray) imz = gzip_bytes (im);
  g_autoptr (GByteArray) lbz = gzip_bytes (lb);
  const GByteArray *ims[] = { im, imz }, *lbs[] = { lb, lbz };
  for (guint v = 0; v < 4; v++)
    {
      const GByteArray *a = ims[v & 1], *b = lbs[v >> 1];
      g_autoptr (GError) e = NULL;
      g_autoptr (LearnDataset) d = read_idx_mem (a, a->len, b, b->len, 0, &e);
      ck_assert_msg (d != NULL, "%s", e ? e->message : "");
      ck_assert_uint_eq (d->n, 3);
      ck_assert_uint_eq (d->features, 4);
      ck_assert_uint_eq (d->classes, 3);
      ck_assert_int_eq (d->y[0], 2);
      ck_assert_int_eq (d->y[2], 1);
      ck_assert_float_eq (d->x[1], 1.0f);
      ck_assert_float_eq_tol (d->x[2], 0.2f, 1e-6);
      ck_assert_float_eq (d->x[11], 0.0f);
      /* a limit reads the first items only */
      g_autoptr (LearnDataset) two = read_idx_mem (a, a->len, b, b->len, 2, NULL);
      ck_assert_uint_eq (two->n, 2);
      ck_assert_uint_eq (two->classes, 3);
    }
}
END_TEST

/* gzip members back to back (`cat a.gz b.gz`) are one file, as gzip(1)
 * reads it: it once read as "truncated" after the first member.  An empty
 * member in between counts for nothing; bytes after a member that are not
 * one are an error. */
static GByteArray *
gzip_members (const GByteArray *in, const gsize *cuts, guint n_cuts)
{
  GByteArray *out = g_byte_array_new ();
  gsize from = 0;
  for (guint i = 0; i <= n_cuts; i++)
    {
      gsize to = i < n_cuts ? cuts[i] : in->len;
      g_autoptr (GByteArray) part = g_byte_array_new ();
      g_byte_array_append (part, in->data + from, (guint) (to - from));
      g_autoptr (GByteArray) z = gzip_bytes (part);
      g_byte_array_append (out, z->data, z->len);
      from = to;
    }
  return out;
}

START_TEST (test_idx_gzip_members)
{
  const guint8 px[12] = { 0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0 }, ys[3] = { 2, 0, 1 };
  const guint32 idim[3] = { 3, 2, 2 }, ldim[1] = { 3 };
  g_autoptr (GByteArray) im = idx_bytes (3, idim, px, 12);
  g_autoptr (GByteArray) lb = idx_bytes (1, ldim, ys, 3);
  const gsize icuts[] = { 7, 20 }, lcuts[] = { 3, 3 };
  g_autoptr (GByteArray) imz = gzip_members (im, icuts, G_N_ELEMENTS (icuts));
  g_autoptr (GByteArray) lbz = gzip_members (lb, lcuts, G_N_ELEMENTS (lcuts));
  g_autoptr (GError) e = NULL;
  g_autoptr (LearnDataset) d = read_idx_mem (imz, imz->len, lbz, lbz->len, 0, &e);
  ck_assert_msg (d != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (d->n, 3);
  ck_assert_uint_eq (d->features, 4);
  ck_assert_int_eq (d->y[0], 2);
  ck_assert_int_eq (d->y[2], 1);
  ck_assert_float_eq (d->x[1], 1.0f);
  ck_assert_float_eq (d->x[11], 0.0f);
  /* a member cut short, and bytes after the last member, are errors */
  g_autoptr (GError) e2 = NULL;
  ck_assert (read_idx_mem (imz, imz->len - 3, lbz, lbz->len, 0, &e2) == NULL);
  ck_assert_msg (strstr (e2->message, "images") != NULL, "%s", e2->message);
  g_byte_array_append (lbz, (const guint8 *) "junk", 4);
  g_autoptr (GError) e3 = NULL;
  ck_assert (read_idx_mem (imz, imz->len, lbz, lbz->len, 0, &e3) == NULL);
  ck_assert_msg (strstr (e3->message, "labels: ") != NULL, "%s", e3->message);
}
END_TEST

/* Every prefix of a valid pair (plain and gzipped) is an error that names
 * the file, never a crash or a read past the end (ASan in CI). */
START_TEST (test_idx_truncated_never_crashes)
{
  guint8 px[5 * 3 * 3], ys[5] = { 0, 1, 2, 3, 4 };
  for (guint i = 0; i < sizeof px; i++)
    px[i] = (guint8) (i * 7);
  const guint32 idim[3] = { 5, 3, 3 }, ldim[1] = { 5 };
  g_autoptr (GByteArray) im = idx_bytes (3, idim, px, sizeof px);
  g_autoptr (GByteArray) lb = idx_bytes (1, ldim, ys, sizeof ys);
  g_autoptr (GByteArray) imz = gzip_bytes (im);
  g_autoptr (GByteArray) lbz = gzip_bytes (lb);
  const GByteArray *pairs[2][2] = { { im, lb }, { imz, lbz } };
  for (guint z = 0; z < 2; z++)
    for (guint which = 0; which < 2; which++)
      {
        const GByteArray *cut = pairs[z][which];
        for (gsize n = 0; n < cut->len; n++)
          {
            g_autoptr (GError) e = NULL;
            gsize ni = which == 0 ? n : pairs[z][0]->len, nl = which == 1 ? n : pairs[z][1]->len;
            g_autoptr (LearnDataset) d = read_idx_mem (pairs[z][0], ni, pairs[z][1], nl, 0, &e);
            ck_assert_msg (d == NULL, "gzip %u, file %u cut at %zu of %u read as a data set", z, which, n, cut->len);
            ck_assert_msg (strstr (e->message, which == 0 ? "images" : "labels") != NULL, "%s", e->message);
          }
      }
}
END_TEST

START_TEST (test_idx_bad_headers)
{
  const guint8 zeros[64] = { 0 };
  const guint32 ok_l[1] = { 2 };
  g_autoptr (GByteArray) lb = idx_bytes (1, ok_l, zeros, 2);
  static const struct {
    guint ndim;
    guint32 dims[4];
    const char *want;
  } cases[] = {
    { 3, { 0, 2, 2 }, "dimension 1 is 0" },
    { 3, { 2, 0, 2 }, "dimension 2 is 0" },
    { 3, { 4000000000u, 28, 28 }, "dimension 1 is 4000000000: out of range" },
    { 3, { 2, 70000, 2 }, "dimension 2 is 70000: out of range" },
    { 3, { 2, 2048, 2048 }, "values per image: more than" },
    { 4, { 2, 1024, 1024, 2 }, "values per image: more than" },
    { 3, { 3, 2, 2 }, "has 3 images but labels has 2" },
    { 1, { 2 }, "1 dimensions, expected 2 to 4" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GByteArray) im = idx_bytes (cases[i].ndim, cases[i].dims, zeros, sizeof zeros);
      g_autoptr (GError) e = NULL;
      g_autoptr (LearnDataset) d = read_idx_mem (im, im->len, lb, lb->len, 0, &e);
      ck_assert_msg (d == NULL, "case %zu read", i);
      ck_assert_msg (strstr (e->message, cases[i].want) != NULL, "case %zu: %s", i, e->message);
    }
  /* many items of many values: more floats than the bound, before any allocation */
  const guint32 big[3] = { 9000000, 256, 256 }, big_l[1] = { 9000000 };
  g_autoptr (GByteArray) im = idx_bytes (3, big, zeros, sizeof zeros);
  g_autoptr (GByteArray) lb2 = idx_bytes (1, big_l, zeros, sizeof zeros);
  g_autoptr (GError) e = NULL;
  ck_assert (read_idx_mem (im, im->len, lb2, lb2->len, 0, &e) == NULL);
  ck_assert_msg (strstr (e->message, "floats") != NULL, "%s", e->message);
  /* a wrong type byte and a wrong magic */
  const guint32 d3[3] = { 2, 2, 2 };
  g_autoptr (GByteArray) typ = idx_bytes (3, d3, zeros, 8);
  typ->data[2] = 0x0d;
  g_clear_error (&e);
  ck_assert (read_idx_mem (typ, typ->len, lb, lb->len, 0, &e) == NULL);
  ck_assert_msg (strstr (e->message, "type 0x0d") != NULL, "%s", e->message);
  typ->data[0] = 0x50;
  g_clear_error (&e);
  ck_assert (read_idx_mem (typ, typ->len, lb, lb->len, 0, &e) == NULL);
  ck_assert_msg (strstr (e->message, "not an IDX file") != NULL, "%s", e->message);
  /* labels with two dimensions */
  const guint32 l2[2] = { 2, 1 };
  g_autoptr (GByteArray) lbad = idx_bytes (2, l2, zeros, 2);
  typ->data[0] = 0;
  typ->data[2] = 0x08;
  g_clear_error (&e);
  ck_assert (read_idx_mem (typ, typ->len, lbad, lbad->len, 0, &e) == NULL);
  ck_assert_msg (strstr (e->message, "labels: 2 dimensions, expected 1") != NULL, "%s", e->message);
}
END_TEST

START_TEST (test_idx_dir_and_sklearn_missing)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-idx-XXXXXX", NULL);
  g_autoptr (GError) e = NULL;
  LearnDataset *train = NULL, *test = NULL;
  ck_assert (!learn_dataset_load_idx_dir (dir, 0, &train, &test, &e));
  ck_assert_msg (strstr (e->message, "train-images-idx3-ubyte") && strstr (e->message, "dataset-fashion-mnist"), "%s",
                 e->message);
  /* a set of files (one gzipped) loads; the test set gets the larger class count */
  const guint8 px[8] = { 0 }, ys_train[2] = { 0, 1 }, ys_test[2] = { 3, 0 };
  const guint32 idim[3] = { 2, 2, 2 }, ldim[1] = { 2 };
  g_autoptr (GByteArray) im = idx_bytes (3, idim, px, 8);
  g_autoptr (GByteArray) imz = gzip_bytes (im);
  g_autoptr (GByteArray) l1 = idx_bytes (1, ldim, ys_train, 2);
  g_autoptr (GByteArray) l2 = idx_bytes (1, ldim, ys_test, 2);
  struct { const char *name; GByteArray *b; } files[] = {
    { "train-images-idx3-ubyte.gz", imz }, { "train-labels-idx1-ubyte", l1 },
    { "t10k-images-idx3-ubyte", im }, { "t10k-labels-idx1-ubyte", l2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = g_build_filename (dir, files[i].name, NULL);
      ck_assert (g_file_set_contents (p, (const char *) files[i].b->data, files[i].b->len, NULL));
    }
  g_clear_error (&e);
  ck_assert_msg (learn_dataset_load_idx_dir (dir, 0, &train, &test, &e), "%s", e ? e->message : "");
  ck_assert_uint_eq (train->n, 2);
  ck_assert_uint_eq (test->n, 2);
  ck_assert_uint_eq (train->classes, 4);
  ck_assert_uint_eq (test->classes, 4);
  learn_dataset_free (train);
  learn_dataset_free (test);
  /* a second set in the folder is ambiguous */
  g_autofree char *dup = g_build_filename (dir, "emnist-train-images-idx3-ubyte", NULL);
  ck_assert (g_file_set_contents (dup, (const char *) im->data, im->len, NULL));
  g_clear_error (&e);
  ck_assert (!learn_dataset_load_idx_dir (dir, 0, &train, &test, &e));
  ck_assert_msg (strstr (e->message, "several files"), "%s", e->message);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = g_build_filename (dir, files[i].name, NULL);
      g_unlink (p);
    }
  g_unlink (dup);

  g_clear_error (&e);
  ck_assert (learn_dataset_load_sklearn ("digits", dir, &e) == NULL);
  ck_assert_msg (strstr (e->message, "digits.csv.gz") && strstr (e->message, "apt-get install python3-sklearn"), "%s",
                 e->message);
  /* a file of the wrong shape */
  g_autofree char *iris = g_build_filename (dir, "iris.csv", NULL);
  ck_assert (g_file_set_contents (iris, "3,4,a,b,c\n1,2,3,4,0\n1,2,3,4,1\n", -1, NULL));
  g_clear_error (&e);
  ck_assert (learn_dataset_load_sklearn ("iris", dir, &e) == NULL);
  ck_assert_msg (strstr (e->message, "but scikit-learn's iris has 150 of 4 in 3"), "%s", e->message);
  g_unlink (iris);
  g_rmdir (dir);
}
END_TEST

START_TEST (test_sources_parse_and_standardize)
{
  LearnSourceKind k;
  g_autofree char *arg = NULL;
  ck_assert (learn_source_parse ("idx:/a/b", &k, &arg, NULL));
  ck_assert_int_eq (k, LEARN_SOURCE_IDX);
  ck_assert_str_eq (arg, "/a/b");
  ck_assert (learn_source_parse ("synthetic", &k, NULL, NULL) && k == LEARN_SOURCE_SYNTHETIC);
  ck_assert (learn_source_parse ("sklearn:breast_cancer", &k, NULL, NULL) && k == LEARN_SOURCE_SKLEARN);
  const char *bad[] = { "idx:", "sklearn:mnist", "csv", "", "fashion" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      ck_assert_msg (!learn_source_parse (bad[i], &k, NULL, &e), "%s", bad[i]);
      ck_assert (strstr (e->message, "expected") != NULL);
    }

  g_autoptr (LearnDataset) tr = learn_dataset_new (4, 2, 2);
  g_autoptr (LearnDataset) te = learn_dataset_new (1, 2, 2);
  const float xs[8] = { 1, 5, 3, 5, 5, 5, 7, 5 };
  memcpy (tr->x, xs, sizeof xs);
  te->x[0] = 4;
  te->x[1] = 6;
  learn_dataset_standardize (tr, te);
  /* feature 0: mean 4, sd sqrt(5); feature 1 constant: centred only */
  ck_assert_float_eq_tol (tr->x[0], (float) (-3 / sqrt (5)), 1e-6);
  ck_assert_float_eq_tol (tr->x[6], (float) (3 / sqrt (5)), 1e-6);
  ck_assert_float_eq (tr->x[1], 0);
  ck_assert_float_eq (te->x[0], 0);
  ck_assert_float_eq (te->x[1], 1);
}
END_TEST

/* LEAF's natural split: a CSV column names each row's client. */

void
test_learn_sources_add (TCase *tc)
{
  tcase_add_test (tc, test_idx_reads_plain_and_gzip);
  tcase_add_test (tc, test_idx_gzip_members);
  tcase_add_test (tc, test_idx_truncated_never_crashes);
  tcase_add_test (tc, test_idx_bad_headers);
  tcase_add_test (tc, test_idx_dir_and_sklearn_missing);
  tcase_add_test (tc, test_sources_parse_and_standardize);
}
