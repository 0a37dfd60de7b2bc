/* testbed-merge.h — the node databases (`dlsim node -o`: mode 'node') of
 * one deployment, one coordinator's and its peers', as one testbed run
 * (`dlsim merge`).  Each node's times are moved onto the coordinator's
 * clock: first by the nodes' wall-clock starts, then by the offset
 * estimated from the ClientConnected / NewNodeInfo round trip (as NTP
 * does: offset ((c1 - a) + (c2 - b)) / 2, uncertain by half the round
 * trip's network time), which the run's params give per peer
 * (merge.clock.pN).  The lines are then replayed, in time order, through
 * the same tally as a live testbed run (testbed-tally.c), and the run's
 * [expect] is checked.  The node runs are read from their databases
 * here too (testbed_merge_read_nodes, through results/' queries);
 * cli/cmd-merge.c opens the files and prints. */
#pragma once

#include "testbed/testbed.h"

G_BEGIN_DECLS

/* One node's run as its database holds it.  Shape: testbed_node_new /
 * testbed_node_free. */
typedef struct {
  char *path;           /* the database it came from */
  gint64 run;
  char *name;           /* "coordinator" or "pN" */
  ProtoNodeId id;       /* PROTO_SERVER for the coordinator */
  char *host;
  gint64 t0_unix_us;
  char *sets, *scenario_path, *scenario;
  gint64 point, seed;
  gboolean finished;    /* runs.outcome set: the process ended by itself */
  GPtrArray *lines;     /* char*: its record lines (testbed-records.h), in the order written */
  GArray *times;        /* DlTime of each line, on its own clock */
  DlTime shift;         /* onto the coordinator's clock (testbed_merge_clock) */
} TestbedNode;

/* A node named name (taken: transfer full), or NULL if name is neither
 * "coordinator" nor p and a number (1 .. 2^32 - 2). */
TestbedNode *testbed_node_new (const char *path, gint64 run, char *name);
void testbed_node_free (TestbedNode *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestbedNode, testbed_node_free)
/* A node's name as its id: "coordinator" is PROTO_SERVER, "pN" is N. */
gboolean testbed_node_id_of (const char *name, ProtoNodeId *out_id);
/* Appends one record line: O, F and M lines carry their time, T and W
 * lines take the time of the line before. */
void testbed_node_add_line (TestbedNode *n, const char *line);

struct sqlite3;

/* What `dlsim merge --help` says of node databases (a paragraph, ending
 * with a newline). */
extern const char testbed_merge_help[];

/* Appends the node runs of db (a results database open to read, from
 * path) to nodes (TestbedNode*), each with its node.* params
 * (testbed-node.h) and its record lines.  FALSE (error set) at a node run
 * without node.name or node.t0_unix_us, or whose name is not a node's;
 * the nodes read before it stay in nodes. */
gboolean testbed_merge_read_nodes (struct sqlite3 *db, const char *path, GPtrArray *nodes, GError **error);

/* Sets n->shift, the move of n's times onto coord's clock, and returns
 * what the run's param merge.clock.NAME says of it (transfer full). */
char *testbed_merge_clock (const TestbedNode *coord, TestbedNode *n);

/* One line of the merged run: line `index` of node `node`, at t on the
 * coordinator's clock. */
typedef struct {
  DlTime t;
  guint node, index;
} TestbedMergeEntry;

/* Every line of the nodes, each at its time plus its node's shift, in
 * time order; ties in node order, then in the order written (transfer
 * full: TestbedMergeEntry). */
GArray *testbed_merge_order (GPtrArray *nodes);
/* The line with its time field (O, F, M) set to t (transfer full). */
char *testbed_merge_retime (const char *line, DlTime t);

/* Merges nodes (TestbedNode*) into one testbed run of out.  scenario_path
 * NULL: the path the coordinator recorded.  TESTBED_RUN_DONE fills report
 * (report->run_id 0 and *out_merged_as set: these nodes were merged
 * before, as that run, and nothing was done); TESTBED_RUN_ERROR sets
 * error: the nodes are not one deployment, the scenario cannot be found
 * or built, or the run cannot be recorded. */
TestbedRunStatus testbed_merge_nodes (ResDb *out, GPtrArray *nodes, const char *scenario_path,
                                      TestbedReport *report, gint64 *out_merged_as, GError **error);

G_END_DECLS
