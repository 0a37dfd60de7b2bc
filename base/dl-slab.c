/* dl-slab.c — records from aligned slabs (dl-slab.h). */
#include "config.h"

#include "base/dl-slab.h"

#include <string.h>

void
dl_slab_init (DlSlab *s, gsize size, guint per_slab)
{
  g_return_if_fail (size >= sizeof (gpointer) && size % 8 == 0 && per_slab > 0);
  memset (s, 0, sizeof *s);
  s->slabs = g_ptr_array_new_with_free_func (g_aligned_free);
  s->size = size;
  s->per_slab = per_slab;
  s->shift = (per_slab & (per_slab - 1)) == 0 ? (guint) g_bit_storage (per_slab) - 1 : G_MAXUINT;
}

void
dl_slab_clear (DlSlab *s)
{
  if (s->slabs)
    g_ptr_array_unref (s->slabs);
  memset (s, 0, sizeof *s);
}

gpointer
dl_slab_take (DlSlab *s)
{
  char *rec = s->free;
  if (rec)
    {
      memcpy (&s->free, rec, sizeof s->free);
      /* the next one, most likely a cache miss: loaded meanwhile */
      if (s->free)
        for (gsize b = 0; b < s->size; b += 64)
          __builtin_prefetch ((const char *) s->free + b, 1);
    }
  else
    {
      if (s->slabs->len == 0 || s->used == s->per_slab)
        {
          g_ptr_array_add (s->slabs, g_aligned_alloc (s->per_slab, s->size, 64));
          s->used = 0;
        }
      rec = (char *) g_ptr_array_index (s->slabs, s->slabs->len - 1) + (gsize) s->used++ * s->size;
    }
  memset (rec, 0, s->size);
  return rec;
}

void
dl_slab_give (DlSlab *s, gpointer rec)
{
  memcpy (rec, &s->free, sizeof s->free);
  s->free = rec;
}

guint
dl_slab_carved (const DlSlab *s)
{
  return s->slabs->len ? (s->slabs->len - 1) * s->per_slab + s->used : 0;
}

gpointer
dl_slab_take_index (DlSlab *s, guint32 *out_index)
{
  g_return_val_if_fail (s->size >= sizeof (gpointer) + sizeof (guint32), NULL);
  if (s->free)
    memcpy (out_index, (const char *) s->free + sizeof (gpointer), sizeof *out_index);
  else
    {
      guint n = dl_slab_carved (s);
      g_return_val_if_fail (n < G_MAXUINT32, NULL);
      *out_index = (guint32) n;
    }
  return dl_slab_take (s);
}

void
dl_slab_give_index (DlSlab *s, gpointer rec, guint32 index)
{
  memcpy ((char *) rec + sizeof (gpointer), &index, sizeof index);
  dl_slab_give (s, rec);
}
