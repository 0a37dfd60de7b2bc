/* fedavg-msgs.c — the fedavg family's message types: names, the codec arms
 * of their bodies and their size keys (fedavg-msgs.h; the table's
 * contract: protocol/proto-msg-class.h). */
#include "config.h"

#include "protocol/fedavg/fedavg-msgs.h"
#include "protocol/proto-msg-class.h"

/* FedModel and FedDone: a round and the weights */
static GVariant *
enc_model (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(yu@ay)", (guchar) msg->type, msg->round, proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_model (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 2);
  m->round = g_variant_get_uint32 (a);
  return proto_msg_weights_from_variant (m, ay, error);
}

static GVariant *
enc_update (const ProtoMsg *msg, gboolean copy)
{
  return g_variant_new ("(yut@ay)", (guchar) msg->type, msg->round, (guint64) msg->key,
                        proto_msg_weights_variant (msg, copy));
}

static gboolean
dec_update (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth;
  g_autoptr (GVariant) a = g_variant_get_child_value (body, 1);
  g_autoptr (GVariant) k = g_variant_get_child_value (body, 2);
  g_autoptr (GVariant) ay = g_variant_get_child_value (body, 3);
  m->round = g_variant_get_uint32 (a);
  m->key = g_variant_get_uint64 (k);
  return proto_msg_weights_from_variant (m, ay, error);
}

gboolean
fedavg_msgs_to_server (ProtoMsgType type)
{
  return type == PROTO_MSG_FED_HELLO || type == PROTO_MSG_FED_UPDATE;
}

/* examples (ProtoMsgClass.example): every field set */
static void
example_hello (ProtoMsg *m)
{
  m->key = 1234;
}

static void
example_model (ProtoMsg *m)
{
  static const float w[] = { 1.5f, -2.25f, 3.0f };
  m->round = 6;
  g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
  proto_msg_set_weights (m, lw);
}

static void
example_update (ProtoMsg *m)
{
  m->key = 77;
  example_model (m);
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_FED_HELLO, "FedHello", "(yt)", NULL, proto_msg_enc_key, proto_msg_dec_key, proto_msg_size_fixed, NULL,
    .example = example_hello },
  { PROTO_MSG_FED_MODEL, "FedModel", "(yuay)", NULL, enc_model, dec_model, proto_msg_size_weights, NULL,
    .example = example_model },
  { PROTO_MSG_FED_UPDATE, "FedUpdate", "(yutay)", NULL, enc_update, dec_update, proto_msg_size_weights, NULL,
    .example = example_update },
  { PROTO_MSG_FED_DONE, "FedDone", "(yuay)", NULL, enc_model, dec_model, proto_msg_size_weights, NULL,
    .example = example_model },
};

/* what explore's drop and delay faults pick from: each type in the one
 * direction it travels (README.md's table) */
static const ProtoMsgFaultTarget fault_targets[] = {
  { PROTO_MSG_FED_HELLO, "from" }, { PROTO_MSG_FED_MODEL, "to" },
  { PROTO_MSG_FED_UPDATE, "from" }, { PROTO_MSG_FED_DONE, "to" },
};

const ProtoMsgFamily proto_msgs_fedavg = { "fedavg", types, G_N_ELEMENTS (types), fault_targets,
                                           G_N_ELEMENTS (fault_targets) };
