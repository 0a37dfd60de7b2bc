/* dl-idset.c — the set of mostly small ids (dl-idset.h). */
#include "config.h"

#include "base/dl-idset.h"

#include <string.h>

void
dl_id_set_init (DlIdSet *s)
{
  memset (s, 0, sizeof *s);
}

void
dl_id_set_clear (DlIdSet *s)
{
  g_free (s->bits);
  if (s->sparse)
    g_hash_table_unref (s->sparse);
  memset (s, 0, sizeof *s);
}

void
dl_id_set_remove_all (DlIdSet *s)
{
  if (s->words)
    memset (s->bits, 0, s->words * sizeof *s->bits);
  if (s->sparse)
    g_hash_table_remove_all (s->sparse);
  s->size = 0;
}

gboolean
dl_id_set_add (DlIdSet *s, uint32_t id)
{
  if (id >= DL_ID_SET_DENSE)
    {
      if (!s->sparse)
        s->sparse = g_hash_table_new (g_direct_hash, g_direct_equal);
      if (!g_hash_table_add (s->sparse, GSIZE_TO_POINTER ((gsize) id + 1)))
        return FALSE;
      s->size++;
      return TRUE;
    }
  guint need = id / 64 + 1;
  if (need > s->words)
    {
      /* doubling, so that n ids in increasing order cost O(n) */
      guint words = MAX (need, 2 * s->words);
      words = MIN (words, DL_ID_SET_DENSE / 64);
      s->bits = g_renew (guint64, s->bits, words);
      memset (s->bits + s->words, 0, (words - s->words) * sizeof *s->bits);
      s->words = words;
    }
  guint64 bit = UINT64_C (1) << (id & 63);
  if (s->bits[id >> 6] & bit)
    return FALSE;
  s->bits[id >> 6] |= bit;
  s->size++;
  return TRUE;
}
