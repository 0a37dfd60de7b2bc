/* hier-peer-private.h — the hierarchical peer's state, shared by
 * hier-peer.c (every transition, in `static` handlers) and its leaves,
 * which it calls and which never call it: hier-peer-effects.c
 * (observations, sends and the messages it encodes), hier-peer-records.c
 * (its records: its states' names, lookups, clearing, its
 * construction, the machine's accessors and drop rule) and
 * hier-peer-policies.c (the straggler policies' bookkeeping: judging
 * members, blending models). */
#pragma once

#include "protocol/hierarchical/hier.h"
#include "protocol/hierarchical/hier-mix-private.h"
#include "protocol/session/session-links.h"

G_BEGIN_DECLS


/* mixed: a slow member's update, mixed into the next cluster mean. */
typedef struct {
  ProtoNodeId from;
  guint stale;                /* rounds behind the head's */
  LearnWeights *w;
} AsyncIn;

/* A head's aggregate of one round (hier-mix-private.h). */
typedef HierMixPart Agg;

typedef enum {
  HEAD_COLLECT,   /* its members' updates */
  HEAD_GATHER,    /* its children's subtrees */
  HEAD_UP,        /* its subtree went to its parent: the global comes down */
  HEAD_TOP,       /* at the top: the other top heads' subtrees */
} HeadPhase;

typedef struct HierPeer HierPeer;

struct HierPeer {
  ProtoMachineBase base;      /* its state, what it received, connected, rounds done */
  ProtoConfig cfg;
  ProtoNodeId id;
  DlRandom *rng;
  char *region;
  guint32 score;
  gboolean nat;
  LearnWeights *model;
  LearnWeights *initial;      /* the model every peer starts from */
  LearnWeights *last_global;  /* a head's: the latest global it sent down (a late joiner's sync) */
  gboolean synced;
  ProtoNodeId sync_from;      /* the head asked for the latest model (PROTO_NO_NODE: none yet) */
  DlTime sync_deadline;
  int32_t last_round_end;

  /* the cluster, as the coordinator last said */
  uint32_t epoch;
  uint32_t candidacy_epoch;   /* the last epoch it stood in (0: none) */
  ProtoNodeId head;
  GArray *members;            /* ProtoNodeId: whose updates the head awaits */
  gboolean pending;           /* a trained model waits for its round's result */
  ProtoNodeId sent_to;        /* the head it went to (PROTO_NO_NODE: not sent) */
  DlTime result_deadline;
  DlTime stand_deadline;      /* waiting for a head: stand again then (a lost candidacy or announcement) */
  DlTime admit_deadline;      /* connecting: say ClientConnected again then (a lost NewNodeInfo) */
  DlTime hello_deadline;      /* no HierCluster yet: say HierHello again then (a lost hello or cluster) */

  ProtoLinks links;           /* to its head, its members, the other heads (session-links.h) */
  GArray *probes;             /* HierProbe: round trips to landmarks it measures (cluster_by = latency) */

  /* the head's part */
  gboolean is_head;
  HeadPhase phase;
  uint32_t hr;                /* the round it aggregates */
  gboolean hr_set;
  GHashTable *updates;        /* member + 1 -> LearnWeights*: this round */
  GHashTable *next_updates;   /* those that came during the exchange */
  GArray *heads;              /* ProtoNodeId: the top heads it exchanges with (HierHeads; empty below the top) */
  GArray *top_last;           /* ProtoNodeId: the other top heads whose subtree was in its last global: in step */
  GArray *top_sent;           /* ProtoNodeId: the top heads its subtree of round hr went to (owes_subtree) */
  guint heads_expected;       /* how many heads the tree has */
  gboolean heads_known;       /* a HierHeads came: the tree is known */
  ProtoNodeId parent;         /* the head of heads it reports to (PROTO_NO_NODE: it is at the top) */
  GArray *children;           /* ProtoNodeId: the heads that report to it */
  GArray *child_aggs;         /* Agg: its children's subtrees */
  Agg own;                    /* this round's cluster mean (mean NULL: none yet) */
  ProtoNodeId up_to;          /* the parent this round's subtree went to (the tree may change meanwhile) */
  /* straggler policies at the head */
  DlTime round_start;         /* when its collection began: the last results went down */
  GHashTable *latency;        /* member + 1 -> 1 + its update's delay after round_start (this round) */
  GHashTable *dropped;        /* member + 1 -> 1 + the round from which it is waited for again */
  GArray *aggs;               /* Agg: this round's and later ones */
  /* straggler_policy = async (below) */
  LearnWeights *async_model;  /* the head's cluster model (NULL: not yet) */
  uint32_t async_version;     /* contributions mixed into it */
  guint async_since_push;     /* updates mixed in since it last pushed it to the other heads */
  uint32_t base_version;      /* a member's: the version of the model it trains from */
  GArray *async_in;           /* AsyncIn: mixed: slow members' updates for the next cluster mean */
  GHashTable *async_sent;     /* mixed: slow member + 1 -> 1 + when the head last sent it a model */
  DlTime last_median;         /* drop-slowest, mixed: the last judged round's median update delay */
  DlTime head_deadline;
  DlTime now;
};

/* a round trip to a landmark (cluster_by = latency) */
typedef struct {
  ProtoNodeId landmark;
  uint32_t index;             /* the landmark's group */
  DlTime sent;                /* its HierPing (NEVER: the link is not up yet) */
} Probe;

/* hier-peer-records.c: the states' names, by HierPeerState */
extern const char *const _hier_peer_state_names[HIER_PEER_N_STATES];

/* hier-peer-effects.c: observations, sends, its links' host and the messages it encodes */
void _hier_peer_observe (HierPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                         int64_t value, const char *detail);
void _hier_peer_set_state (HierPeer *p, ProtoOutbox *out, HierPeerState s);
void _hier_peer_send_msg (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
void _hier_peer_send_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
void _hier_peer_open_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId id);
void _hier_peer_probe_ping (HierPeer *p, ProtoOutbox *out, Probe *q);
void _hier_peer_probe_report (HierPeer *p, ProtoOutbox *out, guint i, guint64 rtt);
void _hier_peer_send_top (HierPeer *p, ProtoOutbox *out, ProtoNodeId h, LearnWeights *subtree, guint32 count);
void _hier_peer_send_to_children (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t round);
gboolean _hier_peer_send_to_members (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total,
                                     uint32_t round);
void _hier_peer_push (HierPeer *p, ProtoOutbox *out);
void _hier_peer_say_hello (HierPeer *p, ProtoOutbox *out);
void _hier_peer_say_connected (HierPeer *p, ProtoOutbox *out);
void _hier_peer_links_init (HierPeer *p);

/* hier-peer-records.c: lookups, clearing, construction and the machine's accessors */
void _hier_peer_agg_clear (Agg *a);
void _hier_peer_head_clear (HierPeer *p);
gboolean _hier_peer_listed (const GArray *ids, ProtoNodeId id);
Agg *_hier_peer_find_in (GArray *aggs, ProtoNodeId head, uint32_t round);
gboolean _hier_peer_dropped (const HierPeer *p, ProtoNodeId m);
gboolean _hier_peer_owes_subtree (const HierPeer *p, ProtoNodeId h);
Agg *_hier_peer_agg_for (HierPeer *p, ProtoNodeId h);
void _hier_peer_drop_aggs_until (GArray *aggs, uint32_t ahead);
gboolean _hier_peer_is_async (const HierPeer *p);
void _hier_peer_async_clear (HierPeer *p);
gboolean _hier_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from);
gboolean _hier_peer_awaits_cluster (const HierPeer *p);
DlTime _hier_peer_next_deadline (const void *impl);
void _hier_peer_free (void *impl);
void _hier_peer_view (const void *impl, ProtoPeerView *v);
gboolean _hier_peer_waiting_on_peer (const void *impl);
LearnWeights *_hier_peer_model (const void *impl);
void _hier_peer_init (HierPeer *p, const ProtoConfig *cfg, const ProtoPeerEnv *env);

/* hier-peer-policies.c: the straggler policies' bookkeeping */
void _hier_peer_judge_members (HierPeer *p, ProtoOutbox *out);
LearnWeights *_hier_peer_model_of (HierPeer *p);
void _hier_peer_take (HierPeer *p, LearnWeights *y, double w);
LearnWeights *_hier_peer_mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean);

G_END_DECLS
