/* dl-idset.h — a set of 32-bit ids that are mostly small (peer ids are
 * dense from 1): a bitset, with a hash table for ids from DL_ID_SET_DENSE
 * up (a coordinator replica's, or a stray id from a message) so that one
 * large id never makes the bitset large.
 *
 * Why: an aggregator asks "is the sender in this round's nodes?" for every
 * Payload; in a GHashTable that is up to three cache misses (hashes, keys
 * and values are three arrays), here one bit of a few hundred bytes
 * (docs/performance.md, "World").  Shape: dl_id_set_init / dl_id_set_clear
 * on a struct the owner embeds. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define DL_ID_SET_DENSE (UINT32_C (1) << 20)   /* ids below: bits (at most 128 KiB) */

typedef struct {
  guint64 *bits;
  guint words;         /* bits holds 64 * words ids */
  GHashTable *sparse;  /* ids >= DL_ID_SET_DENSE (as id + 1 in 64 bits), NULL until one comes */
  guint size;
} DlIdSet;

void dl_id_set_init (DlIdSet *s);
/* Frees the storage. */
void dl_id_set_clear (DlIdSet *s);
/* Empties the set (keeps the storage). */
void dl_id_set_remove_all (DlIdSet *s);
/* TRUE if id was not in the set. */
gboolean dl_id_set_add (DlIdSet *s, uint32_t id);

static inline gboolean
dl_id_set_contains (const DlIdSet *s, uint32_t id)
{
  if (id < 64 * (guint64) s->words)
    return (s->bits[id >> 6] >> (id & 63)) & 1;
  return id >= DL_ID_SET_DENSE && s->sparse && g_hash_table_contains (s->sparse, GSIZE_TO_POINTER ((gsize) id + 1));
}

static inline guint
dl_id_set_size (const DlIdSet *s)
{
  return s->size;
}

G_END_DECLS
