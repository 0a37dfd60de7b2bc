/* res-summary-private.h — a run's summary as res-db.c writes it: its keys
 * and values in the order they are made (res-summary.c). */
#pragma once

#include "host/sim-types.h"

#include <glib.h>

G_BEGIN_DECLS

/* Shape: _res_summary_new / _res_summary_free. */
typedef struct _ResSummary ResSummary;

ResSummary *_res_summary_new (void);
void _res_summary_free (ResSummary *sum);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResSummary, _res_summary_free)

/* A peer's peer.NAME.* keys; every peer's before the run's keys, each
 * name once. */
void _res_summary_add_peer (ResSummary *sum, const char *name, const SimPeerResult *pr);
/* The run's keys, after the peers' (once). */
void _res_summary_add_run (ResSummary *sum, const SimResult *res);

/* The rows, in the order made: key i and its value, "" for none.  A key
 * made twice is two rows, each with the value it was made with last. */
guint _res_summary_len (const ResSummary *sum);
const char *_res_summary_key (const ResSummary *sum, guint i);
const char *_res_summary_value (const ResSummary *sum, guint i);
/* A key's last value, NULL if there is no such key.  A lookup of a
 * peer.* key makes a map of the peers' keys the first time. */
const char *_res_summary_lookup (ResSummary *sum, const char *key);

G_END_DECLS
