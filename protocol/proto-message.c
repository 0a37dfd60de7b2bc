/* proto-message.c — message names, copies, and the GVariant wire form
 * (decoding: proto-message-decode.c). */
#include "config.h"

#include "protocol/proto-message.h"
#include "protocol/proto-message-private.h"

#include <string.h>

G_DEFINE_QUARK (proto-error-quark, proto_error)

const char *const proto_msg_type_names[PROTO_MSG_N_TYPES] = {
  [PROTO_MSG_CLIENT_CONNECTED] = "ClientConnected",
  [PROTO_MSG_NEW_NODE_INFO] = "NewNodeInfo",
  [PROTO_MSG_JOIN_ROUND] = "JoinRound",
  [PROTO_MSG_PEER_IS_READY] = "PeerIsReady",
  [PROTO_MSG_PEERS_FOR_ROUND] = "PeersForRound",
  [PROTO_MSG_CONNECTIONS_READY] = "ConnectionsReady",
  [PROTO_MSG_START_WEIGHT_SHARING] = "StartWeightSharing",
  [PROTO_MSG_RETRY_PEER_CONNECTIONS] = "RetryPeerConnections",
  [PROTO_MSG_CONNECTION_FAIL] = "ConnectionFail",
  [PROTO_MSG_WAITING_FOR_MORE] = "WaitingForMoreParticipants",
  [PROTO_MSG_ENOUGH_PARTICIPANTS] = "EnoughParticipants",
  [PROTO_MSG_SIGNAL_FOR_PEER] = "SignalForPeer",
  [PROTO_MSG_MODEL_SYNC_REQUEST] = "ModelSyncRequest",
  [PROTO_MSG_SIGNAL_MODEL_PROVIDER] = "SignalModelProvider",
  [PROTO_MSG_SIGNAL_NEW_PEER] = "SignalNewPeer",
  [PROTO_MSG_SHARED_MODEL] = "SharedModel",
  [PROTO_MSG_PAYLOAD] = "Payload",
  [PROTO_MSG_GOSSIP_TARGETS] = "GossipTargets",
  [PROTO_MSG_NEIGHBORS] = "Neighbors",
  [PROTO_MSG_GOSSIP_PAYLOAD] = "GossipPayload",
  [PROTO_MSG_GOSSIP_SAMPLE] = "GossipSample",
  [PROTO_MSG_HIER_HELLO] = "HierHello",
  [PROTO_MSG_HIER_CLUSTER] = "HierCluster",
  [PROTO_MSG_HIER_CANDIDACY] = "HierCandidacy",
  [PROTO_MSG_HIER_HEADS] = "HierHeads",
  [PROTO_MSG_HIER_UPDATE] = "HierUpdate",
  [PROTO_MSG_HIER_AGG] = "HierAgg",
  [PROTO_MSG_HIER_RESULT] = "HierResult",
  [PROTO_MSG_DHT_FIND_NODE] = "DhtFindNode",
  [PROTO_MSG_DHT_NODES] = "DhtNodes",
  [PROTO_MSG_PIPE_HELLO] = "PipeHello",
  [PROTO_MSG_PIPE_ROLE] = "PipeRole",
  [PROTO_MSG_PIPE_LOOKUP] = "PipeLookup",
  [PROTO_MSG_PIPE_SERVERS] = "PipeServers",
  [PROTO_MSG_PIPE_PING] = "PipePing",
  [PROTO_MSG_PIPE_PONG] = "PipePong",
  [PROTO_MSG_PIPE_STEP] = "PipeStep",
  [PROTO_MSG_PIPE_PUSH] = "PipePush",
  [PROTO_MSG_PIPE_RESULT] = "PipeResult",
  [PROTO_MSG_PIPE_CLOSE] = "PipeClose",
  [PROTO_MSG_PIPE_NEED] = "PipeNeed",
  [PROTO_MSG_SESSION_RESUME] = "SessionResume",
  [PROTO_MSG_SESSION_RESUMED] = "SessionResumed",
  [PROTO_MSG_RAFT_VOTE] = "RaftVote",
  [PROTO_MSG_RAFT_VOTE_REPLY] = "RaftVoteReply",
  [PROTO_MSG_RAFT_APPEND] = "RaftAppend",
  [PROTO_MSG_RAFT_APPEND_REPLY] = "RaftAppendReply",
  [PROTO_MSG_HIER_PROBE] = "HierProbe",
  [PROTO_MSG_HIER_PING] = "HierPing",
  [PROTO_MSG_HIER_PONG] = "HierPong",
  [PROTO_MSG_HIER_RTT] = "HierRtt",
  [PROTO_MSG_ROUND_STALENESS] = "RoundStaleness",
  [PROTO_MSG_GUEST] = "Guest",
};

/* Inner GVariant type per message type; the first member is the type byte. */
const char *const proto_msg_wire_types[PROTO_MSG_N_TYPES] = {
  [PROTO_MSG_CLIENT_CONNECTED] = "(y)",
  [PROTO_MSG_NEW_NODE_INFO] = "(yubub)",
  [PROTO_MSG_JOIN_ROUND] = "(y)",
  [PROTO_MSG_PEER_IS_READY] = "(y)",
  [PROTO_MSG_PEERS_FOR_ROUND] = "(yauu)",
  [PROTO_MSG_CONNECTIONS_READY] = "(y)",
  [PROTO_MSG_START_WEIGHT_SHARING] = "(y)",
  [PROTO_MSG_RETRY_PEER_CONNECTIONS] = "(y)",
  [PROTO_MSG_CONNECTION_FAIL] = "(y)",
  [PROTO_MSG_WAITING_FOR_MORE] = "(yu)",
  [PROTO_MSG_ENOUGH_PARTICIPANTS] = "(yu)",
  [PROTO_MSG_SIGNAL_FOR_PEER] = "(yuy)",
  [PROTO_MSG_MODEL_SYNC_REQUEST] = "(y)",
  [PROTO_MSG_SIGNAL_MODEL_PROVIDER] = "(yu)",
  [PROTO_MSG_SIGNAL_NEW_PEER] = "(yu)",
  [PROTO_MSG_SHARED_MODEL] = "(yay)",
  [PROTO_MSG_PAYLOAD] = "(yuuuay)",
  [PROTO_MSG_GOSSIP_TARGETS] = "(yauu)",
  [PROTO_MSG_NEIGHBORS] = "(yauu)",
  [PROTO_MSG_GOSSIP_PAYLOAD] = "(yuuuauay)",
  [PROTO_MSG_GOSSIP_SAMPLE] = "(yauu)",
  [PROTO_MSG_HIER_HELLO] = "(yusb)",
  [PROTO_MSG_HIER_CLUSTER] = "(yuuau)",
  [PROTO_MSG_HIER_CANDIDACY] = "(yuub)",
  [PROTO_MSG_HIER_HEADS] = "(yuuuauaut)",
  [PROTO_MSG_HIER_UPDATE] = "(yuuay)",
  [PROTO_MSG_HIER_AGG] = "(yuuay)",
  [PROTO_MSG_HIER_RESULT] = "(yuuay)",
  [PROTO_MSG_DHT_FIND_NODE] = "(yut)",
  [PROTO_MSG_DHT_NODES] = "(yuau)",
  [PROTO_MSG_PIPE_HELLO] = "(yus)",
  [PROTO_MSG_PIPE_ROLE] = "(yubuu)",
  [PROTO_MSG_PIPE_LOOKUP] = "(y)",
  [PROTO_MSG_PIPE_SERVERS] = "(yuauau)",
  [PROTO_MSG_PIPE_PING] = "(yu)",
  [PROTO_MSG_PIPE_PONG] = "(yu)",
  [PROTO_MSG_PIPE_STEP] = "(ytuuuuubauauay)",
  [PROTO_MSG_PIPE_PUSH] = "(ytuuuuubauauay)",
  [PROTO_MSG_PIPE_RESULT] = "(ytuuuuay)",
  [PROTO_MSG_PIPE_CLOSE] = "(yt)",
  [PROTO_MSG_PIPE_NEED] = "(ytu)",
  [PROTO_MSG_SESSION_RESUME] = "(y)",
  [PROTO_MSG_SESSION_RESUMED] = "(ybu)",
  [PROTO_MSG_RAFT_VOTE] = "(yutu)",
  [PROTO_MSG_RAFT_VOTE_REPLY] = "(yub)",
  [PROTO_MSG_RAFT_APPEND] = "(yutuuauav)",
  [PROTO_MSG_RAFT_APPEND_REPLY] = "(yubt)",
  [PROTO_MSG_HIER_PROBE] = "(yuauau)",
  [PROTO_MSG_HIER_PING] = "(yu)",
  [PROTO_MSG_HIER_PONG] = "(yu)",
  [PROTO_MSG_HIER_RTT] = "(yuut)",
  [PROTO_MSG_ROUND_STALENESS] = "(yuauau)",
  [PROTO_MSG_GUEST] = "(yst)",
};

const char *
proto_msg_type_name (ProtoMsgType type)
{
  if ((unsigned) type >= PROTO_MSG_N_TYPES)
    return "?";
  return proto_msg_type_names[type];
}

gboolean
proto_msg_type_from_name (const char *name, ProtoMsgType *out)
{
  for (int i = 0; i < PROTO_MSG_N_TYPES; i++)
    if (g_ascii_strcasecmp (name, proto_msg_type_names[i]) == 0)
      {
        *out = (ProtoMsgType) i;
        return TRUE;
      }
  return FALSE;
}

void
proto_msg_init (ProtoMsg *msg, ProtoMsgType type)
{
  memset (msg, 0, sizeof *msg);
  msg->type = type;
  msg->node = PROTO_NO_NODE;
}

void
proto_msg_set_weights (ProtoMsg *msg, LearnWeights *weights)
{
  if (weights)
    learn_weights_ref (weights);
  learn_weights_unref (msg->weights);
  msg->weights = weights;
}

void
proto_msg_set_peers (ProtoMsg *msg, const ProtoNodeId *peers, uint32_t n)
{
  g_free (msg->peers);
  msg->peers = n ? g_memdup2 (peers, n * sizeof *peers) : NULL;
  msg->n_peers = n;
}

void
proto_msg_take_indices (ProtoMsg *msg, uint32_t *indices, uint32_t n)
{
  g_free (msg->indices);
  msg->indices = n ? indices : (g_free (indices), NULL);
  msg->n_indices = n;
}

void
proto_msg_copy (ProtoMsg *dst, const ProtoMsg *src)
{
  *dst = *src;
  dst->peers = src->n_peers ? g_memdup2 (src->peers, src->n_peers * sizeof *src->peers) : NULL;
  dst->indices = src->n_indices ? g_memdup2 (src->indices, src->n_indices * sizeof *src->indices) : NULL;
  dst->signal_data = g_strdup (src->signal_data);
  if (dst->weights)
    learn_weights_ref (dst->weights);
  if (src->inner)
    {
      dst->inner = g_new (ProtoMsg, 1);
      proto_msg_copy (dst->inner, src->inner);
    }
}

void
proto_msg_clear (ProtoMsg *msg)
{
  g_clear_pointer (&msg->peers, g_free);
  g_clear_pointer (&msg->signal_data, g_free);
  msg->n_peers = 0;
  g_clear_pointer (&msg->indices, g_free);
  msg->n_indices = 0;
  g_clear_pointer (&msg->weights, learn_weights_unref);
  if (msg->inner)
    {
      proto_msg_clear (msg->inner);
      g_clear_pointer (&msg->inner, g_free);
    }
}

/* The weights as an "ay" variant.  With copy = FALSE the variant references
 * the weights' memory (kept alive by a reference) instead of copying it. */
static GVariant *
weights_variant (const ProtoMsg *msg, gboolean copy)
{
  if (msg->weights == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  gsize len = learn_weights_byte_size (msg->weights);
  const void *data = learn_weights_data (msg->weights);
  if (copy)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, data, len, 1);
  g_autoptr (GBytes) bytes = g_bytes_new_with_free_func (data, len, (GDestroyNotify) learn_weights_unref,
                                                         learn_weights_ref (msg->weights));
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

static GVariant *
build_body (const ProtoMsg *msg, gboolean copy)
{
  guchar t = (guchar) msg->type;
  GVariant *inner = NULL;
  switch (msg->type)
    {
    case PROTO_MSG_PEER_IS_READY:
      /* robust's helper flag; DISCO's PeerIsReady has no field */
      inner = msg->helper ? g_variant_new ("(yb)", t, TRUE) : g_variant_new ("(y)", t);
      break;
    case PROTO_MSG_CLIENT_CONNECTED:
    case PROTO_MSG_JOIN_ROUND:
    case PROTO_MSG_CONNECTIONS_READY:
    case PROTO_MSG_START_WEIGHT_SHARING:
    case PROTO_MSG_RETRY_PEER_CONNECTIONS:
    case PROTO_MSG_CONNECTION_FAIL:
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      inner = g_variant_new ("(y)", t);
      break;
    case PROTO_MSG_NEW_NODE_INFO:
      inner = g_variant_new ("(yubub)", t, msg->node, msg->wait_for_more, msg->nb_participants,
                             msg->joined_mid_training);
      break;
    case PROTO_MSG_PEERS_FOR_ROUND:
    case PROTO_MSG_GOSSIP_TARGETS:
    case PROTO_MSG_NEIGHBORS:
    case PROTO_MSG_GOSSIP_SAMPLE:
      inner = g_variant_new ("(y@auu)", t,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers,
                                                        msg->n_peers, sizeof (uint32_t)),
                             msg->round);
      break;
    case PROTO_MSG_WAITING_FOR_MORE:
    case PROTO_MSG_ENOUGH_PARTICIPANTS:
      inner = g_variant_new ("(yu)", t, msg->nb_participants);
      break;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      inner = msg->signal_data
              ? g_variant_new ("(yuys)", t, msg->node, (guchar) msg->signal, msg->signal_data)
              : g_variant_new ("(yuy)", t, msg->node, (guchar) msg->signal);
      break;
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
    case PROTO_MSG_SIGNAL_NEW_PEER:
      inner = g_variant_new ("(yu)", t, msg->node);
      break;
    case PROTO_MSG_SHARED_MODEL:
      inner = g_variant_new ("(y@ay)", t, weights_variant (msg, copy));
      break;
    case PROTO_MSG_PAYLOAD:
      inner = g_variant_new ("(yuuu@ay)", t, msg->node, msg->round, msg->comm_round,
                             weights_variant (msg, copy));
      break;
    case PROTO_MSG_DHT_FIND_NODE:
      inner = g_variant_new ("(yut)", t, msg->round, (guint64) msg->key);
      break;
    case PROTO_MSG_DHT_NODES:
      inner = g_variant_new ("(yu@au)", t, msg->round,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers, msg->n_peers,
                                                        sizeof (uint32_t)));
      break;
    case PROTO_MSG_HIER_HELLO:
      inner = g_variant_new ("(yusb)", t, msg->degree, msg->signal_data ? msg->signal_data : "", msg->helper);
      break;
    case PROTO_MSG_HIER_CLUSTER:
      inner = g_variant_new ("(yuu@au)", t, msg->round, msg->node,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers, msg->n_peers,
                                                        sizeof (uint32_t)));
      break;
    case PROTO_MSG_HIER_CANDIDACY:
      inner = g_variant_new ("(yuub)", t, msg->round, msg->degree, msg->helper);
      break;
    case PROTO_MSG_HIER_HEADS:
      inner = g_variant_new ("(yuuu@au@aut)", t, msg->round, msg->degree, msg->node,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers, msg->n_peers,
                                                        sizeof (uint32_t)),
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->indices, msg->n_indices,
                                                        sizeof (uint32_t)),
                             (guint64) msg->key);
      break;
    case PROTO_MSG_HIER_UPDATE:
    case PROTO_MSG_HIER_AGG:
    case PROTO_MSG_HIER_RESULT:
      inner = g_variant_new ("(yuu@ay)", t, msg->round, msg->degree, weights_variant (msg, copy));
      break;
    case PROTO_MSG_PIPE_HELLO:
      inner = g_variant_new ("(yus)", t, msg->degree, msg->signal_data ? msg->signal_data : "");
      break;
    case PROTO_MSG_PIPE_ROLE:
      inner = g_variant_new ("(yubuu)", t, msg->node, msg->helper, msg->round, msg->comm_round);
      break;
    case PROTO_MSG_PIPE_LOOKUP:
      inner = g_variant_new ("(y)", t);
      break;
    case PROTO_MSG_PIPE_SERVERS:
    case PROTO_MSG_HIER_PROBE:
    case PROTO_MSG_ROUND_STALENESS:
      inner = g_variant_new ("(yu@au@au)", t, msg->round,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers, msg->n_peers,
                                                        sizeof (uint32_t)),
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->indices, msg->n_indices,
                                                        sizeof (uint32_t)));
      break;
    case PROTO_MSG_PIPE_PING:
    case PROTO_MSG_PIPE_PONG:
    case PROTO_MSG_HIER_PING:
    case PROTO_MSG_HIER_PONG:
      inner = g_variant_new ("(yu)", t, msg->round);
      break;
    case PROTO_MSG_GUEST:
      inner = g_variant_new ("(yst)", t, msg->signal_data ? msg->signal_data : "", (guint64) msg->key);
      break;
    case PROTO_MSG_HIER_RTT:
      inner = g_variant_new ("(yuut)", t, msg->round, msg->node, (guint64) msg->key);
      break;
    case PROTO_MSG_PIPE_STEP:
    case PROTO_MSG_PIPE_PUSH:
      inner = g_variant_new ("(ytuuuuub@au@au@ay)", t, (guint64) msg->key, msg->round, msg->comm_round,
                             msg->nb_participants, msg->degree, msg->node, msg->helper,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->peers, msg->n_peers,
                                                        sizeof (uint32_t)),
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->indices, msg->n_indices,
                                                        sizeof (uint32_t)),
                             weights_variant (msg, copy));
      break;
    case PROTO_MSG_PIPE_RESULT:
      inner = g_variant_new ("(ytuuuu@ay)", t, (guint64) msg->key, msg->round, msg->comm_round, msg->degree,
                             msg->nb_participants, weights_variant (msg, copy));
      break;
    case PROTO_MSG_PIPE_CLOSE:
      inner = g_variant_new ("(yt)", t, (guint64) msg->key);
      break;
    case PROTO_MSG_PIPE_NEED:
      inner = g_variant_new ("(ytu)", t, (guint64) msg->key, msg->round);
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      inner = g_variant_new ("(yuuu@au@ay)", t, msg->round, msg->degree, msg->comm_round,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->indices,
                                                        msg->n_indices, sizeof (uint32_t)),
                             weights_variant (msg, copy));
      break;
    case PROTO_MSG_SESSION_RESUME:
      inner = g_variant_new ("(y)", t);
      break;
    case PROTO_MSG_SESSION_RESUMED:
      inner = g_variant_new ("(ybu)", t, msg->helper, msg->round);
      break;
    case PROTO_MSG_RAFT_VOTE:
      inner = g_variant_new ("(yutu)", t, msg->round, (guint64) msg->key, msg->comm_round);
      break;
    case PROTO_MSG_RAFT_VOTE_REPLY:
      inner = g_variant_new ("(yub)", t, msg->round, msg->helper);
      break;
    case PROTO_MSG_RAFT_APPEND:
      {
        GVariantBuilder b;
        g_variant_builder_init (&b, G_VARIANT_TYPE ("av"));
        if (msg->inner)
          g_variant_builder_add_value (&b, g_variant_new_variant (build_body (msg->inner, copy)));
        inner = g_variant_new ("(yutuu@au@av)", t, msg->round, (guint64) msg->key, msg->comm_round, msg->degree,
                               g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, msg->indices, msg->n_indices,
                                                          sizeof (uint32_t)),
                               g_variant_builder_end (&b));
        break;
      }
    case PROTO_MSG_RAFT_APPEND_REPLY:
      inner = g_variant_new ("(yubt)", t, msg->round, msg->helper, (guint64) msg->key);
      break;
    }
  g_assert (inner != NULL);
  /* the session envelope (protocol/replica/): only where it has numbers */
  if (msg->sess_seq || msg->sess_ack)
    inner = g_variant_new ("(uuv)", msg->sess_seq, msg->sess_ack, inner);
  return inner;
}

static GVariant *
build (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_ref_sink (g_variant_new_variant (build_body (msg, copy)));
}

GBytes *
proto_msg_encode (const ProtoMsg *msg)
{
  g_return_val_if_fail ((unsigned) msg->type < PROTO_MSG_N_TYPES, NULL);
  g_autoptr (GVariant) v = build (msg, TRUE);
  return g_variant_get_data_as_bytes (v);
}

gsize
proto_msg_wire_size (const ProtoMsg *msg)
{
  g_return_val_if_fail ((unsigned) msg->type < PROTO_MSG_N_TYPES, 0);
  g_autoptr (GVariant) v = build (msg, FALSE);
  return g_variant_get_size (v);
}

gsize
proto_msg_charged_size (const ProtoMsg *msg)
{
  if (msg->type == PROTO_MSG_GUEST && msg->key)
    return (gsize) msg->key;   /* what the guest says its message costs */
  return proto_msg_wire_size (msg);
}

