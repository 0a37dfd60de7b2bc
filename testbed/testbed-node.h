/* testbed-node.h — one testbed process running one protocol machine on
 * real sockets (`dlsim node coordinator|peer`; `dlsim testbed` starts its
 * peers this way): the deployment's shared secret, and the process's
 * main loop, and the node's own database (`dlsim node -o DB`) begun with
 * what `dlsim merge` needs of it.  cli/cmd-node.c parses the options,
 * makes the node (testbed/testbed-host.h) and prints. */
#pragma once

#include "results/res-node.h"
#include "testbed/testbed-host.h"

G_BEGIN_DECLS

/* (transfer full) the deployment's secret: from path (a coordinator, not
 * a peer, creates it if it does not exist: 32 random bytes in hex, mode
 * 0600, and *out_created says so); without path, what `dlsim testbed` put
 * in the environment (DLSIM_TESTBED_SECRET, then removed from it). */
char *testbed_node_secret (const char *path, gboolean is_peer, gboolean *out_created, GError **error);

/* The node.* params of a node's database, which testbed_merge_read_nodes
 * (testbed-merge.h) reads back. */
#define TESTBED_NODE_PARAM_NAME "node.name"
#define TESTBED_NODE_PARAM_HOST "node.host"
#define TESTBED_NODE_PARAM_T0 "node.t0_unix_us"
#define TESTBED_NODE_PARAM_SETS "node.sets"
#define TESTBED_NODE_PARAM_SCENARIO "node.scenario_path"

/* Begins node `name`'s record in db (res_node_begin): point p of s with
 * this seed, and as node.* params its name ("coordinator" or pN), this
 * machine's host name, its start t0_us (on the monotonic clock) as
 * microseconds on the wall clock, the --set overrides sets (NULL: none;
 * joined by newlines) and the scenario file's path as given. */
ResNode *testbed_node_record_begin (ResDb *db, const SimScenario *s, const SimPoint *p, guint64 seed,
                                    const char *name, gint64 t0_us, char **sets, const char *scenario_path,
                                    GError **error);

/* Runs node's main loop until it is done: a peer until it has left and
 * its links are gone, a coordinator until SIGTERM or SIGINT (which make a
 * peer leave).  control: control lines are read on stdin ("leave", "rule
 * ..."; testbed-records.h), and stdin closing makes a peer leave, so that
 * no peer outlives its testbed; a line that is neither goes to
 * ignored (may be NULL).  rn non-NULL: committed once a second, so that a
 * node that is killed loses at most a second.  Returns after letting the
 * last writes (a close's queued frames) go out. */
void testbed_node_serve (TestbedHost *node, gboolean control, ResNode *rn, void (*ignored) (const char *line));

G_END_DECLS
