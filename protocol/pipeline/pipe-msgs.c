/* pipe-msgs.c — the pipeline family's message types: names, the codec arms
 * of their bodies and their size keys (pipe-msgs.h; the table's contract:
 * protocol/proto-msg-class.h). */
#include "config.h"

#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"
#include "protocol/proto-msg-class.h"

static GVariant *
enc_hello (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yus)", (guchar) msg->type, msg->degree, msg->signal_data ? msg->signal_data : "");
}

static gboolean
dec_hello (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  g_variant_get (body, "(yus)", &ty, &m->degree, &m->signal_data);
  return TRUE;
}

static GVariant *
enc_role (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yubuu)", (guchar) msg->type, msg->node, msg->helper, msg->round, msg->comm_round);
}

static gboolean
dec_role (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  guchar ty;
  gboolean b = FALSE;
  g_variant_get (body, "(yubuu)", &ty, &m->node, &b, &m->round, &m->comm_round);
  m->helper = (guint8) b;
  if (b && m->comm_round <= m->round)
    return proto_msg_malformed (error, "PipeRole with an empty block range");
  return TRUE;
}

static gboolean
dec_servers (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  if (!proto_msg_dec_round_peers_indices (body, m, depth, error))
    return FALSE;
  if (m->n_indices != 4 * (guint64) m->n_peers)
    return proto_msg_malformed (error, "PipeServers needs four numbers per server");
  for (guint i = 0; i < m->n_peers; i++)
    if (m->indices[4 * i + 1] <= m->indices[4 * i])
      return proto_msg_malformed (error, "PipeServers has a server with an empty block range");
  return TRUE;
}

/* PipeStep, PipePush */
static GVariant *
enc_step (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(ytuuuuub@au@au@ay)", (guchar) msg->type, (guint64) msg->key, msg->round, msg->comm_round,
                        msg->nb_participants, msg->degree, msg->node, msg->helper,
                        proto_msg_u32_variant (msg->peers, msg->n_peers),
                        proto_msg_u32_variant (msg->indices, msg->n_indices), proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_step (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  guchar ty;
  guint64 k;
  gboolean b = FALSE;
  g_autoptr (GVariant) ids = g_variant_get_child_value (body, 8);
  g_autoptr (GVariant) spans = g_variant_get_child_value (body, 9);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 10);
  g_variant_get_child (body, 0, "y", &ty);
  g_variant_get_child (body, 1, "t", &k);
  g_variant_get_child (body, 2, "u", &m->round);
  g_variant_get_child (body, 3, "u", &m->comm_round);
  g_variant_get_child (body, 4, "u", &m->nb_participants);
  g_variant_get_child (body, 5, "u", &m->degree);
  g_variant_get_child (body, 6, "u", &m->node);
  g_variant_get_child (body, 7, "b", &b);
  m->key = k;
  m->helper = (guint8) b;
  gsize n = 0, ns = 0;
  g_variant_get_fixed_array (ids, &n, sizeof (uint32_t));
  const uint32_t *q = g_variant_get_fixed_array (spans, &ns, sizeof (uint32_t));
  if (m->nb_participants == 0)
    return proto_msg_malformed (error, "a pipeline step of no tokens");
  if (m->node <= m->degree)
    return proto_msg_malformed (error, "a pipeline step through no block");
  if (ns != 2 * n)
    return proto_msg_malformed (error, "a pipeline chain needs a block span per server");
  for (gsize i = 0; i < n; i++)
    if (q[2 * i + 1] <= q[2 * i])
      return proto_msg_malformed (error, "a pipeline chain with an empty block span");
  if (!proto_msg_weights_from_variant (m, ay, error))
    return FALSE;
  proto_msg_peers_from_variant (m, ids);
  proto_msg_indices_from_variant (m, spans);
  return TRUE;
}

/* the hidden states' bytes and the chain after the receiver (a span per
 * server; fewer than 1 024 servers), else not cached */
static guint64
size_step (const ProtoMsg *msg)
{
  guint64 bytes = proto_msg_size_weights (msg);
  if (msg->n_peers >= 1024 || msg->n_indices != 2 * (guint64) msg->n_peers
      || bytes >= (G_GUINT64_CONSTANT (1) << 45))
    return PROTO_MSG_WIRE_KEY_NONE;
  return bytes * 1024 + msg->n_peers;
}

static GVariant *
enc_result (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(ytuuuu@ay)", (guchar) msg->type, (guint64) msg->key, msg->round, msg->comm_round,
                        msg->degree, msg->nb_participants, proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_result (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  guchar ty;
  guint64 k;
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 6);
  g_variant_get_child (body, 0, "y", &ty);
  g_variant_get_child (body, 1, "t", &k);
  g_variant_get_child (body, 2, "u", &m->round);
  g_variant_get_child (body, 3, "u", &m->comm_round);
  g_variant_get_child (body, 4, "u", &m->degree);
  g_variant_get_child (body, 5, "u", &m->nb_participants);
  m->key = k;
  if (m->nb_participants == 0)
    return proto_msg_malformed (error, "a pipeline step of no tokens");
  return proto_msg_weights_from_variant (m, ay, error);
}

static GVariant *
enc_need (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(ytu)", (guchar) msg->type, (guint64) msg->key, msg->round);
}

static gboolean
dec_need (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  guint64 k;
  g_variant_get (body, "(ytu)", &ty, &k, &m->round);
  m->key = k;
  return TRUE;
}

/* the frame fuzzer's steps and results: what their decoders require, at
 * least one token, through blocks [0, node) with node >= 1 */
static void
fuzz_step (ProtoMsg *m, DlRandom *r, ProtoNodeId (*id) (DlRandom *r))
{
  (void) r, (void) id;
  m->nb_participants++;
  m->degree = 0;
  m->node = MAX (m->node, 1);
}

/* examples (ProtoMsgClass.example): every field the type carries set */

static void
example_hello (ProtoMsg *m)
{
  m->degree = 1500;
  m->signal_data = g_strdup ("dc-a");
}

static void
example_role (ProtoMsg *m)
{
  m->node = 6;
  m->helper = TRUE;
  m->round = 8;
  m->comm_round = 16;
}

static void
example_servers (ProtoMsg *m)
{
  static const ProtoNodeId peers[] = { 4, 9, 2 };
  proto_msg_set_peers (m, peers, 3);
  m->round = 2;
  guint32 *info = g_new (guint32, 12);
  for (guint i = 0; i < 3; i++)
    info[4 * i] = 8 * i, info[4 * i + 1] = 8 * i + 8, info[4 * i + 2] = 1000 + i, info[4 * i + 3] = i % 2;
  proto_msg_take_indices (m, info, 12);
}

static void
example_ping (ProtoMsg *m)
{
  m->round = 77;
}

/* a step, a push (a hash-only copy: helper) or a result */
static void
example_step (ProtoMsg *m)
{
  static const ProtoNodeId peers[] = { 4, 9 };
  static const float w[] = { 1.5f, -2.25f, 3.0f, 0.0f };
  m->key = G_GUINT64_CONSTANT (0x1234567890);
  m->round = 5;
  m->comm_round = 0xdeadbeef;
  m->nb_participants = 2;
  if (m->type == PROTO_MSG_PIPE_RESULT)
    m->degree = 0xabcdef;
  else
    {
      m->degree = 8;
      m->node = 16;
      m->helper = m->type == PROTO_MSG_PIPE_STEP;
      proto_msg_set_peers (m, peers, 2);
      guint32 *spans = g_new (guint32, 4);
      spans[0] = 16, spans[1] = 24, spans[2] = 24, spans[3] = 32;
      proto_msg_take_indices (m, spans, 4);
    }
  g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
  proto_msg_set_weights (m, lw);
}

static void
example_close (ProtoMsg *m)
{
  m->key = 99;
}

static void
example_need (ProtoMsg *m)
{
  m->key = 98;
  m->round = 4;
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_PIPE_HELLO, "PipeHello", "(yus)", NULL, enc_hello, dec_hello, proto_msg_size_string,
    .example = example_hello },
  { PROTO_MSG_PIPE_ROLE, "PipeRole", "(yubuu)", NULL, enc_role, dec_role, proto_msg_size_fixed,
    .example = example_role },
  PROTO_MSG_CLASS_BARE (PROTO_MSG_PIPE_LOOKUP, "PipeLookup"),
  { PROTO_MSG_PIPE_SERVERS, "PipeServers", "(yuauau)", NULL, proto_msg_enc_round_peers_indices, dec_servers,
    proto_msg_size_peers_indices,
    .example = example_servers },
  { PROTO_MSG_PIPE_PING, "PipePing", "(yu)", NULL, proto_msg_enc_round, proto_msg_dec_round, proto_msg_size_fixed,
    .example = example_ping },
  { PROTO_MSG_PIPE_PONG, "PipePong", "(yu)", NULL, proto_msg_enc_round, proto_msg_dec_round, proto_msg_size_fixed,
    .example = example_ping },
  { PROTO_MSG_PIPE_STEP, "PipeStep", "(ytuuuuubauauay)", NULL, enc_step, dec_step, size_step, .fuzz = fuzz_step,
    .example = example_step },
  { PROTO_MSG_PIPE_PUSH, "PipePush", "(ytuuuuubauauay)", NULL, enc_step, dec_step, size_step, .fuzz = fuzz_step,
    .example = example_step },
  { PROTO_MSG_PIPE_RESULT, "PipeResult", "(ytuuuuay)", NULL, enc_result, dec_result, proto_msg_size_weights,
    .fuzz = fuzz_step,
    .example = example_step },
  { PROTO_MSG_PIPE_CLOSE, "PipeClose", "(yt)", NULL, proto_msg_enc_key, proto_msg_dec_key, proto_msg_size_fixed,
    .example = example_close },
  { PROTO_MSG_PIPE_NEED, "PipeNeed", "(ytu)", NULL, enc_need, dec_need, proto_msg_size_fixed,
    .example = example_need },
};

/* what explore's drop and delay faults pick from: DISCO's SignalForPeer,
 * which it speaks to open links, then its own both ways */
#define BOTH_WAYS(t) { t, "to" }, { t, "from" }
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_SIGNAL, "to" },  BOTH_WAYS (PROTO_MSG_PIPE_HELLO),  BOTH_WAYS (PROTO_MSG_PIPE_ROLE),
  BOTH_WAYS (PROTO_MSG_PIPE_LOOKUP),    BOTH_WAYS (PROTO_MSG_PIPE_SERVERS), BOTH_WAYS (PROTO_MSG_PIPE_PING),
  BOTH_WAYS (PROTO_MSG_PIPE_PONG),      BOTH_WAYS (PROTO_MSG_PIPE_STEP),  BOTH_WAYS (PROTO_MSG_PIPE_PUSH),
  BOTH_WAYS (PROTO_MSG_PIPE_RESULT),    BOTH_WAYS (PROTO_MSG_PIPE_CLOSE), BOTH_WAYS (PROTO_MSG_PIPE_NEED),
};

const ProtoMsgFamily proto_msgs_pipeline = { "pipeline", types, G_N_ELEMENTS (types), fault_targets,
                                             G_N_ELEMENTS (fault_targets) };
