/* sim-world-private.h — the simulated world's state, shared by the files
 * that make it up: sim-world.c (hosts, compute, the watch, results),
 * sim-churn.c (membership, the timeline, churn, traces), sim-servers.c (the
 * coordinator, one or its replicas), sim-net.c (messages, streams,
 * links) and its leaves; below, which calls which.  A peer's attributes are
 * host/sim-peers.c's.
 * Nothing outside sim/ includes it. */
#pragma once

#include "sim/sim-world.h"
#include "base/dl-wordmap.h"
#include "base/dl-idmap.h"
#include "base/dl-slab.h"
#include "sim/sim-engine.h"
#include "sim/sim-flows.h"
#include "host/sim-host.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { NODE_ABSENT, NODE_ONLINE, NODE_LEFT, NODE_CRASHED } NodeStatus;

typedef struct SimWorldCallbacks SimWorldCallbacks;   /* below */

/* A machine's deadline event.  `at` is its time while ev is pending (the
 * handler sets ev to SIM_EVENT_NONE first), kept here so that re-arming
 * after every input does not read the engine's record (3 % of a 1 000-peer
 * run). */
typedef struct {
  SimEventId ev;
  DlTime at;
} SimTimer;

/* A node.  Its fields in three groups (issue 44, docs/performance.md,
 * nm26): at 2 000 gossip peers the nodes no longer fit the cache, and a
 * message read the receiver's and the sender's fields from six lines of
 * each.  First (64 bytes) what a message's delivery and the receiver's
 * machine read: its status, machine and timer, the checks on its link and
 * its coordinator stream, its downlink's rate (store_and_forward).  Then
 * (64 bytes) what a send by it and its coordinator stream's flows read.
 * Then its links (a send on one, its flow's end), and the rest, read at a
 * join, a crash, a rate change or the run's end. */
typedef struct {
  ProtoNodeId id;
  NodeStatus status;
  ProtoMachine *peer;         /* the family's peer machine (proto-machine.h) */
  SimTimer deadline;
  guint32 link_closes;    /* link ends it has closed (sim_net_close_link) */
  guint32 stream;         /* its stream's number: a message sent on an earlier stream is lost */
  gboolean stream_down;   /* its stream is closed or broken (a replica crashed, a reconnect pending) */
  guint server;           /* the coordinator replica its stream goes to (0 without replicas) */
  gboolean coord_closed;  /* the coordinator has processed its stream close */
  gboolean in_sync_wait;
  uint64_t down_bps;      /* its downlink's rate now */

  guint32 stream_q[2], stream_q_tail[2];  /* sharing = fair (MsgRef): its coordinator stream's
                                             messages to [0] and from [1] the coordinator, the head
                                             in flight and the rest behind it (one WebSocket) */
  guint32 stream_cwnd[2]; /* transport tcp or sctp: its stream's window to [0] and from [1] the
                             coordinator, bytes (0: none yet), of stream number stream_cwnd_of */
  guint32 stream_cwnd_of;
  DlTime last_to_server, last_from_server;  /* its coordinator stream's channels: last arrival */
  DlRandom *rng_net;      /* latency samples of messages it sends */
  guint64 bytes_sent;     /* wire bytes it put on its uplink (links and stream) */

  DlIdMap links;          /* the other end -> its Link's index + 1 (narrow, sim_link_at), for
                             every link it has (sim_link_get) */
  uint64_t up_bps;        /* its uplink's rate now */
  DlTime up_free, down_free;
  uint64_t up_bps0, down_bps0;  /* before its device's first bandwidth trace row (peers.uplink_bps) */
  const SimRateChange *rates; /* its device's bandwidth trace rows in time order (n_rates; NULL: none) */
  guint n_rates;
  gboolean straggler;
  gboolean nat_symmetric;
  DlRandom *rng_train;    /* minibatch order */
  DlRandom *rng_shares;   /* secure aggregation shares */
  double speed;
  double slow;            /* divisor from `slow` actions */
  SimEventId train_ev;
  LearnWeights *train_result;
  LearnDataset *shard;
  DlTime joined, left;
  DlTime progress;        /* last phase change */
  double accuracy, loss;
  ProtoNodeId latest;     /* a trace's peer: its latest session's id (0: itself) */
} Node;

/* the groups' bounds (above): the first two are 64 bytes each; a message
 * reads the node's first SIM_NODE_MSG_BYTES (sim-net.c loads them ahead) */
G_STATIC_ASSERT (offsetof (Node, stream_q) == 64);
G_STATIC_ASSERT (offsetof (Node, links) == 128);
#define SIM_NODE_MSG_BYTES offsetof (Node, up_bps)

/* A link between two peers: one a pair, made at its first use and kept as
 * long as the world (half a million at 1 000 peers); 48 bytes.  What only
 * a few links ever hold, or hold only for a while, waits elsewhere: a
 * close notice behind the messages in flight (SimWorld.close_waits,
 * flagged in waits), a link-slow action's extra setup time
 * (SimWorld.link_slow, flagged in slow), a setup's event
 * (SimWorld.link_setup_evs, flagged in pending). */
typedef struct {
  guint8 obj : 2;         /* bit side: that side holds a link object (sim_link_obj) */
  bool up : 1, dead : 1, never : 1, pending : 1, failed : 1;
  bool slow : 1;          /* a link-slow action's delay waits in SimWorld.link_slow */
  guint8 waits : 2;       /* bit side: sharing = fair, by the closer's side, its close notice waits
                             for what it sent before the close to leave (SimWorld.close_waits) */
  guint32 gen;            /* connection attempts so far: a close notice of an earlier one is stale */
  guint32 q[2], q_tail[2];  /* sharing = fair: by the sender's side, its messages on the link's data
                               channel, the head in flight and the rest behind it (MsgRef) */
  guint32 cwnd[2];        /* transport tcp or sctp: by the sender's side, its window, bytes (0: a
                             new connection) */
  DlTime last_arrival[2]; /* channel order, by the sender's side (sim_link_side) */
} Link;

G_STATIC_ASSERT (sizeof (Link) == 48);

/* whether side `side` of l holds a link object, and setting it */
static inline gboolean
sim_link_obj (const Link *l, int side)
{
  return (l->obj >> side) & 1;
}

static inline void
sim_link_set_obj (Link *l, int side, gboolean held)
{
  l->obj = (guint8) ((l->obj & ~(1u << side)) | ((held ? 1u : 0u) << side));
}

/* A message's protocol body, shared by the messages in flight that carry
 * the same one apart from the recipient (sim_net_send: a peer sending one
 * Payload to its n - 1 peers holds one body, not n - 1); a body that owns
 * arrays (peers, indices, signal_data, inner) is never shared.  96 bytes,
 * from their own slabs. */
typedef struct MsgBody MsgBody;
struct MsgBody {
  ProtoMsg msg;       /* its `node` is meaningless: each message holds its own */
  guint32 refs;       /* the messages holding it; 0: given back (not at the
                         record's start, which the free list overwrites) */
};

typedef struct Msg Msg;
struct Msg {   /* (48 bytes: a million can be in flight; the first 12 are the free
                  list's when it is free, dl_slab_take_index) */
  MsgBody *body;      /* what it says, shared (sim_net_msg_view); NULL: a close frame */
  DlTime wire_done;   /* its last byte left the sender's uplink; with sharing = fair, until then
                         the latency (and a delay rule's extra) it pays after that */
  guint32 bytes_lo;   /* its wire bytes (msg_bytes, sim-net.c), the low 32 bits; bytes_hi the next 8 */
  ProtoNodeId node;   /* its own ProtoMsg's node (the body's is not read) */
  ProtoNodeId from, to;
  union {
    guint32 stream;   /* on a peer's coordinator stream: its number then */
    guint32 closes;   /* on a link: the receiver's link_closes then */
  };
  guint32 idx;        /* its record's index in the slabs (dl_slab_at): its flow's user, and
                         idx + 1 its MsgRef (a queue's 32-bit link to it; 0: none) */
  guint32 next;       /* sharing = fair: the next message behind it on its channel; once out
                         of its channel's queue, the next delivery of its chain (deliver_at,
                         either sharing) (MsgRef) */
  guint8 bytes_hi;
  guint8 via;         /* ProtoVia */
  guint8 server;      /* from the coordinator to a peer: the replica that sent it */
  guint8 close : 1;   /* not a message: the stream's close frame (graceful close) */
  guint8 internal : 1;   /* between coordinator replicas: not the run's progress */
  guint8 live : 1;    /* taken from the slabs and not yet freed */
  guint8 doomed : 1;  /* on a link whose receiver had destroyed its end when it was sent (its
                         close notice still on the way): lost when it arrives */
  guint8 extra : 1;   /* with sharing = fair: a delay rule's extra, in wire_done until it has
                         left, which its round trip leaves out (flow_start), waits in
                         SimWorld.msg_extras by its idx */
};

G_STATIC_ASSERT (sizeof (Msg) == 48);
G_STATIC_ASSERT (sizeof (MsgBody) == 96);

typedef struct {
  int msg_type;
  char label[33];     /* "" or the message's kind within its type (proto_msg_label_is) */
  ProtoNodeId node;
  gboolean from;      /* drop rules: match the sender instead of the receiver */
  guint count;
  DlTime delay;
} Rule;

struct SimWorld {
  SimWorldConfig cfg;
  SimRecorder rec;
  SimEngine *engine;
  const ProtoFamily *family;
  ProtoObsKind round_begins;          /* the coordinator's observation that begins a round */
  /* the coordinator: one machine, or the replicas of protocol/replica/ */
  struct SimServer *servers;
  guint n_servers;
  GPtrArray *nodes;         /* Node*, index = id; [0] unused */
  DlSlab link_slab;         /* every link's record (sim-net.c) */
  DlWordMap *links;         /* pair (in the key word) -> Link*, for a link made before one of its
                               nodes existed (a timeline action); the others are in their
                               nodes' maps */
  GHashTable *channels;     /* (from, to, via) (in the key word) -> last arrival time (boxed), for channels
                               without a link or node to keep it in */
  DlRandom *rng_links, *rng_churn;
  DlRandom *rng_loss;            /* [network] loss: which link messages are lost */
  DlRandom *rng_close;      /* the latency of link close notices (a stream of their own) */
  GPtrArray *close_notes;   /* every link close notice sent (sim-net-links.c), freed with the world */
  DlWordMap *close_waits;   /* (Link*, closer's side) (in the key word) -> its close notice waiting
                               behind the messages in flight (Link.waits; sim-net-links.c) */
  DlWordMap *link_slow;     /* Link* (in the key word) -> a link-slow action's extra setup time
                               (Link.slow; NULL until one comes) */
  DlWordMap *link_setup_evs; /* Link* (in the key word) -> its setup's event (SimEventId), while
                                it is set up (Link.pending; NULL while none is: sim-net-links.c) */
  LearnPartition *partition;
  LearnWeights *initial;
  LearnEvalCache eval;                /* the last model evaluated at a round's end (evaluate) */
  GArray *drop_rules, *delay_rules;   /* Rule */
  GArray *groups;                     /* current partition, NULL when healed */
  gboolean healed_all;                /* `heal all` ran: no new faults (sim-churn.c) */
  DlTime healed_at;                   /* ... at this time: the stall watch counts from it */
  guint64 reseed_salt;                /* a `reseed` action ran (sim-churn.c): 0 none, else its salt */
  guint next_id;
  guint64 in_flight, training, link_setups, timed_pending, churn_pending;
  DlTime progress;
  guint round_started;                /* coordinator rounds started (1-based count) */
  SimTally tally;                     /* counters from the observations */
  struct SimProps *props;             /* properties checked as the run goes (sim-props.h) */
  gboolean finished;
  SimResult result;
  GArray *peer_results;               /* SimPeerResult */
  DlSlab msgs;                        /* the message records (sim-net-msg.c) */
  DlSlab bodies;                      /* their bodies (MsgBody, sim-net-msg.c) */
  DlWordMap *msg_extras;              /* a message's idx -> its delay rule's extra (Msg.extra;
                                         NULL until one is kept) */
  MsgBody *last_body;                 /* the last body taken, if it can be shared: the next
                                         message the same apart from its node takes it too */
  guint64 live_bodies;                /* bodies taken and not yet given back (the tests', and
                                         sim_net_free's scan stops at the last) */
  DlWordMap *wire_sizes;              /* wire_size_key -> serialized size, both in the word */
  DlTime last_arrival;                /* last message delivery */
  DlTime completed_at;                /* DL_TIME_NEVER unless completed */
  GArray *rates_by_peer;              /* cfg.rates (SimRateChange) by peer, then time; NULL: none */
  GArray *rates_by_time;              /* the same by time, then line: the order they happen in */
  struct SimFlows *flows;             /* sharing = fair: the messages in flight as flows (sim-flows.h) */
  SimEventId flows_ev;                /* the flows' next completion (or a solve at this instant) */
  DlTime flows_at;                    /* its time while pending */
  gboolean flows_ticking;             /* inside ev_flows: no other tick is scheduled */
  SimEventId deliver_ev;              /* the last delivery event scheduled (sim-net.c's
                                         deliver_at): messages for its time scheduled right
                                         after it, with nothing between, join its chain */
  DlTime deliver_at;                  /* its time */
  guint32 deliver_tail;               /* its chain's last message (MsgRef) */
  const SimWorldCallbacks *cb;        /* set by sim-world.c: what its parts ask of it */
  const volatile int *interrupt;
  gint64 wall_limit_us;               /* sim_world_set_wall_limit (0: none) */
  gint64 wall_end_us;                 /* g_get_monotonic_time at which it is reached */
  SimProgressFn progress_fn;          /* sim_world_set_progress */
  gpointer progress_ud;
};

typedef struct SimServer {
  ProtoMachine *m;
  SimTimer deadline;
  gboolean crashed;
  DlTime crashed_at;
  DlTime up_free;         /* a replica's uplink to the other replicas: free from then */
  DlRandom *rng;          /* a replica's election timeouts */
} SimServer;

/* (transfer full) the run's stream (seed, name, node), re-seeded with the
 * salt of a `reseed` action that ran before it was made: a stream made
 * after the cut is new too */
static inline DlRandom *
sim_world_stream (const SimWorld *w, const char *name, int64_t node)
{
  DlRandom *r = dl_random_new (w->cfg.seed, name, node);
  if (w->reseed_salt)
    dl_random_reseed (r, w->reseed_salt);
  return r;
}

/* a link-slow action's extra setup time for l (0: none), and setting it */
static inline DlTime
sim_link_extra_setup (const SimWorld *w, const Link *l)
{
  return l->slow ? (DlTime) (uintptr_t) dl_word_map_lookup (w->link_slow, (uint64_t) (uintptr_t) l) : 0;
}

static inline void
sim_link_set_extra_setup (SimWorld *w, Link *l, DlTime extra)
{
  if (!l->slow && extra == 0)
    return;
  if (!w->link_slow)
    w->link_slow = dl_word_map_new (NULL);
  if (l->slow)
    dl_word_map_steal (w->link_slow, (uint64_t) (uintptr_t) l);
  l->slow = extra != 0;
  if (extra != 0)
    dl_word_map_insert (w->link_slow, (uint64_t) (uintptr_t) l, (gpointer) (uintptr_t) extra);
}

static inline Node *
sim_node_at (const SimWorld *w, ProtoNodeId id)
{
  return id < w->nodes->len ? g_ptr_array_index (w->nodes, id) : NULL;
}

/* the side of a link (0 or 1) that self sends on, to other */
static inline int
sim_link_side (ProtoNodeId self, ProtoNodeId other)
{
  return self < other ? 0 : 1;
}

/* a node's map's value (its Link's index in link_slab + 1): the Link */
static inline Link *
sim_link_at (const SimWorld *w, guint32 ref)
{
  return dl_slab_at (&w->link_slab, ref - 1);
}

/* The world's files in layers: each calls only those below it, none calls
 * back up (docs/architecture.md, "Cycles between files of one folder").
 *
 *   sim-world.c      hosts, compute, the watch, results; sets the callbacks
 *   sim-churn.c      membership, the timeline, churn, traces
 *   sim-servers.c    the coordinator, one or its replicas; peers' streams to it
 *   sim-net.c        messages and streams: the send, the flows, the delivery
 *   sim-net-links.c  a link's setup, failure, close and close notice
 *   sim-net-chan.c   a channel's latency, last arrival, queue, connection
 *   sim-net-rates.c  a bandwidth trace's rows, a node's rates now
 *   sim-net-rules.c  the timeline's delay and drop rules on a message
 *   sim-net-msg.c    a message's record, its shared body, its wire size
 *   sim-net-maps.c   the side maps and the look-ups all of them share
 *   (host/sim-peers.c: a peer's attributes from the configuration)
 *
 * Where a lower file must feed a machine (a message arrives, a stream
 * breaks, a peer joins), it calls through SimWorldCallbacks, which
 * sim-world.c sets, never sim-world.c's functions.  A callback runs at
 * once, where the call was: the order of events is the order of calls. */

/* What the world's parts ask of sim-world.c (as ngtcp2's callbacks):
 * feeding a machine an input through the host layer (sim_host_feed). */
struct SimWorldCallbacks {
  /* peer n */
  void (*dispatch_peer) (SimWorld *w, Node *n, const ProtoInput *in);
  /* the coordinator's server k (its replica k; 0 without replicas);
   * nothing if it crashed */
  void (*dispatch_server) (SimWorld *w, guint k, const ProtoInput *in);
};

static inline void
sim_dispatch_peer (SimWorld *w, Node *n, const ProtoInput *in)
{
  w->cb->dispatch_peer (w, n, in);
}

static inline void
sim_dispatch_server (SimWorld *w, guint k, const ProtoInput *in)
{
  w->cb->dispatch_server (w, k, in);
}

/* an input to the coordinator from peer in->from: to its stream's replica */
static inline void
sim_dispatch_coord (SimWorld *w, const ProtoInput *in)
{
  Node *n = sim_node_at (w, in->from);
  sim_dispatch_server (w, n ? n->server : 0, in);
}

/* Arms a machine's deadline timer for `when` with handler h (arg its
 * argument), or cancels it (DL_TIME_NEVER); nothing if it is pending for
 * that time already. */
static inline void
sim_rearm (SimWorld *w, SimTimer *timer, DlTime when, SimHandler h, uint64_t arg)
{
  if (timer->ev != SIM_EVENT_NONE && timer->at == when)
    return;
  sim_engine_cancel (w->engine, timer->ev);
  timer->ev = SIM_EVENT_NONE;
  if (when != DL_TIME_NEVER)
    {
      /* the event's own time, as sim_engine_event_time would give it */
      timer->at = MAX (when, sim_engine_now (w->engine));
      timer->ev = sim_engine_schedule_at (w->engine, timer->at, h, w, arg);
    }
}

/* ---- sim-net.c */

/* with the engine: the network's records and the engine's hints for its
 * events */
void sim_net_init (SimWorld *w);
void sim_net_send (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg);
void sim_net_close_stream (SimWorld *w, Node *n);
void sim_net_uplink_stopped (SimWorld *w, ProtoNodeId id);
void sim_net_free (SimWorld *w);
/* a bandwidth trace: its changes scheduled (before anything else of the
 * run, so that a change comes first at its instant) */
void sim_net_schedule_rates (SimWorld *w);

/* ---- sim-net-links.c (under sim-net.c) */

/* a link close on its way to the other end (see sim_net_close_link) */
typedef struct {
  ProtoNodeId self, other;
  guint32 gen;
  DlTime latency;
} CloseNote;

void sim_net_link_failed (SimWorld *w, ProtoNodeId a, ProtoNodeId b, const char *why);
void sim_net_connect_link (SimWorld *w, ProtoNodeId a, ProtoNodeId b);
/* l's setup under way (l->pending) is called off: it never comes up */
void sim_net_cancel_link_setup (SimWorld *w, Link *l);
void sim_net_close_link (SimWorld *w, ProtoNodeId self, ProtoNodeId other, gboolean notify);
/* (transfer none: the world's close_notes holds it) l's close notice from
 * side `side` that waited behind that side's messages in flight, no
 * longer waiting (Link.waits) */
CloseNote *_sim_net_close_wait_take (SimWorld *w, Link *l, int side);
/* a close notice arrives (arg: its CloseNote) */
void _sim_net_ev_close_arrive (SimEngine *e, void *ctx, uint64_t arg);

/* ---- sim-net-chan.c (a leaf under sim-net.c; sim-net-chan-private.h
 * has its per-message look-ups, static inline) */

/* the one-way latency a message pays on the channel (from, to, via) */
const DlDist *_sim_net_latency_of (const SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via,
                                   gboolean internal);
/* transport tcp or sctp: the slow start of m's flow in *win (FALSE: none,
 * fluid), and the window its connection keeps once it has left */
gboolean _sim_net_conn_window (SimWorld *w, const Msg *m, Link *l, DlTime now, DlTime rtt,
                               SimFlowsWindow *win);
void _sim_net_conn_sent (SimWorld *w, const Msg *m, Link *l, guint64 cwnd);

/* ---- sim-net-rates.c (a leaf under sim-net.c) */

/* a bandwidth trace's rows by peer and by time (w->rates_by_peer,
 * w->rates_by_time; nothing without a trace) */
void _sim_net_rates_init (SimWorld *w);
/* a new node's rows and its rates now */
void sim_net_node_rates (SimWorld *w, Node *n);
/* bps as a fact names it ("1.5Mbps") */
void _sim_net_rates_format (char *buf, gsize size, uint64_t bps);

/* ---- sim-net-rules.c (a leaf under sim-net.c) */

/* the first delay rule, if any, that m from `from` to `to` matches: its
 * delay (0: none), one use of it taken */
DlTime _sim_net_rules_take_delay (SimWorld *w, ProtoNodeId from, ProtoNodeId to, const Msg *m);
/* TRUE if a drop rule matches msg (one use of it taken) */
gboolean _sim_net_rules_take_drop (SimWorld *w, ProtoNodeId from, ProtoNodeId to, const ProtoMsg *msg);
/* msg's type, and its kind where its type has kinds, in buf or static */
const char *_sim_net_rules_kind_name (const ProtoMsg *msg, char buf[64]);

/* ---- sim-net-msg.c (a leaf under sim-net.c; sim-net-msg-private.h has
 * its per-message record, body and size, static inline) */

/* m's protocol message (its body's, with its own node), in tmp, which
 * the caller provides; NULL for a close frame. */
const ProtoMsg *sim_net_msg_view (const Msg *m, ProtoMsg *tmp);
/* a delay rule's extra for m (sharing = fair; sim-net-msg-private.h
 * takes it back) */
void _sim_net_msg_set_extra (SimWorld *w, Msg *m, DlTime extra);
/* a message delivered, lost, or that never went in flight: its record
 * and its share of its body given back */
void sim_net_msg_free (SimWorld *w, Msg *m);

/* ---- sim-net-maps.c (a leaf: the files above sim-net.c, sim-net.c,
 * sim-net-chan.c and sim-net-links.c call it) */

guint sim_hash_word (gconstpointer k);
Link *sim_link_get (SimWorld *w, ProtoNodeId a, ProtoNodeId b, gboolean create);
void sim_net_prepare_send (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, int stage);
void sim_fact (SimWorld *w, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail);
gboolean sim_partitioned (const SimWorld *w, ProtoNodeId a, ProtoNodeId b);

/* ---- sim-servers.c */

/* the replica the coordinator service's streams go to now (the live leader
 * of the highest term), n_servers if none; 0 without replicas (if alive) */
guint sim_server_leader (const SimWorld *w);
/* peer n's stream closes from the coordinator's side after `after` */
void sim_stream_broken (SimWorld *w, Node *n, DlTime after, const char *why);
void sim_crash_coordinator (SimWorld *w);
/* the host layer's reconnect and close_stream (protocol/replica/) */
void sim_servers_reconnect (SimWorld *w, ProtoNodeId self);
void sim_servers_close_stream (SimWorld *w, ProtoNodeId self, ProtoNodeId peer);
/* a server's deadline event (arg: its index) */
void sim_ev_coord_deadline (SimEngine *e, void *ctx, uint64_t arg);

/* ---- sim-churn.c */

Node *sim_ensure_node (SimWorld *w, ProtoNodeId id);
void sim_churn_round_started (SimWorld *w, guint round);
/* At the end of a run: a fact (`timeline-unfired`) for each timeline
 * action whose round the run never reached; returns how many. */
guint sim_churn_unfired (SimWorld *w);
void sim_churn_start (SimWorld *w);
