/* hier-latency.c — the computation of the hierarchical coordinator's
 * clustering by measured latency (`cluster_by = latency`;
 * hier-latency-private.h).  A leaf: the coordinator (hier-coord.c) runs
 * the probing and calls these; they call nothing back.
 *
 * Landmark binning (Ratnasamy, Handley, Karp and Shenker, "Topologically-
 * aware overlay construction and server selection", INFOCOM 2002) with the
 * landmarks chosen farthest first (Gonzalez's k-center, 1985) and a radius,
 * as the leader algorithm (Hartigan, "Clustering Algorithms", 1975): a peer
 * within cluster_radius of a landmark joins its group; the next landmark
 * is the peer still outside every group that is farthest from all
 * landmarks so far; a late peer joins the first landmark's group (in their
 * order) within cluster_radius, else the nearest. */
#include "config.h"

#include "protocol/hierarchical/hier-latency-private.h"

void
hier_latency_took (HierLatencyPlace *r, guint group, guint64 rtt, guint64 radius, gboolean late)
{
  if (rtt < r->best_rtt)
    r->best_rtt = rtt, r->best_group = (int) group;
  if (rtt <= radius && !late && r->group < 0)
    r->group = (int) group;
  if (rtt <= radius && late && (r->late_within < 0 || (int) group < r->late_within))
    r->late_within = (int) group;
}

int
hier_latency_late_group (const HierLatencyPlace *r)
{
  return r->late_within >= 0 ? r->late_within : MAX (r->best_group, 0);
}

int
hier_latency_pick_landmark (const HierLatencyPlace *const *outside, const gboolean *nat, guint n)
{
  int pick = -1;
  for (guint i = 0; i < n; i++)
    if (!nat[i] && (pick < 0 || outside[i]->best_rtt > outside[pick]->best_rtt))
      pick = (int) i;   /* ascending id: a tie keeps the lower */
  return pick;
}

char *
hier_latency_cluster_name (guint group, guint q, gboolean split)
{
  return split ? g_strdup_printf ("lat%u.%u", group + 1, q + 1) : g_strdup_printf ("lat%u", group + 1);
}
