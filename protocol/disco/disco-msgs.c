/* disco-msgs.c — DISCO's own message types: their names, the codec arms
 * of their bodies and their size keys (disco-msgs.h; the table's contract:
 * protocol/proto-msg-class.h; the session types DISCO also speaks:
 * protocol/session/session-msgs.c).  The shapes follow DISCO's messages
 * (discojs/src/client/decentralized/messages.ts); weights travel as "ay"
 * of little-endian float32, so a Payload costs its real size. */
#include "config.h"

#include "protocol/disco/disco-msgs.h"

static GVariant *
enc_participants (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu)", (guchar) msg->type, msg->nb_participants);
}

static gboolean
dec_participants (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  g_variant_get (body, "(yu)", &ty, &m->nb_participants);
  return TRUE;
}

static GVariant *
enc_payload (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(yuuu@ay)", (guchar) msg->type, msg->node, msg->round, msg->comm_round,
                        proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_payload (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) b = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) c = g_variant_get_child_value (body, 3);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 4);
  m->node = g_variant_get_uint32 (a);
  m->round = g_variant_get_uint32 (b);
  m->comm_round = g_variant_get_uint32 (c);
  return proto_msg_weights_from_variant (m, ay, error);
}

/* peers and their staleness, one each */
static gboolean
dec_round_staleness (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  if (!proto_msg_dec_round_peers_indices (body, m, depth, error))
    return FALSE;
  if (m->n_indices != m->n_peers)
    return proto_msg_malformed (error, "RoundStaleness needs one staleness per peer");
  return TRUE;
}

#define BARE PROTO_MSG_CLASS_BARE
#define BARE_ROLE PROTO_MSG_CLASS_BARE_ROLE

/* examples (ProtoMsgClass.example): every field the type carries set */

static void
example_participants (ProtoMsg *m)
{
  m->nb_participants = 5;
}

static void
example_new_peer (ProtoMsg *m)
{
  m->node = 11;
}

static void
example_payload (ProtoMsg *m)
{
  static const float w[] = { 1.5f, -2.25f, 3.0f, 0.0f, 1e-3f };
  m->node = 2;
  m->round = 4;
  m->comm_round = 1;
  g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
  proto_msg_set_weights (m, lw);
}

static void
example_staleness (ProtoMsg *m)
{
  static const ProtoNodeId peers[] = { 4, 9 };
  m->round = 6;
  proto_msg_set_peers (m, peers, 2);
  guint32 *q = g_new (guint32, 2);
  q[0] = 0, q[1] = 3;
  proto_msg_take_indices (m, q, 2);
}

static const ProtoMsgClass types[] = {
  BARE (DISCO_MSG_JOIN_ROUND, "JoinRound"),
  BARE (DISCO_MSG_CONNECTIONS_READY, "ConnectionsReady"),
  BARE (DISCO_MSG_START_WEIGHT_SHARING, "StartWeightSharing"),
  BARE_ROLE (DISCO_MSG_RETRY_PEER_CONNECTIONS, "RetryPeerConnections", PROTO_MSG_ROLE_BARRIER_RETRY),
  BARE_ROLE (DISCO_MSG_CONNECTION_FAIL, "ConnectionFail", PROTO_MSG_ROLE_CONNECTION_FAIL),
  { DISCO_MSG_WAITING_FOR_MORE, "WaitingForMoreParticipants", "(yu)", NULL, enc_participants, dec_participants,
    proto_msg_size_fixed,
    .example = example_participants },
  { DISCO_MSG_ENOUGH_PARTICIPANTS, "EnoughParticipants", "(yu)", NULL, enc_participants, dec_participants,
    proto_msg_size_fixed,
    .example = example_participants },
  { DISCO_MSG_SIGNAL_NEW_PEER, "SignalNewPeer", "(yu)", NULL, proto_session_enc_node, proto_session_dec_node,
    proto_msg_size_fixed,
    .example = example_new_peer },
  { DISCO_MSG_PAYLOAD, "Payload", "(yuuuay)", NULL, enc_payload, dec_payload, proto_msg_size_weights,
    .fuzz = proto_session_fuzz_weights,
    .example = example_payload },
  { DISCO_MSG_ROUND_STALENESS, "RoundStaleness", "(yuauau)", NULL, proto_msg_enc_round_peers_indices, dec_round_staleness,
    proto_msg_size_peers_indices,
    .example = example_staleness },
};

/* what explore's drop and delay faults pick from (its order is the draw's:
 * a new entry goes last, or every search's plans change) */
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_ROUND_PEERS, "to" },       { DISCO_MSG_START_WEIGHT_SHARING, "to" },
  { DISCO_MSG_RETRY_PEER_CONNECTIONS, "to" }, { DISCO_MSG_CONNECTION_FAIL, "to" },
  { DISCO_MSG_PAYLOAD, "to" },               { DISCO_MSG_PAYLOAD, "from" },
  { PROTO_MSG_READY, "from" },       { DISCO_MSG_CONNECTIONS_READY, "from" },
  { PROTO_MSG_SIGNAL, "to" },       { DISCO_MSG_ENOUGH_PARTICIPANTS, "to" },
  { DISCO_MSG_WAITING_FOR_MORE, "to" },      { DISCO_MSG_JOIN_ROUND, "from" },
  { PROTO_MSG_WELCOME, "to" },         { PROTO_MSG_SYNC_MODEL, "to" },
  { PROTO_MSG_SYNC_PROVIDER, "to" },
};

/* its types that list leaves out: appending them would change every
 * search's draws (dl_random_below over the list's length), and the list
 * stays as explore always drew it (docs/architecture.md, "Fault
 * targets") */
static const ProtoMsgType untargeted[] = {
  PROTO_MSG_HELLO, PROTO_MSG_SYNC_REQUEST, DISCO_MSG_SIGNAL_NEW_PEER, DISCO_MSG_ROUND_STALENESS,
};

const ProtoMsgFamily proto_msgs_disco = { "disco", types, G_N_ELEMENTS (types), fault_targets,
                                          G_N_ELEMENTS (fault_targets), .session_types = TRUE,
                                          .untargeted = untargeted, .n_untargeted = G_N_ELEMENTS (untargeted) };
