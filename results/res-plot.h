/* res-plot.h — the questions `dlsim plot` asks of a results database:
 * the values of a metric with who was there to hold them, which runs
 * finished, and each figure's rows (rounds, events, traffic).  Their SQL
 * is in res-plot.c; plots/, which calls no SQLite, draws the answers.  A `struct sqlite3 *db`
 * is a handle from res_db_open_read. */
#pragma once

#include "results/res-rows.h"

#include <glib.h>

G_BEGIN_DECLS

struct sqlite3;

/* A run's values of metric `name` (not NULL): t_s, peer, value, in the
 * order recorded (by time). */
ResRows *res_plot_metric_values (struct sqlite3 *db, gint64 run, const char *name);
/* A run's peers: peer, left_s (NULL: it never left nor crashed), outcome
 * ('' if none). */
ResRows *res_plot_peer_ends (struct sqlite3 *db, gint64 run);
/* A run's round ends: end_s (not NULL), by round. */
ResRows *res_plot_round_ends (struct sqlite3 *db, gint64 run);
/* A run's mode (sim, testbed, node; transfer full; NULL: none, no such
 * run, or an older file without the column). */
char *res_plot_run_mode (struct sqlite3 *db, gint64 run);
/* dlsim plot rounds: a run's rounds: round, list_s, start_s, end_s (each
 * NULL if never reached), retries, excluded; by round. */
ResRows *res_plot_round_times (struct sqlite3 *db, gint64 run);
/* dlsim plot participants: round, participants (not NULL); by round. */
ResRows *res_plot_round_participants (struct sqlite3 *db, gint64 run);
/* A run's world events that change who is online: t_s, kind (join,
 * leave, crash, disconnect), node ('' if none); in recorded order. */
ResRows *res_plot_presence_events (struct sqlite3 *db, gint64 run);
/* dlsim plot timeline: the peers (nodes named p<digits>) with an event
 * in a run: node; in no set order. */
ResRows *res_plot_event_peers (struct sqlite3 *db, gint64 run);
/* A run's events: t_s, node (NULL if none), kind, detail (''), msg ('');
 * in recorded order. */
ResRows *res_plot_events (struct sqlite3 *db, gint64 run);
/* dlsim plot convergence: a run's metric `name` by round, the mean over
 * the peers of its values (not NULL): round, mean; by round. */
ResRows *res_plot_metric_by_round (struct sqlite3 *db, gint64 run, const char *name);
/* The file's accuracy values (not NULL), one row: count, the highest
 * round (0 if none). */
ResRows *res_plot_accuracy_extent (struct sqlite3 *db);

/* dlsim plot traffic: a run's message types that were sent: type, mean
 * bytes a message; by bytes, most first. */
ResRows *res_plot_traffic_types (struct sqlite3 *db, gint64 run);
/* A run's last round in the rounds table, or `none` if it has none. */
int res_plot_last_round (struct sqlite3 *db, gint64 run, int none);
/* A run's sent messages of `type` with a round: round (capped at
 * `last`), count; by round. */
ResRows *res_plot_sent_per_round (struct sqlite3 *db, gint64 run, const char *type, int last);

/* The runs of the file: run_id, scenario ('?' if none), point_label (''
 * if none), seed, outcome ('unfinished' if none), sim_end_s (0 if none),
 * finished (1: the run ended with an outcome other than interrupted or
 * error, what `dlsim run --resume` counts as done; 0: a row a Ctrl-C, a
 * kill or an error left); by run id. */
ResRows *res_plot_runs (struct sqlite3 *db);
/* The summary keys of the file's runs but the per-peer ones (peer.*):
 * key, whether some run's value of it is a number (1 or 0); by key. */
ResRows *res_plot_summary_keys (struct sqlite3 *db);

G_END_DECLS
