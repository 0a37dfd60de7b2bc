/* disco-msgs.c — DISCO's message types: their names, the codec arms of
 * their bodies and their size keys (disco-msgs.h; the table's contract:
 * protocol/proto-msg-class.h).  The shapes follow DISCO's messages
 * (discojs/src/client/decentralized/messages.ts); weights travel as "ay"
 * of little-endian float32, so a Payload costs its real size. */
#include "config.h"

#include "protocol/disco/disco-msgs.h"
#include "protocol/proto-msg-class.h"

/* robust's helper flag; DISCO's PeerIsReady has no field */
static GVariant *
enc_peer_is_ready (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  guchar t = (guchar) msg->type;
  return msg->helper ? g_variant_new ("(yb)", t, TRUE) : g_variant_new ("(y)", t);
}

static gboolean
dec_peer_is_ready (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  if (g_variant_n_children (body) == 2)
    {
      guchar ty;
      gboolean b = FALSE;
      g_variant_get (body, "(yb)", &ty, &b);
      m->helper = (guint8) b;
    }
  return TRUE;
}

static guint64
size_peer_is_ready (const ProtoMsg *msg)
{
  return msg->helper != 0;
}

static GVariant *
enc_new_node_info (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yubub)", (guchar) msg->type, msg->node, msg->wait_for_more, msg->nb_participants,
                        msg->joined_mid_training);
}

static gboolean
dec_new_node_info (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  gboolean more = FALSE, joined = FALSE;
  g_variant_get (body, "(yubub)", &ty, &m->node, &more, &m->nb_participants, &joined);
  m->wait_for_more = (guint8) more;
  m->joined_mid_training = (guint8) joined;
  return TRUE;
}

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
enc_signal_for_peer (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  guchar t = (guchar) msg->type;
  return msg->signal_data ? g_variant_new ("(yuys)", t, msg->node, (guchar) msg->signal, msg->signal_data)
                          : g_variant_new ("(yuy)", t, msg->node, (guchar) msg->signal);
}

static gboolean
dec_signal_for_peer (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  guchar ty, sig;
  if (g_variant_n_children (body) == 4)
    g_variant_get (body, "(yuys)", &ty, &m->node, &sig, &m->signal_data);
  else
    g_variant_get (body, "(yuy)", &ty, &m->node, &sig);
  if (sig > PROTO_SIGNAL_ANSWER)
    return proto_msg_malformed (error, "SignalForPeer with an unknown signal");
  m->signal = (ProtoSignal) sig;
  return TRUE;
}

/* whether it carries data, and its length */
static guint64
size_signal_for_peer (const ProtoMsg *msg)
{
  return ((guint64) (msg->signal_data != NULL) << 55) | proto_msg_size_string (msg);
}

static GVariant *
enc_node (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu)", (guchar) msg->type, msg->node);
}

static gboolean
dec_node (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  g_variant_get (body, "(yu)", &ty, &m->node);
  return TRUE;
}

static GVariant *
enc_shared_model (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(y@ay)", (guchar) msg->type, proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_shared_model (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 1);
  return proto_msg_weights_from_variant (m, ay, error);
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

/* the frame fuzzer's PeersForRound: up to 7 peers */
static void
fuzz_peers (ProtoMsg *m, DlRandom *r, ProtoNodeId (*id) (DlRandom *r))
{
  ProtoNodeId ids[8];
  guint n = (guint) dl_random_below (r, 8);
  for (guint i = 0; i < n; i++)
    ids[i] = id (r);
  proto_msg_set_peers (m, ids, n);
}

/* the frame fuzzer's SharedModel and Payload: up to 63 weights in [0, 1) */
static void
fuzz_weights (ProtoMsg *m, DlRandom *r, ProtoNodeId (*id) (DlRandom *r))
{
  (void) id;
  gsize n = (gsize) dl_random_below (r, 64);
  g_autoptr (LearnWeights) w = learn_weights_new (n);
  float *d = learn_weights_data_mut (w);
  for (gsize k = 0; k < n; k++)
    d[k] = (float) dl_random_uniform (r);
  proto_msg_set_weights (m, w);
}

#define BARE PROTO_MSG_CLASS_BARE
#define BARE_ROLE PROTO_MSG_CLASS_BARE_ROLE

static const ProtoMsgClass types[] = {
  BARE_ROLE (PROTO_MSG_CLIENT_CONNECTED, "ClientConnected", PROTO_MSG_ROLE_HELLO),
  { PROTO_MSG_NEW_NODE_INFO, "NewNodeInfo", "(yubub)", NULL, enc_new_node_info, dec_new_node_info,
    proto_msg_size_fixed, .role = PROTO_MSG_ROLE_WELCOME },
  BARE (PROTO_MSG_JOIN_ROUND, "JoinRound"),
  { PROTO_MSG_PEER_IS_READY, "PeerIsReady", "(y)", "(yb)", enc_peer_is_ready, dec_peer_is_ready,
    size_peer_is_ready },
  { PROTO_MSG_PEERS_FOR_ROUND, "PeersForRound", "(yauu)", NULL, proto_msg_enc_peers_round, proto_msg_dec_peers_round,
    proto_msg_size_peers, .fuzz = fuzz_peers },
  BARE (PROTO_MSG_CONNECTIONS_READY, "ConnectionsReady"),
  BARE (PROTO_MSG_START_WEIGHT_SHARING, "StartWeightSharing"),
  BARE_ROLE (PROTO_MSG_RETRY_PEER_CONNECTIONS, "RetryPeerConnections", PROTO_MSG_ROLE_BARRIER_RETRY),
  BARE_ROLE (PROTO_MSG_CONNECTION_FAIL, "ConnectionFail", PROTO_MSG_ROLE_CONNECTION_FAIL),
  { PROTO_MSG_WAITING_FOR_MORE, "WaitingForMoreParticipants", "(yu)", NULL, enc_participants, dec_participants,
    proto_msg_size_fixed },
  { PROTO_MSG_ENOUGH_PARTICIPANTS, "EnoughParticipants", "(yu)", NULL, enc_participants, dec_participants,
    proto_msg_size_fixed },
  { PROTO_MSG_SIGNAL_FOR_PEER, "SignalForPeer", "(yuy)", "(yuys)", enc_signal_for_peer, dec_signal_for_peer,
    size_signal_for_peer, .role = PROTO_MSG_ROLE_SIGNAL },
  BARE (PROTO_MSG_MODEL_SYNC_REQUEST, "ModelSyncRequest"),
  { PROTO_MSG_SIGNAL_MODEL_PROVIDER, "SignalModelProvider", "(yu)", NULL, enc_node, dec_node,
    proto_msg_size_fixed },
  { PROTO_MSG_SIGNAL_NEW_PEER, "SignalNewPeer", "(yu)", NULL, enc_node, dec_node, proto_msg_size_fixed },
  { PROTO_MSG_SHARED_MODEL, "SharedModel", "(yay)", NULL, enc_shared_model, dec_shared_model,
    proto_msg_size_weights, .fuzz = fuzz_weights },
  { PROTO_MSG_PAYLOAD, "Payload", "(yuuuay)", NULL, enc_payload, dec_payload, proto_msg_size_weights,
    .fuzz = fuzz_weights },
  { PROTO_MSG_ROUND_STALENESS, "RoundStaleness", "(yuauau)", NULL, proto_msg_enc_round_peers_indices, dec_round_staleness,
    proto_msg_size_peers_indices },
};

/* what explore's drop and delay faults pick from (its order is the draw's:
 * a new entry goes last, or every search's plans change) */
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_PEERS_FOR_ROUND, "to" },       { PROTO_MSG_START_WEIGHT_SHARING, "to" },
  { PROTO_MSG_RETRY_PEER_CONNECTIONS, "to" }, { PROTO_MSG_CONNECTION_FAIL, "to" },
  { PROTO_MSG_PAYLOAD, "to" },               { PROTO_MSG_PAYLOAD, "from" },
  { PROTO_MSG_PEER_IS_READY, "from" },       { PROTO_MSG_CONNECTIONS_READY, "from" },
  { PROTO_MSG_SIGNAL_FOR_PEER, "to" },       { PROTO_MSG_ENOUGH_PARTICIPANTS, "to" },
  { PROTO_MSG_WAITING_FOR_MORE, "to" },      { PROTO_MSG_JOIN_ROUND, "from" },
  { PROTO_MSG_NEW_NODE_INFO, "to" },         { PROTO_MSG_SHARED_MODEL, "to" },
  { PROTO_MSG_SIGNAL_MODEL_PROVIDER, "to" },
};

const ProtoMsgFamily proto_msgs_disco = { "disco", types, G_N_ELEMENTS (types), fault_targets,
                                          G_N_ELEMENTS (fault_targets) };
