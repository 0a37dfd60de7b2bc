/* proto-coord.h — DISCO's decentralized coordinator (the signaling server's
 * round controller) as a sans-IO state machine.
 *
 * A machine (proto-machine.h): proto_machine_handle (m, now, &input,
 * &outbox) applies one input and appends actions; its state name is its
 * phase, "collect" or "connect"; proto_machine_next_deadline tells the
 * driver when to feed PROTO_IN_DEADLINE.  No clock, no I/O.  Several connection timers can be
 * alive at once, exactly as in DISCO (an orphan timer, S7): `#timeout` is
 * the newest one, and clearing clears only that one.
 *
 * Shape: proto_coord_new makes the machine; proto_machine_free frees it. */
#pragma once

#include "protocol/disco/disco-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef struct ProtoCoord ProtoCoord;

/* The machine; its impl is the ProtoCoord the views below read. */
ProtoMachine *proto_coord_new (const ProtoConfig *config);

/* Read-only views for drivers, recorders and tests. */
uint32_t proto_coord_round (const ProtoCoord *coord);
guint proto_coord_retry_counter (const ProtoCoord *coord);
ProtoNodeId proto_coord_provider (const ProtoCoord *coord);
guint proto_coord_connections (const ProtoCoord *coord);
guint proto_coord_pending_timers (const ProtoCoord *coord);
gboolean proto_coord_in_round (const ProtoCoord *coord, ProtoNodeId id);
gboolean proto_coord_is_ready (const ProtoCoord *coord, ProtoNodeId id);
/* Is id a key of #connectFinishedNodes (the connect phase's flags)? */
gboolean proto_coord_has_connect_flag (const ProtoCoord *coord, ProtoNodeId id);
gboolean proto_coord_is_syncing (const ProtoCoord *coord, ProtoNodeId id);
gboolean proto_coord_waiting_for_more (const ProtoCoord *coord);

G_END_DECLS
