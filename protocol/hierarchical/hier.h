/* hier.h — the hierarchical family (protocol/hierarchical/README.md): peers
 * in clusters, each with an elected head; members send their model to their
 * head, heads exchange their clusters' means and send the global mean back
 * down.
 *
 * Shape: hier_coord_new / hier_peer_new make the machines; handle and
 * next_deadline as every machine (protocol/proto-machine.h). */
#pragma once

#include "protocol/hierarchical/hier-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

gint hier_cmp_id (gconstpointer a, gconstpointer b);

/* ---- the coordinator (hier-coord.c) ---- */

/* a coordinator machine (its struct begins with its ProtoMachineBase:
 * its phase, "gathering", "probing" or "clustered", and its deadline) */
ProtoMachine *hier_coord_new (const ProtoConfig *cfg);
guint hier_coord_n_clusters (const ProtoMachine *m);
/* the head of member's cluster, PROTO_NO_NODE if none (yet) */
ProtoNodeId hier_coord_head_of (const ProtoMachine *m, ProtoNodeId member);

/* ---- the peer (hier-peer.c) ---- */

typedef enum {
  HIER_PEER_IDLE,
  HIER_PEER_CONNECTING,    /* ClientConnected sent, NewNodeInfo awaited */
  HIER_PEER_SYNCING,       /* joined after the clusters formed: the latest global model from its head first */
  HIER_PEER_TRAINING,
  HIER_PEER_WAIT_HEAD,     /* trained; its cluster has no head (an election is on) */
  HIER_PEER_WAIT_LINK,     /* trained; the link to its head is coming up */
  HIER_PEER_WAIT_RESULT,   /* its update is with its head */
  HIER_PEER_DONE,          /* every round trained; stays (a head keeps heading) */
  HIER_PEER_LEFT,
} HierPeerState;
#define HIER_PEER_N_STATES (HIER_PEER_LEFT + 1)

/* a peer machine (its struct begins with its ProtoMachineBase: the
 * proto_machine_* accessors read its state, rounds done and model) */
ProtoMachine *hier_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env);
const char *hier_peer_state_name (HierPeerState s);
gboolean hier_peer_is_head (const ProtoMachine *m);
/* a score from the host: speed x uplink in Mbit/s, x 1000 */
guint32 hier_score (const ProtoPeerEnv *env);

G_END_DECLS
