/* gossip-coord.h — the gossip family's coordinator: membership, the pace of
 * steps, and each step's contact graph (gossip-coord.c).
 *
 * Shape: gossip_coord_new / gossip_coord_free; handle and next_deadline as
 * every machine (proto-machine.h). */
#pragma once

#include "protocol/gossip/gossip-config.h"
#include "protocol/proto-input.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

typedef struct GossipCoord GossipCoord;

GossipCoord *gossip_coord_new (const ProtoConfig *cfg);
void gossip_coord_free (GossipCoord *c);
/* re-seeds its candidate samples' stream (ProtoMachineClass.reseed) */
void gossip_coord_reseed (GossipCoord *c, guint64 salt);
void gossip_coord_handle (GossipCoord *c, DlTime now, const ProtoInput *in, ProtoOutbox *out);
DlTime gossip_coord_next_deadline (const GossipCoord *c);
gboolean gossip_coord_listens (const GossipCoord *c, ProtoMsgType type, ProtoNodeId from);
const char *gossip_coord_phase (const GossipCoord *c);
/* the step being collected or joined (0 first) */
guint gossip_coord_step (const GossipCoord *c);

G_END_DECLS
