/* disco-peer-private.h — the peer machine's state, shared by disco-peer.c
 * (DISCO's decentralized client: every transition) and its leaves, which
 * it calls and which never call it: disco-peer-effects.c (observations,
 * sends), disco-peer-pool.c (the link pool and its receive loops),
 * disco-peer-exchange.c (the exchange's bookkeeping), disco-peer-sync.c
 * (model sync's bookkeeping) and disco-peer-listen.c (the drop rule). */
#pragma once

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "base/dl-idmap.h"

G_BEGIN_DECLS

typedef struct {
  guint remaining;   /* receptions left */
  DlTime deadline;   /* end of the current 60 s wait */
} RecvLoop;

/* A link of the pool: what DISCO's PeerPool keeps per peer (peer_pool.ts:
 * the id, and a Peer made with `initiator` = our id is the larger; its
 * signalling and connection state, peer.ts) and the receive loops that
 * clientHandle starts on it (decentralized_client.ts, receivePayloads: one
 * per getPeers, communicationRounds receptions, each waited for 60 s).
 * 32 bytes, two to a cache line in the peer's pool: all-to-all at 1 000
 * peers holds a million (issue 44).  `pending`: getPeers waits for it
 * (disco-peer-pool.c: it was a list of ids and the link's place in it,
 * and before that a map per peer, 8 bytes an id); n_loops and active fit 16 bits, as a link holds its loops
 * with receptions left and one more (link_room asserts it). */
typedef struct {
  ProtoNodeId peer;
  guint32 pending;   /* TRUE while getPeers waits for it (counted in
                      * the peer's n_pending) */
  guint16 n_loops;
  guint16 active;    /* loops with receptions left (disco_peer_listens asks per Payload) */
  guint8 state;      /* a DiscoLinkState */
  guint8 initiator;  /* TRUE or FALSE */
  guint8 cap_log;    /* the loops' room: 1 << cap_log; 0: the one in `own` */
  guint8 used;       /* TRUE: a link's record (an empty place of the
                      * pool's table is all zero) */
  /* the receive loops: `own` while one fits (exhausted loops go at the
   * next getPeers, so a link rarely holds more), else `heap`; no GArray
   * object per link (_disco_peer_link_loops) */
  union {
    RecvLoop own;
    RecvLoop *heap;
  };
} Link;

G_STATIC_ASSERT (sizeof (Link) == 32);

/* l's receive loops (l->n_loops of them) */
static inline RecvLoop *
_disco_peer_link_loops (Link *l)
{
  return l->cap_log ? l->heap : &l->own;
}

/* The link to `other`, or NULL: one load from the table for the ids it
 * spans (disco-peer-pool.c). */
static inline Link *_disco_peer_find_link (const DiscoPeer *p, ProtoNodeId other);

typedef struct {
  ProtoNodeId newcomer;
  gboolean wait_round;   /* #roundFinishedPromise was defined at SignalNewPeer */
  gboolean link_ready;
} Serve;

typedef enum { PAUSE_NONE, PAUSE_PENDING, PAUSE_RESOLVED } Pause;

/* A promise for the aggregator's next 'aggregation' event (getPromiseForAggregation). */
typedef enum { PROMISE_NONE, PROMISE_PENDING, PROMISE_RESOLVED } Promise;

struct DiscoPeer {
  ProtoMachineBase base;  /* its state, what it received, connected, rounds done; error: the
                             text below */

  /* What every Payload reads (the drop rule, the link's loops, the
   * exchange's add, the next deadline) and a link-up, together right
   * after `base`: bytes 1 096 to 1 215, two cache lines of the 64-byte
   * aligned struct; then `cfg`, whose DISCO part begins with the flags a
   * Payload reads.  _disco_peer_prefetch asks for these lines.  They
   * were spread after `cfg`, and three lines a Payload reads (its model,
   * two of DISCO's flags) were not among the eight the hint asked for
   * (docs/performance.md, hn23). */
  Link *pool;            /* the pool (below): 64-byte aligned */
  DiscoAggregator *agg;  /* the aggregator (below) */
  LearnWeights *model;
  DlTime now;             /* the time of the input being handled */
  DlTime loops_deadline;  /* a lower bound of the receive loops' deadlines */
  DlTime xchg_deadline;   /* robust: no contribution since payload_timeout: abort (S15, S17) */
  DlTime agg_wait_deadline;
  DlTime wait_deadline;   /* robust: a wait for the coordinator ends (robust_wait_timeout) */
  DlTime sync_deadline;
  guint pool_span;
  guint pool_len;        /* links in the pool: order's length */
  guint far_len;
  Promise promise;        /* this.aggregationResult */
  gboolean xchg_cut;      /* robust: a member left: the deadline no longer moves */
  gboolean helper;        /* robust: finished its rounds, stays and helps others' (S20) */
  Pause pause;
  ProtoNodeId provider;  /* while syncing */
  ProtoNodeId id;
  guint n_pending;       /* the links getPeers waits for (their `pending`
                          * is set): a link-up reads it */
  GArray *serves;        /* Serve: newcomers to serve (NULL until the
                          * first, so that a link-up, which asks, reads
                          * no array's record) */

  ProtoConfig cfg;
  gboolean sync_needed;
  gboolean synced;
  gboolean enough_before_info;
  LearnWeights *latest_model;
  char error[PROTO_OBS_DETAIL_LEN];   /* "" until it fails */

  /* The pool (disco-peer-pool.c): each link's record at pool[id] for
   * the ids below pool_span, else in `far` (far_index: id -> its place +
   * 1); `order`, the ids in creation order.  A pointer to a record lasts
   * until a link is added or dropped.  (pool, pool_span, far_len and
   * pool_len are above, with what every Payload reads.) */
  Link *far;
  guint far_cap;
  DlIdMap far_index;     /* narrow */
  ProtoNodeId *order;
  guint order_cap;

  /* the aggregator (`agg` above) and the client's side of the exchange
   * (decentralized_client.ts: exchangeWeightUpdates); `promise` above */
  LearnWeights *promised; /* its value once resolved */
  guint xchg_c;           /* exchangeWeightUpdates' communicationRound */
  gboolean xchg_broke;    /* its 15 s race expired: `break`, then await with no limit */
  uint32_t xchg_round;    /* the aggregation round the exchange began in */
  LearnWeights *xchg_result; /* `result`: what the next communication round sends */
  gboolean round_finished_pending;

  DlTime shutdown_deadline;  /* PeerPool.shutdown's 1 s race */
  gboolean shutdown_then_fail; /* ConnectionFail's disconnect() (else Retry's loop) */

  /* robust (proto-config.h); xchg_deadline, xchg_cut, helper and
   * wait_deadline above */
  guint sync_attempts;    /* ModelSyncRequests sent this round (S11, S12) */
};

/* The fields every Payload reads, from `pool` to the byte before `cfg`,
 * lie on two cache lines at most (the struct is 64-byte aligned: an
 * offset's line is its line in memory). */
G_STATIC_ASSERT ((offsetof (DiscoPeer, cfg) - 1) / 64 - offsetof (DiscoPeer, pool) / 64 <= 1);
/* and DiscoConfig's five flags read on every Payload (disco-config.h:
 * ready_at_round_start to robust_single_add) lie on one line (rv24: they
 * sat there by the offsets' luck) */
G_STATIC_ASSERT ((offsetof (DiscoPeer, cfg) + offsetof (ProtoConfig, family_config)
                  + offsetof (DiscoConfig, ready_at_round_start)) / 64
                 == (offsetof (DiscoPeer, cfg) + offsetof (ProtoConfig, family_config)
                     + offsetof (DiscoConfig, robust_single_add) + sizeof (gboolean) - 1) / 64);

/* the newcomers waiting to be served */
static inline guint
_disco_peer_n_serves (const DiscoPeer *p)
{
  return p->serves ? p->serves->len : 0;
}

static inline Link *
_disco_peer_find_link (const DiscoPeer *p, ProtoNodeId other)
{
  if (other < p->pool_span && p->pool[other].used)
    return &p->pool[other];
  if (p->far_len == 0)
    return NULL;
  guint32 at = dl_id_map_lookup32 (&p->far_index, other);
  return at ? &p->far[at - 1] : NULL;
}

/* disco-peer-effects.c: observations and sends */
void _disco_peer_observe (DiscoPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                          int64_t value, const char *detail);
void _disco_peer_send_msg (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
void _disco_peer_send_server (DiscoPeer *p, ProtoOutbox *out, ProtoMsgType type);

/* disco-peer-pool.c: the link pool and its receive loops */
Link *_disco_peer_pool_at (const DiscoPeer *p, guint i);
gboolean _disco_peer_loop_active (const Link *l);
void _disco_peer_links_init (DiscoPeer *p);
void _disco_peer_links_clear (DiscoPeer *p);
void _disco_peer_set_nodes (DiscoPeer *p, const ProtoNodeId *peers, guint n);
void _disco_peer_set_nodes_self_only (DiscoPeer *p);
void _disco_peer_get_peers (DiscoPeer *p, DlTime now, ProtoOutbox *out, const ProtoNodeId *ids, guint n,
                            gboolean loops);
gboolean _disco_peer_pending_remove (DiscoPeer *p, ProtoNodeId id);
void _disco_peer_pending_clear (DiscoPeer *p);
void _disco_peer_get_peer_aside (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId id);
void _disco_peer_loops_received (DiscoPeer *p, Link *l, DlTime now);
void _disco_peer_loops_expire (DiscoPeer *p, DlTime now, ProtoOutbox *out);
void _disco_peer_shutdown_pool (DiscoPeer *p, ProtoOutbox *out);
void _disco_peer_drop_link (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId other);
void _disco_peer_drop_link_unless_up (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId other);
const char *_disco_peer_pool_signal (DiscoPeer *p, const ProtoMsg *msg, ProtoOutbox *out);
gboolean _disco_peer_pool_has_destroyed (const DiscoPeer *p);

/* disco-peer-exchange.c: the exchange's bookkeeping */
void _disco_peer_resolve (DiscoPeer *p, ProtoOutbox *out, LearnWeights *emitted);
gboolean _disco_peer_send_round (DiscoPeer *p, ProtoOutbox *out);
gboolean _disco_peer_exchange_add (DiscoPeer *p, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out);
void _disco_peer_exchange_reset (DiscoPeer *p, DlTime now);
void _disco_peer_round_finished (DiscoPeer *p, ProtoOutbox *out, LearnWeights *result, gboolean partial);
void _disco_peer_exchange_abort (DiscoPeer *p, ProtoOutbox *out, const char *why);

/* disco-peer-sync.c: model sync's bookkeeping */
void _disco_peer_try_serve (DiscoPeer *p, ProtoOutbox *out);
void _disco_peer_serve (DiscoPeer *p, ProtoNodeId newcomer, ProtoOutbox *out);
void _disco_peer_serves_link_up (DiscoPeer *p, ProtoNodeId other, ProtoOutbox *out);
gboolean _disco_peer_sync_take_model (DiscoPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out);

/* disco-peer-effects.c: the states' names, by DiscoPeerState */
extern const char *const _disco_peer_state_names[DISCO_PEER_N_STATES];
/* disco-peer-listen.c: the drop rule (the machine's listens: does the
 * peer, as it is now, listen for `type` from `from`?) */
gboolean _disco_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from);
/* (disco-peer-pool.c) the machine interface's hint: ProtoMachineClass.prefetch */
void _disco_peer_prefetch (const void *impl, ProtoMsgType type, ProtoNodeId from, ProtoNodeId node, guint stage);

G_END_DECLS
