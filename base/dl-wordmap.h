/* dl-wordmap.h — a map from 64-bit words to pointers, with keys and values
 * side by side in one open-addressed array (linear probing, backward-shift
 * deletion, no tombstones).
 *
 * Why not GHashTable: GLib keeps hashes, keys and values in three separate
 * arrays, so a lookup that misses the cache costs three misses; here it
 * costs one.  On the world's hot path (a link per send, a pool link per
 * Payload) the lookups were 15–18 % of `dlsim bench scale` at 1 000 peers
 * (docs/performance.md, "World").
 *
 * The key UINT64_MAX is reserved (it marks an empty slot).  Iteration order
 * depends on the keys and the insertion history only, never on addresses:
 * a simulation that iterates gets the same order every run (callers that
 * feed the order to a machine still sort).  Shape: dl_word_map_new /
 * dl_word_map_free. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  uint64_t key;
  gpointer value;
} DlWordSlot;

typedef struct {
  DlWordSlot *slots;   /* capacity entries, a power of two */
  guint capacity;
  guint size;
  GDestroyNotify value_free;
} DlWordMap;

#define DL_WORD_MAP_EMPTY UINT64_MAX

DlWordMap *dl_word_map_new (GDestroyNotify value_free);
void dl_word_map_free (DlWordMap *m);
/* Frees every value (with value_free) and empties the map. */
void dl_word_map_remove_all (DlWordMap *m);
/* Replaces the value under key if there is one (without freeing it). */
void dl_word_map_insert (DlWordMap *m, uint64_t key, gpointer value);
/* Removes key, returning its value (not freed), or NULL. */
gpointer dl_word_map_steal (DlWordMap *m, uint64_t key);

static inline guint
dl_word_map_home (const DlWordMap *m, uint64_t key)
{
  /* Fibonacci hashing: the top bits of key times 2^64 / phi */
  uint64_t h = key * UINT64_C (0x9e3779b97f4a7c15);
  return (guint) (h >> 32) & (m->capacity - 1);
}

static inline gpointer
dl_word_map_lookup (const DlWordMap *m, uint64_t key)
{
  guint mask = m->capacity - 1;
  for (guint i = dl_word_map_home (m, key);; i = (i + 1) & mask)
    {
      const DlWordSlot *s = &m->slots[i];
      if (s->key == key)
        return s->value;
      if (s->key == DL_WORD_MAP_EMPTY)
        return NULL;
    }
}

/* Starts loading key's home slot (a hint: changes nothing). */
static inline void
dl_word_map_prefetch (const DlWordMap *m, uint64_t key)
{
  __builtin_prefetch (&m->slots[dl_word_map_home (m, key)]);
}

static inline guint
dl_word_map_size (const DlWordMap *m)
{
  return m->size;
}

/* Iteration: for (guint i = 0; dl_word_map_next (m, &i, &k, &v);) — the
 * map must not change meanwhile. */
gboolean dl_word_map_next (const DlWordMap *m, guint *at, uint64_t *key, gpointer *value);

G_END_DECLS
