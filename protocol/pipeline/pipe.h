/* pipe.h — the pipeline family: Petals' inference chain, with the
 * next-peer proposal (direct server-to-server forwarding) as an option
 * (README.md beside this file).
 *
 * Machines:
 * - the coordinator is the registry that Petals keeps in its DHT: it gives
 *   each peer its role (PipeRole) and a client the live servers with their
 *   block ranges, speeds and families (PipeServers);
 * - a peer is a server of one block range, or a client that runs one
 *   inference session of `steps` tokens through a chain of servers that
 *   covers every block.
 *
 * Sans-IO as every family: handle (now, input, outbox), next_deadline; a
 * server's compute is its own deadline (its speed and its stream give the
 * duration), so the world knows nothing of it.
 *
 * Shape: pipe_coord_new / pipe_coord_free, pipe_peer_new / pipe_peer_free. */
#pragma once

#include "protocol/pipeline/pipe-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef enum {
  PIPE_PEER_IDLE,
  PIPE_PEER_CONNECTING,    /* hello sent, waits for its role */
  PIPE_PEER_SERVING,       /* a server with nothing to compute */
  PIPE_PEER_COMPUTING,     /* a server running a request */
  PIPE_PEER_LOOKUP,        /* a client waiting for the server table */
  PIPE_PEER_PINGING,       /* a client measuring its round trip to each server */
  PIPE_PEER_STEPPING,      /* a client with a step in flight */
  PIPE_PEER_WAIT_SERVERS,  /* a client with no chain that covers every block: looks up again */
  PIPE_PEER_DONE,          /* a client whose session generated every step */
  PIPE_PEER_LEFT,
} PipePeerState;
#define PIPE_PEER_N_STATES (PIPE_PEER_LEFT + 1)

const char *pipe_peer_state_name (PipePeerState s);

/* ---- routing (pipe-route.c) ---- */

/* What a client knows of one server. */
typedef struct {
  ProtoNodeId id;
  guint start, end;        /* its blocks [start, end) */
  double speed;            /* as the server announced it */
  guint32 family;          /* its family (region) code: equal codes, one LAN */
  DlTime rtt;              /* the client's measured round trip; DL_TIME_NEVER: unknown */
} PipeServerInfo;

/* One hop of a chain: server `server` (an index into the table) runs
 * blocks [start, end). */
typedef struct {
  guint server;
  guint start, end;
} PipeHop;

typedef struct {
  double block_ns;         /* pessimistic time of one block for one token at speed 1 */
  gboolean next_peer;      /* forwarding = next-peer: a hop between servers goes straight */
  gboolean family_hint;    /* with next_peer: a hop inside one family is taken as free */
} PipeRouteCost;

/* Petals' fastest path (client/routing/sequence_manager.py,
 * _make_sequence_with_min_latency): a chain of servers covering blocks
 * [from, to), each kept to its own range's end before the next, by least
 * estimated time: the client's half round trips at both ends, every
 * server's pessimistic compute, and between two servers either the way
 * through the client (forwarding = client) or a direct hop (next-peer:
 * 150 ms as Petals takes an unknown delay, none inside one family with
 * family_hint).  Servers with skip[i] set are left out (NULL: none).  FALSE
 * if some block has no server; else out (PipeHop) holds the chain. */
gboolean pipe_route (const PipeServerInfo *servers, guint n, const gboolean *skip, guint from, guint to,
                     const PipeRouteCost *cost, GArray *out);

/* The content hash that stands in for hidden states: the output of blocks
 * [start, end) on an input of hash `in`. */
guint32 pipe_blocks_hash (guint32 in, guint start, guint end);
/* A client's input for step `step` of session `session`. */
guint32 pipe_input_hash (guint64 session, guint32 step);
/* A pessimistic bound on one block's compute (time >= actual, as Petals'
 * routing wants): mean + 2 sd of compute_per_block, or 10 x its scale
 * where those are infinite. */
double pipe_block_ns_pessimistic (const ProtoConfig *cfg);

/* ---- the machines ---- */

/* the registry: one state, "registry" */
ProtoMachine *pipe_coord_new (const ProtoConfig *cfg);

/* a peer: its state (proto_machine_state) is a PipePeerState */
ProtoMachine *pipe_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env);
/* for tests: a server's role, its range, and a client's chain */
gboolean pipe_peer_is_server (const ProtoMachine *m);
gboolean pipe_peer_is_faulty (const ProtoMachine *m);
/* a server's finished computations (without the ones thrown away) */
guint pipe_peer_computations (const ProtoMachine *m);
/* a server's blocks [*start, *end) */
void pipe_peer_range (const ProtoMachine *m, guint *start, guint *end);
/* the servers of a client's current chain, in order (transfer container) */
GArray *pipe_peer_chain (const ProtoMachine *m);

G_END_DECLS
