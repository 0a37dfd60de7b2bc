/* hier-latency-private.h — the computation of the hierarchical
 * coordinator's clustering by latency (hier-latency.c, a leaf the
 * coordinator calls): from measured round trips to landmarks, which
 * landmark's group a peer is in, and which peer is the next landmark.  The
 * probing itself (who measures what, deadlines) is the coordinator's
 * (hier-coord.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A peer's placement, from its round trips so far. */
typedef struct {
  int group;              /* the landmark whose group it is in (index in landmarks), -1: none yet */
  guint64 best_rtt;       /* its shortest round trip to a landmark so far (G_MAXUINT64: none) */
  int best_group;         /* ... to that landmark's group */
  int late_within;        /* placed late: the first landmark (in their order) within the radius, -1: none yet */
} HierLatencyPlace;

/* A round trip `rtt_ns` to landmark `group` (G_MAXUINT64: no link).  While
 * the clusters form (late FALSE) a peer within radius_ns joins the group
 * if it has none; a late peer remembers the first group within it. */
void hier_latency_took (HierLatencyPlace *r, guint group, guint64 rtt_ns, guint64 radius_ns, gboolean late);

/* A late peer's group, its answers in: the first within the radius, else
 * the nearest (0 if it reached none). */
int hier_latency_late_group (const HierLatencyPlace *r);

/* The next landmark among the peers outside every group (ascending id):
 * the one farthest from all landmarks so far (its shortest round trip the
 * longest; a tie keeps the lower id) not behind symmetric NAT; its index,
 * -1 if every one is behind it. */
int hier_latency_pick_landmark (const HierLatencyPlace *const *outside, const gboolean *nat, guint n);

/* (transfer full) the name of group g's (0-based) cluster q:
 * lat<g+1>.<q+1> if the group is split (or may be), else lat<g+1>. */
char *hier_latency_cluster_name (guint group, guint q, gboolean split);

G_END_DECLS
