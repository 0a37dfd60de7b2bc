/* res-node.h — a testbed node's own database (`dlsim node -o DB`): the
 * runs row (mode 'node') and params as for any run, plus node.* params
 * (name, host, t0 on the wall clock) and the node's record lines
 * (testbed/testbed-records.h) in node_records, in the order written, committed at
 * least every second so that a node that is killed loses at most the last
 * second.  `dlsim merge` turns a coordinator's and its peers' node
 * databases into one testbed run.
 *
 * Shape: res_node_begin / res_node_finish. */
#pragma once

#include "results/res-db.h"

G_BEGIN_DECLS

typedef struct ResNode ResNode;

/* extra: NULL-terminated key, value, key, value ... of node.* params. */
ResNode *res_node_begin (ResDb *db, const SimScenario *s, const SimPoint *p, guint64 seed,
                         const char *const *extra, GError **error);
void res_node_add_line (ResNode *n, const char *line);
/* Commits what is pending (called by add_line at least every second). */
void res_node_commit (ResNode *n);
/* Commits, sets runs.outcome, frees n. */
void res_node_finish (ResNode *n, const char *outcome);
gint64 res_node_run_id (const ResNode *n);

G_END_DECLS
