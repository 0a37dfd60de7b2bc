/* pipe-peer-private.h — the pipeline peer's state, shared by pipe-peer.c
 * (the machine: hello, role, a client's session, a server's work; every
 * transition) and its leaves, which it calls and which never call it:
 * pipe-peer-effects.c (records and sends, the messages it encodes),
 * pipe-peer-records.c (hops, a server's blocks and jobs, clearing,
 * deadlines, the drop rule, construction, the accessors),
 * pipe-peer-route.c (a client's routing over its table) and
 * pipe-peer-sessions.c (a server's sessions).  The effects read the
 * records, which call none of the others; records and effects call the
 * sessions. */
#pragma once

#include "protocol/pipeline/pipe.h"
#include "protocol/session/session-links.h"

G_BEGIN_DECLS

/* Petals' ClientConfig: ban_timeout 15 s (a failed server is not routed
 * to), ping_timeout 2 s, min_backoff 1 s, max_backoff 60 s */
#define PIPE_BAN_NS (15 * DL_S)
#define PIPE_PING_NS (2 * DL_S)
#define PIPE_BACKOFF_MIN_NS (1 * DL_S)
#define PIPE_BACKOFF_MAX_NS (60 * DL_S)

/* A client's hop: a server that runs blocks [start, end) of this step. */
typedef struct {
  ProtoNodeId server;
  guint start, end;
  gboolean stepped;        /* it took a step of this session: it holds the session's cache */
  gboolean failed;         /* it is gone: nothing more goes to it; its blocks wait for a repair */
  gboolean sent;           /* this step's input went to it */
  gboolean validated;      /* its result for this step is the right one */
  gboolean have_result;    /* a result came (maybe computed from a wrong pushed copy) */
  guint32 res_in, res_out;
  DlTime deadline;         /* its result is due (step_timeout after the input went) */
} Hop;

/* A server after this one in a chain (next-peer): who, and its blocks. */
typedef struct {
  ProtoNodeId id;
  guint32 start, end;
} ChainHop;

/* A server's work on one step of one session. */
typedef struct {
  guint32 step;
  gboolean have_copy;      /* the client's copy came */
  gboolean copy_hash_only; /* ... as its hash alone (client_copy = hash): no hidden states yet */
  guint32 copy_in;
  gboolean job;            /* a computation of this step was started or queued */
  gboolean job_early;      /* it started on a pushed copy */
  guint32 job_in;
  gboolean done;           /* the computation finished (job_out valid) */
  guint32 job_out;
  gboolean pushed;         /* its result went to the next server */
  guint tokens;
  guint32 start, end;      /* the blocks it runs for this step */
  GArray *chain;           /* ChainHop: the servers after this one (next-peer) */
} StepWork;

typedef struct {
  guint64 key;
  ProtoNodeId client;
  GArray *steps;           /* StepWork, by step */
  guint32 copies_upto;     /* 1 + the latest step the client's copy came for (0: none) */
} Session;

/* One computation in a server's FIFO. */
typedef struct {
  guint64 key;
  guint32 step;
  guint32 in;
  guint tokens;
  guint32 start, end;      /* blocks */
} Job;

typedef struct PipePeer PipePeer;

struct PipePeer {
  ProtoMachineBase base;   /* its state, what it received, connected; rounds_done: a client's
                              steps generated, a server's computations finished */
  ProtoConfig cfg;
  ProtoNodeId id;
  gboolean is_server;
  gboolean role_known;
  DlTime hello_again;      /* no role by then: hello again */
  DlRandom *rng;
  char *region;
  double speed;
  gboolean faulty;         /* a server whose pushes are wrong (faulty_share, drawn from its stream) */
  ProtoLinks links;
  DlTime now;
  LearnWeights *hidden;    /* one token of hidden states: a size only */

  /* server */
  guint start, end;
  GArray *sessions;        /* Session */
  GQueue jobs;             /* Job* waiting */
  Job *running;            /* the computation in progress (NULL: none) */
  DlTime compute_done;

  /* client */
  GArray *servers;         /* PipeServerInfo: the registry's last table */
  GHashTable *rtt;         /* server id + 1 -> round trip + 1 (ns) */
  GHashTable *banned;      /* server id + 1 -> banned until + 1 */
  GHashTable *ping_sent;   /* server id + 1 -> when its ping went + 1 */
  guint pings_out;
  DlTime ping_deadline;
  DlTime lookup_at;        /* WAIT_SERVERS: look up again then */
  DlTime backoff;
  GArray *hops;            /* Hop: the chain */
  guint32 step;            /* the step in flight */
  DlTime step_started;
  DlTime session_started;  /* its first step began */
  DlTime warmed_up;        /* its first (warm-up) step ended */
  gboolean step_failed;    /* a server failed during this step (it needed a replay) */
  guint64 egress_bytes, ingress_bytes;
  gboolean repair;         /* a failed hop's blocks are being routed again (lookup, pings, route) */
};

/* pipe-peer-effects.c (a leaf) */
extern const char *const _pipe_peer_state_names[PIPE_PEER_N_STATES];
void _pipe_peer_observe (PipePeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                        int64_t value, const char *detail);
void _pipe_peer_metric (PipePeer *p, ProtoOutbox *out, const char *name, int32_t round, int64_t value);
void _pipe_peer_set_state (PipePeer *p, ProtoOutbox *out, PipePeerState s);
/* every send: observed; a client's link bytes counted, a ping's departure timed */
void _pipe_peer_send (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
/* over the link to `to` (queued until it is up) */
void _pipe_peer_send_link (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
void _pipe_peer_send_server (PipePeer *p, ProtoOutbox *out, ProtoMsg *m);
/* (transfer full) hidden states of `tokens` tokens: a size only */
LearnWeights *_pipe_peer_hidden (PipePeer *p, guint tokens);
/* the input of hop i for this step (hash `in`), or with hash_only its hash
 * alone; the hop's deadline set */
void _pipe_peer_send_step (PipePeer *p, ProtoOutbox *out, guint i, guint32 in, gboolean hash_only);
/* the session a PipeStep is of, opened (and observed) by its first step */
Session *_pipe_peer_session_of (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
/* PipeHello to the registry, again after step_timeout without a role */
void _pipe_peer_hello (PipePeer *p, ProtoOutbox *out);
/* its links' host (session-links.h) */
void _pipe_peer_links_init (PipePeer *p);

/* pipe-peer-route.c (a leaf) */
/* Is server id banned now (a failure within PIPE_BAN_NS)? */
gboolean _pipe_peer_banned (const PipePeer *p, ProtoNodeId id);
/* Routes blocks [from, to) over the table; the hops (Hop) in *out.  FALSE
 * if a block has no server that is not banned. */
gboolean _pipe_peer_route (PipePeer *p, guint from, guint to, GArray *out);

/* pipe-peer-sessions.c (a leaf) */
/* The session of key (its index in *at if at), or NULL. */
Session *_pipe_peer_session_find (PipePeer *p, guint64 key, guint *at);
void _pipe_peer_session_remove (PipePeer *p, guint at);
/* The work on step of s; with create, made if new (and the finished
 * steps four back dropped); else NULL if none. */
StepWork *_pipe_peer_work_for (Session *s, guint32 step, gboolean create);
/* The blocks and the chain a request or push names for its step. */
void _pipe_peer_work_set_chain (StepWork *w, const ProtoMsg *msg);

/* pipe-peer-records.c (a leaf): hops, a server's blocks and jobs,
 * clearing, deadlines, the drop rule, construction, the accessors */
Hop *_pipe_peer_hop_at (PipePeer *p, guint i);
int _pipe_peer_hop_of (PipePeer *p, ProtoNodeId server);
gboolean _pipe_peer_expected_input (PipePeer *p, guint i, guint32 *in);
gboolean _pipe_peer_running (const PipePeer *p);
int _pipe_peer_first_failed (PipePeer *p);
DlTime _pipe_peer_client_next_deadline (const PipePeer *p);
void _pipe_peer_client_clear (PipePeer *p);
gboolean _pipe_peer_serves (const PipePeer *p, const ProtoMsg *msg);
StepWork *_pipe_peer_job_wanted (PipePeer *p, const Job *j);
DlTime _pipe_peer_server_next_deadline (const PipePeer *p);
void _pipe_peer_server_clear (PipePeer *p);
gboolean _pipe_peer_listens (const PipePeer *p, ProtoMsgType type);
gboolean _pipe_peer_class_listens (const void *impl, ProtoMsgType type, ProtoNodeId from);
DlTime _pipe_peer_next_deadline (const void *impl);
void _pipe_peer_view (const void *impl, ProtoPeerView *v);
void _pipe_peer_free (void *impl);
void _pipe_peer_init (PipePeer *p, const ProtoConfig *cfg, const ProtoPeerEnv *env);

G_END_DECLS
