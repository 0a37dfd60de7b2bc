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

DlWordMap *
dl_word_map_new (GDestroyNotify value_free)
{
  DlWordMap *m = g_new0 (DlWordMap, 1);
  m->capacity = 8;
  m->slots = empty_slots (m->capacity);
  m->value_free = value_free;
  return m;
}

void
dl_word_map_remove_all (DlWordMap *m)
{
  for (guint i = 0; i < m->capacity; i++)
    if (m->slots[i].key != DL_WORD_MAP_EMPTY)
      {
        if (m->value_free)
          m->value_free (m->slots[i].value);
        m->slots[i].key = DL_WORD_MAP_EMPTY;
      }
  m->size = 0;
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
  g_free (m->slots);
  g_free (m);
}

/* Puts key (known absent) in its probe sequence's first empty slot. */
static void
place (DlWordMap *m, uint64_t key, gpointer value)
{
  guint mask = m->capacity - 1;
  guint i = dl_word_map_home (m, key);
  while (m->slots[i].key != DL_WORD_MAP_EMPTY)
    i = (i + 1) & mask;
  m->slots[i].key = key;
  m->slots[i].value = value;
}

static void
grow (DlWordMap *m)
{
  DlWordSlot *old = m->slots;
  guint n = m->capacity;
  m->capacity = n * 2;
  m->slots = empty_slots (m->capacity);
  /* in slot order: the new layout depends on the old one, which depends on
   * the keys and the insertion history only */
  for (guint i = 0; i < n; i++)
    if (old[i].key != DL_WORD_MAP_EMPTY)
      place (m, old[i].key, old[i].value);
  g_free (old);
}

void
dl_word_map_insert (DlWordMap *m, uint64_t key, gpointer value)
{
  g_return_if_fail (key != DL_WORD_MAP_EMPTY);
  guint mask = m->capacity - 1;
  for (guint i = dl_word_map_home (m, key); m->slots[i].key != DL_WORD_MAP_EMPTY; i = (i + 1) & mask)
    if (m->slots[i].key == key)
      {
        m->slots[i].value = value;
        return;
      }
  if (2 * (m->size + 1) > m->capacity)
    grow (m);
  place (m, key, value);
  m->size++;
}

gpointer
dl_word_map_steal (DlWordMap *m, uint64_t key)
{
  guint mask = m->capacity - 1;
  guint i = dl_word_map_home (m, key);
  while (m->slots[i].key != key)
    {
      if (m->slots[i].key == DL_WORD_MAP_EMPTY)
        return NULL;
      i = (i + 1) & mask;
    }
  gpointer value = m->slots[i].value;
  /* Algorithm R: move back each later entry of the run that the hole
   * would otherwise cut off from its home slot */
  guint hole = i;
  for (guint j = (i + 1) & mask; m->slots[j].key != DL_WORD_MAP_EMPTY; j = (j + 1) & mask)
    {
      guint home = dl_word_map_home (m, m->slots[j].key);
      /* j's entry may fill the hole if its home is not in (hole, j] (cyclically) */
      gboolean between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!between)
        {
          m->slots[hole] = m->slots[j];
          hole = j;
        }
    }
  m->slots[hole].key = DL_WORD_MAP_EMPTY;
  m->size--;
  return value;
}

gboolean
dl_word_map_next (const DlWordMap *m, guint *at, uint64_t *key, gpointer *value)
{
  for (; *at < m->capacity; (*at)++)
    if (m->slots[*at].key != DL_WORD_MAP_EMPTY)
      {
        if (key)
          *key = m->slots[*at].key;
        if (value)
          *value = m->slots[*at].value;
        (*at)++;
        return TRUE;
      }
  return FALSE;
}
