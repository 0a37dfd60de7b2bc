/* dl-huge.c — large blocks on huge-page boundaries (dl-huge.h). */
#define _GNU_SOURCE 1   /* mremap */
#include "config.h"

#include "base/dl-huge.h"

#include <sys/mman.h>

/* len bytes of address space on a boundary, reserved (PROT_NONE) for an
 * mmap or mremap to land on with MAP_FIXED; the slack is given back */
static char *
reserve (gsize len)
{
  gsize span = len + DL_HUGE;
  char *p = mmap (NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *a = (char *) (((guintptr) p + DL_HUGE - 1) & ~(guintptr) (DL_HUGE - 1));
  if (a > p)
    munmap (p, (gsize) (a - p));
  if (p + span > a + len)
    munmap (a + len, (gsize) (p + span - (a + len)));
  return a;
}

/* A move between two boundaries carries the huge pages' page-table
 * entries whole, without a copy (Linux, mm/mremap.c: move_page_tables
 * moves a PMD entry when both addresses are PMD-aligned). */
gpointer
dl_huge_grow (gpointer map, gsize len, gsize new_len)
{
  g_return_val_if_fail (new_len % DL_HUGE == 0 && new_len >= len, NULL);
  char *at = NULL, *p = MAP_FAILED;
  if (map != NULL)
    p = mremap (map, len, new_len, 0);
  if (p == MAP_FAILED)
    at = reserve (new_len);
  if (at != NULL && map != NULL)
    p = mremap (map, len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, at);
  else if (at != NULL)
    p = mmap (at, new_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED && at != NULL)
    munmap (at, new_len);
  if (p == MAP_FAILED)
    g_error ("dl_huge: no memory for a block of %" G_GSIZE_FORMAT " bytes", new_len);
  madvise (p, new_len, MADV_HUGEPAGE);   /* advice: without THP, EINVAL, and 4 KiB pages */
  return p;
}

void
dl_huge_free (gpointer map, gsize len)
{
  if (map != NULL)
    munmap (map, len);
}
