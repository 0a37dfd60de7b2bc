/* testbed-host-limits.h — what the other ends may cost a testbed node
 * (testbed-host.h, which includes it): the bounds before and after a
 * HELLO, and the largest frame of a scenario.  testbed-host-limits.c
 * holds them; its names private to the node are testbed-host-private.h's. */
#pragma once

#include "host/sim-types.h"

G_BEGIN_DECLS

#define TESTBED_HOST_MAX_UNAUTHENTICATED 32
#define TESTBED_HOST_HELLO_TIMEOUT_MS 10000
#define TESTBED_HOST_ERRORS_BURST 10        /* protocol-error rows at once ... */
#define TESTBED_HOST_ERRORS_PER_S 1         /* ... then this many a second ... */
#define TESTBED_HOST_ERRORS_MAX 1000        /* ... and no more than this in all */
#define TESTBED_HOST_FRAME_HEADROOM_BYTES (64 * 1024)

/* The largest peer id a scenario has (p1 .. this): the most peers it ever
 * has online, or its count. */
guint testbed_host_max_peer (const SimWorldConfig *cfg);

/* The largest frame body an authenticated stream may send in this
 * scenario: its largest message (8 bytes for each of the most floats a
 * message carries, the model's or its family's ProtoFamily.largest_floats,
 * as a value and an index; 32 for each peer) and
 * TESTBED_HOST_FRAME_HEADROOM_BYTES, at most TESTBED_FRAME_MAX_BODY.  A
 * larger frame ends the stream with a protocol error that names the
 * bound. */
gsize testbed_host_max_frame (const SimWorldConfig *cfg);

G_END_DECLS
