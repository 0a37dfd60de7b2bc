/* hier-coord-private.h — the hierarchical coordinator's state, shared by
 * hier-coord.c (every transition, in `static` handlers) and its leaves,
 * which it calls and which never call it: hier-coord-effects.c
 * (observations, sends and the messages it encodes: a cluster's
 * announcement, the heads tree, the probes) and hier-coord-records.c (its
 * records: its phases' names, members and clusters, the cuts between
 * members and heads, selection helpers, its deadline, freeing and the
 * accessors of hier.h); the effects read the records, which call neither
 * back. */
#pragma once

#include "protocol/hierarchical/hier.h"
#include "protocol/hierarchical/hier-latency-private.h"

G_BEGIN_DECLS


typedef struct {
  ProtoNodeId id;
  char *region;
  guint32 score;
  gboolean nat;
  int cluster;            /* index in clusters, -1 before they form */
  gboolean resting;       /* finished and stays: no update of its is awaited */
  /* cluster_by = latency (below; the computation in hier-latency.c) */
  HierLatencyPlace lat;   /* its group, from its round trips */
  gboolean probed;        /* it was among the peers that formed the clusters */
  gboolean awaited;       /* its round trip to the current landmark is awaited */
  gboolean leaving;       /* its stream closed: it is being removed */
  guint late_left;        /* placed late: answers still awaited, one per landmark */
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

/* its phase (the base's state) */
typedef enum {
  COORD_GATHERING,        /* hellos come in */
  COORD_PROBING,          /* cluster_by = latency: the landmarks are being measured: the clusters form after */
  COORD_CLUSTERED,        /* the clusters formed */
} CoordPhase;


typedef struct HierCoord HierCoord;

struct HierCoord {
  ProtoMachineBase base;  /* its phase, its deadline */
  ProtoConfig cfg;
  GPtrArray *members;     /* Member*, ascending id */
  GPtrArray *clusters;    /* Cluster* */
  uint32_t heads_version;
  DlTime now;
  DlTime form_deadline;   /* min_participants said hello, some connected peer not yet: form then anyway */
  /* cluster_by = latency (below) */
  GArray *landmarks;      /* ProtoNodeId, in the order chosen: group g's is landmarks[g] */
  guint probe_waiting;    /* answers awaited for the current landmark */
  DlTime probe_deadline;  /* ... until then (election_timeout after the probe went out) */
  guint late_probing;     /* members placed late whose probes are out */
  GArray *cut;            /* ProtoNodeId pairs (member, head): a member stood while that head stayed head */
};

/* hier-coord-records.c: its phases' names, by CoordPhase */
extern const char *const _hier_coord_phase_names[];

/* hier-coord-effects.c: observations, sends and the messages it encodes */
void _hier_coord_observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                          int64_t value, const char *fmt, ...) G_GNUC_PRINTF (7, 8);
void _hier_coord_send_msg (HierCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
void _hier_coord_send_cluster_to (HierCoord *c, ProtoOutbox *out, Cluster *k, ProtoNodeId only);
void _hier_coord_send_cluster (HierCoord *c, ProtoOutbox *out, Cluster *k);
void _hier_coord_send_heads_to (HierCoord *c, ProtoOutbox *out, ProtoNodeId only);
void _hier_coord_send_heads (HierCoord *c, ProtoOutbox *out);
void _hier_coord_probe (HierCoord *c, ProtoOutbox *out, ProtoNodeId prober, guint32 group, ProtoNodeId landmark);
void _hier_coord_probe_landmark (HierCoord *c, ProtoOutbox *out, guint32 group, ProtoNodeId landmark,
                                 const ProtoNodeId *probers, guint n);

/* hier-coord-records.c: members, clusters, cuts, selection helpers, its deadline, freeing */
gboolean _hier_coord_formed (const HierCoord *c);
gboolean _hier_coord_probing (const HierCoord *c);
Member *_hier_coord_find_member (const HierCoord *c, ProtoNodeId id, guint *at);
void _hier_coord_member_free (gpointer p);
void _hier_coord_cluster_free (gpointer p);
Cluster *_hier_coord_cluster_new (HierCoord *c, const char *name);
void _hier_coord_note_cut (HierCoord *c, ProtoNodeId member, ProtoNodeId head);
gboolean _hier_coord_cut_both_ways (const HierCoord *c, ProtoNodeId a, ProtoNodeId b);
gboolean _hier_coord_lost_every_head (const HierCoord *c, const Cluster *k, ProtoNodeId m);
guint _hier_coord_cuts_in_cluster (const HierCoord *c, const Cluster *k, ProtoNodeId id);
gboolean _hier_coord_unreachable_head (const HierCoord *c, const Member *m, const Cluster *k);
int _hier_coord_merge_target (HierCoord *c, const Cluster *k);
gboolean _hier_coord_other_election_on (const HierCoord *c, const Cluster *k);
gint _hier_coord_cmp_member_region (gconstpointer a, gconstpointer b);
gboolean _hier_coord_unassigned (const Member *m);
Member *_hier_coord_pick_landmark (const HierCoord *c, guint *left);
DlTime _hier_coord_latency_next_deadline (const HierCoord *c);
DlTime _hier_coord_deadline (const HierCoord *c);
void _hier_coord_free (void *impl);

G_END_DECLS
