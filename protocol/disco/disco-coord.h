/* disco-coord.h — DISCO's decentralized coordinator (the signaling server's
 * round controller) as a sans-IO state machine.
 *
 * A machine (proto-machine.h): proto_machine_handle (m, now, &input,
 * &outbox) applies one input and appends actions; its state name is its
 * phase, "collect" or "connect"; proto_machine_next_deadline tells the
 * driver when to feed PROTO_IN_DEADLINE.  No clock, no I/O.  Several connection timers can be
 * alive at once, exactly as in DISCO (an orphan timer, S7): `#timeout` is
 * the newest one, and clearing clears only that one.
 *
 * Shape: disco_coord_new makes the machine; proto_machine_free frees it. */
#pragma once

#include "protocol/disco/disco-config.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef struct DiscoCoord DiscoCoord;

/* The machine; its impl is the DiscoCoord the views below read. */
ProtoMachine *disco_coord_new (const ProtoConfig *config);

/* Read-only views for drivers, recorders and tests. */
uint32_t disco_coord_round (const DiscoCoord *coord);
guint disco_coord_retry_counter (const DiscoCoord *coord);
ProtoNodeId disco_coord_provider (const DiscoCoord *coord);
guint disco_coord_connections (const DiscoCoord *coord);
guint disco_coord_pending_timers (const DiscoCoord *coord);
gboolean disco_coord_in_round (const DiscoCoord *coord, ProtoNodeId id);
gboolean disco_coord_is_ready (const DiscoCoord *coord, ProtoNodeId id);
/* Is id a key of #connectFinishedNodes (the connect phase's flags)? */
gboolean disco_coord_has_connect_flag (const DiscoCoord *coord, ProtoNodeId id);
gboolean disco_coord_is_syncing (const DiscoCoord *coord, ProtoNodeId id);
gboolean disco_coord_waiting_for_more (const DiscoCoord *coord);

G_END_DECLS
