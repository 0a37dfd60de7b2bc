/* dl-sorted.c — binary search of records sorted by id (dl-sorted.h). */
#include "config.h"

#include "base/dl-sorted.h"

static inline uint32_t
id_at (const GPtrArray *records, gsize id_offset, guint i)
{
  return *(const uint32_t *) (const void *) ((const char *) g_ptr_array_index (records, i) + id_offset);
}

gpointer
dl_sorted_find (const GPtrArray *records, gsize id_offset, uint32_t id, guint *at)
{
  g_return_val_if_fail (records != NULL, NULL);
  /* the first index whose id is not below `id` */
  guint lo = 0, hi = records->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (id_at (records, id_offset, mid) < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (at)
    *at = lo;
  if (lo < records->len && id_at (records, id_offset, lo) == id)
    return g_ptr_array_index (records, lo);
  return NULL;
}
