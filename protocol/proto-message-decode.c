/* proto-message-decode.c — the GVariant wire form back into a message,
 * checked: what comes off a socket is untrusted (proto-message.c encodes). */
#include "config.h"

#include "protocol/proto-message.h"
#include "protocol/proto-message-private.h"

#include <string.h>

static gboolean
malformed (GError **error, const char *what)
{
  g_set_error_literal (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, what);
  return FALSE;
}

static LearnWeights *
weights_from_variant (GVariant *ay)
{
  gsize len = 0;
  const guchar *data = g_variant_get_fixed_array (ay, &len, 1);
  if (len % sizeof (float) != 0)
    return NULL;
  LearnWeights *w = learn_weights_new (len / sizeof (float));
  if (len)
    memcpy (learn_weights_data_mut (w), data, len);
  return w;
}

static gboolean decode_body (GVariant *inner, ProtoMsg *out, guint depth, gboolean may_envelope, GError **error);

gboolean
proto_msg_decode (GBytes *bytes, ProtoMsg *out, GError **error)
{
  gsize size = g_bytes_get_size (bytes);
  if (size == 0)
    return malformed (error, "empty message");
  if (size > PROTO_MAX_WIRE_BYTES)
    return malformed (error, "message too large");
  g_autoptr (GVariant) outer = g_variant_ref_sink (
      g_variant_new_from_bytes (G_VARIANT_TYPE_VARIANT, bytes, FALSE));
  if (!g_variant_is_normal_form (outer))
    return malformed (error, "message is not a well-formed GVariant");
  g_autoptr (GVariant) inner = g_variant_get_variant (outer);
  return decode_body (inner, out, 0, TRUE, error);
}

/* One message's tuple (inner: a type byte first, or the session envelope
 * around one if may_envelope) into out; depth: inside a RaftAppend (which
 * holds no RaftAppend). */
static gboolean
decode_body (GVariant *inner, ProtoMsg *out, guint depth, gboolean may_envelope, GError **error)
{
  const char *tstr = g_variant_get_type_string (inner);
  if (strcmp (tstr, "(uuv)") == 0 && may_envelope)
    {
      guint32 seq, ack;
      g_autoptr (GVariant) body = NULL;
      g_variant_get (inner, "(uu@v)", &seq, &ack, &body);
      g_autoptr (GVariant) msg = g_variant_get_variant (body);
      if (!decode_body (msg, out, depth, FALSE, error))
        return FALSE;
      out->sess_seq = seq;
      out->sess_ack = ack;
      return TRUE;
    }
  if (!g_variant_is_of_type (inner, G_VARIANT_TYPE_TUPLE) || g_variant_n_children (inner) < 1)
    return malformed (error, "message is not a tuple starting with a type byte");
  g_autoptr (GVariant) tv = g_variant_get_child_value (inner, 0);
  if (!g_variant_is_of_type (tv, G_VARIANT_TYPE_BYTE))
    return malformed (error, "message is not a tuple starting with a type byte");
  guchar t = g_variant_get_byte (tv);
  if (t >= PROTO_MSG_N_TYPES)
    {
      g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "unknown message type %u", t);
      return FALSE;
    }
  gboolean with_data = t == PROTO_MSG_SIGNAL_FOR_PEER && strcmp (tstr, "(yuys)") == 0;
  gboolean helper = t == PROTO_MSG_PEER_IS_READY && strcmp (tstr, "(yb)") == 0;
  if (strcmp (tstr, proto_msg_wire_types[t]) != 0 && !with_data && !helper)
    {
      g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
                   "%s message has fields '%s', expected '%s'", proto_msg_type_names[t], tstr, proto_msg_wire_types[t]);
      return FALSE;
    }

  ProtoMsg m;
  proto_msg_init (&m, (ProtoMsgType) t);
  /* GVariant's "b" writes a gboolean; the message's flags are bytes */
  gboolean helper_b = FALSE, more_b = FALSE, joined_b = FALSE;
  switch (m.type)
    {
    case PROTO_MSG_PEER_IS_READY:
      if (helper)
        {
          guchar ty;
          g_variant_get (inner, "(yb)", &ty, &helper_b);
        }
      break;
    case PROTO_MSG_CLIENT_CONNECTED:
    case PROTO_MSG_JOIN_ROUND:
    case PROTO_MSG_CONNECTIONS_READY:
    case PROTO_MSG_START_WEIGHT_SHARING:
    case PROTO_MSG_RETRY_PEER_CONNECTIONS:
    case PROTO_MSG_CONNECTION_FAIL:
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      break;
    case PROTO_MSG_NEW_NODE_INFO:
      {
        guchar ty;
        g_variant_get (inner, "(yubub)", &ty, &m.node, &more_b, &m.nb_participants,
                       &joined_b);
        break;
      }
    case PROTO_MSG_PEERS_FOR_ROUND:
    case PROTO_MSG_GOSSIP_TARGETS:
    case PROTO_MSG_NEIGHBORS:
    case PROTO_MSG_GOSSIP_SAMPLE:
      {
        g_autoptr (GVariant) arr = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) rv = g_variant_get_child_value (inner, 2);
        gsize n = 0;
        const uint32_t *p = g_variant_get_fixed_array (arr, &n, sizeof (uint32_t));
        proto_msg_set_peers (&m, p, (uint32_t) n);
        m.round = g_variant_get_uint32 (rv);
        break;
      }
    case PROTO_MSG_WAITING_FOR_MORE:
    case PROTO_MSG_ENOUGH_PARTICIPANTS:
      {
        guchar ty;
        g_variant_get (inner, "(yu)", &ty, &m.nb_participants);
        break;
      }
    case PROTO_MSG_SIGNAL_FOR_PEER:
      {
        guchar ty, sig;
        if (with_data)
          g_variant_get (inner, "(yuys)", &ty, &m.node, &sig, &m.signal_data);
        else
          g_variant_get (inner, "(yuy)", &ty, &m.node, &sig);
        if (sig > PROTO_SIGNAL_ANSWER)
          {
            proto_msg_clear (&m);
            return malformed (error, "SignalForPeer with an unknown signal");
          }
        m.signal = (ProtoSignal) sig;
        break;
      }
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
    case PROTO_MSG_SIGNAL_NEW_PEER:
      {
        guchar ty;
        g_variant_get (inner, "(yu)", &ty, &m.node);
        break;
      }
    case PROTO_MSG_SHARED_MODEL:
    case PROTO_MSG_PAYLOAD:
      {
        gsize idx = m.type == PROTO_MSG_PAYLOAD ? 4 : 1;
        if (m.type == PROTO_MSG_PAYLOAD)
          {
            g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
            g_autoptr (GVariant) b = g_variant_get_child_value (inner, 2);
            g_autoptr (GVariant) c = g_variant_get_child_value (inner, 3);
            m.node = g_variant_get_uint32 (a);
            m.round = g_variant_get_uint32 (b);
            m.comm_round = g_variant_get_uint32 (c);
          }
        g_autoptr (GVariant) ay = g_variant_get_child_value (inner, idx);
        m.weights = weights_from_variant (ay);
        if (m.weights == NULL)
          return malformed (error, "weights are not a whole number of float32 values");
        break;
      }
    case PROTO_MSG_DHT_FIND_NODE:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(yut)", &ty, &m.round, &k);
        m.key = k;
        break;
      }
    case PROTO_MSG_DHT_NODES:
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) arr = g_variant_get_child_value (inner, 2);
        m.round = g_variant_get_uint32 (a);
        gsize n = 0;
        const uint32_t *ids = g_variant_get_fixed_array (arr, &n, sizeof (uint32_t));
        proto_msg_set_peers (&m, ids, (uint32_t) n);
        break;
      }
    case PROTO_MSG_HIER_HELLO:
      {
        guchar ty;
        g_variant_get (inner, "(yusb)", &ty, &m.degree, &m.signal_data, &helper_b);
        break;
      }
    case PROTO_MSG_HIER_CLUSTER:
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) b = g_variant_get_child_value (inner, 2);
        g_autoptr (GVariant) arr = g_variant_get_child_value (inner, 3);
        m.round = g_variant_get_uint32 (a);
        m.node = g_variant_get_uint32 (b);
        gsize n = 0;
        const uint32_t *ids = g_variant_get_fixed_array (arr, &n, sizeof (uint32_t));
        proto_msg_set_peers (&m, ids, (uint32_t) n);
        break;
      }
    case PROTO_MSG_HIER_HEADS:
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) b = g_variant_get_child_value (inner, 2);
        g_autoptr (GVariant) c = g_variant_get_child_value (inner, 3);
        g_autoptr (GVariant) top = g_variant_get_child_value (inner, 4);
        g_autoptr (GVariant) kids = g_variant_get_child_value (inner, 5);
        g_autoptr (GVariant) src = g_variant_get_child_value (inner, 6);
        m.key = g_variant_get_uint64 (src);
        m.round = g_variant_get_uint32 (a);
        m.degree = g_variant_get_uint32 (b);
        m.node = g_variant_get_uint32 (c);
        gsize n = 0, k = 0;
        const uint32_t *ids = g_variant_get_fixed_array (top, &n, sizeof (uint32_t));
        proto_msg_set_peers (&m, ids, (uint32_t) n);
        const uint32_t *ch = g_variant_get_fixed_array (kids, &k, sizeof (uint32_t));
        if (k)
          proto_msg_take_indices (&m, g_memdup2 (ch, k * sizeof *ch), (uint32_t) k);
        break;
      }
    case PROTO_MSG_HIER_CANDIDACY:
      {
        guchar ty;
        g_variant_get (inner, "(yuub)", &ty, &m.round, &m.degree, &helper_b);
        break;
      }
    case PROTO_MSG_HIER_UPDATE:
    case PROTO_MSG_HIER_AGG:
    case PROTO_MSG_HIER_RESULT:
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) b = g_variant_get_child_value (inner, 2);
        g_autoptr (GVariant) ay = g_variant_get_child_value (inner, 3);
        m.round = g_variant_get_uint32 (a);
        m.degree = g_variant_get_uint32 (b);
        m.weights = weights_from_variant (ay);
        if (m.weights == NULL)
          return malformed (error, "weights are not a whole number of float32 values");
        break;
      }
    case PROTO_MSG_PIPE_HELLO:
      {
        guchar ty;
        g_variant_get (inner, "(yus)", &ty, &m.degree, &m.signal_data);
        break;
      }
    case PROTO_MSG_PIPE_ROLE:
      {
        guchar ty;
        g_variant_get (inner, "(yubuu)", &ty, &m.node, &helper_b, &m.round, &m.comm_round);
        if (helper_b && m.comm_round <= m.round)
          return malformed (error, "PipeRole with an empty block range");
        break;
      }
    case PROTO_MSG_PIPE_LOOKUP:
      break;
    case PROTO_MSG_PIPE_SERVERS:
    case PROTO_MSG_HIER_PROBE:   /* landmarks in peers, probers in indices */
    case PROTO_MSG_ROUND_STALENESS:   /* peers and their staleness, one each */
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) ids = g_variant_get_child_value (inner, 2);
        g_autoptr (GVariant) info = g_variant_get_child_value (inner, 3);
        m.round = g_variant_get_uint32 (a);
        gsize n = 0, k = 0;
        const uint32_t *p = g_variant_get_fixed_array (ids, &n, sizeof (uint32_t));
        const uint32_t *q = g_variant_get_fixed_array (info, &k, sizeof (uint32_t));
        if (m.type == PROTO_MSG_PIPE_SERVERS && k != 4 * n)
          return malformed (error, "PipeServers needs four numbers per server");
        if (m.type == PROTO_MSG_ROUND_STALENESS && k != n)
          return malformed (error, "RoundStaleness needs one staleness per peer");
        for (gsize i = 0; m.type == PROTO_MSG_PIPE_SERVERS && i < n; i++)
          if (q[4 * i + 1] <= q[4 * i])
            return malformed (error, "PipeServers has a server with an empty block range");
        proto_msg_set_peers (&m, p, (uint32_t) n);
        if (k)
          proto_msg_take_indices (&m, g_memdup2 (q, k * sizeof *q), (uint32_t) k);
        break;
      }
    case PROTO_MSG_GUEST:
      {
        guchar ty;
        const char *s = NULL;
        guint64 size = 0;
        g_variant_get (inner, "(y&st)", &ty, &s, &size);
        /* what a guest reads of it is checked when it is told
         * (protocol/guest/guest-line.c) */
        m.signal_data = *s ? g_strdup (s) : NULL;
        m.key = size;
        break;
      }
    case PROTO_MSG_PIPE_PING:
    case PROTO_MSG_PIPE_PONG:
    case PROTO_MSG_HIER_PING:
    case PROTO_MSG_HIER_PONG:
      {
        guchar ty;
        g_variant_get (inner, "(yu)", &ty, &m.round);
        break;
      }
    case PROTO_MSG_HIER_RTT:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(yuut)", &ty, &m.round, &m.node, &k);
        m.key = k;
        break;
      }
    case PROTO_MSG_PIPE_STEP:
    case PROTO_MSG_PIPE_PUSH:
      {
        guchar ty;
        guint64 k;
        g_autoptr (GVariant) ids = g_variant_get_child_value (inner, 8);
        g_autoptr (GVariant) spans = g_variant_get_child_value (inner, 9);
        g_autoptr (GVariant) ay = g_variant_get_child_value (inner, 10);
        g_variant_get_child (inner, 0, "y", &ty);
        g_variant_get_child (inner, 1, "t", &k);
        g_variant_get_child (inner, 2, "u", &m.round);
        g_variant_get_child (inner, 3, "u", &m.comm_round);
        g_variant_get_child (inner, 4, "u", &m.nb_participants);
        g_variant_get_child (inner, 5, "u", &m.degree);
        g_variant_get_child (inner, 6, "u", &m.node);
        g_variant_get_child (inner, 7, "b", &helper_b);
        m.key = k;
        gsize n = 0, ns = 0;
        const uint32_t *p = g_variant_get_fixed_array (ids, &n, sizeof (uint32_t));
        const uint32_t *q = g_variant_get_fixed_array (spans, &ns, sizeof (uint32_t));
        if (m.nb_participants == 0)
          return malformed (error, "a pipeline step of no tokens");
        if (m.node <= m.degree)
          return malformed (error, "a pipeline step through no block");
        if (ns != 2 * n)
          return malformed (error, "a pipeline chain needs a block span per server");
        for (gsize i = 0; i < n; i++)
          if (q[2 * i + 1] <= q[2 * i])
            return malformed (error, "a pipeline chain with an empty block span");
        m.weights = weights_from_variant (ay);
        if (m.weights == NULL)
          return malformed (error, "weights are not a whole number of float32 values");
        proto_msg_set_peers (&m, p, (uint32_t) n);
        if (ns)
          proto_msg_take_indices (&m, g_memdup2 (q, ns * sizeof *q), (uint32_t) ns);
        break;
      }
    case PROTO_MSG_PIPE_RESULT:
      {
        guchar ty;
        guint64 k;
        g_autoptr (GVariant) ay = g_variant_get_child_value (inner, 6);
        g_variant_get_child (inner, 0, "y", &ty);
        g_variant_get_child (inner, 1, "t", &k);
        g_variant_get_child (inner, 2, "u", &m.round);
        g_variant_get_child (inner, 3, "u", &m.comm_round);
        g_variant_get_child (inner, 4, "u", &m.degree);
        g_variant_get_child (inner, 5, "u", &m.nb_participants);
        m.key = k;
        if (m.nb_participants == 0)
          return malformed (error, "a pipeline step of no tokens");
        m.weights = weights_from_variant (ay);
        if (m.weights == NULL)
          return malformed (error, "weights are not a whole number of float32 values");
        break;
      }
    case PROTO_MSG_PIPE_CLOSE:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(yt)", &ty, &k);
        m.key = k;
        break;
      }
    case PROTO_MSG_PIPE_NEED:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(ytu)", &ty, &k, &m.round);
        m.key = k;
        break;
      }
    case PROTO_MSG_GOSSIP_PAYLOAD:
      {
        g_autoptr (GVariant) a = g_variant_get_child_value (inner, 1);
        g_autoptr (GVariant) b = g_variant_get_child_value (inner, 2);
        g_autoptr (GVariant) kv = g_variant_get_child_value (inner, 3);
        g_autoptr (GVariant) ix = g_variant_get_child_value (inner, 4);
        g_autoptr (GVariant) ay = g_variant_get_child_value (inner, 5);
        m.round = g_variant_get_uint32 (a);
        m.degree = g_variant_get_uint32 (b);
        m.comm_round = g_variant_get_uint32 (kv);
        if (m.comm_round > PROTO_GOSSIP_REPLY)
          return malformed (error, "GossipPayload of an unknown kind");
        gsize n = 0;
        const uint32_t *idx = g_variant_get_fixed_array (ix, &n, sizeof (uint32_t));
        for (gsize i = 1; i < n; i++)
          if (idx[i] <= idx[i - 1])
            return malformed (error, "GossipPayload indices are not strictly ascending");
        m.weights = weights_from_variant (ay);
        if (m.weights == NULL)
          return malformed (error, "weights are not a whole number of float32 values");
        if (n && learn_weights_len (m.weights) != n)
          {
            proto_msg_clear (&m);
            return malformed (error, "GossipPayload has a different number of indices and values");
          }
        if (n)
          proto_msg_take_indices (&m, g_memdup2 (idx, n * sizeof *idx), (uint32_t) n);
        break;
      }
    case PROTO_MSG_SESSION_RESUME:
      break;
    case PROTO_MSG_SESSION_RESUMED:
      {
        guchar ty;
        g_variant_get (inner, "(ybu)", &ty, &helper_b, &m.round);
        break;
      }
    case PROTO_MSG_RAFT_VOTE:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(yutu)", &ty, &m.round, &k, &m.comm_round);
        m.key = k;
        break;
      }
    case PROTO_MSG_RAFT_VOTE_REPLY:
      {
        guchar ty;
        g_variant_get (inner, "(yub)", &ty, &m.round, &helper_b);
        break;
      }
    case PROTO_MSG_RAFT_APPEND_REPLY:
      {
        guchar ty;
        guint64 k;
        g_variant_get (inner, "(yubt)", &ty, &m.round, &helper_b, &k);
        m.key = k;
        break;
      }
    case PROTO_MSG_RAFT_APPEND:
      {
        guint64 k;
        g_autoptr (GVariant) ix = g_variant_get_child_value (inner, 5);
        g_autoptr (GVariant) entries = g_variant_get_child_value (inner, 6);
        g_variant_get_child (inner, 1, "u", &m.round);
        g_variant_get_child (inner, 2, "t", &k);
        g_variant_get_child (inner, 3, "u", &m.comm_round);
        g_variant_get_child (inner, 4, "u", &m.degree);
        m.key = k;
        gsize n = 0;
        const uint32_t *idx = g_variant_get_fixed_array (ix, &n, sizeof (uint32_t));
        if (n)
          proto_msg_take_indices (&m, g_memdup2 (idx, n * sizeof *idx), (uint32_t) n);
        gsize ne = g_variant_n_children (entries);
        if (ne > 1 || depth > 0)
          {
            proto_msg_clear (&m);
            return malformed (error, "RaftAppend carries one entry at most, and no RaftAppend");
          }
        if (ne == 1)
          {
            g_autoptr (GVariant) ev = g_variant_get_child_value (entries, 0);
            g_autoptr (GVariant) body = g_variant_get_variant (ev);
            ProtoMsg *e = g_new0 (ProtoMsg, 1);
            if (!decode_body (body, e, depth + 1, TRUE, error))
              {
                g_free (e);
                proto_msg_clear (&m);
                return FALSE;
              }
            m.inner = e;
          }
        break;
      }
    }
  m.helper = (guint8) helper_b;
  m.wait_for_more = (guint8) more_b;
  m.joined_mid_training = (guint8) joined_b;
  *out = m;
  return TRUE;
}
