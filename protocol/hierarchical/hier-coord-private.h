/* hier-coord-private.h — the hierarchical coordinator's state, shared by
 * hier-coord.c (admission, clusters, elections, the heads tree) and
 * hier-latency.c (clustering by measured latency: landmarks and probes). */
#pragma once

#include "protocol/hierarchical/hier.h"

G_BEGIN_DECLS

typedef struct {
  ProtoNodeId id;
  char *region;
  guint32 score;
  gboolean nat;
  int cluster;            /* index in clusters, -1 before they form */
  gboolean resting;       /* finished and stays: no update of its is awaited */
  /* cluster_by = latency (hier-latency.c) */
  int group;              /* the landmark whose group it is in (index in landmarks), -1: none yet */
  gboolean probed;        /* it was among the peers that formed the clusters */
  gboolean awaited;       /* its round trip to the current landmark is awaited */
  gboolean leaving;       /* its stream closed: it is being removed */
  guint64 best_rtt;       /* its shortest round trip to a landmark so far (G_MAXUINT64: none) */
  int best_group;         /* ... to that landmark's group */
  guint late_left;        /* placed late: answers still awaited, one per landmark */
  int late_within;        /* ... the first landmark (in their order) within cluster_radius, -1: none yet */
  DlTime late_deadline;   /* ... until then */
} Member;

typedef struct {
  char *name;
  GArray *members;        /* ProtoNodeId, ascending */
  uint32_t epoch;
  ProtoNodeId head;       /* PROTO_NO_NODE during an election */
  DlTime deadline;        /* the election's end (NEVER: none on) */
  GHashTable *votes;      /* candidate id + 1 -> score << 1 | eligible (this epoch) */
  int group;              /* cluster_by = latency: its landmark's group; -1 by region */
  gboolean stuck;         /* every candidate is behind symmetric NAT: it waits for another cluster's
                             eligible head to merge into */
} Cluster;

struct HierCoord {
  ProtoConfig cfg;
  GPtrArray *members;     /* Member*, ascending id */
  GPtrArray *clusters;    /* Cluster* */
  gboolean formed;
  uint32_t heads_version;
  DlTime now;
  DlTime form_deadline;   /* min_participants said hello, some connected peer not yet: form then anyway */
  /* cluster_by = latency (hier-latency.c) */
  gboolean probing;       /* the landmarks are being measured: the clusters form after */
  GArray *landmarks;      /* ProtoNodeId, in the order chosen: group g's is landmarks[g] */
  guint probe_waiting;    /* answers awaited for the current landmark */
  DlTime probe_deadline;  /* ... until then (election_timeout after the probe went out) */
  guint late_probing;     /* members placed late whose probes are out */
};

void hc_observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
                 const char *fmt, ...) G_GNUC_PRINTF (7, 8);
void hc_send (HierCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
Member *hc_find (const HierCoord *c, ProtoNodeId id, guint *at);
Cluster *hc_cluster_new (HierCoord *c, const char *name);
void hc_start_election (HierCoord *c, ProtoOutbox *out, Cluster *k, uint32_t epoch, const char *why);
/* m joins clusters[at] (a late peer; its election, or the cluster as it is, goes out). */
void hc_place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at);
/* A late peer behind symmetric NAT cannot link to a head behind one: TRUE
 * if k is such a cluster for m. */
gboolean hc_unreachable_head (const HierCoord *c, const Member *m, const Cluster *k);
/* The clusters are made: the note, and every cluster's first election. */
void hc_clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers);

/* hier-latency.c */
/* Enough peers said hello: the first landmark is measured. */
void hl_start (HierCoord *c, ProtoOutbox *out);
/* A HierRtt from m. */
void hl_rtt (HierCoord *c, ProtoOutbox *out, Member *m, const ProtoMsg *msg);
/* A deadline: a probe's answers that did not come count as no link. */
void hl_deadline (HierCoord *c, ProtoOutbox *out);
DlTime hl_next_deadline (const HierCoord *c);
/* A peer after the clusters formed: its round trips to every landmark first. */
void hl_place_late (HierCoord *c, ProtoOutbox *out, Member *m);
/* m is leaving: no answer of its is awaited any more. */
void hl_member_left (HierCoord *c, ProtoOutbox *out, Member *m);

G_END_DECLS
