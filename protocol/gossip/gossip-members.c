/* gossip-members.c — the gossip coordinator's member table
 * (gossip-members-private.h): the members in id order beside an id map,
 * the model provider kept between joins, and the listed members' slots
 * and draws that a step's contact graph is built from. */
#include "config.h"

#include "protocol/gossip/gossip-members-private.h"
#include "base/dl-sorted.h"

G_STATIC_ASSERT (sizeof (((GossipMember *) 0)->id) == sizeof (uint32_t));

static void
member_free (gpointer data)
{
  GossipMember *m = data;
  g_array_unref (m->targets);
  g_array_unref (m->last_nbrs);
  g_free (m);
}

void
_gossip_members_init (GossipMembers *t)
{
  t->list = g_ptr_array_new_with_free_func (member_free);
  dl_id_map_init (&t->by_id);
  t->provider = NULL;
  t->provider_known = FALSE;
}

void
_gossip_members_clear (GossipMembers *t)
{
  dl_id_map_clear (&t->by_id);
  g_ptr_array_unref (t->list);
  t->list = NULL;
  t->provider = NULL;
  t->provider_known = FALSE;
}

GossipMember *
_gossip_members_find (const GossipMembers *t, ProtoNodeId id, guint *at)
{
  if (!at)
    return _gossip_members_lookup (t, id);
  return DL_SORTED_FIND (t->list, GossipMember, id, id, at);
}

GossipMember *
_gossip_members_add (GossipMembers *t, ProtoNodeId id)
{
  GossipMember *m = g_new0 (GossipMember, 1);
  m->id = id;
  m->targets = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  m->last_nbrs = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  m->last_step = G_MAXUINT32;
  guint at;
  _gossip_members_find (t, id, &at);
  g_ptr_array_insert (t->list, (gint) at, m);
  dl_id_map_insert (&t->by_id, id, m);
  return m;
}

void
_gossip_members_remove (GossipMembers *t, guint at)
{
  GossipMember *m = g_ptr_array_index (t->list, at);
  dl_id_map_steal (&t->by_id, m->id);
  g_ptr_array_remove_index (t->list, at);
}

/* The model provider _gossip_members_sync_provider names (below), kept
 * between joins. */
static gboolean
has_trained (const GossipMember *m)
{
  return m->last_step != G_MAXUINT32 || m->period != 0;
}

/* Is a a better provider than b (both have trained)? */
static gboolean
provider_before (const GossipMember *a, const GossipMember *b)
{
  guint64 ka = a->last_step == G_MAXUINT32 ? 0 : (guint64) a->last_step + 1;
  guint64 kb = b->last_step == G_MAXUINT32 ? 0 : (guint64) b->last_step + 1;
  return ka > kb || (ka == kb && a->id < b->id);
}

static const GossipMember *
provider_scan (const GossipMembers *t, ProtoNodeId newcomer)
{
  const GossipMember *best = NULL;
  for (guint i = 0; i < t->list->len; i++)
    {
      const GossipMember *m = g_ptr_array_index (t->list, i);
      if (m->id != newcomer && has_trained (m) && (!best || provider_before (m, best)))
        best = m;
    }
  return best;
}

/* A step only raises a member's key, so a member that has trained
 * replaces the provider only if it comes before it. */
void
_gossip_members_provider_update (GossipMembers *t, const GossipMember *m, gboolean gone)
{
  if (!t->provider_known)
    return;
  if (t->provider == m && (gone || !has_trained (m)))
    {
      t->provider = NULL;
      t->provider_known = FALSE;   /* the next join scans the members once */
    }
  else if (!gone && has_trained (m) && (!t->provider || provider_before (m, t->provider)))
    t->provider = m;
}

/* A late joiner's model provider (gossip-peer.c): the member that has
 * been in the latest step (ties: the lowest id); with no steps (async), the
 * lowest id that has trained; PROTO_NO_NODE if nobody has trained yet
 * (then everyone holds the initial model, and there is nothing to sync).
 * Kept between joins (_gossip_members_provider_update): a scan of every
 * member at each join made 100 000 joins quadratic (issue 44); it scans
 * only after the provider left, or when the joiner is the provider itself
 * (a repeat). */
ProtoNodeId
_gossip_members_sync_provider (GossipMembers *t, ProtoNodeId newcomer)
{
  if (!t->provider_known)
    {
      t->provider = provider_scan (t, PROTO_NO_NODE);
      t->provider_known = TRUE;
    }
  const GossipMember *best = t->provider;
  if (best && best->id == newcomer)
    best = provider_scan (t, newcomer);   /* a repeat of the provider's own join */
  return best ? best->id : PROTO_NO_NODE;
}

GArray *
_gossip_members_listed_slots (GossipMembers *t)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < t->list->len; i++)
    {
      GossipMember *m = g_ptr_array_index (t->list, i);
      if (m->listed)
        {
          m->slot = ids->len;
          g_array_append_val (ids, m->id);
        }
    }
  return ids;
}

/* each listed member's draws of another member that is listed (not one
 * that left, or was never listed) */
GArray *
_gossip_members_graph_edges (const GossipMembers *table)
{
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < table->list->len; i++)
    {
      GossipMember *m = g_ptr_array_index (table->list, i);
      if (!m->listed)
        continue;
      for (guint k = 0; k < m->targets->len; k++)
        {
          ProtoNodeId t = g_array_index (m->targets, ProtoNodeId, k);
          GossipMember *o = t != m->id ? _gossip_members_lookup (table, t) : NULL;
          if (!o || !o->listed)
            continue;
          g_array_append_val (ends, m->slot);
          g_array_append_val (ends, o->slot);
        }
    }
  return ends;
}
