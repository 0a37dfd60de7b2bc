/* hier-coord.c — the hierarchical family's coordinator (hier.h): admission,
 * clusters, the tally of each cluster's head election, and the list of
 * heads.  It never sees a model.
 *
 * Clusters form once min_participants peers have said HierHello, and every
 * peer connected so far has (peers that connect together cluster together;
 * election_timeout after the min_participants-th hello they form anyway):
 * by region
 * (the peers' [network] regions label), each region split into balanced
 * chunks of at most cluster_size; without regions, the peers in id order in
 * such chunks; with cluster_by = latency, by measured round trips (the
 * probing below, the computation in hier-latency.c, a leaf).  A later peer
 * joins the smallest cluster of its region (a new cluster if its region
 * has none).
 *
 * An election (epoch e of a cluster): HierCluster(e, members, no head) to
 * every member; each answers HierCandidacy(e, score, eligible); once every
 * member has, or election_timeout after the start, the head is the eligible
 * candidate with the highest score (then the lowest id; an ineligible one
 * only if no candidate is eligible), announced by HierCluster(e, members,
 * head), and every head gets HierHeads (all clusters' heads).  A cluster
 * with no eligible candidate (all behind symmetric NAT) joins one whose head
 * is eligible instead (merge_into).  A candidacy
 * for a later epoch (a member that lost its head), or the head's stream
 * closing, starts the next epoch.  SignalForPeer is relayed as DISCO's
 * controller relays it (server/src/controllers/decentralized_controller.ts).
 *
 * Its leaves, which it calls and which never call it
 * (hier-coord-private.h): hier-coord-effects.c (observations, sends, the
 * messages it encodes) and hier-coord-records.c (members, clusters, cuts,
 * selection helpers, its deadline, the accessors of hier.h). */
#include "config.h"

#include "protocol/hierarchical/hier-coord-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <string.h>

static void clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers);
static void place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at_cluster);
/* clustering by latency (below) */
static void latency_start (HierCoord *c, ProtoOutbox *out);
static void latency_place_late (HierCoord *c, ProtoOutbox *out, Member *m);

static void
start_election (HierCoord *c, ProtoOutbox *out, Cluster *k, uint32_t epoch, const char *why)
{
  gboolean had_head = k->head != PROTO_NO_NODE;
  k->epoch = epoch;
  k->stuck = FALSE;
  k->head = PROTO_NO_NODE;
  k->deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
  g_hash_table_remove_all (k->votes);
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, epoch, "cluster %s: election, epoch %u (%s)", k->name, epoch,
           why);
  _hier_coord_send_cluster (c, out, k);
  if (had_head)
    _hier_coord_send_heads (c, out);
}

/* m stands against k's head, which once stood against m: neither can head
 * the other, and re-electing between them alternated for ever (a cluster
 * of two whose link failed for good, scenarios/regression/
 * hier-pair-split.ini); or m lost every other member as its head
 * (lost_every_head: both_ways FALSE).  m leaves k for a cluster of its
 * own, whose election is at `epoch` (the one m stood in); k keeps its
 * head.  Returns the new cluster. */
static Cluster *
split_off (HierCoord *c, ProtoOutbox *out, Member *m, Cluster *k, uint32_t epoch, gboolean both_ways)
{
  for (guint i = 0; i < k->members->len; i++)
    if (g_array_index (k->members, ProtoNodeId, i) == m->id)
      {
        g_array_remove_index (k->members, i);
        break;
      }
  g_hash_table_remove (k->votes, GUINT_TO_POINTER (m->id + 1));
  g_autofree char *name = g_strdup_printf ("%s%s%u", m->region, *m->region ? "." : "c", c->clusters->len + 1);
  Cluster *n = _hier_coord_cluster_new (c, name);
  n->group = k->group;
  n->epoch = epoch - 1;
  if (both_ways)
    _hier_coord_observe (c, out, PROTO_OBS_NOTE, m->id, -1, epoch, "cluster %s: p%u and its head p%u cut each other: p%u leaves for %s",
             k->name, m->id, k->head, m->id, n->name);
  else
    _hier_coord_observe (c, out, PROTO_OBS_NOTE, m->id, -1, epoch,
             "cluster %s: p%u lost every other member as its head twice, the last p%u: p%u leaves for %s", k->name, m->id,
             k->head, m->id, n->name);
  _hier_coord_send_cluster (c, out, k);
  place_into (c, out, m, c->clusters->len - 1);
  return n;
}

/* Heads relay for members behind symmetric NAT (a member links to its head
 * only), but a head behind one cannot be linked by them: a cluster where
 * every candidate is behind one joins a cluster with an eligible head. */
static void
merge_into (HierCoord *c, ProtoOutbox *out, Cluster *k, guint into)
{
  Cluster *o = g_ptr_array_index (c->clusters, into);
  guint n = k->members->len;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId id = g_array_index (k->members, ProtoNodeId, i);
      Member *m = _hier_coord_find_member (c, id, NULL);
      if (m)
        m->cluster = (int) into;
      guint at = 0;
      while (at < o->members->len && g_array_index (o->members, ProtoNodeId, at) < id)
        at++;
      g_array_insert_val (o->members, at, id);
    }
  /* the members stood in k's epochs: o's announcement must be as new */
  o->epoch = MAX (o->epoch, k->epoch);
  g_array_set_size (k->members, 0);
  g_hash_table_remove_all (k->votes);
  k->head = PROTO_NO_NODE;
  k->deadline = DL_TIME_NEVER;
  k->stuck = FALSE;
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, o->head, -1, n,
              "cluster %s: every candidate is behind symmetric NAT: its %u members join cluster %s (head p%u)", k->name,
              n, o->name, o->head);
  _hier_coord_send_cluster (c, out, o);
  _hier_coord_send_heads (c, out);
}

/* Every member voted, or the deadline passed: the head is announced. */
static void
try_tally (HierCoord *c, ProtoOutbox *out, Cluster *k)
{
  if (k->head != PROTO_NO_NODE || k->deadline == DL_TIME_NEVER)
    return;
  gboolean all = g_hash_table_size (k->votes) >= k->members->len;
  if (!all && c->now < k->deadline)
    return;
  ProtoNodeId best = PROTO_NO_NODE;
  guint64 best_key = 0;
  for (guint i = 0; i < k->members->len; i++)
    {
      ProtoNodeId id = g_array_index (k->members, ProtoNodeId, i);
      gpointer v = g_hash_table_lookup (k->votes, GUINT_TO_POINTER (id + 1));
      if (!v)
        continue;
      guint64 vote = GPOINTER_TO_SIZE (v) - 1;
      /* eligible first, then the fewest cuts from members (note_cut),
       * then the score; members are in ascending id, so a tie keeps the
       * lower */
      guint cuts = MIN (_hier_coord_cuts_in_cluster (c, k, id), 0xFFFFu);
      guint64 key = ((vote & 1) << 62) | ((guint64) (0xFFFFu - cuts) << 40) | ((vote >> 1) + 1);
      if (key > best_key)
        best_key = key, best = id;
    }
  if (best == PROTO_NO_NODE)
    {
      /* nobody answered: another epoch, unless the cluster is empty */
      k->deadline = k->members->len ? dl_time_add (c->now, hier_config (&c->cfg)->election_timeout) : DL_TIME_NEVER;
      _hier_coord_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, k->epoch, "cluster %s: no candidacy by the deadline",
               k->name);
      return;
    }
  gboolean eligible = (best_key >> 62) & 1;
  if (!eligible)
    {
      int into = _hier_coord_merge_target (c, k);
      if (into >= 0)
        {
          merge_into (c, out, k, (guint) into);
          return;
        }
      if (c->now < k->deadline && _hier_coord_other_election_on (c, k))
        {
          if (!k->stuck)
            _hier_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, k->epoch,
                        "cluster %s: every candidate is behind symmetric NAT: waits for another cluster's head",
                        k->name);
          k->stuck = TRUE;
          return;
        }
    }
  k->stuck = FALSE;
  k->head = best;
  k->deadline = DL_TIME_NEVER;
  _hier_coord_observe (c, out, PROTO_OBS_SOURCE_CHOSEN, best, -1, k->epoch,
              "cluster %s: p%u is head (epoch %u, %u of %u candidacies%s%s)", k->name, best, k->epoch,
              g_hash_table_size (k->votes), k->members->len, all ? "" : ", the rest timed out",
              eligible ? "" : ", behind symmetric NAT: no cluster to merge into");
  _hier_coord_send_cluster (c, out, k);
  _hier_coord_send_heads (c, out);
  /* clusters that waited for a head to merge into, or for the elections to end */
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o->stuck && (eligible || !_hier_coord_other_election_on (c, o)))
        try_tally (c, out, o);
    }
}

/* min_participants peers said hello: the clusters form, elections start. */
static void
form_clusters (HierCoord *c, ProtoOutbox *out)
{
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->region)
        g_ptr_array_add (order, m);
    }
  g_ptr_array_sort (order, _hier_coord_cmp_member_region);
  guint i = 0;
  while (i < order->len)
    {
      const char *region = ((Member *) order->pdata[i])->region;
      guint j = i;
      while (j < order->len && strcmp (((Member *) order->pdata[j])->region, region) == 0)
        j++;
      guint n = j - i, size = MAX (hier_config (&c->cfg)->cluster_size, 1);
      guint chunks = (n + size - 1) / size;
      for (guint q = 0; q < chunks; q++)
        {
          /* balanced: chunk q takes members [i + n q / chunks, i + n (q + 1) / chunks) */
          g_autofree char *name = chunks > 1 || !*region ? g_strdup_printf ("%s%s%u", region, *region ? "." : "c", q + 1)
                                                         : g_strdup (region);
          Cluster *k = _hier_coord_cluster_new (c, name);
          for (guint r = i + n * q / chunks; r < i + n * (q + 1) / chunks; r++)
            {
              Member *m = order->pdata[r];
              m->cluster = (int) c->clusters->len - 1;
              g_array_append_val (k->members, m->id);
            }
          g_array_sort (k->members, hier_cmp_id);
        }
      i = j;
    }
  clusters_formed (c, out, order->len);
}

static void
clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers)
{
  c->base.state = COORD_CLUSTERED;
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, c->clusters->len, "%u peers in %u clusters", n_peers,
              c->clusters->len);
  for (guint q = 0; q < c->clusters->len; q++)
    start_election (c, out, g_ptr_array_index (c->clusters, q), 1, "formed");
}

/* At least min_participants said hello, and everyone connected so far has
 * (peers that connect together cluster together). */
static void
maybe_form (HierCoord *c, ProtoOutbox *out)
{
  if (_hier_coord_formed (c) || _hier_coord_probing (c))
    return;
  guint hellos = 0;
  for (guint i = 0; i < c->members->len; i++)
    hellos += ((Member *) g_ptr_array_index (c->members, i))->region != NULL;
  if (hellos < MAX (c->cfg.min_participants, 1))
    {
      c->form_deadline = DL_TIME_NEVER;   /* not a timer to fire again and again */
      return;
    }
  if (hellos == c->members->len || c->now >= c->form_deadline)
    {
      if (hellos < c->members->len)
        _hier_coord_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, c->members->len - hellos,
                 "election_timeout: the clusters form without the peers that never said hello");
      c->form_deadline = DL_TIME_NEVER;
      if (hier_config (&c->cfg)->cluster_by_latency)
        latency_start (c, out);
      else
        form_clusters (c, out);
    }
  else if (c->form_deadline == DL_TIME_NEVER)
    c->form_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

/* A peer after the clusters formed: the smallest cluster of its region
 * (cluster_by = latency: of its landmark's group, below). */
static void
place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  if (hier_config (&c->cfg)->cluster_by_latency)
    {
      latency_place_late (c, out, m);
      return;
    }
  Cluster *best = NULL;
  int best_i = -1;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      gboolean same = k->members->len == 0 ? FALSE : strcmp (_hier_coord_find_member (c, g_array_index (k->members, ProtoNodeId, 0), NULL)->region,
                                                             m->region) == 0;
      if (same && k->members->len < MAX (hier_config (&c->cfg)->cluster_size, 1) && !_hier_coord_unreachable_head (c, m, k)
          && (!best || k->members->len < best->members->len))
        best = k, best_i = (int) q;
    }
  if (!best)
    {
      g_autofree char *name = g_strdup_printf ("%s%s%u", m->region, *m->region ? "." : "c", c->clusters->len + 1);
      _hier_coord_cluster_new (c, name);
      best_i = (int) c->clusters->len - 1;
    }
  place_into (c, out, m, (guint) best_i);
}

static void
place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at_cluster)
{
  Cluster *best = g_ptr_array_index (c->clusters, at_cluster);
  m->cluster = (int) at_cluster;
  guint at = 0;
  while (at < best->members->len && g_array_index (best->members, ProtoNodeId, at) < m->id)
    at++;
  g_array_insert_val (best->members, at, m->id);
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, m->id, -1, -1, "joins cluster %s", best->name);
  if (best->head == PROTO_NO_NODE && best->deadline == DL_TIME_NEVER)
    start_election (c, out, best, best->epoch + 1, "a peer joined a cluster without a head");
  else
    _hier_coord_send_cluster (c, out, best);
}

/* ---- clustering by measured latency (`cluster_by = latency`): peers
 * measure round trips to landmarks over links, and the coordinator groups
 * them (the computation: hier-latency.c, a leaf).
 *
 * Landmark binning (Ratnasamy, Handley, Karp and Shenker, "Topologically-
 * aware overlay construction and server selection", INFOCOM 2002) with the
 * landmarks chosen farthest first (Gonzalez's k-center, 1985) and a radius,
 * as the leader algorithm (Hartigan, "Clustering Algorithms", 1975):
 *
 * 1. the first landmark is the lowest-id peer not behind symmetric NAT;
 * 2. every peer not yet in a group measures its round trip to it
 *    (HierProbe to the peer and to the landmark, which opens the links;
 *    HierPing and HierPong over the link; HierRtt to the coordinator); an
 *    answer missing election_timeout after the probe counts as no link;
 * 3. a peer within cluster_radius joins the landmark's group;
 * 4. the next landmark is the peer still outside every group that is
 *    farthest from all landmarks so far (its shortest round trip the
 *    longest; no link counts as farthest; ties: the lowest id), again not
 *    behind symmetric NAT, and step 2 follows;
 * 5. once every peer is in a group, or only peers behind symmetric NAT are
 *    left (they cannot be a landmark for each other), those join the group
 *    of their nearest landmark, and each group is split into balanced
 *    chunks of at most cluster_size in id order: the clusters lat1, lat2.1,
 *    lat2.2, ...
 *
 * A landmark is one probe round (two link round trips and the signalling
 * of the link), so the clusters form after about one such round per group.
 * A peer after the clusters formed measures every landmark at once and
 * joins the first (in their order) within cluster_radius, else the
 * nearest, in the smallest cluster of that group with room. */


/* Every peer is in a group: the clusters form. */
static void
latency_finish (HierCoord *c, ProtoOutbox *out)
{
  c->base.state = COORD_GATHERING;
  c->probe_deadline = DL_TIME_NEVER;
  guint n = 0, size = MAX (hier_config (&c->cfg)->cluster_size, 1);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      g_array_set_size (ids, 0);
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->region && m->probed && !m->leaving && m->lat.group == (int) g)
            g_array_append_val (ids, m->id);
        }
      guint cnt = ids->len, chunks = (cnt + size - 1) / size;
      n += cnt;
      for (guint q = 0; q < chunks; q++)
        {
          g_autofree char *name = hier_latency_cluster_name (g, q, chunks > 1);
          Cluster *k = _hier_coord_cluster_new (c, name);
          k->group = (int) g;
          GString *who = g_string_new (NULL);
          for (guint r = cnt * q / chunks; r < cnt * (q + 1) / chunks; r++)
            {
              ProtoNodeId id = g_array_index (ids, ProtoNodeId, r);
              _hier_coord_find_member (c, id, NULL)->cluster = (int) c->clusters->len - 1;
              g_array_append_val (k->members, id);
              g_string_append_printf (who, " p%u", id);
            }
          _hier_coord_observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, k->members->len,
                      "cluster %s (landmark p%u):%s", name, g_array_index (c->landmarks, ProtoNodeId, g), who->str);
          g_string_free (who, TRUE);
        }
    }
  clusters_formed (c, out, n);
  /* peers that said hello while the landmarks were measured come in as late ones */
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->region && !m->probed && !m->leaving && m->cluster < 0 && m->late_left == 0)
        latency_place_late (c, out, m);
    }
}

/* ... every peer is behind symmetric NAT: no links between them to
 * measure; one group, a landmark in name only */
static void
one_group (HierCoord *c, ProtoOutbox *out, guint left)
{
  Member *pick = NULL;
  for (guint i = 0; i < c->members->len && !pick; i++)
    if (_hier_coord_unassigned (g_ptr_array_index (c->members, i)))
      pick = g_ptr_array_index (c->members, i);
  g_array_append_val (c->landmarks, pick->id);
  for (guint i = 0; i < c->members->len; i++)
    if (_hier_coord_unassigned (g_ptr_array_index (c->members, i)))
      ((Member *) g_ptr_array_index (c->members, i))->lat.group = 0;
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, pick->id, -1, left,
              "every peer is behind symmetric NAT: nothing to measure, one group");
  latency_finish (c, out);
}

/* ... no landmark left to pick: the peers still outside (behind
 * symmetric NAT) join their nearest landmark's group */
static void
nearest_groups (HierCoord *c, ProtoOutbox *out, guint left)
{
  if (left)
    _hier_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, left,
                "%u peers behind symmetric NAT outside every group: each joins its nearest landmark's", left);
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (_hier_coord_unassigned (m))
        m->lat.group = MAX (m->lat.best_group, 0);
    }
  latency_finish (c, out);
}

/* The next landmark (step 4), or the end (step 5). */
static void
next_landmark (HierCoord *c, ProtoOutbox *out)
{
  guint left;
  Member *pick = _hier_coord_pick_landmark (c, &left);
  if (!pick && left && c->landmarks->len == 0)
    {
      one_group (c, out, left);
      return;
    }
  if (!pick)
    {
      nearest_groups (c, out, left);
      return;
    }
  guint group = c->landmarks->len;
  g_array_append_val (c->landmarks, pick->id);
  pick->lat.group = (int) group;
  pick->lat.best_rtt = 0;
  pick->lat.best_group = (int) group;
  g_autoptr (GArray) probers = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (_hier_coord_unassigned (m))
        {
          g_array_append_val (probers, m->id);
          m->awaited = TRUE;
        }
    }
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, pick->id, -1, group + 1, "landmark %u: p%u, measured by %u peers", group + 1,
              pick->id, probers->len);
  if (probers->len == 0)
    {
      latency_finish (c, out);
      return;
    }
  _hier_coord_probe_landmark (c, out, group, pick->id, (const ProtoNodeId *) (const void *) probers->data, probers->len);
  for (guint i = 0; i < probers->len; i++)
    _hier_coord_probe (c, out, g_array_index (probers, ProtoNodeId, i), group, pick->id);
  c->probe_waiting = probers->len;
  c->probe_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

static void
probe_done (HierCoord *c, ProtoOutbox *out)
{
  c->probe_deadline = DL_TIME_NEVER;
  guint g = c->landmarks->len - 1, in = 0;
  for (guint i = 0; i < c->members->len; i++)
    in += ((Member *) g_ptr_array_index (c->members, i))->lat.group == (int) g;
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, in,
              "landmark %u: %u peers in its group", g + 1, in);
  next_landmark (c, out);
}

static void
latency_start (HierCoord *c, ProtoOutbox *out)
{
  c->base.state = COORD_PROBING;
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      m->probed = m->region != NULL;
    }
  next_landmark (c, out);
}

/* A late peer's answers are all in (or its deadline passed): its cluster. */
static void
late_done (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->late_left = 0;
  m->late_deadline = DL_TIME_NEVER;
  c->late_probing--;
  int g = hier_latency_late_group (&m->lat);
  m->lat.group = g;
  int best = -1;
  guint n_in_group = 0;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      if (k->group != g)
        continue;
      n_in_group++;
      if (k->members->len < MAX (hier_config (&c->cfg)->cluster_size, 1) && !_hier_coord_unreachable_head (c, m, k)
          && (best < 0 || k->members->len < ((Cluster *) g_ptr_array_index (c->clusters, best))->members->len))
        best = (int) q;
    }
  if (best < 0)
    {
      g_autofree char *name = hier_latency_cluster_name ((guint) g, n_in_group, TRUE);
      Cluster *k = _hier_coord_cluster_new (c, name);
      k->group = g;
      best = (int) c->clusters->len - 1;
    }
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, m->id, -1, g + 1, "landmark %d's group (%s)", g + 1,
              m->lat.late_within >= 0 ? "within cluster_radius" : "the nearest");
  place_into (c, out, m, (guint) best);
}

static void
latency_place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->lat.late_within = -1;
  m->lat.best_rtt = G_MAXUINT64;
  m->lat.best_group = -1;
  m->late_left = 0;
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      ProtoNodeId lm = g_array_index (c->landmarks, ProtoNodeId, g);
      Member *l = _hier_coord_find_member (c, lm, NULL);
      if (!l || l->leaving || lm == m->id)
        continue;
      _hier_coord_probe_landmark (c, out, g, lm, &m->id, 1);
      _hier_coord_probe (c, out, m->id, g, lm);
      m->late_left++;
    }
  c->late_probing++;
  if (m->late_left == 0)
    {
      late_done (c, out, m);
      return;
    }
  m->late_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

static void
latency_rtt (HierCoord *c, ProtoOutbox *out, Member *m, const ProtoMsg *msg)
{
  guint g = msg->round;
  if (g >= c->landmarks->len || g_array_index (c->landmarks, ProtoNodeId, g) != msg->node)
    return;
  if (m->late_left > 0)
    {
      hier_latency_took (&m->lat, g, msg->key, (guint64) hier_config (&c->cfg)->cluster_radius, TRUE);
      if (--m->late_left == 0)
        {
          m->late_left = 1;   /* late_done counts it down */
          late_done (c, out, m);
        }
      return;
    }
  if (!_hier_coord_probing (c) || !m->awaited || g != c->landmarks->len - 1)
    return;
  m->awaited = FALSE;
  hier_latency_took (&m->lat, g, msg->key, (guint64) hier_config (&c->cfg)->cluster_radius, FALSE);
  if (--c->probe_waiting == 0)
    probe_done (c, out);
}

static void
latency_deadline (HierCoord *c, ProtoOutbox *out)
{
  if (_hier_coord_probing (c) && c->probe_deadline <= c->now)
    {
      guint missing = 0;
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->awaited)
            m->awaited = FALSE, missing++;
        }
      c->probe_waiting = 0;
      _hier_coord_observe (c, out, PROTO_OBS_TIMER_FIRED, g_array_index (c->landmarks, ProtoNodeId, c->landmarks->len - 1),
                  -1, missing, "election_timeout: %u round trips to the landmark unanswered: no link", missing);
      probe_done (c, out);
    }
  for (guint i = 0; c->late_probing && i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->late_left > 0 && m->late_deadline <= c->now)
        late_done (c, out, m);
    }
}

static void
latency_member_left (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->leaving = TRUE;
  if (m->late_left > 0)
    {
      m->late_left = 0;
      c->late_probing--;
    }
  if (_hier_coord_probing (c) && m->awaited)
    {
      m->awaited = FALSE;
      if (--c->probe_waiting == 0)
        probe_done (c, out);
    }
}

static void
member_left (HierCoord *c, ProtoOutbox *out, ProtoNodeId id)
{
  guint at;
  Member *m = _hier_coord_find_member (c, id, &at);
  if (!m)
    return;
  _hier_coord_observe (c, out, PROTO_OBS_NOTE, id, -1, -1, "stream closed: left");
  latency_member_left (c, out, m);
  if (m->cluster >= 0)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      for (guint i = 0; i < k->members->len; i++)
        if (g_array_index (k->members, ProtoNodeId, i) == id)
          {
            g_array_remove_index (k->members, i);
            break;
          }
      g_hash_table_remove (k->votes, GUINT_TO_POINTER (id + 1));
      g_ptr_array_remove_index (c->members, at);
      if (k->head == id)
        start_election (c, out, k, k->epoch + 1, "the head left");
      else if (k->head != PROTO_NO_NODE)
        _hier_coord_send_cluster (c, out, k);
      else
        try_tally (c, out, k);
      return;
    }
  g_ptr_array_remove_index (c->members, at);
  maybe_form (c, out);   /* it may have been the one hello missing */
}

/* ClientConnected: a new member, answered with NewNodeInfo. */
static gboolean
on_client_connected (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m,
                     guint at)
{
  /* a member's repeat (its NewNodeInfo was lost: hier-peer.c says
   * ClientConnected again after head_timeout in connecting) is
   * answered as the first was, and it stays one member */
  _hier_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  if (!m)
    {
      m = g_new0 (Member, 1);
      m->id = from;
      m->cluster = -1;
      m->lat.group = -1;
      m->lat.best_group = -1;
      m->lat.best_rtt = G_MAXUINT64;
      m->late_deadline = DL_TIME_NEVER;
      g_ptr_array_insert (c->members, (gint) at, m);
    }
  {
    ProtoMsg r;
    proto_msg_init (&r, PROTO_MSG_WELCOME);
    r.node = from;
    r.joined_mid_training = _hier_coord_formed (c);   /* it syncs from its head before it trains */
    _hier_coord_send_msg (c, out, from, &r);
  }
  return TRUE;
}

/* HierCandidacy from a placed member: a vote in its cluster's election,
 * which it may start or split off. */
static gboolean
on_candidacy (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || m->cluster < 0)
    return FALSE;
  Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
  if (msg->round > k->epoch)
    {
      _hier_coord_note_cut (c, from, k->head);
      if (k->head != PROTO_NO_NODE && k->head != from && _hier_coord_cut_both_ways (c, from, k->head))
        k = split_off (c, out, m, k, msg->round, TRUE);
      else if (k->head != PROTO_NO_NODE && k->head != from && _hier_coord_lost_every_head (c, k, from))
        k = split_off (c, out, m, k, msg->round, FALSE);
      else
        start_election (c, out, k, msg->round, "a member lost its head");
    }
  if (msg->round != k->epoch || k->head != PROTO_NO_NODE)
    {
      _hier_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "candidacy for epoch %u: %s",
               msg->round, k->head != PROTO_NO_NODE ? "the election is over" : "another epoch");
      /* it missed an announcement (a lost message): where things are */
      _hier_coord_send_cluster_to (c, out, k, from);
      return TRUE;
    }
  _hier_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
  guint64 vote = ((guint64) msg->degree << 1) | (msg->helper ? 1 : 0);
  g_hash_table_insert (k->votes, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) vote + 1));
  try_tally (c, out, k);
  return TRUE;
}

/* HierHello: a member's score and region, after which the clusters form
 * (or it joins one).  A repeat (hier-peer.c says HierHello again while no
 * HierCluster came, or heading with no heads tree) is counted once;
 * placed, it missed its cluster's announcement, or, a head, the tree (a
 * lost HierHeads kept a head going alone every round). */
static gboolean
on_hello (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || (m->region && m->cluster < 0))
    return FALSE;
  _hier_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
  if (m->region)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      _hier_coord_send_cluster_to (c, out, k, from);
      if (k->head == from)
        _hier_coord_send_heads_to (c, out, from);
      return TRUE;
    }
  m->region = g_strdup (msg->signal_data ? msg->signal_data : "");
  m->score = msg->degree;
  m->nat = msg->helper;
  if (_hier_coord_formed (c))
    place_late (c, out, m);
  else
    maybe_form (c, out);
  return TRUE;
}

/* HierRtt: a member's round trip to a landmark (cluster_by = latency). */
static gboolean
on_rtt (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !m->region)
    return FALSE;
  _hier_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->key > G_MAXINT64 ? -1 : (int64_t) msg->key,
              NULL);
  latency_rtt (c, out, m, msg);
  return TRUE;
}

/* PeerIsReady with helper set: a member finished and stays (resting). */
static gboolean
on_peer_is_ready (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !msg->helper || m->resting)
    return FALSE;
  _hier_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  m->resting = TRUE;
  if (m->cluster >= 0)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      if (k->head != PROTO_NO_NODE)
        {
          _hier_coord_send_cluster (c, out, k);
          _hier_coord_send_heads (c, out);
        }
    }
  return TRUE;
}

/* SignalForPeer: relayed to the member it names, from the sender. */
static gboolean
on_signal_for_peer (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !_hier_coord_find_member (c, msg->node, NULL))
    {
      _hier_coord_observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1, "signal to an unknown peer: dropped");
      return TRUE;
    }
  proto_session_relay_observed (out, _hier_coord_phase_names[c->base.state], -1, from, msg, TRUE);
  return TRUE;
}

/* A message: one handler per type; one that does not take it (FALSE), or a
 * type it has none for, is dropped. */
static void
handle_message (HierCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint at;
  Member *m = _hier_coord_find_member (c, from, &at);
  gboolean taken = FALSE;
  switch (msg->type)
    {
    case PROTO_MSG_HELLO:
      taken = on_client_connected (c, out, from, msg, m, at);
      break;
    case PROTO_MSG_HIER_HELLO:
      taken = on_hello (c, out, from, msg, m);
      break;
    case PROTO_MSG_HIER_CANDIDACY:
      taken = on_candidacy (c, out, from, msg, m);
      break;
    case PROTO_MSG_HIER_RTT:
      taken = on_rtt (c, out, from, msg, m);
      break;
    case PROTO_MSG_READY:
      taken = on_peer_is_ready (c, out, from, msg, m);
      break;
    case PROTO_MSG_SIGNAL:
      taken = on_signal_for_peer (c, out, from, msg, m);
      break;
    default:
      break;
    }
  if (!taken)
    _hier_coord_observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
}

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  HierCoord *c = impl;
  c->now = now;
  DlTime before = c->base.deadline;
  switch (in->kind)
    {
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (c, in->from, in->msg, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      member_left (c, out, in->from);
      break;
    case PROTO_IN_DEADLINE:
      maybe_form (c, out);
      latency_deadline (c, out);
      for (guint q = 0; q < c->clusters->len; q++)
        try_tally (c, out, g_ptr_array_index (c->clusters, q));
      break;
    default:
      break;
    }
  c->base.deadline = _hier_coord_deadline (c);
  if (c->base.deadline != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = c->base.deadline;
    }
}

/* its phase and deadline are the base's; it takes every message and drops
 * what it has no use for itself: listens is the default */
static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .free = _hier_coord_free,
};

ProtoMachine *
hier_coord_new (const ProtoConfig *cfg)
{
  HierCoord *c = g_new0 (HierCoord, 1);
  proto_machine_base_init (&c->base, _hier_coord_phase_names, COORD_GATHERING);
  c->cfg = *cfg;
  c->members = g_ptr_array_new_with_free_func (_hier_coord_member_free);
  c->clusters = g_ptr_array_new_with_free_func (_hier_coord_cluster_free);
  c->form_deadline = DL_TIME_NEVER;
  c->landmarks = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  c->probe_deadline = DL_TIME_NEVER;
  c->cut = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  return proto_machine_new (&coord_class, &c->base);
}
