/* guest-msgs.c — the guest family's message type: its name, the codec arms
 * of its body and its size (guest-msgs.h; the table's contract:
 * protocol/proto-msg-class.h). */
#include "config.h"

#include "protocol/guest/guest-msgs.h"
#include "protocol/proto-msg-class.h"

#include <string.h>

static GVariant *
enc_guest (const ProtoMsg *msg, gboolean copy)
{
  (void) copy;
  return g_variant_new ("(yst)", (guchar) msg->type, msg->signal_data ? msg->signal_data : "", (guint64) msg->key);
}

static gboolean
dec_guest (GVariant *body, ProtoMsg *m, guint depth, GError **error)
{
  (void) depth, (void) error;
  guchar ty;
  const char *s = NULL;
  guint64 size = 0;
  g_variant_get (body, "(y&st)", &ty, &s, &size);
  /* what a guest reads of it is checked when it is told
   * (protocol/guest/guest-line.c) */
  m->signal_data = *s ? g_strdup (s) : NULL;
  m->key = size;
  return TRUE;
}

/* what the guest says its message costs, or its wire size */
static gsize
charged_guest (const ProtoMsg *msg)
{
  return msg->key ? (gsize) msg->key : proto_msg_wire_size (msg);
}

/* its kind: the TYPE word of the guest's `send` (signal_data is "TYPE DATA") */
static const char *
label_guest (const ProtoMsg *msg, gsize *len)
{
  if (!msg->signal_data)
    return NULL;
  *len = strcspn (msg->signal_data, " ");
  return msg->signal_data;
}

/* Not cached (no size key): the network asks proto_msg_charged_size for
 * every Guest message, and charges what the guest says it costs. */
/* example (ProtoMsgClass.example): a TYPE word and a size */
static void
example_guest (ProtoMsg *m)
{
  m->signal_data = g_strdup ("Push 0.25");
  m->key = 4096;
}

static const ProtoMsgClass types[] = {
  { PROTO_MSG_GUEST, "Guest", "(yst)", NULL, enc_guest, dec_guest, proto_msg_size_unkeyed, charged_guest,
    label_guest,
    .example = example_guest },
};

const ProtoMsgFamily proto_msgs_guest = { "guest", types, G_N_ELEMENTS (types) };
