/* hier-coord-records.c — the hierarchical coordinator's records
 * (hier-coord.c), through hier-coord-private.h: its phases' names, its
 * members and clusters (lookup, creation, freeing), the cuts between
 * members and heads it remembers and what they say, the selection
 * helpers (a merge target, the next landmark), its next deadline, and the
 * accessors of hier.h.  A leaf: it decides no transition, emits nothing
 * and calls nothing of hier-coord.c or of its other leaf. */
#include "config.h"

#include "protocol/hierarchical/hier-coord-private.h"
#include "base/dl-sorted.h"

#include <string.h>

G_STATIC_ASSERT (sizeof (((Member *) 0)->id) == sizeof (uint32_t));

const char *const _hier_coord_phase_names[] = { "gathering", "probing", "clustered" };

gboolean
_hier_coord_formed (const HierCoord *c)
{
  return c->base.state == COORD_CLUSTERED;
}

gboolean
_hier_coord_probing (const HierCoord *c)
{
  return c->base.state == COORD_PROBING;
}

Member *
_hier_coord_find_member (const HierCoord *c, ProtoNodeId id, guint *at)
{
  return DL_SORTED_FIND (c->members, Member, id, id, at);
}

void
_hier_coord_member_free (gpointer p)
{
  Member *m = p;
  g_free (m->region);
  g_free (m);
}

void
_hier_coord_cluster_free (gpointer p)
{
  Cluster *k = p;
  g_free (k->name);
  g_array_unref (k->members);
  g_hash_table_unref (k->votes);
  g_free (k);
}

Cluster *
_hier_coord_cluster_new (HierCoord *c, const char *name)
{
  Cluster *k = g_new0 (Cluster, 1);
  k->name = g_strdup (name);
  k->members = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  k->head = PROTO_NO_NODE;
  k->deadline = DL_TIME_NEVER;
  k->votes = g_hash_table_new (g_direct_hash, g_direct_equal);
  k->group = -1;
  g_ptr_array_add (c->clusters, k);
  return k;
}

/* A member that stands while its head is head lost it (its link failed or
 * died, or no result came): the pair is remembered, so that the same head
 * is not elected again while another candidate can serve the cluster (a
 * link inside a cluster that fails for good re-elected the same head for
 * ever: protocol/hierarchical/scenarios/hier-link-fail-in-cluster.ini). */
void
_hier_coord_note_cut (HierCoord *c, ProtoNodeId member, ProtoNodeId head)
{
  if (head == PROTO_NO_NODE || head == member)
    return;
  ProtoNodeId pair[2] = { member, head };
  g_array_append_vals (c->cut, pair, 2);
}

/* The pair cut each other: each stood once while the other was its head
 * (a link between them that failed for good, or a fault on both sides). */
gboolean
_hier_coord_cut_both_ways (const HierCoord *c, ProtoNodeId a, ProtoNodeId b)
{
  gboolean ab = FALSE, ba = FALSE;
  for (guint i = 0; i + 1 < c->cut->len; i += 2)
    {
      ProtoNodeId x = g_array_index (c->cut, ProtoNodeId, i), y = g_array_index (c->cut, ProtoNodeId, i + 1);
      ab = ab || (x == a && y == b);
      ba = ba || (x == b && y == a);
    }
  return ab && ba;
}

/* m has stood twice against every other member of k while it was m's
 * head, and there are at least two: each was tried again after m lost it
 * and lost again, so none of them can head m (its links to all the
 * others failed).  The others took turns heading and m lost each turn for
 * ever: the fewest cuts counts m's own stands too, so m never headed
 * (protocol/hierarchical/scenarios/hier-lost-every-head.ini).  Once is not enough:
 * a head lost in a partition since healed serves m when tried again
 * (hier-link-never-up.ini).  In a cluster of two m heads itself first
 * (cuts_in_cluster), and cut_both_ways splits it. */
gboolean
_hier_coord_lost_every_head (const HierCoord *c, const Cluster *k, ProtoNodeId m)
{
  guint others = 0;
  for (guint j = 0; j < k->members->len; j++)
    {
      ProtoNodeId x = g_array_index (k->members, ProtoNodeId, j);
      guint lost = 0;
      for (guint i = 0; x != m && i + 1 < c->cut->len; i += 2)
        lost += g_array_index (c->cut, ProtoNodeId, i) == m && g_array_index (c->cut, ProtoNodeId, i + 1) == x;
      if (x != m && lost < 2)
        return FALSE;
      others += x != m;
    }
  return others >= 2;
}

/* How often a candidate was cut from another member of k, each time
 * counted, twice as the head that was lost (a member that lost its head
 * may head the cluster itself): a link that fails for good adds at every
 * re-election, so a candidate a passing fault cut (a partition since
 * healed) wins over it in the end. */
guint
_hier_coord_cuts_in_cluster (const HierCoord *c, const Cluster *k, ProtoNodeId id)
{
  guint n = 0;
  for (guint i = 0; i + 1 < c->cut->len; i += 2)
    {
      ProtoNodeId a = g_array_index (c->cut, ProtoNodeId, i), b = g_array_index (c->cut, ProtoNodeId, i + 1);
      ProtoNodeId other = a == id ? b : b == id ? a : PROTO_NO_NODE;
      for (guint j = 0; other != PROTO_NO_NODE && j < k->members->len; j++)
        n += g_array_index (k->members, ProtoNodeId, j) == other ? (b == id ? 2 : 1) : 0;
    }
  return n;
}

gboolean
_hier_coord_unreachable_head (const HierCoord *c, const Member *m, const Cluster *k)
{
  if (!m->nat || k->head == PROTO_NO_NODE)
    return FALSE;
  const Member *h = _hier_coord_find_member (c, k->head, NULL);
  return h && h->nat;
}

/* The cluster an all-NAT cluster k merges into: one whose head is not
 * behind symmetric NAT, of k's region (or latency group) first, then the
 * fewest members; -1 if none. */
int
_hier_coord_merge_target (HierCoord *c, const Cluster *k)
{
  const Member *first = k->members->len ? _hier_coord_find_member (c, g_array_index (k->members, ProtoNodeId, 0), NULL) : NULL;
  int best = -1;
  guint best_key = G_MAXUINT;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o == k || o->head == PROTO_NO_NODE || o->members->len == 0)
        continue;
      const Member *h = _hier_coord_find_member (c, o->head, NULL);
      if (!h || h->nat)
        continue;
      const Member *of = _hier_coord_find_member (c, g_array_index (o->members, ProtoNodeId, 0), NULL);
      gboolean near = k->group >= 0 ? o->group == k->group
                                    : (first && of && first->region && of->region && strcmp (first->region, of->region) == 0);
      guint key = (near ? 0 : 1u << 30) + o->members->len;
      if (key < best_key)
        best_key = key, best = (int) q;
    }
  return best;
}

/* Another cluster's election is on (and not itself stuck): a head may come. */
gboolean
_hier_coord_other_election_on (const HierCoord *c, const Cluster *k)
{
  for (guint q = 0; q < c->clusters->len; q++)
    {
      const Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o != k && o->members->len && o->head == PROTO_NO_NODE && o->deadline != DL_TIME_NEVER && !o->stuck)
        return TRUE;
    }
  return FALSE;
}

gint
_hier_coord_cmp_member_region (gconstpointer a, gconstpointer b)
{
  const Member *x = *(Member *const *) a, *y = *(Member *const *) b;
  int r = strcmp (x->region, y->region);
  return r ? r : (x->id > y->id) - (x->id < y->id);
}

gboolean
_hier_coord_unassigned (const Member *m)
{
  return m->region && m->probed && !m->leaving && m->lat.group < 0;
}

/* next_landmark's steps: the next landmark among the peers outside every
 * group (hier-latency.c picks), NULL if none; their number in *left */
Member *
_hier_coord_pick_landmark (const HierCoord *c, guint *left)
{
  g_autoptr (GPtrArray) outside = g_ptr_array_new ();   /* Member*, ascending id */
  for (guint i = 0; i < c->members->len; i++)
    if (_hier_coord_unassigned (g_ptr_array_index (c->members, i)))
      g_ptr_array_add (outside, g_ptr_array_index (c->members, i));
  *left = outside->len;
  g_autofree const HierLatencyPlace **places = g_new (const HierLatencyPlace *, MAX (*left, 1));
  g_autofree gboolean *nat = g_new (gboolean, MAX (*left, 1));
  for (guint i = 0; i < *left; i++)
    {
      places[i] = &((Member *) outside->pdata[i])->lat;
      nat[i] = ((Member *) outside->pdata[i])->nat;
    }
  int at = hier_latency_pick_landmark (places, nat, *left);
  return at >= 0 ? outside->pdata[at] : NULL;
}

DlTime
_hier_coord_latency_next_deadline (const HierCoord *c)
{
  DlTime d = _hier_coord_probing (c) ? c->probe_deadline : DL_TIME_NEVER;
  for (guint i = 0; c->late_probing && i < c->members->len; i++)
    {
      const Member *m = g_ptr_array_index (c->members, i);
      if (m->late_left > 0)
        d = MIN (d, m->late_deadline);
    }
  return d;
}

/* when it wants to be called back: forming, probing, an election's end */
DlTime
_hier_coord_deadline (const HierCoord *c)
{
  DlTime d = _hier_coord_formed (c) || _hier_coord_probing (c) ? DL_TIME_NEVER : c->form_deadline;
  d = MIN (d, _hier_coord_latency_next_deadline (c));
  for (guint q = 0; q < c->clusters->len; q++)
    d = MIN (d, ((Cluster *) g_ptr_array_index (c->clusters, q))->deadline);
  return d;
}

guint
hier_coord_n_clusters (const ProtoMachine *m)
{
  const HierCoord *c = m->impl;
  return c->clusters->len;
}

ProtoNodeId
hier_coord_head_of (const ProtoMachine *m, ProtoNodeId member)
{
  const HierCoord *c = m->impl;
  Member *mm = _hier_coord_find_member (c, member, NULL);
  if (!mm || mm->cluster < 0)
    return PROTO_NO_NODE;
  return ((Cluster *) g_ptr_array_index (c->clusters, mm->cluster))->head;
}

void
_hier_coord_free (void *impl)
{
  HierCoord *c = impl;
  g_ptr_array_unref (c->members);
  g_ptr_array_unref (c->clusters);
  g_array_unref (c->landmarks);
  g_array_unref (c->cut);
  g_free (c);
}
