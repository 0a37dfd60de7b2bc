/* dl-idmap.h — a map from 32-bit ids that are mostly small (peer ids are
 * dense from 1) to non-NULL pointers: an array indexed by id for the ids
 * below a bound that grows with the map (a few times its size, at least
 * DL_ID_MAP_DENSE_MIN), a word table (DlWordTable) for the others.
 *
 * Why: a peer looks the sender of every Payload up in its link pool, and an
 * aggregator in its contributions.  At 1 000 peers all-to-all, an array is
 * 8 KiB a peer and stays in cache where a 32 KiB hash table did not: `bench
 * scale` ran 15-20 % faster (docs/performance.md, "World").  The bound keeps
 * a few far ids (a round of 10 among 10 000 peers) from making the array
 * large: with a floor of 1 024 ids instead of 64, 10 000 peers in rounds
 * of 10 peaked at 188 MiB instead of 141.  A narrow map
 * (dl_id_map_init_narrow) holds non-zero 32-bit values instead, 4 bytes an
 * id in the array: the world's nodes' maps of links (a record's index),
 * a million entries at 1 000 peers.  Shape: dl_id_map_init (or
 * _init_narrow) / dl_id_map_clear on an embedded struct. */
#pragma once

#include "base/dl-wordmap.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define DL_ID_MAP_DENSE_MIN 64   /* ids the array may always cover */

typedef struct {
  union {
    gpointer *dense;   /* id -> value (NULL: none), for id < n_dense */
    guint32 *dense32;  /* a narrow map's (0: none) */
  };
  guint n_dense : 31;
  guint narrow : 1;
  guint size;
  /* the ids >= n_dense (its slots NULL until one comes): in the map, not
   * behind a pointer, so that a far id's lookup reads the map's line and
   * its slot's, not the map header's between them.  The world's nodes'
   * links and the session's are all far at 2 000 gossip peers
   * (docs/performance.md, nm26); 32 bytes in all, as before. */
  DlWordTable far;
} DlIdMap;

G_STATIC_ASSERT (sizeof (DlIdMap) == 32);

void dl_id_map_init (DlIdMap *m);
/* A map of 32-bit values (not 0), used only through the *32 functions
 * below and those that take no value (clear, remove_all, size). */
void dl_id_map_init_narrow (DlIdMap *m);
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
  g_return_val_if_fail (!m->narrow, NULL);
  if (id < m->n_dense)
    return m->dense[id];
  return m->far.slots ? dl_word_table_lookup (&m->far, id) : NULL;
}

/* a narrow map's lookup: id's value, 0 if none.  Unlike the other entry
 * points it does not check the map's width: it is on the world's send
 * path (sim_link_get), and a wide map given here reads garbage. */
static inline guint32
dl_id_map_lookup32 (const DlIdMap *m, uint32_t id)
{
  if (id < m->n_dense)
    return m->dense32[id];
  return m->far.slots ? (guint32) (uintptr_t) dl_word_table_lookup (&m->far, id) : 0;
}

/* a narrow map's insert (value not 0) and steal (0: none) */
void dl_id_map_insert32 (DlIdMap *m, uint32_t id, guint32 value);
guint32 dl_id_map_steal32 (DlIdMap *m, uint32_t id);

/* Starts loading id's entry (a hint: changes nothing). */
static inline void
dl_id_map_prefetch (const DlIdMap *m, uint32_t id)
{
  if (id < m->n_dense)
    __builtin_prefetch (m->narrow ? (const void *) &m->dense32[id] : (const void *) &m->dense[id]);
  else if (m->far.slots)
    dl_word_table_prefetch (&m->far, id);
}

/* Iteration: for (guint i = 0; dl_id_map_next (m, &i, &id, &v);) — the
 * map must not change meanwhile.  The order depends on the ids and the
 * insertion history only. */
gboolean dl_id_map_next (const DlIdMap *m, guint *at, uint32_t *id, gpointer *value);
/* a narrow map's (value may be NULL) */
gboolean dl_id_map_next32 (const DlIdMap *m, guint *at, uint32_t *id, guint32 *value);

static inline guint
dl_id_map_size (const DlIdMap *m)
{
  return m->size;
}

G_END_DECLS
