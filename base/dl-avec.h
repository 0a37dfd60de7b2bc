/* dl-avec.h — a growable array of fixed-size records whose first record
 * starts on a 64-byte line, grown by realloc.
 *
 * Why: GArray's storage is malloc's, off a line: glibc puts a 16-byte
 * header before a block, so a large (mmap'd) block starts a page plus 16
 * bytes in, and a small one 0, 16, 32 or 48 bytes past a line.  The
 * flows' sharing keeps its 64-byte Flow and 128-byte Res records in
 * arrays of a million (sim/sim-flows-private.h): 16 bytes off, every
 * record straddles one line more than it fills, and a flow read cold
 * costs two misses.  cachegrind counted the second one
 * (docs/performance.md, cg23b).  Growing by realloc keeps glibc's mremap
 * of a large block (no copy, no second block at the peak, once the block
 * is mmap'd; a heap block that grows past the mmap threshold is copied
 * once); where realloc moves the block to another offset from a line,
 * the records are moved back onto one within it.
 *
 * From 2 MiB a block is a mapping of its own on a huge-page boundary
 * (dl-huge.h), so that its huge pages survive each growth.  Shape:
 * dl_avec_init / dl_avec_clear on an embedded struct, like DlSlab. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DL_AVEC_ALIGN 64

typedef struct {
  char *data;          /* record 0, on a 64-byte line (NULL until the first growth) */
  guint len;           /* records in use */
  guint cap;           /* records the block holds */
  gsize size;          /* a record's bytes */
  gboolean clear;      /* records that growth adds are zeroed */
  gpointer raw;        /* the block: data's realloc pointer, or the mapping */
  gsize mapped;        /* the mapping's bytes; 0 while the block is malloc's */
} DlAvec;

void dl_avec_init (DlAvec *v, gsize size, gboolean clear);
void dl_avec_clear (DlAvec *v);
/* len becomes n; growth at least doubles the capacity.  Records past the
 * old length are zero if clear was set, undefined otherwise. */
void dl_avec_set_size (DlAvec *v, guint n);

static inline gpointer
dl_avec_at (const DlAvec *v, guint i)
{
  return v->data + (gsize) i * v->size;
}

G_END_DECLS
