/* dl-idmap.c — the map from mostly small ids (dl-idmap.h).  Both widths
 * go through the same steps, on values as words (uintptr_t, 0: none). */
#include "config.h"

#include "base/dl-idmap.h"

#include <string.h>

void
dl_id_map_init (DlIdMap *m)
{
  memset (m, 0, sizeof *m);
}

void
dl_id_map_init_narrow (DlIdMap *m)
{
  memset (m, 0, sizeof *m);
  m->narrow = TRUE;
}

void
dl_id_map_clear (DlIdMap *m)
{
  gboolean narrow = m->narrow;
  g_free (m->dense);
  dl_word_table_clear (&m->far);
  memset (m, 0, sizeof *m);
  m->narrow = narrow;
}

/* an array entry's bytes */
static gsize
entry_size (const DlIdMap *m)
{
  return m->narrow ? sizeof (guint32) : sizeof (gpointer);
}

static uintptr_t
dense_get (const DlIdMap *m, guint i)
{
  return m->narrow ? m->dense32[i] : (uintptr_t) m->dense[i];
}

static void
dense_set (DlIdMap *m, guint i, uintptr_t v)
{
  if (m->narrow)
    m->dense32[i] = (guint32) v;
  else
    m->dense[i] = (gpointer) v;
}

void
dl_id_map_remove_all (DlIdMap *m)
{
  if (m->n_dense)
    memset (m->dense, 0, m->n_dense * entry_size (m));
  if (m->far.slots)
    dl_word_table_remove_all (&m->far, NULL);
  m->size = 0;
}

static uintptr_t
lookup_word (const DlIdMap *m, uint32_t id)
{
  if (id < m->n_dense)
    return dense_get (m, id);
  return m->far.slots ? (uintptr_t) dl_word_table_lookup (&m->far, id) : 0;
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
  gsize es = entry_size (m);
  m->dense = g_realloc_n (m->dense, n, es);
  memset ((char *) m->dense + m->n_dense * es, 0, (n - m->n_dense) * es);
  m->n_dense = n;
  if (!m->far.slots || m->far.size == 0)
    return;
  g_autoptr (GArray) moved = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  uint64_t key;
  gpointer value;
  for (guint at = 0; dl_word_table_next (&m->far, &at, &key, &value);)
    if (key < n)
      g_array_append_val (moved, key);
  for (guint i = 0; i < moved->len; i++)
    {
      uint64_t k = g_array_index (moved, uint64_t, i);
      dense_set (m, (guint) k, (uintptr_t) dl_word_table_steal (&m->far, k));
    }
}

static void
insert_word (DlIdMap *m, uint32_t id, uintptr_t value)
{
  if (lookup_word (m, id) == 0)
    {
      cover (m, id);
      m->size++;
    }
  if (id < m->n_dense)
    dense_set (m, id, value);
  else
    {
      if (!m->far.slots)
        dl_word_table_init (&m->far);
      dl_word_table_insert (&m->far, id, (gpointer) value);
    }
}

void
dl_id_map_insert (DlIdMap *m, uint32_t id, gpointer value)
{
  g_return_if_fail (value != NULL && !m->narrow);
  insert_word (m, id, (uintptr_t) value);
}

void
dl_id_map_insert32 (DlIdMap *m, uint32_t id, guint32 value)
{
  g_return_if_fail (value != 0 && m->narrow);
  insert_word (m, id, value);
}

static uintptr_t
steal_word (DlIdMap *m, uint32_t id)
{
  uintptr_t v;
  if (id < m->n_dense)
    {
      v = dense_get (m, id);
      dense_set (m, id, 0);
    }
  else
    v = m->far.slots ? (uintptr_t) dl_word_table_steal (&m->far, id) : 0;
  if (v)
    m->size--;
  return v;
}

gpointer
dl_id_map_steal (DlIdMap *m, uint32_t id)
{
  g_return_val_if_fail (!m->narrow, NULL);
  return (gpointer) steal_word (m, id);
}

guint32
dl_id_map_steal32 (DlIdMap *m, uint32_t id)
{
  g_return_val_if_fail (m->narrow, 0);
  return (guint32) steal_word (m, id);
}

static gboolean
next_word (const DlIdMap *m, guint *at, uint32_t *id, uintptr_t *value)
{
  for (; *at < m->n_dense; (*at)++)
    if (dense_get (m, *at))
      {
        *id = *at;
        *value = dense_get (m, *at);
        (*at)++;
        return TRUE;
      }
  if (!m->far.slots)
    return FALSE;
  guint far_at = *at - m->n_dense;
  uint64_t key;
  gpointer v;
  if (!dl_word_table_next (&m->far, &far_at, &key, &v))
    return FALSE;
  *id = (uint32_t) key;
  *value = (uintptr_t) v;
  *at = m->n_dense + far_at;
  return TRUE;
}

gboolean
dl_id_map_next (const DlIdMap *m, guint *at, uint32_t *id, gpointer *value)
{
  uintptr_t v;
  g_return_val_if_fail (!m->narrow, FALSE);
  if (!next_word (m, at, id, &v))
    return FALSE;
  if (value)
    *value = (gpointer) v;
  return TRUE;
}

gboolean
dl_id_map_next32 (const DlIdMap *m, guint *at, uint32_t *id, guint32 *value)
{
  uintptr_t v;
  g_return_val_if_fail (m->narrow, FALSE);
  if (!next_word (m, at, id, &v))
    return FALSE;
  if (value)
    *value = (guint32) v;
  return TRUE;
}
