/* proto-coord.h — DISCO's decentralized coordinator (the signaling server's
 * round controller) as a sans-IO state machine.
 *
 * proto_coord_handle (coord, now, &input, &outbox) applies one input and
 * appends actions; proto_coord_next_deadline tells the driver when to feed
 * PROTO_IN_DEADLINE.  No clock, no I/O.  Several connection timers can be
 * alive at once, exactly as in DISCO (an orphan timer, S7): `#timeout` is
 * the newest one, and clearing clears only that one.
 *
 * Shape: proto_coord_new / proto_coord_free (g_autoptr). */
#pragma once

#include "protocol/disco/disco-config.h"
#include "protocol/proto-input.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

typedef struct ProtoCoord ProtoCoord;

ProtoCoord *proto_coord_new (const ProtoConfig *config);
void proto_coord_free (ProtoCoord *coord);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProtoCoord, proto_coord_free)

void proto_coord_handle (ProtoCoord *coord, DlTime now, const ProtoInput *input, ProtoOutbox *out);
DlTime proto_coord_next_deadline (const ProtoCoord *coord);

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
/* "collect" or "connect" */
const char *proto_coord_phase (const ProtoCoord *coord);

G_END_DECLS
