/* session-msgs.h — the session layer's message types: what any family
 * that admits peers through a coordinator and links them through its
 * signalling may speak (docs/architecture.md, "The session layer").  Their
 * names and type bytes are DISCO's (#1110), which spoke them first: a
 * run's recorded names and the testbed's frames are the same whichever
 * family sends them.  Their fields in ProtoMsg are said beside each; their
 * codec and sizes: session-msgs.c, registered under every family
 * (proto-msg-registry.c).
 *
 *   hello     ClientConnected, peer -> coordinator (PROTO_MSG_ROLE_HELLO)
 *   welcome   NewNodeInfo, coordinator -> peer (PROTO_MSG_ROLE_WELCOME)
 *   ready     PeerIsReady, peer -> coordinator
 *   peers     PeersForRound, coordinator -> peer
 *   signal    SignalForPeer, relayed by the coordinator (PROTO_MSG_ROLE_SIGNAL;
 *             session-links.h sets links up with it)
 *   sync      ModelSyncRequest, SignalModelProvider, SharedModel: a
 *             newcomer's model from a provider */
#pragma once

#include "protocol/proto-msg-class.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

enum {
  PROTO_MSG_HELLO = 0,
  PROTO_MSG_WELCOME = 1,       /* S -> peer: its id `node`, `wait_for_more`, `nb_participants`,
                                        `joined_mid_training` */
  PROTO_MSG_READY = 3,       /* `helper` (DISCO's robust only): on the wire only when set */
  PROTO_MSG_ROUND_PEERS = 4,     /* S -> peer: the round's `peers`, aggregation `round` */
  PROTO_MSG_SIGNAL = 11,    /* `node` the destination (to S) or source (from S), `signal`,
                                        `signal_data` (NULL in the simulator) */
  PROTO_MSG_SYNC_REQUEST = 12,
  PROTO_MSG_SYNC_PROVIDER = 13, /* `node` the provider */
  PROTO_MSG_SYNC_MODEL = 15,       /* `weights` */
};

/* The session's table (proto-msg-registry.c registers it beside the
 * families'). */
extern const ProtoMsgFamily proto_msgs_session;

/* The coordinator's relay of a signal: *out (uninitialised) becomes the
 * signal `from` sent, addressed back with `from` as its source, its data
 * copied verbatim, as DISCO relays the SDP.  Who may signal whom is the
 * family's to check. */
void proto_session_relay (ProtoMsg *out, ProtoNodeId from, const ProtoMsg *signal);

/* The relay as every coordinator makes it, observed: the signal's
 * RECEIVED from `from` (unless the coordinator observed it on its way in
 * already: observe_received FALSE), the relay's SENT to the peer it
 * names, then the relay over the coordinator's stream (PROTO_VIA_SERVER).
 * state and round stamp the observations as the coordinator's own. */
void proto_session_relay_observed (ProtoOutbox *out, const char *state, int32_t round, ProtoNodeId from,
                                   const ProtoMsg *signal, gboolean observe_received);

/* Codec arms a family's own types may reuse: a "(yu)" body of `node`, and
 * the frame fuzzer's weights (up to 63, in [0, 1)). */
GVariant *proto_session_enc_node (const ProtoMsg *msg, gboolean copy);
gboolean proto_session_dec_node (GVariant *body, ProtoMsg *m, guint depth, GError **error);
void proto_session_fuzz_weights (ProtoMsg *m, DlRandom *r, ProtoNodeId (*id) (DlRandom *r));

G_END_DECLS
