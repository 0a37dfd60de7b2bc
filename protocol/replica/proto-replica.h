/* proto-replica.h — the replicated coordinator: any family's coordinator
 * machine kept by a group of replicas (`[protocol] coordinator_replicas`),
 * and the session layer a peer needs to outlive a replica (README.md).
 *
 * A replica (replica-raft.c) is a machine of its own, behind the same
 * machine interface: it wraps one copy of the family's coordinator machine
 * and feeds it the inputs of a replicated log, in log order and at the time
 * each was logged, so that every copy is in the same state (the coordinator
 * machines are deterministic: state machine replication).  The log is kept
 * with Raft (Ongaro & Ousterhout 2014): leader election with randomized
 * timeouts, AppendEntries one entry at a time, commit by majority; or, with
 * `coordinator_replication = primary-backup`, by the same election and
 * shipping without the commit wait.
 *
 * A session peer (replica-session.c) wraps a family's peer machine: it
 * numbers what the peer sends the coordinator, keeps it until the
 * coordinator acknowledges it, and when the stream breaks opens a new one to
 * the new leader and resumes (SessionResume), so that every message between
 * a peer and the coordinator is acted on once (Raft's client sessions,
 * dissertation §6.3).
 *
 * Replica k is node proto_replica_id (k) on the replicas' own network; to a
 * peer the service is PROTO_SERVER, as one coordinator is. */
#pragma once

#include "protocol/proto-machine.h"

G_BEGIN_DECLS

#define PROTO_MAX_REPLICAS 9
#define PROTO_REPLICA_BASE ((ProtoNodeId) (UINT32_MAX - 64))

static inline ProtoNodeId
proto_replica_id (guint k)
{
  return PROTO_REPLICA_BASE + k;
}

static inline gboolean
proto_node_is_replica (ProtoNodeId id)
{
  return id >= PROTO_REPLICA_BASE && id < PROTO_REPLICA_BASE + PROTO_MAX_REPLICAS;
}

static inline guint
proto_replica_index (ProtoNodeId id)
{
  return id - PROTO_REPLICA_BASE;
}

/* Replica `index` of cfg->coordinator_replicas, around a coordinator of
 * `family`.  rng: its election timeouts (borrowed; outlives the machine).
 * Replica 0 starts as the leader of term 1 (the group is up before the
 * peers), the others as its followers.  Its first input is PROTO_IN_START. */
ProtoMachine *proto_replica_new (const ProtoFamily *family, const ProtoConfig *cfg, guint index, DlRandom *rng);
gboolean proto_replica_leads (const ProtoMachine *m);
guint proto_replica_term (const ProtoMachine *m);
/* entries in its log, and how many it has applied */
guint proto_replica_log_len (const ProtoMachine *m);
guint proto_replica_applied (const ProtoMachine *m);
/* (transfer none) its copy of the family's coordinator machine */
ProtoMachine *proto_replica_inner (const ProtoMachine *m);

/* A peer machine (transfer full: the session owns it) in a session that
 * outlives its coordinator stream. */
ProtoMachine *proto_session_peer_new (ProtoMachine *inner, const ProtoConfig *cfg);
/* (transfer none) the peer machine inside a session peer */
ProtoMachine *proto_session_peer_inner (const ProtoMachine *m);

/* Drops from msgs (ProtoMsg, ascending sess_seq) those numbered up to ack:
 * the other side has them. */
void proto_session_trim (GArray *msgs, guint32 ack);

/* The metrics the replica group and the sessions report (NULL-ended). */
extern const char *const proto_replica_metric_names[];

G_END_DECLS
