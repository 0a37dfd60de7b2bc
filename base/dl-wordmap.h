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
 * dl_word_map_free; its table (DlWordTable) alone on caller memory. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  uint64_t key;
  gpointer value;
} DlWordSlot;

/* The table itself, 16 bytes: a map's, or held inside another record
 * where the map's header behind a pointer would be one more load (DlIdMap's
 * far ids).  Shape: dl_word_table_init / dl_word_table_clear on caller
 * memory (zeroed, its slots NULL, until init). */
typedef struct {
  DlWordSlot *slots;   /* capacity entries, a power of two */
  guint capacity;
  guint size;
} DlWordTable;

typedef struct {
  DlWordTable t;
  GDestroyNotify value_free;
} DlWordMap;

#define DL_WORD_MAP_EMPTY UINT64_MAX

void dl_word_table_init (DlWordTable *t);
/* Frees the storage (not the values); t is left zeroed. */
void dl_word_table_clear (DlWordTable *t);
/* Empties the table, each value given to value_free first if not NULL. */
void dl_word_table_remove_all (DlWordTable *t, GDestroyNotify value_free);
/* Replaces the value under key if there is one (without freeing it). */
void dl_word_table_insert (DlWordTable *t, uint64_t key, gpointer value);
/* Removes key, returning its value (not freed), or NULL. */
gpointer dl_word_table_steal (DlWordTable *t, uint64_t key);
/* Iteration: for (guint i = 0; dl_word_table_next (t, &i, &k, &v);) — the
 * table must not change meanwhile. */
gboolean dl_word_table_next (const DlWordTable *t, guint *at, uint64_t *key, gpointer *value);

static inline guint
dl_word_table_home (const DlWordTable *t, uint64_t key)
{
  /* Fibonacci hashing: the top bits of key times 2^64 / phi */
  uint64_t h = key * UINT64_C (0x9e3779b97f4a7c15);
  return (guint) (h >> 32) & (t->capacity - 1);
}

static inline gpointer
dl_word_table_lookup (const DlWordTable *t, uint64_t key)
{
  guint mask = t->capacity - 1;
  for (guint i = dl_word_table_home (t, key);; i = (i + 1) & mask)
    {
      const DlWordSlot *s = &t->slots[i];
      if (s->key == key)
        return s->value;
      if (s->key == DL_WORD_MAP_EMPTY)
        return NULL;
    }
}

/* Starts loading key's home slot (a hint: changes nothing). */
static inline void
dl_word_table_prefetch (const DlWordTable *t, uint64_t key)
{
  __builtin_prefetch (&t->slots[dl_word_table_home (t, key)]);
}

/* The map: its table and what frees its values. */
DlWordMap *dl_word_map_new (GDestroyNotify value_free);
void dl_word_map_free (DlWordMap *m);

/* Frees every value (with value_free) and empties the map. */
static inline void
dl_word_map_remove_all (DlWordMap *m)
{
  dl_word_table_remove_all (&m->t, m->value_free);
}

/* Replaces the value under key if there is one (without freeing it). */
static inline void
dl_word_map_insert (DlWordMap *m, uint64_t key, gpointer value)
{
  dl_word_table_insert (&m->t, key, value);
}

/* Removes key, returning its value (not freed), or NULL. */
static inline gpointer
dl_word_map_steal (DlWordMap *m, uint64_t key)
{
  return dl_word_table_steal (&m->t, key);
}

static inline gpointer
dl_word_map_lookup (const DlWordMap *m, uint64_t key)
{
  return dl_word_table_lookup (&m->t, key);
}

static inline void
dl_word_map_prefetch (const DlWordMap *m, uint64_t key)
{
  dl_word_table_prefetch (&m->t, key);
}

static inline guint
dl_word_map_size (const DlWordMap *m)
{
  return m->t.size;
}

/* Iteration: for (guint i = 0; dl_word_map_next (m, &i, &k, &v);) — the
 * map must not change meanwhile. */
static inline gboolean
dl_word_map_next (const DlWordMap *m, guint *at, uint64_t *key, gpointer *value)
{
  return dl_word_table_next (&m->t, at, key, value);
}

G_END_DECLS
