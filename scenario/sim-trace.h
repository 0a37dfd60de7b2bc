/* sim-trace.h — availability traces: CSV rows `peer,join,leave`.
 *
 * peer is `pN` or `N` (N >= 1); join and leave are seconds (decimals
 * allowed) from the start of the run; an empty leave, `never` or `inf` means
 * the peer stays.  A peer may have several rows: each is one online
 * interval (it leaves and comes back, docs/world.md); a peer's intervals
 * must not overlap.  An optional header line (not starting with a peer) is
 * skipped; blank lines and `#` comments are ignored.  A bad row, or one
 * that overlaps another of its peer, is an error naming the file and the
 * line. */
#pragma once

#include "host/sim-types.h"
#include "base/dl-csv.h"

G_BEGIN_DECLS

/* (transfer full) a GArray of SimTraceEntry, sorted by join time */
GArray *sim_trace_load (const char *path, GError **error);
GArray *sim_trace_parse (const char *text, const char *name, GError **error);

/* Checks that no two intervals of one peer overlap (an error names `name`
 * and the later line) and sorts the trace by join time. */
gboolean sim_trace_check (GArray *trace, const char *name, GError **error);

/* A trace's peer: `pN` or `N` with N >= 1 (TRUE, *out set). */
gboolean sim_trace_parse_peer (const char *s, guint *out);

/* Calls record on each CSV record (dl-csv.h) of text (len bytes), or of
 * the file `name` when text is NULL; every error is a SIM_ERROR, and
 * names `name` (the file, its line). */
gboolean sim_trace_read_csv (const char *name, const char *text, gsize len, DlCsvRecord record, gpointer ud,
                             GError **error);

G_END_DECLS
