/* test-gossip-mix.c — protocol/gossip/tests/test-gossip's mix suite:
 * the family's arithmetic (which coordinates to send, the draws against
 * Floyd's algorithm as first written, Metropolis–Hastings mixing) and its
 * payload's wire form.  The program's main is in test-gossip.c. */
#include "config.h"

#include "learn/learn-weights.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/gossip/gossip-msgs.h"
#include "protocol/gossip/tests/gossip-suites.h"

#include <check.h>
#include <string.h>

/* ---------------------------------------------------------------- arithmetic */

START_TEST (test_keep_count)
{
  ck_assert_uint_eq (gossip_keep_count (100, 0.1), 10);
  ck_assert_uint_eq (gossip_keep_count (27, 0.1), 3);     /* ceil */
  ck_assert_uint_eq (gossip_keep_count (5, 0.01), 1);     /* at least one */
  ck_assert_uint_eq (gossip_keep_count (5, 1.0), 5);
  ck_assert_uint_eq (gossip_keep_count (0, 0.5), 0);
}
END_TEST

START_TEST (test_pick_random)
{
  g_autoptr (DlRandom) a = dl_random_new (7, "x", 1);
  g_autoptr (DlRandom) b = dl_random_new (7, "x", 1);
  g_autofree guint32 *i = gossip_pick_random (a, 1000, 50);
  g_autofree guint32 *j = gossip_pick_random (b, 1000, 50);
  ck_assert (memcmp (i, j, 50 * sizeof *i) == 0);   /* the same stream draws the same */
  for (guint k = 0; k < 50; k++)
    {
      ck_assert_uint_lt (i[k], 1000);
      if (k)
        ck_assert_uint_lt (i[k - 1], i[k]);          /* ascending, hence distinct */
    }
  /* k = n takes everything */
  g_autofree guint32 *all = gossip_pick_random (a, 8, 8);
  for (guint k = 0; k < 8; k++)
    ck_assert_uint_eq (all[k], k);
}
END_TEST

/* Floyd's algorithm as gossip_pick_random first had it (a hash set, then
 * qsort): the reference its faster paths must match draw for draw. */
static int
cmp_u32_ref (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

static guint32 *
pick_random_ref (DlRandom *rng, guint32 n, guint32 k)
{
  guint32 *out = g_new (guint32, MAX (k, 1));
  g_autoptr (GHashTable) taken = g_hash_table_new (NULL, NULL);
  for (guint32 j = n - k, m = 0; j < n; j++)
    {
      guint32 t = (guint32) dl_random_below (rng, (uint64_t) j + 1);
      if (g_hash_table_contains (taken, GUINT_TO_POINTER (t + 1)))
        t = j;
      g_hash_table_add (taken, GUINT_TO_POINTER (t + 1));
      out[m++] = t;
    }
  qsort (out, k, sizeof *out, cmp_u32_ref);
  return out;
}

static void
check_pick_against_ref (guint64 seed, guint32 n, guint32 k)
{
  g_autoptr (DlRandom) a = dl_random_new (seed, "pick", n);
  g_autoptr (DlRandom) b = dl_random_new (seed, "pick", n);
  g_autofree guint32 *want = pick_random_ref (a, n, k);
  g_autofree guint32 *got = g_new (guint32, MAX (k, 1));
  gossip_pick_random_into (b, n, k, got);
  for (guint32 i = 0; i < k; i++)
    ck_assert_msg (got[i] == want[i], "seed %" G_GUINT64_FORMAT " n %u k %u: [%u] %u, want %u",
                   seed, n, k, i, got[i], want[i]);
  /* the same number of draws: both streams stand at the same point */
  ck_assert_uint_eq (dl_random_below (a, 1u << 30), dl_random_below (b, 1u << 30));
}

/* Against the reference over many (n, k): the sorted path (k <= 256),
 * the hashed one above it, k = n and k near n (many collisions), k = 0. */
START_TEST (test_pick_random_reference)
{
  static const guint32 nk[][2] = {
    { 0, 0 },      { 5, 0 },      { 1, 1 },       { 2, 1 },      { 8, 8 },
    { 33, 33 },    { 34, 33 },    { 100, 33 },    { 1000, 33 },  { 100000, 33 },
    { 256, 256 },  { 300, 256 },  { 300, 257 },   { 257, 257 },  { 2000, 1000 },
    { 5000, 300 }, { 40, 39 },    { 4096, 4000 },
  };
  guint64 seed = (guint64) _i;
  for (gsize c = 0; c < G_N_ELEMENTS (nk); c++)
    check_pick_against_ref (seed, nk[c][0], nk[c][1]);
  g_autoptr (DlRandom) shape = dl_random_new (seed, "shape", 0);
  for (int r = 0; r < 50; r++)
    {
      guint32 n = (guint32) dl_random_below (shape, 600) + 1;
      check_pick_against_ref (seed + 1000 * (guint64) r, n, (guint32) dl_random_below (shape, n + 1));
    }
}
END_TEST

START_TEST (test_pick_top)
{
  const float score[] = { 0.1f, -5.0f, 2.0f, 2.0f, 0.0f, -3.0f };
  g_autofree guint32 *t = gossip_pick_top (score, 6, 3);
  /* |-5|, |-3|, then 2.0 at the lower index (2) */
  ck_assert_uint_eq (t[0], 1);
  ck_assert_uint_eq (t[1], 2);
  ck_assert_uint_eq (t[2], 5);
}
END_TEST

static LearnWeights *
vec (const float *v, gsize n)
{
  return learn_weights_new_from (v, n);
}

START_TEST (test_mh_mix_path)
{
  /* a path 1 - 2 - 3: degrees 1, 2, 1; w12 = w23 = 1/3 */
  const float a[] = { 0, 3 }, b[] = { 3, 6 }, c[] = { 9, 0 };
  g_autoptr (LearnWeights) x1 = vec (a, 2), x2 = vec (b, 2), x3 = vec (c, 2);
  GossipContribution to1[] = { { .values = x2, .degree = 2 } };
  GossipContribution to2[] = { { .values = x1, .degree = 1 }, { .values = x3, .degree = 1 } };
  GossipContribution to3[] = { { .values = x2, .degree = 2 } };
  g_autoptr (LearnWeights) y1 = gossip_mix (x1, 1, to1, 1);
  g_autoptr (LearnWeights) y2 = gossip_mix (x2, 2, to2, 2);
  g_autoptr (LearnWeights) y3 = gossip_mix (x3, 1, to3, 1);
  ck_assert_double_eq_tol (gossip_mh_weight (1, 2), 1.0 / 3, 1e-12);
  /* y1 = 2/3 x1 + 1/3 x2 */
  ck_assert_float_eq_tol (learn_weights_data (y1)[0], 1.0f, 1e-6f);
  ck_assert_float_eq_tol (learn_weights_data (y1)[1], 4.0f, 1e-6f);
  /* y2 = 1/3 (x1 + x2 + x3) */
  ck_assert_float_eq_tol (learn_weights_data (y2)[0], 4.0f, 1e-6f);
  /* doubly stochastic: the mean is kept, coordinate by coordinate */
  for (guint k = 0; k < 2; k++)
    {
      double before = learn_weights_data (x1)[k] + learn_weights_data (x2)[k] + learn_weights_data (x3)[k];
      double after = learn_weights_data (y1)[k] + learn_weights_data (y2)[k] + learn_weights_data (y3)[k];
      ck_assert_double_eq_tol (before, after, 1e-5);
    }
}
END_TEST

START_TEST (test_mh_mix_sparse)
{
  /* a neighbour that sent coordinate 1 only: coordinate 0 keeps the own value */
  const float own[] = { 1, 1, 1 }, sent[] = { 5 };
  g_autoptr (LearnWeights) x = vec (own, 3), v = vec (sent, 1);
  const guint32 idx[] = { 1 };
  GossipContribution c[] = { { .values = v, .indices = idx, .n_indices = 1, .degree = 1 } };
  g_autoptr (LearnWeights) y = gossip_mix (x, 1, c, 1);
  ck_assert_float_eq (learn_weights_data (y)[0], 1.0f);
  ck_assert_float_eq_tol (learn_weights_data (y)[1], 3.0f, 1e-6f);
  ck_assert_float_eq (learn_weights_data (y)[2], 1.0f);
  /* no contribution at all: the own model */
  g_autoptr (LearnWeights) z = gossip_mix (x, 2, NULL, 0);
  ck_assert (learn_weights_equal (z, x));
}
END_TEST

START_TEST (test_payload_wire)
{
  ProtoMsg m, d;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = 7;
  m.degree = 3;
  const float v[] = { 1.5f, -2 };
  g_autoptr (LearnWeights) w = vec (v, 2);
  proto_msg_set_weights (&m, w);
  guint32 *idx = g_new (guint32, 2);
  idx[0] = 4, idx[1] = 9;
  proto_msg_take_indices (&m, idx, 2);
  g_autoptr (GBytes) b = proto_msg_encode (&m);
  ck_assert_uint_eq (g_bytes_get_size (b), proto_msg_wire_size (&m));
  g_autoptr (GError) e = NULL;
  ck_assert (proto_msg_decode (b, &d, &e));
  ck_assert_uint_eq (d.round, 7);
  ck_assert_uint_eq (d.degree, 3);
  ck_assert_uint_eq (d.n_indices, 2);
  ck_assert_uint_eq (d.indices[1], 9);
  ck_assert (learn_weights_equal (d.weights, w));
  proto_msg_clear (&d);
  /* indices must ascend, and match the values */
  m.indices[1] = 4;
  g_autoptr (GBytes) bad = proto_msg_encode (&m);
  ck_assert (!proto_msg_decode (bad, &d, &e));
  ck_assert (strstr (e->message, "ascending"));
  g_clear_error (&e);
  m.indices[1] = 9;
  m.n_indices = 1;
  g_autoptr (GBytes) bad2 = proto_msg_encode (&m);
  ck_assert (!proto_msg_decode (bad2, &d, &e));
  m.n_indices = 2;
  proto_msg_clear (&m);
  /* a sparse payload costs its indices: 4 bytes more per kept coordinate */
  ProtoMsg dense;
  proto_msg_init (&dense, PROTO_MSG_GOSSIP_PAYLOAD);
  proto_msg_set_weights (&dense, w);
  ProtoMsg sparse;
  proto_msg_copy (&sparse, &dense);
  guint32 *ix = g_new (guint32, 2);
  ix[0] = 0, ix[1] = 1;
  proto_msg_take_indices (&sparse, ix, 2);
  ck_assert_uint_ge (proto_msg_wire_size (&sparse), proto_msg_wire_size (&dense) + 8);
  proto_msg_clear (&dense);
  proto_msg_clear (&sparse);
}
END_TEST

Suite *
test_gossip_mix_suite (void)
{
  Suite *s = suite_create ("gossip-mix");
  TCase *t = tcase_create ("mix");
  tcase_add_test (t, test_keep_count);
  tcase_add_test (t, test_pick_random);
  tcase_add_loop_test (t, test_pick_random_reference, 0, 20);
  tcase_add_test (t, test_pick_top);
  tcase_add_test (t, test_mh_mix_path);
  tcase_add_test (t, test_mh_mix_sparse);
  tcase_add_test (t, test_payload_wire);
  suite_add_tcase (s, t);
  return s;
}
