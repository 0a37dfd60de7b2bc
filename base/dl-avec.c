/* dl-avec.c — records in a block aligned to a line (dl-avec.h). */
#include "config.h"

#include "base/dl-avec.h"

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

/* cap records, at an offset from raw that puts record 0 on a line; the
 * old records move with the block (realloc) and then, if the block's
 * offset from a line changed, within it */
static void
grow (DlAvec *v, guint cap)
{
  gsize was = v->raw != NULL ? (gsize) (v->data - (char *) v->raw) : 0;
  char *raw = g_realloc (v->raw, (gsize) cap * v->size + DL_AVEC_ALIGN - 1);
  gsize at = to_line (raw);
  if (at != was && v->len > 0)
    memmove (raw + at, raw + was, (gsize) v->len * v->size);
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
