/* dl-slab.h — records of one size from 64-byte-aligned slabs, recycled
 * through a LIFO free list kept in the records themselves (the first
 * pointer of a free record).
 *
 * Why: a million message records in flight at 1 000 peers (sim/sim-net.c:
 * messages, their shared bodies and links, 48, 96 and 56 bytes): malloc's
 * 16-byte header per record costs memory and makes records straddle cache
 * lines; in 64-byte-aligned slabs a record of 64 bytes is one line, and
 * one of 48 or 56 straddles two at most.  The next free record is prefetched when one is taken (it
 * was freed long ago: a send burst takes one per message).  Records live
 * as long as the slab set.  Shape: dl_slab_init / dl_slab_clear on an
 * embedded struct. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GPtrArray *slabs;    /* per_slab records each */
  gsize size;          /* a record's bytes, a multiple of 8 */
  guint per_slab;
  guint shift;         /* per_slab is 1 << shift (G_MAXUINT: not a power of two) */
  guint used;          /* records handed out from the last slab */
  gpointer free;       /* a released record, whose first pointer is the next */
} DlSlab;

void dl_slab_init (DlSlab *s, gsize size, guint per_slab);
/* Frees every slab (the caller has released what its records own). */
void dl_slab_clear (DlSlab *s);
/* A zeroed record. */
gpointer dl_slab_take (DlSlab *s);
/* Gives a record back (its first pointer is overwritten). */
void dl_slab_give (DlSlab *s, gpointer rec);
/* The records carved so far, free ones included, for a final scan:
 * for (guint i = 0; i < dl_slab_carved (s); i++) dl_slab_at (s, i) */
guint dl_slab_carved (const DlSlab *s);

/* Record i (inline, and a shift where per_slab is a power of two: the
 * world's message and link records are looked up by index on every
 * delivery, and a call with a division there was 1.4 % of a 3 000-peer
 * run, docs/performance.md, nt22). */
static inline gpointer
dl_slab_at (const DlSlab *s, guint i)
{
  guint slab = s->shift != G_MAXUINT ? i >> s->shift : i / s->per_slab;
  guint at = s->shift != G_MAXUINT ? i & (s->per_slab - 1) : i % s->per_slab;
  return (char *) g_ptr_array_index (s->slabs, slab) + (gsize) at * s->size;
}

/* Records named by their index (dl_slab_at's), for a caller that keeps a
 * 32-bit index where a pointer would take 64 bits: take_index gives the
 * record's index too; give_index takes it back with that index, kept in
 * the free record after its first pointer (records of 16 bytes or more).
 * A slab used this way takes and gives only through these two. */
gpointer dl_slab_take_index (DlSlab *s, guint32 *out_index);
void dl_slab_give_index (DlSlab *s, gpointer rec, guint32 index);

G_END_DECLS
