/* hier-peer-private.h — the hierarchical peer's state, shared by
 * hier-peer.c (the member: train, elect, send its update, take the result;
 * links) and hier-head.c (the head: collect, exchange with the other heads,
 * send the global model down). */
#pragma once

#include "protocol/hierarchical/hier.h"
#include "protocol/proto-links.h"

G_BEGIN_DECLS

/* mixed: a slow member's update, mixed into the next cluster mean. */
typedef struct {
  ProtoNodeId from;
  guint stale;                /* rounds behind the head's */
  LearnWeights *w;
} AsyncIn;

/* A head's aggregate of one round. */
typedef struct {
  ProtoNodeId head;
  uint32_t round;
  guint32 count;
  LearnWeights *mean;
} Agg;

typedef enum {
  HEAD_COLLECT,   /* its members' updates */
  HEAD_GATHER,    /* its children's subtrees */
  HEAD_UP,        /* its subtree went to its parent: the global comes down */
  HEAD_TOP,       /* at the top: the other top heads' subtrees */
} HeadPhase;

struct HierPeer {
  ProtoConfig cfg;
  HierPeerState state;
  ProtoNodeId id;
  gboolean connected;
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
  guint rounds_done;
  int32_t last_round_end;
  guint received[PROTO_MSG_N_TYPES];

  /* the cluster, as the coordinator last said */
  uint32_t epoch;
  uint32_t candidacy_epoch;   /* the last epoch it stood in (0: none) */
  ProtoNodeId head;
  GArray *members;            /* ProtoNodeId: whose updates the head awaits */
  gboolean pending;           /* a trained model waits for its round's result */
  ProtoNodeId sent_to;        /* the head it went to (PROTO_NO_NODE: not sent) */
  DlTime result_deadline;
  DlTime stand_deadline;      /* waiting for a head: stand again then (a lost candidacy or announcement) */

  ProtoLinks links;           /* to its head, its members, the other heads (proto-links.h) */
  GArray *probes;             /* HierProbe: round trips to landmarks it measures (cluster_by = latency) */

  /* the head's part */
  gboolean is_head;
  HeadPhase phase;
  uint32_t hr;                /* the round it aggregates */
  gboolean hr_set;
  GHashTable *updates;        /* member + 1 -> LearnWeights*: this round */
  GHashTable *next_updates;   /* those that came during the exchange */
  GArray *heads;              /* ProtoNodeId: the top heads it exchanges with (HierHeads; empty below the top) */
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
  /* straggler_policy = async (hier-async.c) */
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

/* hier-async.c */
gboolean hh_async (const HierPeer *p);
/* A member's update, trained from the head's version `base`. */
void hh_async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
/* Another head's pushed model. */
void hh_async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
void hh_async_clear (HierPeer *p);
/* mixed: TRUE if `from` is a slow member now; its update is taken
 * asynchronously (kept for the next cluster mean, answered at once). */
gboolean hh_mixed_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
/* mixed: the slow members' updates blended into the cluster mean. */
LearnWeights *hh_mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean);

/* hier-peer.c */
void hp_observe (HierPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
                 const char *detail);
/* Sends over the link to `to`, or queues it until the link is up (opening it). */
void hp_send_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
/* The head's result reached this peer as a member (from itself or its head). */
void hp_take_result (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global);

/* hier-head.c */
void hh_become (HierPeer *p, ProtoOutbox *out);
void hh_resign (HierPeer *p, ProtoOutbox *out);
void hh_members_changed (HierPeer *p, ProtoOutbox *out);
void hh_heads_changed (HierPeer *p, ProtoOutbox *out);
void hh_take_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
/* A late joiner asks for the latest global model. */
void hh_serve_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from);
void hh_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
void hh_deadline (HierPeer *p, ProtoOutbox *out);
/* The round's global model from its parent head. */
void hh_take_global (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global);
void hh_clear (HierPeer *p);

G_END_DECLS
