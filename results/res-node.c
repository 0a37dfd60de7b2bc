/* res-node.c — a testbed node's own database (res-node.h). */
#include "config.h"

#include "results/res-node.h"

#include <sqlite3.h>

struct ResNode {
  ResDb *db;
  gint64 run_id;
  gint64 seq;
  sqlite3_stmt *insert;
  gint64 last_commit_us;
  gboolean in_tx;
};

ResNode *
res_node_begin (ResDb *db, const SimScenario *s, const SimPoint *p, guint64 seed, const char *const *extra,
                GError **error)
{
  /* the runs row and the scenario's params, written as for any run */
  ResRun *run = res_run_begin (db, 0, s, p, seed, error);
  if (!run)
    return NULL;
  gboolean ok = res_run_set_mode (run, "node", error);
  for (const char *const *kv = extra; ok && kv && kv[0] && kv[1]; kv += 2)
    ok = res_run_add_param (run, kv[0], kv[1], error);
  gint64 id = res_run_id (run);
  res_run_abort (run, NULL);   /* commits; the outcome is set by res_node_finish */
  if (!ok)
    return NULL;
  ResNode *n = g_new0 (ResNode, 1);
  n->db = db;
  n->run_id = id;
  sqlite3_prepare_v2 (res_db_handle (db), "INSERT INTO node_records VALUES (?,?,?)", -1, &n->insert, NULL);
  n->last_commit_us = g_get_monotonic_time ();
  return n;
}

void
res_node_commit (ResNode *n)
{
  if (n->in_tx)
    sqlite3_exec (res_db_handle (n->db), "COMMIT", NULL, NULL, NULL);
  n->in_tx = FALSE;
  n->last_commit_us = g_get_monotonic_time ();
}

void
res_node_add_line (ResNode *n, const char *line)
{
  if (!n->in_tx)
    {
      sqlite3_exec (res_db_handle (n->db), "BEGIN", NULL, NULL, NULL);
      n->in_tx = TRUE;
    }
  sqlite3_bind_int64 (n->insert, 1, n->run_id);
  sqlite3_bind_int64 (n->insert, 2, n->seq++);
  sqlite3_bind_text (n->insert, 3, line, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (n->insert) != SQLITE_DONE)
    g_warning ("node_records: %s", sqlite3_errmsg (res_db_handle (n->db)));
  sqlite3_reset (n->insert);
  if (g_get_monotonic_time () - n->last_commit_us >= G_USEC_PER_SEC)
    res_node_commit (n);
}

void
res_node_finish (ResNode *n, const char *outcome)
{
  res_node_commit (n);
  sqlite3_finalize (n->insert);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (res_db_handle (n->db), "UPDATE runs SET outcome = ? WHERE run_id = ?", -1, &st, NULL);
  sqlite3_bind_text (st, 1, outcome, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 2, n->run_id);
  sqlite3_step (st);
  sqlite3_finalize (st);
  g_free (n);
}

gint64
res_node_run_id (const ResNode *n)
{
  return n->run_id;
}
