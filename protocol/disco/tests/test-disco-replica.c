/* test-disco-replica.c — the replicated coordinator (protocol/replica/)
 * around DISCO's coordinator, and the session peer around DISCO's peer,
 * under hand-held time: the cases and the replicas' network are
 * protocol/replica/tests/replica-harness.c's, which test-replica there
 * runs around a toy family's machines. */
#include "config.h"

#include "protocol/disco/disco-coord.h"
#include "protocol/disco/disco-msgs.h"
#include "protocol/proto-machine.h"
#include "protocol/session/session-msgs.h"
#include "protocol/replica/tests/replica-harness.h"

/* robust: the version the replicated coordinator runs with */
static void
disco_robust_config_init (ProtoConfig *cfg)
{
  disco_config_init (cfg, DISCO_VERSION_ROBUST);
}

static guint
disco_connections (const ProtoMachine *coordinator)
{
  return disco_coord_connections (coordinator->impl);
}

/* DISCO's peer answers NewNodeInfo with JoinRound or Ready */
static guint
disco_welcome_answers (const ProtoOutbox *out)
{
  return proto_outbox_count_sends (out, DISCO_MSG_JOIN_ROUND, PROTO_SERVER)
         + proto_outbox_count_sends (out, PROTO_MSG_READY, PROTO_SERVER);
}

int
main (void)
{
  ReplicaSubject disco = {
    .family = proto_family_lookup ("disco"),
    .config_init = disco_robust_config_init,
    .connections = disco_connections,
    .welcome_answers = disco_welcome_answers,
  };
  return rh_run (&disco);
}
