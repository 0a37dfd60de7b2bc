/* test-base-records.c — base/dl-slab.c's records from aligned slabs and
 * base/dl-avec.c's aligned array: alignment, zeroing, records kept
 * across growth and reuse. */
#define _GNU_SOURCE 1   /* MAP_ANONYMOUS, MAP_FIXED_NOREPLACE */
#include "config.h"

#include "tests/test-base.h"
#include "base/dl-avec.h"
#include "base/dl-avec-private.h"
#include "base/dl-huge.h"
#include "base/dl-slab.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Slab records: 64-byte-aligned, zeroed when taken, distinct while held,
 * and a given-back record is the next one taken (LIFO); carved counts
 * what was cut from the slabs, across several slabs. */
START_TEST (test_slab_records)
{
  DlSlab s;
  dl_slab_init (&s, 128, 5);
  guint64 *held[12];
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    {
      held[i] = dl_slab_take (&s);
      ck_assert_uint_eq ((guintptr) held[i] % 64, 0);
      for (guint k = 0; k < 16; k++)
        ck_assert_uint_eq (held[i][k], 0);
      for (guint j = 0; j < i; j++)
        ck_assert_ptr_ne (held[i], held[j]);
      memset (held[i], 0xab, 128);
    }
  ck_assert_uint_eq (dl_slab_carved (&s), 12);
  ck_assert_ptr_eq (dl_slab_at (&s, 7), held[7]);
  dl_slab_give (&s, held[3]);
  dl_slab_give (&s, held[9]);
  guint64 *a = dl_slab_take (&s), *b = dl_slab_take (&s);
  ck_assert_ptr_eq (a, held[9]);
  ck_assert_ptr_eq (b, held[3]);
  for (guint k = 0; k < 16; k++)
    ck_assert_uint_eq (a[k] | b[k], 0);
  ck_assert_uint_eq (dl_slab_carved (&s), 12);   /* reused, none carved */
  guint64 *c = dl_slab_take (&s);
  ck_assert_ptr_eq (c, dl_slab_at (&s, 12));
  dl_slab_clear (&s);
}
END_TEST

/* An aligned array: record 0 on a 64-byte line at every size, the
 * records kept across every growth (realloc may move the block to another
 * offset from a line: the records move back onto one), new ones zeroed
 * where asked; records of 64, 128 and 24 bytes, with blocks of other
 * sizes taken between growths so that realloc moves the array. */
static const gsize avec_size[] = { 64, 128, 24 };

START_TEST (test_avec_aligned_and_kept)
{
  for (int clear = 0; clear <= 1; clear++)
    {
      DlAvec v;
      gsize size = avec_size[_i];
      dl_avec_init (&v, size, clear);
      GPtrArray *other = g_ptr_array_new_with_free_func (g_free);
      for (guint n = 1; n <= 3000; n++)
        {
          guint cap = v.cap;
          dl_avec_set_size (&v, n);
          ck_assert_uint_eq (v.len, n);
          ck_assert_uint_eq ((guintptr) v.data % DL_AVEC_ALIGN, 0);
          guint8 *r = dl_avec_at (&v, n - 1);
          static const guint8 zero[128];
          if (clear)
            ck_assert_int_eq (memcmp (r, zero, size), 0);
          memset (r, (int) (n % 251), size);
          if (v.cap == cap)
            continue;
          g_ptr_array_add (other, g_malloc (8 + 24 * (n % 7)));
          guint bad = 0;   /* (one assertion for all: Check's are slow under the sanitizers) */
          for (guint i = 0; i < n; i++)
            {
              const guint8 *q = dl_avec_at (&v, i);
              bad += q[0] != (i + 1) % 251 || q[size - 1] != (i + 1) % 251;
            }
          ck_assert_uint_eq (bad, 0);
        }
      dl_avec_set_size (&v, 10);   /* shrinking keeps the block */
      ck_assert_uint_eq (((guint8 *) dl_avec_at (&v, 9))[0], 10);
      /* growing again within the block: records 10..39 still hold their
       * old bytes, so each one the growth does not zero shows */
      dl_avec_set_size (&v, 40);
      if (clear)
        for (guint i = 10; i < 40; i++)
          {
            const guint8 *q = dl_avec_at (&v, i);
            gboolean zero = TRUE;
            for (gsize b = 0; b < size; b++)
              zero = zero && q[b] == 0;
            ck_assert_msg (zero, "record %u of %" G_GSIZE_FORMAT " bytes not zeroed", i, size);
          }
      g_ptr_array_unref (other);
      dl_avec_clear (&v);
      ck_assert_ptr_null (v.data);
    }
}
END_TEST

/* The records' move within a block (what grow does when realloc lands
 * the block at another offset from a line), for every pair of offsets a
 * malloc block can have: the bytes arrive whole at their new place, in
 * either direction (the ranges overlap).  Called directly: under
 * AddressSanitizer's allocator realloc never took the move in the runs
 * counted, so the growth test alone would not see it go. */
START_TEST (test_avec_rebase)
{
  static const gsize off[] = { 0, 16, 32, 48 };
  const gsize bytes = 5 * 24;
  for (guint a = 0; a < G_N_ELEMENTS (off); a++)
    for (guint b = 0; b < G_N_ELEMENTS (off); b++)
      {
        guint8 raw[5 * 24 + 64];
        memset (raw, 0xee, sizeof raw);
        for (gsize k = 0; k < bytes; k++)
          raw[off[a] + k] = (guint8) (k * 7 + 1);
        _dl_avec_rebase ((char *) raw, off[a], off[b], bytes);
        guint bad = 0;
        for (gsize k = 0; k < bytes; k++)
          bad += raw[off[b] + k] != (guint8) (k * 7 + 1);
        ck_assert_msg (bad == 0, "%u bytes wrong moving from %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT,
                       bad, off[a], off[b]);
      }
}
END_TEST

/* A page mapped just past [p, p + len), where the kernel would grow the
 * mapping in place: the next growth has to move it.  FALSE where the
 * place was taken (then the growth moves anyway, or the test cannot
 * tell). */
static gboolean
block_after (gpointer p, gsize len, gpointer *blocker)
{
  char *want = (char *) p + len;
  *blocker = mmap (want, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (*blocker == MAP_FAILED)
    return FALSE;
  if (*blocker != want)   /* (a kernel before 4.17 takes it as a hint) */
    munmap (*blocker, 4096);
  return *blocker == want;
}

/* Whether the mapping holding p was advised MADV_HUGEPAGE ("hg" among
 * its VmFlags in /proc/self/smaps); TRUE where the kernel has no
 * transparent huge pages to advise (nothing to check there). */
static gboolean
advised_huge (gconstpointer p)
{
  if (!g_file_test ("/sys/kernel/mm/transparent_hugepage/enabled", G_FILE_TEST_EXISTS))
    return TRUE;
  g_autofree char *smaps = NULL;
  ck_assert (g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL));
  gboolean inside = FALSE;
  for (char *l = strtok (smaps, "\n"); l != NULL; l = strtok (NULL, "\n"))
    {
      guint64 lo, hi;
      if (sscanf (l, "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x ", &lo, &hi) == 2 && strchr (l, '-') < strchr (l, ' '))
        inside = (guintptr) p >= lo && (guintptr) p < hi;
      else if (inside && g_str_has_prefix (l, "VmFlags:"))
        return strstr (l, " hg") != NULL;
    }
  return FALSE;
}

/* Huge-page mappings (dl-huge.h): on a 2 MiB boundary and advised
 * MADV_HUGEPAGE when made, zeroed, and so after each growth, in place
 * and moved (a page mapped past the end forces the move), with the bytes
 * kept and the new ones zero.  (From Linux 6.7 the kernel itself puts an
 * anonymous mapping whose length is a multiple of 2 MiB on a boundary,
 * so here the alignment holds without dl-huge.c's reservation; Debian
 * 12's 6.1 needs it.) */
START_TEST (test_huge_grow_kept_on_boundary)
{
  gsize len = dl_huge_round (1);
  ck_assert_uint_eq (len, DL_HUGE);
  ck_assert_uint_eq (dl_huge_round (DL_HUGE + 1), 2 * DL_HUGE);
  guint8 *p = dl_huge_grow (NULL, 0, len);
  ck_assert_uint_eq ((guintptr) p % DL_HUGE, 0);
  ck_assert_msg (advised_huge (p), "a new mapping was not advised MADV_HUGEPAGE");
  ck_assert_uint_eq (p[0] | p[len - 1], 0);
  for (gsize k = 0; k < len; k += 4096)
    p[k] = (guint8) (k / 4096 % 251 + 1);
  gboolean moved_once = FALSE;
  for (int step = 0; step < 4; step++)
    {
      gpointer blocker = MAP_FAILED;
      gboolean forced = step % 2 == 1 && block_after (p, len, &blocker);
      guint8 *q = dl_huge_grow (p, len, 2 * len);
      ck_assert_uint_eq ((guintptr) q % DL_HUGE, 0);
      ck_assert_msg (advised_huge (q), "a grown mapping lost its MADV_HUGEPAGE");
      if (forced)
        {
          ck_assert_ptr_ne (q, p);
          moved_once = TRUE;
          munmap (blocker, 4096);
        }
      guint bad = 0;
      for (gsize k = 0; k < len; k += 4096)
        bad += q[k] != (guint8) (k / 4096 % 251 + 1);
      for (gsize k = len; k < 2 * len; k += 4096)
        bad += q[k] != 0;
      ck_assert_uint_eq (bad, 0);
      for (gsize k = len; k < 2 * len; k += 4096)
        q[k] = (guint8) (k / 4096 % 251 + 1);
      p = q;
      len *= 2;
    }
  ck_assert_msg (moved_once, "no growth was forced to move: the test did not test the move");
  dl_huge_free (p, len);
}
END_TEST

/* An aligned array past 2 MiB: its block becomes a mapping on a huge-page
 * boundary, advised MADV_HUGEPAGE, its records kept through the copy out
 * of malloc's block and through a growth forced to move, and (clear set)
 * records zeroed when the array grows again after shrinking. */
START_TEST (test_avec_mapped_kept)
{
  gboolean clear = _i;
  DlAvec v;
  dl_avec_init (&v, 64, clear);
  guint n = 0, moved = 0;
  while (v.mapped < 4 * DL_HUGE)
    {
      gpointer blocker = MAP_FAILED;
      gboolean forced = v.len == v.cap && v.mapped && block_after (v.raw, v.mapped, &blocker);
      gpointer was = v.raw;
      dl_avec_set_size (&v, ++n);
      if (forced)
        {
          moved += v.raw != was;
          munmap (blocker, 4096);
        }
      memset (dl_avec_at (&v, n - 1), (int) (n % 251), 64);
      if (v.mapped)
        {
          ck_assert_uint_eq ((guintptr) v.data % DL_HUGE, 0);
          if (v.raw != was)   /* (made or moved) */
            ck_assert_msg (advised_huge (v.data), "a mapped array was not advised MADV_HUGEPAGE");
        }
    }
  ck_assert_uint_ge (moved, 1);
  guint bad = 0;
  for (guint i = 0; i < n; i++)
    {
      const guint8 *q = dl_avec_at (&v, i);
      bad += q[0] != (i + 1) % 251 || q[63] != (i + 1) % 251;
    }
  ck_assert_uint_eq (bad, 0);
  /* shrunk and grown again within the mapping: zeroed where asked */
  dl_avec_set_size (&v, 10);
  dl_avec_set_size (&v, n);
  if (clear)
    {
      for (guint i = 10; i < n; i++)
        {
          const guint8 *q = dl_avec_at (&v, i);
          bad += q[0] != 0 || q[63] != 0;
        }
      ck_assert_msg (bad == 0, "%u records of a mapped array not zeroed", bad);
    }
  dl_avec_clear (&v);
  ck_assert_uint_eq (v.mapped, 0);
}
END_TEST

/* Records by index: each index names its own record (dl_slab_at), across
 * slabs, for records carved and for records given back and taken again
 * in another order; slabs of 3 (a division) and of 4 records (a shift). */
static const guint slab_per[] = { 3, 4 };

START_TEST (test_slab_index)
{
  DlSlab s;
  dl_slab_init (&s, 64, slab_per[_i]);
  gpointer held[8];
  guint32 idx[8];
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    {
      held[i] = dl_slab_take_index (&s, &idx[i]);
      ck_assert_uint_eq (idx[i], i);
      ck_assert_ptr_eq (dl_slab_at (&s, idx[i]), held[i]);
    }
  dl_slab_give_index (&s, held[5], idx[5]);
  dl_slab_give_index (&s, held[1], idx[1]);
  dl_slab_give_index (&s, held[6], idx[6]);
  guint32 want[] = { 6, 1, 5, 8 };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      guint32 k = G_MAXUINT32;
      gpointer r = dl_slab_take_index (&s, &k);
      ck_assert_uint_eq (k, want[i]);
      ck_assert_ptr_eq (dl_slab_at (&s, k), r);
      ck_assert_uint_eq (((guint64 *) r)[1], 0);   /* zeroed, the index too */
    }
  dl_slab_clear (&s);
}
END_TEST

void
test_base_records_add (TCase *tc)
{
  tcase_add_test (tc, test_slab_records);
  tcase_add_loop_test (tc, test_slab_index, 0, G_N_ELEMENTS (slab_per));
  tcase_add_loop_test (tc, test_avec_aligned_and_kept, 0, G_N_ELEMENTS (avec_size));
  tcase_add_test (tc, test_avec_rebase);
  tcase_add_test (tc, test_huge_grow_kept_on_boundary);
  tcase_add_loop_test (tc, test_avec_mapped_kept, 0, 2);
}
