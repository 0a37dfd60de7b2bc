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

/* The rows, in the order made: key i and its value as text ("" for
 * none; a number is written into buf).  A key made twice is two rows,
 * each with the value it was made with last.  The strings live as long
 * as sum. */
guint _res_summary_len (const ResSummary *sum);
const char *_res_summary_key (const ResSummary *sum, guint i);
const char *_res_summary_value (const ResSummary *sum, guint i, char buf[24]);
/* Is value i a number (a count, made without text)?  *out_n: it. */
gboolean _res_summary_number (const ResSummary *sum, guint i, guint64 *out_n);
/* A key's last value as text (a number written into buf), NULL if there
 * is no such key.  A lookup of a peer.* key makes a map of the peers'
 * keys the first time. */
const char *_res_summary_lookup (ResSummary *sum, const char *key, char buf[24]);

G_END_DECLS
