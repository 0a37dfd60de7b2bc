/* proto-omap.h — a small ordered map NodeId -> flag that iterates the way
 * DISCO's Immutable.js Map does for up to 8 entries: insertion order, a set
 * on an existing key keeps its place, and a delete moves the *last* entry into
 * the freed slot.  That order decides, e.g., which node disco-1110-draft picks
 * as the replacement provider (S10).  Beyond 8 entries Immutable.js switches
 * to hash order over UUIDs, which dlsim does not reproduce: it keeps this
 * order (documented).  Lookups go through a hash index; counting is linear. */
#pragma once

#include "protocol/proto-message.h"

G_BEGIN_DECLS

typedef struct {
  ProtoNodeId id;
  gboolean flag;
} ProtoOMapEntry;

typedef struct {
  GArray *entries;
  GHashTable *index;   /* id + 1 -> position + 1 */
} ProtoOMap;

static inline void
proto_omap_init (ProtoOMap *m)
{
  m->entries = g_array_new (FALSE, FALSE, sizeof (ProtoOMapEntry));
  m->index = g_hash_table_new (g_direct_hash, g_direct_equal);
}

static inline void
proto_omap_clear (ProtoOMap *m)
{
  g_clear_pointer (&m->entries, g_array_unref);
  g_clear_pointer (&m->index, g_hash_table_unref);
}

static inline guint
proto_omap_len (const ProtoOMap *m)
{
  return m->entries->len;
}

static inline ProtoOMapEntry *
proto_omap_at (const ProtoOMap *m, guint i)
{
  return &g_array_index (m->entries, ProtoOMapEntry, i);
}

static inline int
proto_omap_find (const ProtoOMap *m, ProtoNodeId id)
{
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (m->index, GUINT_TO_POINTER (id + 1))) - 1;
}

static inline gboolean
proto_omap_has (const ProtoOMap *m, ProtoNodeId id)
{
  return proto_omap_find (m, id) >= 0;
}

static inline void
proto_omap_set (ProtoOMap *m, ProtoNodeId id, gboolean flag)
{
  int i = proto_omap_find (m, id);
  if (i >= 0)
    proto_omap_at (m, (guint) i)->flag = flag;
  else
    {
      ProtoOMapEntry e = { id, flag };
      g_array_append_val (m->entries, e);
      g_hash_table_insert (m->index, GUINT_TO_POINTER (id + 1), GUINT_TO_POINTER (m->entries->len));
    }
}

/* Immutable.js ArrayMapNode removal: the last entry takes the freed slot. */
static inline gboolean
proto_omap_delete (ProtoOMap *m, ProtoNodeId id)
{
  int i = proto_omap_find (m, id);
  if (i < 0)
    return FALSE;
  guint last = m->entries->len - 1;
  g_hash_table_remove (m->index, GUINT_TO_POINTER (id + 1));
  if ((guint) i != last)
    {
      *proto_omap_at (m, (guint) i) = *proto_omap_at (m, last);
      g_hash_table_insert (m->index, GUINT_TO_POINTER (proto_omap_at (m, (guint) i)->id + 1),
                           GUINT_TO_POINTER ((guint) i + 1));
    }
  g_array_set_size (m->entries, last);
  return TRUE;
}

static inline void
proto_omap_remove_all (ProtoOMap *m)
{
  g_array_set_size (m->entries, 0);
  g_hash_table_remove_all (m->index);
}

static inline void
proto_omap_set_all (ProtoOMap *m, gboolean flag)
{
  for (guint i = 0; i < m->entries->len; i++)
    proto_omap_at (m, i)->flag = flag;
}

static inline guint
proto_omap_count (const ProtoOMap *m, gboolean flag)
{
  guint n = 0;
  for (guint i = 0; i < m->entries->len; i++)
    n += proto_omap_at (m, i)->flag == flag;
  return n;
}

G_END_DECLS
