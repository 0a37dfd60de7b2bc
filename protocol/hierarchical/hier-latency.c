/* hier-latency.c — the hierarchical coordinator's clustering by measured
 * latency (`cluster_by = latency`; hier-coord-private.h): peers measure
 * round trips to landmarks over links, and the coordinator groups them.
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
#include "config.h"

#include "protocol/hierarchical/hier-coord-private.h"

#include <string.h>

static gboolean
unassigned (const Member *m)
{
  return m->region && m->probed && !m->leaving && m->group < 0;
}

static void
probe (HierCoord *c, ProtoOutbox *out, ProtoNodeId prober, guint32 group, ProtoNodeId landmark)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_set_peers (&m, &landmark, 1);
  hc_send (c, out, prober, &m);
}

static void
probe_landmark (HierCoord *c, ProtoOutbox *out, guint32 group, ProtoNodeId landmark, const ProtoNodeId *probers,
                guint n)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_take_indices (&m, g_memdup2 (probers, n * sizeof *probers), n);
  hc_send (c, out, landmark, &m);
}

static void
took (HierCoord *c, Member *m, guint group, guint64 rtt)
{
  if (rtt < m->best_rtt)
    m->best_rtt = rtt, m->best_group = (int) group;
  if (rtt <= (guint64) c->cfg.cluster_radius && m->late_left == 0 && m->group < 0)
    m->group = (int) group;
  if (rtt <= (guint64) c->cfg.cluster_radius && m->late_left > 0
      && (m->late_within < 0 || (int) group < m->late_within))
    m->late_within = (int) group;
}

/* Every peer is in a group: the clusters form. */
static void
finish (HierCoord *c, ProtoOutbox *out)
{
  c->probing = FALSE;
  c->probe_deadline = DL_TIME_NEVER;
  guint n = 0, size = MAX (c->cfg.cluster_size, 1);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      g_array_set_size (ids, 0);
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->region && m->probed && !m->leaving && m->group == (int) g)
            g_array_append_val (ids, m->id);
        }
      guint cnt = ids->len, chunks = (cnt + size - 1) / size;
      n += cnt;
      for (guint q = 0; q < chunks; q++)
        {
          g_autofree char *name = chunks > 1 ? g_strdup_printf ("lat%u.%u", g + 1, q + 1)
                                             : g_strdup_printf ("lat%u", g + 1);
          Cluster *k = hc_cluster_new (c, name);
          k->group = (int) g;
          GString *who = g_string_new (NULL);
          for (guint r = cnt * q / chunks; r < cnt * (q + 1) / chunks; r++)
            {
              ProtoNodeId id = g_array_index (ids, ProtoNodeId, r);
              hc_find (c, id, NULL)->cluster = (int) c->clusters->len - 1;
              g_array_append_val (k->members, id);
              g_string_append_printf (who, " p%u", id);
            }
          hc_observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, k->members->len,
                      "cluster %s (landmark p%u):%s", name, g_array_index (c->landmarks, ProtoNodeId, g), who->str);
          g_string_free (who, TRUE);
        }
    }
  hc_clusters_formed (c, out, n);
  /* peers that said hello while the landmarks were measured come in as late ones */
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->region && !m->probed && !m->leaving && m->cluster < 0 && m->late_left == 0)
        hl_place_late (c, out, m);
    }
}

/* The next landmark (step 4), or the end (step 5). */
static void
next_landmark (HierCoord *c, ProtoOutbox *out)
{
  Member *pick = NULL;
  guint left = 0;
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (!unassigned (m))
        continue;
      left++;
      if (!m->nat && (!pick || m->best_rtt > pick->best_rtt))
        pick = m;   /* ascending id: a tie keeps the lower */
    }
  if (!pick && left && c->landmarks->len == 0)
    {
      /* every peer is behind symmetric NAT: no links between them to
       * measure; one group, a landmark in name only */
      for (guint i = 0; i < c->members->len && !pick; i++)
        if (unassigned (g_ptr_array_index (c->members, i)))
          pick = g_ptr_array_index (c->members, i);
      g_array_append_val (c->landmarks, pick->id);
      for (guint i = 0; i < c->members->len; i++)
        if (unassigned (g_ptr_array_index (c->members, i)))
          ((Member *) g_ptr_array_index (c->members, i))->group = 0;
      hc_observe (c, out, PROTO_OBS_NOTE, pick->id, -1, left,
                  "every peer is behind symmetric NAT: nothing to measure, one group");
      finish (c, out);
      return;
    }
  if (!pick)
    {
      if (left)
        hc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, left,
                    "%u peers behind symmetric NAT outside every group: each joins its nearest landmark's", left);
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (unassigned (m))
            m->group = MAX (m->best_group, 0);
        }
      finish (c, out);
      return;
    }
  guint group = c->landmarks->len;
  g_array_append_val (c->landmarks, pick->id);
  pick->group = (int) group;
  pick->best_rtt = 0;
  pick->best_group = (int) group;
  g_autoptr (GArray) probers = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (unassigned (m))
        {
          g_array_append_val (probers, m->id);
          m->awaited = TRUE;
        }
    }
  hc_observe (c, out, PROTO_OBS_NOTE, pick->id, -1, group + 1, "landmark %u: p%u, measured by %u peers", group + 1,
              pick->id, probers->len);
  if (probers->len == 0)
    {
      finish (c, out);
      return;
    }
  probe_landmark (c, out, group, pick->id, (const ProtoNodeId *) (const void *) probers->data, probers->len);
  for (guint i = 0; i < probers->len; i++)
    probe (c, out, g_array_index (probers, ProtoNodeId, i), group, pick->id);
  c->probe_waiting = probers->len;
  c->probe_deadline = dl_time_add (c->now, c->cfg.election_timeout);
}

static void
probe_done (HierCoord *c, ProtoOutbox *out)
{
  c->probe_deadline = DL_TIME_NEVER;
  guint g = c->landmarks->len - 1, in = 0;
  for (guint i = 0; i < c->members->len; i++)
    in += ((Member *) g_ptr_array_index (c->members, i))->group == (int) g;
  hc_observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, in,
              "landmark %u: %u peers in its group", g + 1, in);
  next_landmark (c, out);
}

void
hl_start (HierCoord *c, ProtoOutbox *out)
{
  c->probing = TRUE;
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
  int g = m->late_within >= 0 ? m->late_within : MAX (m->best_group, 0);
  m->group = g;
  int best = -1;
  guint n_in_group = 0;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      if (k->group != g)
        continue;
      n_in_group++;
      if (k->members->len < MAX (c->cfg.cluster_size, 1) && !hc_unreachable_head (c, m, k)
          && (best < 0 || k->members->len < ((Cluster *) g_ptr_array_index (c->clusters, best))->members->len))
        best = (int) q;
    }
  if (best < 0)
    {
      g_autofree char *name = g_strdup_printf ("lat%d.%u", g + 1, n_in_group + 1);
      Cluster *k = hc_cluster_new (c, name);
      k->group = g;
      best = (int) c->clusters->len - 1;
    }
  hc_observe (c, out, PROTO_OBS_NOTE, m->id, -1, g + 1, "landmark %d's group (%s)", g + 1,
              m->late_within >= 0 ? "within cluster_radius" : "the nearest");
  hc_place_into (c, out, m, (guint) best);
}

void
hl_place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->late_within = -1;
  m->best_rtt = G_MAXUINT64;
  m->best_group = -1;
  m->late_left = 0;
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      ProtoNodeId lm = g_array_index (c->landmarks, ProtoNodeId, g);
      Member *l = hc_find (c, lm, NULL);
      if (!l || l->leaving || lm == m->id)
        continue;
      probe_landmark (c, out, g, lm, &m->id, 1);
      probe (c, out, m->id, g, lm);
      m->late_left++;
    }
  c->late_probing++;
  if (m->late_left == 0)
    {
      late_done (c, out, m);
      return;
    }
  m->late_deadline = dl_time_add (c->now, c->cfg.election_timeout);
}

void
hl_rtt (HierCoord *c, ProtoOutbox *out, Member *m, const ProtoMsg *msg)
{
  guint g = msg->round;
  if (g >= c->landmarks->len || g_array_index (c->landmarks, ProtoNodeId, g) != msg->node)
    return;
  if (m->late_left > 0)
    {
      took (c, m, g, msg->key);
      if (--m->late_left == 0)
        {
          m->late_left = 1;   /* late_done counts it down */
          late_done (c, out, m);
        }
      return;
    }
  if (!c->probing || !m->awaited || g != c->landmarks->len - 1)
    return;
  m->awaited = FALSE;
  took (c, m, g, msg->key);
  if (--c->probe_waiting == 0)
    probe_done (c, out);
}

void
hl_deadline (HierCoord *c, ProtoOutbox *out)
{
  if (c->probing && c->probe_deadline <= c->now)
    {
      guint missing = 0;
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->awaited)
            m->awaited = FALSE, missing++;
        }
      c->probe_waiting = 0;
      hc_observe (c, out, PROTO_OBS_TIMER_FIRED, g_array_index (c->landmarks, ProtoNodeId, c->landmarks->len - 1),
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

DlTime
hl_next_deadline (const HierCoord *c)
{
  DlTime d = c->probing ? c->probe_deadline : DL_TIME_NEVER;
  for (guint i = 0; c->late_probing && i < c->members->len; i++)
    {
      const Member *m = g_ptr_array_index (c->members, i);
      if (m->late_left > 0)
        d = MIN (d, m->late_deadline);
    }
  return d;
}

void
hl_member_left (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->leaving = TRUE;
  if (m->late_left > 0)
    {
      m->late_left = 0;
      c->late_probing--;
    }
  if (c->probing && m->awaited)
    {
      m->awaited = FALSE;
      if (--c->probe_waiting == 0)
        probe_done (c, out);
    }
}
