/* test-base-sorted.c — base/dl-sorted.c: the binary search of records
 * sorted by id, at its edges (empty, first, last, absent below, between
 * and above, duplicates, the id not at offset 0) and against a linear
 * search over random tables. */
#include "config.h"

#include "tests/test-base.h"
#include "base/dl-random.h"
#include "base/dl-sorted.h"

/* a record whose id is not its first field, as a family's may be */
typedef struct {
  guint64 pad;
  uint32_t id;
  guint tag;   /* which record of several with one id */
} Rec;

/* (transfer full) records with these ids, in this order, tagged 0.. */
static GPtrArray *
recs_new (const uint32_t *ids, guint n)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      Rec *r = g_new0 (Rec, 1);
      r->id = ids[i];
      r->tag = i;
      g_ptr_array_add (a, r);
    }
  return a;
}

static Rec *
find (const GPtrArray *a, uint32_t id, guint *at)
{
  return DL_SORTED_FIND (a, Rec, id, id, at);
}

START_TEST (test_sorted_empty)
{
  g_autoptr (GPtrArray) a = recs_new (NULL, 0);
  guint at = 99;
  ck_assert_ptr_null (find (a, 0, &at));
  ck_assert_uint_eq (at, 0);
  at = 99;
  ck_assert_ptr_null (find (a, G_MAXUINT32, &at));
  ck_assert_uint_eq (at, 0);
  ck_assert_ptr_null (find (a, 7, NULL));
}
END_TEST

/* found: first, last, middle, with at and without */
START_TEST (test_sorted_found)
{
  static const uint32_t ids[] = { 0, 3, 8, 9, 40, G_MAXUINT32 };
  g_autoptr (GPtrArray) a = recs_new (ids, G_N_ELEMENTS (ids));
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      guint at = 99;
      Rec *r = find (a, ids[i], &at);
      ck_assert_ptr_nonnull (r);
      ck_assert_uint_eq (r->id, ids[i]);
      ck_assert_uint_eq (r->tag, i);
      ck_assert_uint_eq (at, i);
      ck_assert_ptr_eq (find (a, ids[i], NULL), r);
    }
  /* a table of one */
  static const uint32_t one[] = { 5 };
  g_autoptr (GPtrArray) b = recs_new (one, 1);
  guint at = 99;
  ck_assert_ptr_eq (find (b, 5, &at), g_ptr_array_index (b, 0));
  ck_assert_uint_eq (at, 0);
}
END_TEST

/* absent: below the first, between two, above the last; at is where it
 * would go */
START_TEST (test_sorted_absent)
{
  static const uint32_t ids[] = { 2, 4, 6, 10 };
  static const struct { uint32_t id; guint at; } cases[] = {
    { 0, 0 }, { 1, 0 }, { 3, 1 }, { 5, 2 }, { 7, 3 }, { 9, 3 }, { 11, 4 }, { G_MAXUINT32, 4 },
  };
  g_autoptr (GPtrArray) a = recs_new (ids, G_N_ELEMENTS (ids));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint at = 99;
      ck_assert_ptr_null (find (a, cases[i].id, &at));
      ck_assert_uint_eq (at, cases[i].at);
      ck_assert_ptr_null (find (a, cases[i].id, NULL));
    }
}
END_TEST

/* several records with one id: the first of them, wherever they stand */
START_TEST (test_sorted_duplicates)
{
  static const uint32_t ids[] = { 1, 1, 1, 4, 4, 7, 9, 9, 9, 9 };
  g_autoptr (GPtrArray) a = recs_new (ids, G_N_ELEMENTS (ids));
  static const struct { uint32_t id; guint first; } cases[] = { { 1, 0 }, { 4, 3 }, { 7, 5 }, { 9, 6 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint at = 99;
      Rec *r = find (a, cases[i].id, &at);
      ck_assert_ptr_nonnull (r);
      ck_assert_uint_eq (r->tag, cases[i].first);
      ck_assert_uint_eq (at, cases[i].first);
    }
  static const uint32_t same[] = { 3, 3, 3, 3, 3, 3, 3 };
  g_autoptr (GPtrArray) b = recs_new (same, G_N_ELEMENTS (same));
  guint at = 99;
  ck_assert_uint_eq (find (b, 3, &at)->tag, 0);
  ck_assert_uint_eq (at, 0);
  ck_assert_ptr_null (find (b, 4, &at));
  ck_assert_uint_eq (at, G_N_ELEMENTS (same));
}
END_TEST

/* random sorted tables (with repeats) of 0 .. 40 records: every id from
 * below the first to above the last, against a linear search */
START_TEST (test_sorted_matches_linear)
{
  g_autoptr (DlRandom) rng = dl_random_new (7, "sorted", DL_RANDOM_NO_NODE);
  for (guint round = 0; round < 200; round++)
    {
      guint n = (guint) dl_random_below (rng, 41);
      g_autofree uint32_t *ids = g_new0 (uint32_t, MAX (n, 1));
      uint32_t id = (uint32_t) dl_random_below (rng, 3);
      for (guint i = 0; i < n; i++)
        {
          ids[i] = id;
          id += (uint32_t) dl_random_below (rng, 3);   /* 0: a repeat */
        }
      g_autoptr (GPtrArray) a = recs_new (ids, n);
      for (uint32_t want = 0; want <= id + 1; want++)
        {
          guint lin = 0;
          while (lin < n && ids[lin] < want)
            lin++;
          guint at = G_MAXUINT;
          Rec *r = find (a, want, &at);
          ck_assert_uint_eq (at, lin);
          if (lin < n && ids[lin] == want)
            ck_assert_ptr_eq (r, g_ptr_array_index (a, lin));
          else
            ck_assert_ptr_null (r);
        }
    }
}
END_TEST

void
test_base_sorted_add (TCase *tc)
{
  tcase_add_test (tc, test_sorted_empty);
  tcase_add_test (tc, test_sorted_found);
  tcase_add_test (tc, test_sorted_absent);
  tcase_add_test (tc, test_sorted_duplicates);
  tcase_add_test (tc, test_sorted_matches_linear);
}
