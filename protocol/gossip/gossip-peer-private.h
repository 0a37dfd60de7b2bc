/* gossip-peer-private.h — the gossip peer's state, shared by
 * gossip-peer.c (every transition, in `static` handlers) and its leaves,
 * which it calls and which never call it: gossip-peer-effects.c
 * (observations, sends, its links' host, the DHT's effects carried out,
 * and the payloads it encodes), gossip-peer-model.c (what a step shares
 * of the model, and the asynchronous pushes mixed in) and
 * gossip-peer-records.c (its records: its states' names, neighbours,
 * the step's and the inbox's clearing, the draw of targets, push-pull's
 * value, the machine's accessors and drop rule).  The effects and the
 * model's file read the records; the records call neither. */
#pragma once

#include "protocol/gossip/gossip-peer.h"
#include "protocol/gossip/gossip-dht-private.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/session/session-links.h"

G_BEGIN_DECLS


/* 32 bytes, two to a cache line: _gossip_peer_find_nbr walks the ids for
 * each payload and link (docs/performance.md, "Issue 44: gossip's hot
 * fields together", gp26). */
typedef struct {
  ProtoNodeId id;
  guint8 sent;          /* our payload went to it this step */
  guint8 done;          /* its payload came, or it is given up */
  guint8 got;
  guint8 gave_up;       /* no payload by the deadline, or its link is lost */
  guint32 n_indices;
  guint32 degree;
  LearnWeights *values;
  guint32 *indices;
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

typedef struct GossipPeer GossipPeer;

struct GossipPeer {
  ProtoMachineBase base;   /* its state, what it received, connected, rounds done; error: the
                              text below */
  /* What every input reads (next_deadline twice, the handler, a neighbour's
   * and a link's lookup, an observation), together after the base: on
   * two or three cache lines rather than seven (docs/performance.md,
   * "Issue 44: gossip's hot fields together", gp26). */
  DlTime now;              /* the time of the input being handled */
  DlTime xchg_deadline;
  DlTime pp_push_at;       /* push-pull: when its push goes (NEVER: it went, or there is none) */
  DlTime sync_deadline;    /* model sync when it joins late (below) */
  DlTime wait_deadline;    /* waiting for the coordinator (list, graph): say again where it is then */
  GossipDht *dht;          /* discovery = kademlia (gossip-dht.c, a leaf), NULL otherwise */
  gboolean helper;         /* finished, stays, and keeps mixing for the others (no training) */
  ProtoNodeId id;
  GArray *nbrs;            /* Nbr, ascending id */
  LearnWeights *model;
  uint32_t step;           /* the coordinator's step this peer is in (or was last) */
  gboolean have_step;
  ProtoLinks links;        /* its links (session-links.h), kept across steps, with their queues */

  ProtoConfig cfg;
  DlRandom *rng;
  LearnWeights *start;     /* the model this step's training began from (top-k ranks the change) */
  float *residual;         /* error feedback: change not sent yet */
  char error[PROTO_OBS_DETAIL_LEN];   /* "" until it fails */

  GArray *early;           /* Early: payloads of this step that came before Neighbors */
  GArray *inbox;           /* Pushed: asynchronous pushes not mixed in yet */
  int32_t last_round_end;  /* the round of its last round-end observation (-1: none) */
  LearnWeights *outgoing;  /* this step's payload values */
  guint32 *out_idx;        /* and indices (NULL: dense) */
  guint32 out_n;
  ProtoNodeId *targets;    /* its draws of this step, for a repeat */
  guint n_targets;
  /* model sync when it joins late (below; its deadline above) */
  ProtoNodeId sync_from;   /* the provider asked (PROTO_NO_NODE: none yet) */
  gboolean synced;
  /* gossip_mode = push-pull (below; its push's time above) */
  float pp_start;          /* its value as drawn */
  ProtoNodeId pp_target;   /* this cycle's partner (PROTO_NO_NODE: none) */
  float pp_sent;           /* the value pushed */
  gboolean pp_waiting;     /* pushed, not answered yet */
};

/* gossip-peer-records.c: the states' names, by GossipPeerState */
extern const char *const _gossip_peer_state_names[GOSSIP_PEER_N_STATES];

/* gossip-peer-effects.c: observations, sends, its links' host, the DHT's
 * effects, the payloads it encodes */
void _gossip_peer_observe (GossipPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                           int64_t value, const char *detail);
void _gossip_peer_send_msg (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
void _gossip_peer_send_server (GossipPeer *p, ProtoOutbox *out, ProtoMsg *m);
void _gossip_peer_links_init (GossipPeer *p);
void _gossip_peer_send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
void _gossip_peer_dht_apply (GossipPeer *p, ProtoOutbox *out);
void _gossip_peer_send_payload (GossipPeer *p, ProtoOutbox *out, Nbr *nb);
void _gossip_peer_sync_serve (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to);
void _gossip_peer_reply_push (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to);

/* gossip-peer-model.c: what a step shares of the model, the pushes mixed in */
void _gossip_peer_build_outgoing (GossipPeer *p);
void _gossip_peer_mix_inbox (GossipPeer *p, ProtoOutbox *out);

/* gossip-peer-records.c: neighbours, clearing, the draw of targets,
 * push-pull's value, the machine's accessors */
gboolean _gossip_peer_push_pull (const GossipPeer *p);
void _gossip_peer_nbr_clear (Nbr *n);
void _gossip_peer_clear_step (GossipPeer *p);
Nbr *_gossip_peer_find_nbr (GossipPeer *p, ProtoNodeId id);
void _gossip_peer_clear_async (GossipPeer *p);
guint _gossip_peer_draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n);
void _gossip_peer_pp_set (GossipPeer *p, float v);
float _gossip_peer_pp_value (const GossipPeer *p);
gboolean _gossip_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from);
DlTime _gossip_peer_next_deadline (const void *impl);
void _gossip_peer_view (const void *impl, ProtoPeerView *v);
LearnWeights *_gossip_peer_model (const void *impl);
void _gossip_peer_free (void *impl);

G_END_DECLS
