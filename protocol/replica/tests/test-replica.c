/* test-replica.c — the replicated coordinator (protocol/replica/) under
 * hand-held time, around a toy family's machines: the coordinator
 * welcomes every hello and counts who is connected, the peer says hello
 * and is ready on its welcome.  The cases and the replicas' network are
 * replica-harness.c's (beside it), which DISCO's
 * protocol/disco/tests/test-disco-replica runs around its own machines.
 * The replicas wrap any family's coordinator: these name none. */
#include "config.h"

#include "protocol/proto-machine.h"
#include "protocol/session/session-msgs.h"
#include "protocol/replica/tests/replica-harness.h"

/* ---- a toy family: the coordinator welcomes each hello (and counts the
 * peers connected until their stream closes); the peer says hello on its
 * start, is ready on its welcome, and is closed with its stream ---- */

#define TOY_PEERS 8

typedef struct {
  ProtoMachineBase base;
  gboolean in[TOY_PEERS];
  guint connected;
} ToyCoord;

static const char *const toy_coord_states[] = { "serving", NULL };

static void
toy_coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  ToyCoord *c = impl;
  (void) now;
  if (in->from >= TOY_PEERS)
    return;
  if (in->kind == PROTO_IN_MESSAGE && in->msg->type == PROTO_MSG_HELLO)
    {
      c->connected += !c->in[in->from];
      c->in[in->from] = TRUE;
      ProtoMsg w;
      proto_msg_init (&w, PROTO_MSG_WELCOME);
      w.node = in->from;
      proto_machine_send (&c->base, out, in->from, PROTO_VIA_SERVER, &w);
    }
  else if (in->kind == PROTO_IN_STREAM_CLOSED && c->in[in->from])
    {
      c->in[in->from] = FALSE;
      c->connected--;
    }
}

static const ProtoMachineClass toy_coord_class = {
  .handle = toy_coord_handle, .free = g_free, .observes_messages = TRUE,
};

static ProtoMachine *
toy_coord_new (const ProtoConfig *cfg)
{
  (void) cfg;
  ToyCoord *c = g_new0 (ToyCoord, 1);
  proto_machine_base_init (&c->base, toy_coord_states, 0);
  return proto_machine_new (&toy_coord_class, &c->base);
}

typedef struct {
  ProtoMachineBase base;
} ToyPeer;

enum { TOY_HELLO, TOY_READY, TOY_CLOSED };
static const char *const toy_peer_states[] = { "hello", "ready", "closed", NULL };

static void
toy_peer_send (ToyPeer *p, ProtoOutbox *out, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  proto_machine_send (&p->base, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

static void
toy_peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  ToyPeer *p = impl;
  if (in->kind == PROTO_IN_START)
    toy_peer_send (p, out, PROTO_MSG_HELLO);
  else if (in->kind == PROTO_IN_MESSAGE && in->msg->type == PROTO_MSG_WELCOME && p->base.state == TOY_HELLO)
    {
      p->base.connected = TRUE;
      proto_machine_base_enter (&p->base, out, TOY_READY, DL_TIME_NEVER);
      toy_peer_send (p, out, PROTO_MSG_READY);
    }
  else if (in->kind == PROTO_IN_STREAM_CLOSED && in->from == PROTO_SERVER)
    {
      p->base.connected = FALSE;
      proto_machine_base_enter (&p->base, out, TOY_CLOSED, DL_TIME_NEVER);
    }
  (void) now;
}

static const ProtoMachineClass toy_peer_class = {
  .handle = toy_peer_handle, .free = g_free, .observes_messages = TRUE,
};

static ProtoMachine *
toy_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  (void) cfg, (void) env;
  ToyPeer *p = g_new0 (ToyPeer, 1);
  proto_machine_base_init (&p->base, toy_peer_states, TOY_HELLO);
  p->base.settled_states = PROTO_STATE_BIT (TOY_CLOSED);
  p->base.failed_states = PROTO_STATE_BIT (TOY_CLOSED);
  return proto_machine_new (&toy_peer_class, &p->base);
}

static const ProtoFamily toy_family = {
  .name = "toy", .new_coordinator = toy_coord_new, .new_peer = toy_peer_new,
};

static void
toy_config_init (ProtoConfig *cfg)
{
  proto_config_init (cfg, "toy");
}

static guint
toy_connections (const ProtoMachine *coordinator)
{
  const ToyCoord *c = coordinator->impl;
  return c->connected;
}

/* the toy peer answers a welcome with ready */
static guint
toy_welcome_answers (const ProtoOutbox *out)
{
  return proto_outbox_count_sends (out, PROTO_MSG_READY, PROTO_SERVER);
}

int
main (void)
{
  ReplicaSubject toy = {
    .family = &toy_family,
    .config_init = toy_config_init,
    .connections = toy_connections,
    .welcome_answers = toy_welcome_answers,
  };
  return rh_run (&toy);
}
