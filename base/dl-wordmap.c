/* dl-wordmap.c — the open-addressed word map (dl-wordmap.h).  Linear
 * probing with backward-shift deletion as in Knuth, TAOCP vol. 3, §6.4,
 * Algorithm R; the table doubles at 1/2 full, so probes stay short. */
#include "config.h"

#include "base/dl-wordmap.h"

#include <string.h>

static DlWordSlot *
empty_slots (guint capacity)
{
  DlWordSlot *s = g_new (DlWordSlot, capacity);
  for (guint i = 0; i < capacity; i++)
    s[i].key = DL_WORD_MAP_EMPTY;
  return s;
}

void
dl_word_table_init (DlWordTable *t)
{
  t->capacity = 8;
  t->size = 0;
  t->slots = empty_slots (t->capacity);
}

void
dl_word_table_clear (DlWordTable *t)
{
  g_free (t->slots);
  memset (t, 0, sizeof *t);
}

void
dl_word_table_remove_all (DlWordTable *t, GDestroyNotify value_free)
{
  for (guint i = 0; i < t->capacity; i++)
    if (t->slots[i].key != DL_WORD_MAP_EMPTY)
      {
        if (value_free)
          value_free (t->slots[i].value);
        t->slots[i].key = DL_WORD_MAP_EMPTY;
      }
  t->size = 0;
}

DlWordMap *
dl_word_map_new (GDestroyNotify value_free)
{
  DlWordMap *m = g_new0 (DlWordMap, 1);
  dl_word_table_init (&m->t);
  m->value_free = value_free;
  return m;
}

void
dl_word_map_free (DlWordMap *m)
{
  if (!m)
    return;
  /* only the values need the slots read: without value_free nothing is
   * (the nodes' maps of links at the world's end: gossip at 2 000 peers
   * read 4 000 cold maps, docs/performance.md, nm26) */
  if (m->value_free)
    dl_word_map_remove_all (m);
  dl_word_table_clear (&m->t);
  g_free (m);
}

/* Puts key (known absent) in its probe sequence's first empty slot. */
static void
place (DlWordTable *t, uint64_t key, gpointer value)
{
  guint mask = t->capacity - 1;
  guint i = dl_word_table_home (t, key);
  while (t->slots[i].key != DL_WORD_MAP_EMPTY)
    i = (i + 1) & mask;
  t->slots[i].key = key;
  t->slots[i].value = value;
}

static void
grow (DlWordTable *t)
{
  DlWordSlot *old = t->slots;
  guint n = t->capacity;
  t->capacity = n * 2;
  t->slots = empty_slots (t->capacity);
  /* in slot order: the new layout depends on the old one, which depends on
   * the keys and the insertion history only */
  for (guint i = 0; i < n; i++)
    if (old[i].key != DL_WORD_MAP_EMPTY)
      place (t, old[i].key, old[i].value);
  g_free (old);
}

void
dl_word_table_insert (DlWordTable *t, uint64_t key, gpointer value)
{
  g_return_if_fail (key != DL_WORD_MAP_EMPTY);
  guint mask = t->capacity - 1;
  for (guint i = dl_word_table_home (t, key); t->slots[i].key != DL_WORD_MAP_EMPTY; i = (i + 1) & mask)
    if (t->slots[i].key == key)
      {
        t->slots[i].value = value;
        return;
      }
  if (2 * (t->size + 1) > t->capacity)
    grow (t);
  place (t, key, value);
  t->size++;
}

gpointer
dl_word_table_steal (DlWordTable *t, uint64_t key)
{
  guint mask = t->capacity - 1;
  guint i = dl_word_table_home (t, key);
  while (t->slots[i].key != key)
    {
      if (t->slots[i].key == DL_WORD_MAP_EMPTY)
        return NULL;
      i = (i + 1) & mask;
    }
  gpointer value = t->slots[i].value;
  /* Algorithm R: move back each later entry of the run that the hole
   * would otherwise cut off from its home slot */
  guint hole = i;
  for (guint j = (i + 1) & mask; t->slots[j].key != DL_WORD_MAP_EMPTY; j = (j + 1) & mask)
    {
      guint home = dl_word_table_home (t, t->slots[j].key);
      /* j's entry may fill the hole if its home is not in (hole, j] (cyclically) */
      gboolean between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!between)
        {
          t->slots[hole] = t->slots[j];
          hole = j;
        }
    }
  t->slots[hole].key = DL_WORD_MAP_EMPTY;
  t->size--;
  return value;
}

gboolean
dl_word_table_next (const DlWordTable *t, guint *at, uint64_t *key, gpointer *value)
{
  for (; *at < t->capacity; (*at)++)
    if (t->slots[*at].key != DL_WORD_MAP_EMPTY)
      {
        if (key)
          *key = t->slots[*at].key;
        if (value)
          *value = t->slots[*at].value;
        (*at)++;
        return TRUE;
      }
  return FALSE;
}
