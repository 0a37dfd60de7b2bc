/* dl-idmap.c — the map from mostly small ids (dl-idmap.h). */
#include "config.h"

#include "base/dl-idmap.h"

#include <string.h>

void
dl_id_map_init (DlIdMap *m)
{
  memset (m, 0, sizeof *m);
}

void
dl_id_map_clear (DlIdMap *m)
{
  g_free (m->dense);
  dl_word_map_free (m->far);
  memset (m, 0, sizeof *m);
}

void
dl_id_map_remove_all (DlIdMap *m)
{
  if (m->n_dense)
    memset (m->dense, 0, m->n_dense * sizeof *m->dense);
  if (m->far)
    dl_word_map_remove_all (m->far);
  m->size = 0;
}

/* The array grows to cover id if id is within the bound; the far ids it
 * then covers move into it. */
static void
cover (DlIdMap *m, uint32_t id)
{
  guint limit = MAX (DL_ID_MAP_DENSE_MIN, 4 * (m->size + 1));
  if (id < m->n_dense || id >= limit)
    return;
  guint n = MIN (MAX (id + 1, 2 * m->n_dense), limit);
  m->dense = g_renew (gpointer, m->dense, n);
  memset (m->dense + m->n_dense, 0, (n - m->n_dense) * sizeof *m->dense);
  m->n_dense = n;
  if (!m->far || dl_word_map_size (m->far) == 0)
    return;
  g_autoptr (GArray) moved = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  uint64_t key;
  gpointer value;
  for (guint at = 0; dl_word_map_next (m->far, &at, &key, &value);)
    if (key < n)
      g_array_append_val (moved, key);
  for (guint i = 0; i < moved->len; i++)
    {
      uint64_t k = g_array_index (moved, uint64_t, i);
      m->dense[k] = dl_word_map_steal (m->far, k);
    }
}

void
dl_id_map_insert (DlIdMap *m, uint32_t id, gpointer value)
{
  g_return_if_fail (value != NULL);
  if (dl_id_map_lookup (m, id) == NULL)
    {
      cover (m, id);
      m->size++;
    }
  if (id < m->n_dense)
    m->dense[id] = value;
  else
    {
      if (!m->far)
        m->far = dl_word_map_new (NULL);
      dl_word_map_insert (m->far, id, value);
    }
}

gpointer
dl_id_map_steal (DlIdMap *m, uint32_t id)
{
  gpointer v;
  if (id < m->n_dense)
    {
      v = m->dense[id];
      m->dense[id] = NULL;
    }
  else
    v = m->far ? dl_word_map_steal (m->far, id) : NULL;
  if (v)
    m->size--;
  return v;
}

gboolean
dl_id_map_next (const DlIdMap *m, guint *at, uint32_t *id, gpointer *value)
{
  for (; *at < m->n_dense; (*at)++)
    if (m->dense[*at])
      {
        *id = *at;
        if (value)
          *value = m->dense[*at];
        (*at)++;
        return TRUE;
      }
  if (!m->far)
    return FALSE;
  guint far_at = *at - m->n_dense;
  uint64_t key;
  if (!dl_word_map_next (m->far, &far_at, &key, value))
    return FALSE;
  *id = (uint32_t) key;
  *at = m->n_dense + far_at;
  return TRUE;
}
