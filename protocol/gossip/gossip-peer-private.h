/* gossip-peer-private.h — the gossip peer's state, shared by its files:
 * gossip-peer.c (the step: train, list, graph, exchange, mix),
 * gossip-peer-links.c (links and their signalling) and gossip-peer-async.c
 * (asynchronous pushes: the async and mixed straggler policies). */
#pragma once

#include "protocol/gossip/gossip-peer.h"
#include "protocol/proto-links.h"

G_BEGIN_DECLS


typedef struct {
  ProtoNodeId id;
  gboolean sent;        /* our payload went to it this step */
  gboolean done;        /* its payload came, or it is given up */
  gboolean got;
  gboolean gave_up;     /* no payload by the deadline, or its link is lost */
  LearnWeights *values;
  guint32 *indices;
  guint32 n_indices;
  guint32 degree;
} Nbr;

typedef struct {
  ProtoNodeId from;     /* Early: the sender; a pending push: the target */
  ProtoMsg msg;
} Early;

/* An asynchronous push received: mixed in at the end of the peer's step. */
typedef struct {
  ProtoNodeId from;
  guint32 round;        /* the sender's round */
  LearnWeights *values;
  guint32 *indices;
  guint32 n_indices;
} Pushed;

typedef struct GossipDht GossipDht;

struct GossipPeer {
  ProtoConfig cfg;
  GossipPeerState state;
  ProtoNodeId id;
  gboolean connected;
  DlRandom *rng;
  LearnWeights *model;
  LearnWeights *base;      /* the model this step's training began from (top-k ranks the change) */
  float *residual;         /* error feedback: change not sent yet */
  guint rounds_done;
  gboolean helper;         /* finished, stays, and keeps mixing for the others (no training) */
  guint received[PROTO_MSG_N_TYPES];
  char error[PROTO_OBS_DETAIL_LEN];

  uint32_t step;           /* the coordinator's step this peer is in (or was last) */
  gboolean have_step;
  GArray *nbrs;            /* Nbr, ascending id */
  ProtoLinks links;        /* its links (proto-links.h), kept across steps, with their queues */
  GArray *early;           /* Early: payloads of this step that came before Neighbors */
  GArray *inbox;           /* Pushed: asynchronous pushes not mixed in yet */
  int32_t last_round_end;  /* the round of its last round-end observation (-1: none) */
  LearnWeights *outgoing;  /* this step's payload values */
  guint32 *out_idx;        /* and indices (NULL: dense) */
  guint32 out_n;
  DlTime xchg_deadline;
  GossipDht *dht;          /* discovery = kademlia (gossip-dht.c), NULL otherwise */
  DlTime wait_deadline;    /* waiting for the coordinator (list, graph): say again where it is then */
  ProtoNodeId *targets;    /* its draws of this step, for a repeat */
  guint n_targets;
  /* model sync when it joins late (gossip-peer-sync.c) */
  ProtoNodeId sync_from;   /* the provider asked (PROTO_NO_NODE: none yet) */
  DlTime sync_deadline;
  gboolean synced;
  DlTime now;              /* the time of the input being handled */
};

/* gossip-peer.c */
void gp_observe (GossipPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
                 const char *detail);
void gp_set_state (GossipPeer *p, ProtoOutbox *out, GossipPeerState s);
void gp_send_msg (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
void gp_send_server (GossipPeer *p, ProtoOutbox *out, ProtoMsg *m);
void gp_start_training (GossipPeer *p, ProtoOutbox *out);
void gp_build_outgoing (GossipPeer *p);
void gp_finish (GossipPeer *p, ProtoOutbox *out);
void gp_helper_ready (GossipPeer *p, ProtoOutbox *out);

/* gossip-peer-links.c */
gint gp_cmp_id (gconstpointer a, gconstpointer b);
/* Over the link to `to` if it is up, else queued (the link opened if need be). */
void gp_send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
void gp_links_init (GossipPeer *p);

/* gossip-peer-sync.c */
/* NewNodeInfo said it joined mid-training: the provider comes next. */
void gp_sync_expect (GossipPeer *p, ProtoOutbox *out);
/* SignalModelProvider: ask it (PROTO_NO_NODE: none; train from its own). */
void gp_sync_provider (GossipPeer *p, ProtoOutbox *out, ProtoNodeId provider);
/* A ModelSyncRequest from `to`: its current model. */
void gp_sync_serve (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to);
/* A SharedModel from `from`. */
void gp_sync_model (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *model);
void gp_sync_deadline (GossipPeer *p, ProtoOutbox *out);
void gp_sync_link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other);

/* gossip-peer-async.c */
void gp_clear_async (GossipPeer *p);
void gp_mix_inbox (GossipPeer *p, ProtoOutbox *out);
void gp_reply_push (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to);
guint gp_draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n);
void gp_handle_sample (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out);
/* An asynchronous step with these candidates (self excluded by the caller). */
void gp_async_step (GossipPeer *p, ProtoOutbox *out, ProtoNodeId *pool, guint n);

/* gossip-dht.c */
guint64 gd_key (ProtoNodeId id);
void gd_start (GossipPeer *p);
void gd_free (GossipDht *d);
void gd_handle_nodes (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
void gd_handle_find (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
void gd_refresh (GossipPeer *p, ProtoOutbox *out);
void gd_link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other);
void gd_deadline (GossipPeer *p, ProtoOutbox *out);
DlTime gd_next_deadline (const GossipPeer *p);
/* (transfer full) every contact, in id order */
guint gd_contacts (GossipPeer *p, ProtoNodeId **out);
guint gd_lookups_done (const GossipPeer *p);

G_END_DECLS
