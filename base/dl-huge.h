/* dl-huge.h — large blocks as mappings of their own on a 2 MiB boundary,
 * grown by mremap to another boundary, so that their transparent huge
 * pages survive each growth.
 *
 * Why: glibc's realloc of a large (mmap'd) block lets the kernel choose
 * a page-aligned place, and a move between places that are not both on a
 * 2 MiB boundary splits every huge page it carries.  At 3 000 `bench
 * scale` peers the flows' 1 GiB block kept 38 of its 550 MiB in huge
 * pages, and each random read of a flow walked the page tables; on
 * boundaries it keeps 548 (docs/performance.md, hp28).  Used by
 * dl-avec.c and by the engine's event records and buckets
 * (sim/sim-engine.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DL_HUGE ((gsize) 2 << 20)   /* a huge page, and the boundary */

/* bytes rounded up to a whole number of huge pages: a mapping's length */
static inline gsize
dl_huge_round (gsize bytes)
{
  return (bytes + DL_HUGE - 1) & ~(DL_HUGE - 1);
}

/* A mapping of new_len bytes (dl_huge_round'd) on a boundary, asking for
 * huge pages: new and zeroed where map is NULL; otherwise map's len bytes
 * grown, in place where the addresses after it are free, moved whole to
 * another boundary where not.  No memory: g_error, as g_malloc. */
gpointer dl_huge_grow (gpointer map, gsize len, gsize new_len);
void dl_huge_free (gpointer map, gsize len);

G_END_DECLS
