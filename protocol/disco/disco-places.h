/* disco-places.h — a map from peer ids to places in an array, 4 bytes an
 * id: the peer's pool_index (disco-peer-pool.c), from an id to its link
 * record's place + 1.  A DlIdMap (base/dl-idmap.h) holds pointers, 8
 * bytes an id in its array: at 1 000 peers all-to-all that was 8.2 B
 * per message in flight (issue 44).  As in DlIdMap, the ids below a
 * bound that grows with the map (a few times its size) are an array and
 * the others a DlIdMap of their own, so that a few far ids do not make
 * the array large.  Not walked: nothing depends on where an id is kept.
 * Shape: disco_places_init / disco_places_clear on an embedded struct. */
#pragma once

#include "base/dl-idmap.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  guint32 *dense;   /* id -> its value (0: none), for id < n_dense */
  guint n_dense;
  guint size;       /* ids in the map, near and far */
  DlIdMap far;      /* the others (and an id put here before the array
                     * grew over it: it stays) */
} DiscoPlaces;

void disco_places_init (DiscoPlaces *m);
/* Frees the storage. */
void disco_places_clear (DiscoPlaces *m);
/* Empties the map (keeps the storage). */
void disco_places_remove_all (DiscoPlaces *m);
/* Sets id's value (not 0), replacing any. */
void disco_places_set (DiscoPlaces *m, uint32_t id, guint32 value);
/* Removes id, returning its value, or 0. */
guint32 disco_places_steal (DiscoPlaces *m, uint32_t id);

/* id's value, or 0 */
static inline guint32
disco_places_lookup (const DiscoPlaces *m, uint32_t id)
{
  if (id < m->n_dense && m->dense[id])
    return m->dense[id];
  return dl_id_map_size (&m->far) ? GPOINTER_TO_UINT (dl_id_map_lookup (&m->far, id)) : 0;
}

static inline guint
disco_places_size (const DiscoPlaces *m)
{
  return m->size;
}

G_END_DECLS
