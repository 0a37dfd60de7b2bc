/* disco-places.c — the map from peer ids to places (disco-places.h). */
#include "config.h"

#include "protocol/disco/disco-places.h"

#include <string.h>

void
disco_places_init (DiscoPlaces *m)
{
  memset (m, 0, sizeof *m);
  dl_id_map_init (&m->far);
}

void
disco_places_clear (DiscoPlaces *m)
{
  g_free (m->dense);
  dl_id_map_clear (&m->far);
  memset (m, 0, sizeof *m);
}

void
disco_places_remove_all (DiscoPlaces *m)
{
  if (m->n_dense)
    memset (m->dense, 0, m->n_dense * sizeof *m->dense);
  dl_id_map_remove_all (&m->far);
  m->size = 0;
}

/* The array grows to cover id, a new id, if id is within the bound
 * (DlIdMap's: base/dl-idmap.c, cover); the far ids it then covers stay
 * in `far`. */
static void
cover (DiscoPlaces *m, uint32_t id)
{
  guint limit = MAX (DL_ID_MAP_DENSE_MIN, 4 * (m->size + 1));
  if (id < m->n_dense || id >= limit)
    return;
  guint n = MIN (MAX (id + 1, 2 * m->n_dense), limit);
  m->dense = g_renew (guint32, m->dense, n);
  memset (m->dense + m->n_dense, 0, (n - m->n_dense) * sizeof *m->dense);
  m->n_dense = n;
}

void
disco_places_set (DiscoPlaces *m, uint32_t id, guint32 value)
{
  g_return_if_fail (value != 0);
  gboolean far = dl_id_map_size (&m->far) && dl_id_map_lookup (&m->far, id);
  if (!far && !(id < m->n_dense && m->dense[id]))
    {
      cover (m, id);
      m->size++;
      far = id >= m->n_dense;
    }
  if (far)
    dl_id_map_insert (&m->far, id, GUINT_TO_POINTER (value));
  else
    m->dense[id] = value;
}

guint32
disco_places_steal (DiscoPlaces *m, uint32_t id)
{
  guint32 v = 0;
  if (id < m->n_dense && m->dense[id])
    {
      v = m->dense[id];
      m->dense[id] = 0;
    }
  else if (dl_id_map_size (&m->far))
    v = GPOINTER_TO_UINT (dl_id_map_steal (&m->far, id));
  if (v)
    m->size--;
  return v;
}
