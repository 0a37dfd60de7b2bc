/* session-msgs.c — the session layer's message types: their names, the
 * codec arms of their bodies and their size keys (session-msgs.h; the
 * table's contract: protocol/proto-msg-class.h), and the coordinator's
 * relay of a signal.  The shapes follow DISCO's messages
 * (discojs/src/client/decentralized/messages.ts); weights travel as "ay"
 * of little-endian float32, so a SharedModel costs its real size. */
#include "config.h"

#include "protocol/session/session-msgs.h"

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

GVariant *
proto_session_enc_node (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yu)", (guchar) msg->type, msg->node);
}

gboolean
proto_session_dec_node (GVariant *body, ProtoMsg *m, guint depth, GError **error)
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
void
proto_session_fuzz_weights (ProtoMsg *m, DlRandom *r, ProtoNodeId (*id) (DlRandom *r))
{
  (void) id;
  gsize n = (gsize) dl_random_below (r, 64);
  g_autoptr (LearnWeights) w = learn_weights_new (n);
  float *d = learn_weights_data_mut (w);
  for (gsize k = 0; k < n; k++)
    d[k] = (float) dl_random_uniform (r);
  proto_msg_set_weights (m, w);
}

void
proto_session_relay (ProtoMsg *out, ProtoNodeId from, const ProtoMsg *signal)
{
  proto_msg_init (out, PROTO_MSG_SIGNAL);
  out->node = from;
  out->signal = signal->signal;
  out->signal_data = g_strdup (signal->signal_data);
}

void
proto_session_relay_observed (ProtoOutbox *out, const char *state, int32_t round, ProtoNodeId from,
                              const ProtoMsg *signal, gboolean observe_received)
{
  if (observe_received)
    proto_outbox_observe (out, PROTO_OBS_RECEIVED, state, round, from, (int32_t) signal->type, -1, "%s", "");
  ProtoMsg r;
  proto_session_relay (&r, from, signal);
  proto_outbox_observe (out, PROTO_OBS_SENT, state, round, signal->node, (int32_t) r.type, -1, "%s", "");
  proto_outbox_send (out, signal->node, PROTO_VIA_SERVER, &r);
}

/* by type byte, as DISCO's table had them */
/* examples (ProtoMsgClass.example): every field the type carries set */

static void
example_welcome (ProtoMsg *m)
{
  m->node = 7;
  m->wait_for_more = TRUE;
  m->nb_participants = 3;
  m->joined_mid_training = TRUE;
}

static void
example_round_peers (ProtoMsg *m)
{
  static const ProtoNodeId peers[] = { 4, 9, 2 };
  proto_msg_set_peers (m, peers, 3);
  m->round = 12;
}

static void
example_signal (ProtoMsg *m)
{
  m->node = 3;
  m->signal = PROTO_SIGNAL_ANSWER;
}

static void
example_provider (ProtoMsg *m)
{
  m->node = 11;
}

static void
example_shared_model (ProtoMsg *m)
{
  static const float w[] = { 1.5f, -2.25f, 3.0f, 0.0f, 1e-3f };
  g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
  proto_msg_set_weights (m, lw);
}

static const ProtoMsgClass types[] = {
  PROTO_MSG_CLASS_BARE_ROLE (PROTO_MSG_HELLO, "ClientConnected", PROTO_MSG_ROLE_HELLO),
  { PROTO_MSG_WELCOME, "NewNodeInfo", "(yubub)", NULL, enc_new_node_info, dec_new_node_info,
    proto_msg_size_fixed, .role = PROTO_MSG_ROLE_WELCOME,
    .example = example_welcome },
  { PROTO_MSG_READY, "PeerIsReady", "(y)", "(yb)", enc_peer_is_ready, dec_peer_is_ready,
    size_peer_is_ready },
  { PROTO_MSG_ROUND_PEERS, "PeersForRound", "(yauu)", NULL, proto_msg_enc_peers_round, proto_msg_dec_peers_round,
    proto_msg_size_peers, .fuzz = fuzz_peers,
    .example = example_round_peers },
  { PROTO_MSG_SIGNAL, "SignalForPeer", "(yuy)", "(yuys)", enc_signal_for_peer, dec_signal_for_peer,
    size_signal_for_peer, .role = PROTO_MSG_ROLE_SIGNAL,
    .example = example_signal },
  PROTO_MSG_CLASS_BARE (PROTO_MSG_SYNC_REQUEST, "ModelSyncRequest"),
  { PROTO_MSG_SYNC_PROVIDER, "SignalModelProvider", "(yu)", NULL, proto_session_enc_node,
    proto_session_dec_node, proto_msg_size_fixed,
    .example = example_provider },
  { PROTO_MSG_SYNC_MODEL, "SharedModel", "(yay)", NULL, enc_shared_model, dec_shared_model,
    proto_msg_size_weights, .fuzz = proto_session_fuzz_weights,
    .example = example_shared_model },
};

/* no fault targets of its own: each family lists the ones it speaks */
const ProtoMsgFamily proto_msgs_session = { "session", types, G_N_ELEMENTS (types), NULL, 0 };
