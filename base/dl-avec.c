/* dl-avec.c — records in a block aligned to a line (dl-avec.h). */
#include "config.h"

#include "base/dl-avec.h"
#include "base/dl-avec-private.h"
#include "base/dl-huge.h"

#include <string.h>

void
dl_avec_init (DlAvec *v, gsize size, gboolean clear)
{
  *v = (DlAvec) { NULL, 0, 0, size, clear, NULL, 0 };
}

void
dl_avec_clear (DlAvec *v)
{
  if (v->mapped)
    dl_huge_free (v->raw, v->mapped);
  else
    g_free (v->raw);
  dl_avec_init (v, v->size, v->clear);
}

static gsize
to_line (gconstpointer p)
{
  return (DL_AVEC_ALIGN - (guintptr) p % DL_AVEC_ALIGN) % DL_AVEC_ALIGN;
}

void
_dl_avec_rebase (char *raw, gsize was, gsize at, gsize bytes)
{
  if (at != was && bytes > 0)
    memmove (raw + at, raw + was, bytes);   /* (the ranges may overlap) */
}

/* The block as a mapping of len bytes (dl-huge.h); a malloc block is
 * copied into it once. */
static char *
map_huge (DlAvec *v, gsize len)
{
  if (v->mapped)
    return dl_huge_grow (v->raw, v->mapped, len);
  char *raw = dl_huge_grow (NULL, 0, len);
  if (v->raw != NULL)
    memcpy (raw, v->data, (gsize) v->len * v->size);
  g_free (v->raw);
  return raw;
}

/* cap records, at an offset from raw that puts record 0 on a line.  Below
 * DL_HUGE bytes the block is malloc's: the old records move with it
 * (realloc) and then, if the block's offset from a line changed, within
 * it.  From DL_HUGE bytes it is a mapping of its own (dl-huge.h), whose
 * boundary is on a line.
 * The size is checked as GArray checks its own (a 32-bit gsize would
 * wrap). */
static void
grow (DlAvec *v, guint cap)
{
  if (cap > (G_MAXSIZE - 2 * DL_HUGE) / v->size)
    g_error ("dl_avec: %u records of %" G_GSIZE_FORMAT " bytes overflow the address space", cap, v->size);
  gsize bytes = (gsize) cap * v->size;
  if (bytes >= DL_HUGE)
    {
      gsize len = dl_huge_round (bytes);
      v->raw = v->data = map_huge (v, len);
      v->mapped = len;
      v->cap = (guint) MIN (len / v->size, (gsize) G_MAXUINT);
      return;
    }
  gsize was = v->raw != NULL ? (gsize) (v->data - (char *) v->raw) : 0;
  char *raw = g_realloc (v->raw, bytes + DL_AVEC_ALIGN - 1);
  gsize at = to_line (raw);
  _dl_avec_rebase (raw, was, at, (gsize) v->len * v->size);
  v->raw = raw;
  v->data = raw + at;
  v->cap = cap;
}

void
dl_avec_set_size (DlAvec *v, guint n)
{
  if (n > v->cap)
    grow (v, MAX (n, MAX (v->cap * 2, 16u)));
  if (n > v->len && v->clear)
    memset (dl_avec_at (v, v->len), 0, (gsize) (n - v->len) * v->size);
  v->len = n;
}
