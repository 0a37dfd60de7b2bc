/* sim-bwtrace.h — bandwidth traces ([network] bandwidth_trace): CSV rows
 * `peer,time,uplink,downlink`.
 *
 * The first record is the header `peer,time,uplink,downlink` (required:
 * a file without it is refused, so that columns are never guessed).  peer
 * is `pN` or `N` (N >= 1); time is seconds (decimals allowed) or a
 * duration (`30s`, `2min`, `1m30s`) from the start of the run; uplink and
 * downlink are rates as the scenario writes them (`10Mbps`, `500kbps`),
 * from 1 kbit/s.  A peer's rows must be in time order, each later than
 * the one before it; rows of different peers may come in any order.  Blank
 * lines and `#` comments are ignored.  An error names the file, the line,
 * the row, and the column (peer, time, uplink or downlink) at fault. */
#pragma once

#include "host/sim-types.h"

G_BEGIN_DECLS

/* (transfer full) a GArray of SimRateChange, in file order */
GArray *sim_bwtrace_load (const char *path, GError **error);
GArray *sim_bwtrace_parse (const char *text, gsize len, const char *name, GError **error);

G_END_DECLS
