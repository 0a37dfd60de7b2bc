/* dl-avec.c — records in a block aligned to a line (dl-avec.h). */
#include "config.h"

#include "base/dl-avec.h"
#include "base/dl-avec-private.h"

#include <string.h>

void
dl_avec_init (DlAvec *v, gsize size, gboolean clear)
{
  *v = (DlAvec) { NULL, 0, 0, size, clear, NULL };
}

void
dl_avec_clear (DlAvec *v)
{
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

/* cap records, at an offset from raw that puts record 0 on a line; the
 * old records move with the block (realloc) and then, if the block's
 * offset from a line changed, within it.  The size is checked as
 * GArray checks its own (a 32-bit gsize would wrap). */
static void
grow (DlAvec *v, guint cap)
{
  if (cap > (G_MAXSIZE - DL_AVEC_ALIGN) / v->size)
    g_error ("dl_avec: %u records of %" G_GSIZE_FORMAT " bytes overflow the address space", cap, v->size);
  gsize was = v->raw != NULL ? (gsize) (v->data - (char *) v->raw) : 0;
  char *raw = g_realloc (v->raw, (gsize) cap * v->size + DL_AVEC_ALIGN - 1);
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
