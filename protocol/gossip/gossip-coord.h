/* gossip-coord.h — the gossip family's coordinator: membership, the pace of
 * steps, and each step's contact graph (gossip-coord.c).
 *
 * Shape: gossip_coord_new makes the machine (proto-machine.h), which
 * proto_machine_free frees. */
#pragma once

#include "protocol/gossip/gossip-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

/* Its state (proto_machine_state) is its phase, "collect" or "targets"
 * by name. */
ProtoMachine *gossip_coord_new (const ProtoConfig *cfg);
/* the step being collected or joined (0 first) */
guint gossip_coord_step (const ProtoMachine *m);

G_END_DECLS
