/* gossip-alone.c — gossip's coordinator and peer alone, fed by hand, for
 * its tests (gossip-alone.h). */
#include "config.h"

#include "protocol/gossip/tests/gossip-alone.h"
#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

void
co_init (Co *k, const ProtoConfig *cfg, guint n)
{
  k->c = gossip_coord_new (cfg);
  proto_outbox_init (&k->out);
  for (ProtoNodeId p = 1; p <= n; p++)
    co_hears (k, 0, p, PROTO_MSG_HELLO, FALSE, NULL, 0);
}

void
co_clear (Co *k)
{
  proto_outbox_clear (&k->out);
  proto_machine_free (k->c);
}

void
co_hears (Co *k, DlTime t, ProtoNodeId p, ProtoMsgType type, gboolean helper, const ProtoNodeId *ids, guint n)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  m.helper = helper;
  if (n)
    proto_msg_set_peers (&m, ids, n);
  proto_machine_handle (k->c, t, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = p, .msg = &m }, &k->out);
  proto_msg_clear (&m);
}

void
co_ready (Co *k, DlTime t, ProtoNodeId p)
{
  co_hears (k, t, p, PROTO_MSG_READY, FALSE, NULL, 0);
}

void
co_targets (Co *k, DlTime t, const ProtoNodeId *ids, guint n, uint32_t step)
{
  for (guint i = 0; i < n; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
      m.round = step;
      proto_machine_handle (k->c, t, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = ids[i], .msg = &m }, &k->out);
    }
}

guint
co_sent (const Co *k, ProtoMsgType type, ProtoNodeId to)
{
  return proto_outbox_count_sends (&k->out, type, to);
}

ProtoMachine *
gossip_peer_alone (const ProtoConfig *cfg, LearnWeights *init, DlRandom *r, ProtoNodeId node, ProtoOutbox *out)
{
  ProtoMachine *p = gossip_peer_new (cfg, init, r);
  proto_outbox_init (out);
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_START }, out);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_WELCOME);
  m.node = node;
  proto_machine_handle (p, 0, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = PROTO_SERVER, .msg = &m }, out);
  return p;
}

void
gossip_peer_hears (ProtoMachine *p, DlTime t, ProtoMsgType type, const ProtoNodeId *ids, guint n, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  if (n)
    proto_msg_set_peers (&m, ids, n);
  proto_machine_handle (p, t, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = PROTO_SERVER, .msg = &m }, out);
  proto_msg_clear (&m);
}
