/* dl-idmap.h — a map from 32-bit ids that are mostly small (peer ids are
 * dense from 1) to non-NULL pointers: an array indexed by id for the ids
 * below a bound that grows with the map (a few times its size, at least
 * DL_ID_MAP_DENSE_MIN), a DlWordMap for the others.
 *
 * Why: a peer looks the sender of every Payload up in its link pool, and an
 * aggregator in its contributions.  At 1 000 peers all-to-all, an array is
 * 8 KiB a peer and stays in cache where a 32 KiB hash table did not: `bench
 * scale` ran 15-20 % faster (docs/performance.md, "World").  The bound keeps
 * a few far ids (a round of 10 among 10 000 peers) from making the array
 * large: with a floor of 1 024 ids instead of 64, 10 000 peers in rounds
 * of 10 peaked at 188 MiB instead of 141.  Shape: dl_id_map_init / dl_id_map_clear on an embedded struct. */
#pragma once

#include "base/dl-wordmap.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define DL_ID_MAP_DENSE_MIN 64   /* ids the array may always cover */

typedef struct {
  gpointer *dense;   /* id -> value (NULL: none), for id < n_dense */
  guint n_dense;
  DlWordMap *far;    /* the ids >= n_dense; NULL until one comes */
  guint size;
} DlIdMap;

void dl_id_map_init (DlIdMap *m);
/* Frees the storage (not the values). */
void dl_id_map_clear (DlIdMap *m);
/* Empties the map (keeps the storage; the values are not freed). */
void dl_id_map_remove_all (DlIdMap *m);
/* Sets id's value (not NULL), replacing any. */
void dl_id_map_insert (DlIdMap *m, uint32_t id, gpointer value);
/* Removes id, returning its value, or NULL. */
gpointer dl_id_map_steal (DlIdMap *m, uint32_t id);

static inline gpointer
dl_id_map_lookup (const DlIdMap *m, uint32_t id)
{
  if (id < m->n_dense)
    return m->dense[id];
  return m->far ? dl_word_map_lookup (m->far, id) : NULL;
}

/* Starts loading id's entry (a hint: changes nothing). */
static inline void
dl_id_map_prefetch (const DlIdMap *m, uint32_t id)
{
  if (id < m->n_dense)
    __builtin_prefetch (&m->dense[id]);
  else if (m->far)
    dl_word_map_prefetch (m->far, id);
}

/* Iteration: for (guint i = 0; dl_id_map_next (m, &i, &id, &v);) — the
 * map must not change meanwhile.  The order depends on the ids and the
 * insertion history only. */
gboolean dl_id_map_next (const DlIdMap *m, guint *at, uint32_t *id, gpointer *value);

static inline guint
dl_id_map_size (const DlIdMap *m)
{
  return m->size;
}

G_END_DECLS
