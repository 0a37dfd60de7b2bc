/* cmd-merge.c — `dlsim merge OUT.db IN.db...`: combines results databases.
 *
 * - Runs (simulated or testbed) are copied with every row of every table.
 *   A run id already in OUT is the same run if its identity (scenario,
 *   point, seed, dlsim version, start time, file, mode) is the same: it is
 *   skipped, so merging a part twice changes nothing.  A different run
 *   under the same id is a conflict: nothing of that input is merged,
 *   unless --renumber appends it under new ids, which are printed.
 * - Node databases (`dlsim node -o`: mode 'node') of one deployment, one
 *   coordinator's and its peers', become one testbed run.  Each node's
 *   times are moved onto the coordinator's clock: first by the nodes'
 *   wall-clock starts, then by the offset estimated from the
 *   ClientConnected / NewNodeInfo round trip (as NTP does: offset
 *   ((c1 - a) + (c2 - b)) / 2, uncertain by half the round trip's network
 *   time), which the run's params give per peer (merge.clock.pN).  The
 *   lines are then replayed, in time order, through the same tally as
 *   `dlsim testbed` (cli/cmd-testbed.c), and the run's [expect] is checked. */
#include "config.h"

#include "cli/cli.h"
#include "cli/tb-records.h"
#include "cli/tb-run.h"
#include "results/res-db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- plain runs */

static gboolean
table_columns (sqlite3 *db, const char *table, GString *cols, GString *select_cols)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA main.table_info(%s)", table);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *c = (const char *) sqlite3_column_text (st, 1);
      g_string_append_printf (cols, "%s%s", cols->len ? ", " : "", c);
      g_string_append_printf (select_cols, "%s%s", select_cols->len ? ", " : "",
                              strcmp (c, "run_id") == 0 ? "?1" : c);
    }
  sqlite3_finalize (st);
  return cols->len > 0;
}

/* Copies run `from` of src as run `to` of main. */
static gboolean
copy_run (sqlite3 *db, gint64 from, gint64 to)
{
  const char *const *tables = res_db_storage_names ();
  /* an input older than schema 4 keeps its events in a table named events */
  gboolean old_events = !res_db_has_table (db, "src", "event_chunks", FALSE);
  for (int i = 0; tables[i]; i++)
    {
      const char *src_table = tables[i];
      if (old_events && strcmp (tables[i], "event_rows") == 0)
        src_table = "events";
      else if (old_events && strcmp (tables[i], "event_chunks") == 0)
        continue;
      g_autoptr (GString) cols = g_string_new (NULL), sel = g_string_new (NULL);
      if (!table_columns (db, tables[i], cols, sel))
        return FALSE;
      g_autofree char *sql = g_strdup_printf ("INSERT INTO main.%s (%s) SELECT %s FROM src.%s WHERE run_id = ?2",
                                              tables[i], cols->str, sel->str, src_table);
      sqlite3_stmt *st = NULL;
      if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        {
          /* an older input may lack a table (node_records before schema 3) */
          if (strstr (sqlite3_errmsg (db), "no such table"))
            continue;
          return FALSE;
        }
      sqlite3_bind_int64 (st, 1, to);
      sqlite3_bind_int64 (st, 2, from);
      int rc = sqlite3_step (st);
      sqlite3_finalize (st);
      if (rc != SQLITE_DONE)
        return FALSE;
    }
  return TRUE;
}

#define IDENTITY "COALESCE(scenario,'') || '|' || COALESCE(point,'') || '|' || COALESCE(seed,'') || '|' ||" \
                 " COALESCE(dlsim_version,'') || '|' || COALESCE(started_at,'') || '|' || COALESCE(file,'') || '|' ||" \
                 " COALESCE(mode,'sim')"

/* Merges the runs of `path` (attached as src) that are not node runs. */
/* The builds (provenance.build) of the runs of one side, comma-separated. */
static char *
builds_of (sqlite3 *db, const char *schema)
{
  g_autofree char *sql = g_strdup_printf ("SELECT group_concat(DISTINCT p.value) FROM %s.params p JOIN %s.runs r"
                                          " ON r.run_id = p.run_id WHERE p.key = 'provenance.build'"
                                          " AND COALESCE(r.mode, 'sim') != 'node'", schema, schema);
  sqlite3_stmt *st = NULL;
  char *v = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW
      && sqlite3_column_text (st, 0))
    v = g_strdup ((const char *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  return v;
}

static gboolean
merge_plain (sqlite3 *db, const char *path, gboolean renumber, gboolean any_build, guint *merged, guint *skipped)
{
  /* results of different builds do not mix silently */
  g_autofree char *in_build = builds_of (db, "src"), *out_build = builds_of (db, "main");
  if (!any_build && in_build && out_build && strcmp (in_build, out_build) != 0)
    {
      cli_error ("merge", "%s comes from build %s, the output from %s: results of different builds do not mix "
                 "(--any-build merges them anyway)", path, in_build, out_build);
      return FALSE;
    }
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "SELECT s.run_id, " IDENTITY ", (SELECT " IDENTITY " FROM main.runs m"
                          " WHERE m.run_id = s.run_id) FROM src.runs s WHERE COALESCE(s.mode, 'sim') != 'node'"
                          " ORDER BY s.run_id", -1, &st, NULL);
  g_autoptr (GArray) copy_from = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) copy_to = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) conflicts = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 next = 0;
  {
    sqlite3_stmt *mx = NULL;
    /* past every id of both files: a renumbered run never takes an id another run keeps */
    sqlite3_prepare_v2 (db, "SELECT MAX((SELECT COALESCE(MAX(run_id), 0) FROM main.runs),"
                            " (SELECT COALESCE(MAX(run_id), 0) FROM src.runs))", -1, &mx, NULL);
    if (sqlite3_step (mx) == SQLITE_ROW)
      next = sqlite3_column_int64 (mx, 0);
    sqlite3_finalize (mx);
  }
  /* next: the last id taken, until a run is renumbered (none past 2^63 - 1) */
  gboolean ids_left = next < G_MAXINT64;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 0);
      const char *mine = (const char *) sqlite3_column_text (st, 1);
      const char *theirs = (const char *) sqlite3_column_text (st, 2);
      if (!theirs)
        {
          g_array_append_val (copy_from, id);
          g_array_append_val (copy_to, id);
        }
      else if (strcmp (mine, theirs) == 0)
        (*skipped)++;   /* already merged */
      else if (renumber && !ids_left)
        {
          cli_error ("merge", "%s: run %" G_GINT64_FORMAT " would take an id past 2^63 - 1, the largest SQLite keeps:"
                     " nothing merged from this file", path, id);
          sqlite3_finalize (st);
          return FALSE;
        }
      else if (renumber)
        {
          next++;
          ids_left = next < G_MAXINT64;
          g_array_append_val (copy_from, id);
          g_array_append_val (copy_to, next);
          printf ("%s: run %" G_GINT64_FORMAT " is run %" G_GINT64_FORMAT " in the output\n", path, id, next);
        }
      else
        g_array_append_val (conflicts, id);
    }
  sqlite3_finalize (st);
  if (conflicts->len)
    {
      g_autoptr (GString) ids = g_string_new (NULL);
      for (guint i = 0; i < conflicts->len && i < 10; i++)
        g_string_append_printf (ids, "%s%" G_GINT64_FORMAT, i ? ", " : "", g_array_index (conflicts, gint64, i));
      cli_error ("merge", "%s: run%s %s%s already in the output as different runs (another scenario, seed, "
                 "build or start): nothing merged from this file; --renumber appends them under new ids",
                 path, conflicts->len > 1 ? "s" : "", ids->str, conflicts->len > 10 ? ", ..." : "");
      return FALSE;
    }
  for (guint i = 0; i < copy_from->len; i++)
    if (!copy_run (db, g_array_index (copy_from, gint64, i), g_array_index (copy_to, gint64, i)))
      {
        cli_error ("merge", "%s: %s", path, sqlite3_errmsg (db));
        return FALSE;
      }
  *merged += copy_from->len;
  return TRUE;
}

/* ---------------------------------------------------------------- node runs */

typedef struct {
  char *path;
  gint64 run;
  char *name;           /* "coordinator" or "pN" */
  ProtoNodeId id;       /* PROTO_SERVER for the coordinator */
  char *host;
  gint64 t0_unix_us;
  char *sets, *scenario_path, *scenario;
  gint64 point, seed;
  gboolean finished;    /* runs.outcome set: the process ended by itself */
  GPtrArray *lines;     /* char* */
  GArray *times;        /* DlTime of each line, on its own clock */
  DlTime shift;         /* onto the coordinator's clock */
} NodeDb;

static void
node_db_free (NodeDb *n)
{
  g_free (n->path);
  g_free (n->name);
  g_free (n->host);
  g_free (n->sets);
  g_free (n->scenario_path);
  g_free (n->scenario);
  if (n->lines)
    g_ptr_array_unref (n->lines);
  if (n->times)
    g_array_unref (n->times);
  g_free (n);
}

static char *
param_of (sqlite3 *db, gint64 run, const char *key)
{
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "SELECT value FROM params WHERE run_id = ? AND key = ?", -1, &st, NULL);
  sqlite3_bind_int64 (st, 1, run);
  sqlite3_bind_text (st, 2, key, -1, SQLITE_STATIC);
  char *v = sqlite3_step (st) == SQLITE_ROW && sqlite3_column_text (st, 0)
              ? g_strdup ((const char *) sqlite3_column_text (st, 0)) : NULL;
  sqlite3_finalize (st);
  return v;
}

/* The node runs of one input file (read-only). */
static gboolean
read_nodes (const char *path, GPtrArray *nodes)
{
  sqlite3 *db = cli_open_results ("merge", path);
  if (!db)
    return FALSE;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2 (db, "SELECT run_id, scenario, point, seed, outcome FROM runs WHERE mode = 'node'", -1, &st,
                      NULL);
  gboolean ok = TRUE;
  while (ok && sqlite3_step (st) == SQLITE_ROW)
    {
      NodeDb *n = g_new0 (NodeDb, 1);
      g_ptr_array_add (nodes, n);
      n->path = g_strdup (path);
      n->run = sqlite3_column_int64 (st, 0);
      n->scenario = g_strdup ((const char *) sqlite3_column_text (st, 1));
      n->point = sqlite3_column_int64 (st, 2);
      n->seed = sqlite3_column_int64 (st, 3);
      n->finished = sqlite3_column_type (st, 4) != SQLITE_NULL;
      n->name = param_of (db, n->run, "node.name");
      n->host = param_of (db, n->run, "node.host");
      n->sets = param_of (db, n->run, "node.sets");
      n->scenario_path = param_of (db, n->run, "node.scenario_path");
      g_autofree char *t0 = param_of (db, n->run, "node.t0_unix_us");
      guint64 id = 0;
      if (!n->name || !t0 || !g_ascii_string_to_signed (t0, 10, 0, G_MAXINT64, &n->t0_unix_us, NULL)
          || (strcmp (n->name, "coordinator") != 0
              && (n->name[0] != 'p' || !g_ascii_string_to_unsigned (n->name + 1, 10, 1, G_MAXUINT32 - 1, &id, NULL))))
        {
          cli_error ("merge", "%s: run %" G_GINT64_FORMAT ": a node run without node.name or node.t0_unix_us",
                     path, n->run);
          ok = FALSE;
          break;
        }
      n->id = (ProtoNodeId) id;
      n->lines = g_ptr_array_new_with_free_func (g_free);
      n->times = g_array_new (FALSE, FALSE, sizeof (DlTime));
      sqlite3_stmt *ls = NULL;
      sqlite3_prepare_v2 (db, "SELECT line FROM node_records WHERE run_id = ? ORDER BY seq", -1, &ls, NULL);
      sqlite3_bind_int64 (ls, 1, n->run);
      DlTime last = 0;
      while (sqlite3_step (ls) == SQLITE_ROW)
        {
          const char *line = (const char *) sqlite3_column_text (ls, 0);
          if (!line)
            continue;
          /* O, F and M lines carry their time; T and W lines follow one */
          if (line[0] == 'O' || line[0] == 'F' || line[0] == 'M')
            last = g_ascii_strtoll (line + 2, NULL, 10);
          g_ptr_array_add (n->lines, g_strdup (line));
          g_array_append_val (n->times, last);
        }
      sqlite3_finalize (ls);
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return ok;
}

/* The first time of an O line of `node` with this kind, other and message. */
static gboolean
find_obs (const NodeDb *n, ProtoObsKind kind, ProtoNodeId other, ProtoMsgType type, DlTime *out)
{
  for (guint i = 0; i < n->lines->len; i++)
    {
      const char *l = n->lines->pdata[i];
      if (l[0] != 'O')
        continue;
      g_auto (GStrv) f = g_strsplit (l, "\t", 10);
      if (g_strv_length (f) < 9)
        continue;
      if (atoi (f[3]) == (int) kind && (other == PROTO_NO_NODE || (ProtoNodeId) g_ascii_strtoull (f[6], NULL, 10) == other)
          && atoi (f[7]) == (int) type)
        {
          *out = g_array_index (n->times, DlTime, i);
          return TRUE;
        }
    }
  return FALSE;
}

typedef struct {
  DlTime t;
  guint node, index;
} Entry;

static int
entry_cmp (gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The line with its time field (O, F, M) set to t. */
static char *
retime (const char *line, DlTime t)
{
  if (line[0] != 'O' && line[0] != 'F' && line[0] != 'M')
    return g_strdup (line);
  const char *rest = strchr (line + 2, '\t');
  return g_strdup_printf ("%c\t%" G_GINT64_FORMAT "%s", line[0], t, rest ? rest : "");
}

static int
merge_nodes (ResDb *out, GPtrArray *nodes, const char *scenario_opt)
{
  NodeDb *coord = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < nodes->len; i++)
    {
      NodeDb *n = nodes->pdata[i];
      if (!g_hash_table_add (seen, n->name))
        {
          cli_error ("merge", "%s: a second node named %s: merge one deployment's node databases at a time",
                     n->path, n->name);
          return CLI_EXIT_FAILURE;
        }
      if (n->id == PROTO_SERVER)
        coord = n;
    }
  if (!coord)
    {
      cli_error ("merge", "node databases without the coordinator's: add the database of "
                 "`dlsim node coordinator -o DB`");
      return CLI_EXIT_FAILURE;
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      NodeDb *n = nodes->pdata[i];
      if (g_strcmp0 (n->scenario, coord->scenario) != 0 || n->seed != coord->seed || n->point != coord->point)
        {
          cli_error ("merge", "%s: node %s ran scenario %s seed %" G_GINT64_FORMAT ", the coordinator %s seed %"
                     G_GINT64_FORMAT ": not one deployment", n->path, n->name, n->scenario, n->seed,
                     coord->scenario, coord->seed);
          return CLI_EXIT_FAILURE;
        }
    }
  /* merged before? the coordinator's host and start name the deployment */
  g_autofree char *source = g_strdup_printf ("%s@%" G_GINT64_FORMAT, coord->host ? coord->host : "?",
                                             coord->t0_unix_us);
  {
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2 (res_db_handle (out), "SELECT run_id FROM params WHERE key = 'merge.source' AND value = ?",
                        -1, &st, NULL);
    sqlite3_bind_text (st, 1, source, -1, SQLITE_STATIC);
    if (sqlite3_step (st) == SQLITE_ROW)
      {
        printf ("these node databases are already merged as run %lld: nothing to do\n",
                sqlite3_column_int64 (st, 0));
        sqlite3_finalize (st);
        return CLI_EXIT_OK;
      }
    sqlite3_finalize (st);
  }
  const char *path = scenario_opt ? scenario_opt : coord->scenario_path;
  g_auto (GStrv) sets = coord->sets && *coord->sets ? g_strsplit (coord->sets, "\n", -1) : NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = path ? sim_scenario_load (path, (const char *const *) sets, &error) : NULL;
  if (!s)
    {
      cli_error ("merge", "the nodes' scenario file: %s (give it with --scenario FILE)",
                 error ? error->message : "not recorded");
      return CLI_EXIT_FAILURE;
    }
  if (g_strcmp0 (s->name, coord->scenario) != 0 || coord->point < 0 || (guint) coord->point >= s->points->len)
    {
      cli_error ("merge", "%s is scenario %s; the nodes ran %s (point %" G_GINT64_FORMAT ")", path, s->name,
                 coord->scenario, coord->point);
      return CLI_EXIT_FAILURE;
    }
  const SimPoint *pt = s->points->pdata[coord->point];
  SimBuilt built;
  if (!sim_scenario_build (s, pt, (guint64) coord->seed, &built, &error))
    {
      cli_error ("merge", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  ResRun *run = res_run_begin (out, 0, s, pt, (guint64) coord->seed, &error);
  if (!run || !res_run_set_mode (run, "testbed", &error))
    {
      cli_error ("merge", "%s", error->message);
      sim_built_clear (&built);
      return CLI_EXIT_FAILURE;
    }
  res_run_add_param (run, "testbed.network", "nodes: dlsim node processes, merged", NULL);
  res_run_add_param (run, "merge.source", source, NULL);
  g_autofree char *ch = g_strdup_printf ("%s (%s)", coord->host ? coord->host : "?", coord->path);
  res_run_add_param (run, "merge.host.coordinator", ch, NULL);

  /* onto the coordinator's clock */
  for (guint i = 0; i < nodes->len; i++)
    {
      NodeDb *n = nodes->pdata[i];
      if (n == coord)
        continue;
      DlTime wall = (n->t0_unix_us - coord->t0_unix_us) * 1000;
      DlTime a, b, c1, c2;
      g_autofree char *key = g_strdup_printf ("merge.clock.%s", n->name);
      g_autofree char *hk = g_strdup_printf ("merge.host.%s", n->name);
      g_autofree char *hv = g_strdup_printf ("%s (%s)", n->host ? n->host : "?", n->path);
      res_run_add_param (run, hk, hv, NULL);
      g_autofree char *val = NULL;
      if (find_obs (n, PROTO_OBS_SENT, PROTO_SERVER, PROTO_MSG_CLIENT_CONNECTED, &a)
          && find_obs (n, PROTO_OBS_RECEIVED, PROTO_SERVER, PROTO_MSG_NEW_NODE_INFO, &b)
          && find_obs (coord, PROTO_OBS_RECEIVED, n->id, PROTO_MSG_CLIENT_CONNECTED, &c1)
          && find_obs (coord, PROTO_OBS_SENT, n->id, PROTO_MSG_NEW_NODE_INFO, &c2))
        {
          a += wall;
          b += wall;
          DlTime theta = ((c1 - a) + (c2 - b)) / 2;
          DlTime delta = (b - a) - (c2 - c1);
          n->shift = wall + theta;
          val = g_strdup_printf ("wall-clock start %+.3f ms; ClientConnected/NewNodeInfo offset %+.3f ms +- %.3f ms",
                                 (double) wall / 1e6, (double) theta / 1e6, (double) MAX (delta, 0) / 2e6);
        }
      else
        {
          n->shift = wall;
          val = g_strdup_printf ("wall-clock start %+.3f ms; no ClientConnected/NewNodeInfo round trip: "
                                 "the wall clocks' skew is not removed", (double) wall / 1e6);
        }
      res_run_add_param (run, key, val, NULL);
    }

  Tb tb;
  tb_setup (&tb, s, pt, (guint64) coord->seed, sets, &built.cfg, run);
  tb.replaying = TRUE;
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (Entry));
  DlTime end = 0;
  for (guint i = 0; i < nodes->len; i++)
    {
      NodeDb *n = nodes->pdata[i];
      for (guint k = 0; k < n->lines->len; k++)
        {
          Entry e = { .t = g_array_index (n->times, DlTime, k) + n->shift, .node = i, .index = k };
          g_array_append_val (order, e);
          end = MAX (end, e.t);
        }
      if (n == coord)
        continue;
      TbPeer *p = tb_peer_at (&tb, n->id, TRUE);
      p->status = n->finished ? TB_ONLINE : TB_CRASHED;   /* a node killed never set its outcome */
      p->exited = p->eof = TRUE;
      p->joined = n->times->len ? g_array_index (n->times, DlTime, 0) + n->shift : 0;
      p->left = n->finished || !n->times->len ? -1 : g_array_index (n->times, DlTime, n->times->len - 1) + n->shift;
    }
  g_array_sort (order, entry_cmp);
  for (guint i = 0; i < order->len; i++)
    {
      const Entry *e = &g_array_index (order, Entry, i);
      NodeDb *n = nodes->pdata[e->node];
      tb.replay_now = MAX (e->t, 0);
      g_autofree char *line = retime (n->lines->pdata[e->index], tb.replay_now);
      tb_ingest (&tb, n->id, line);
    }
  tb.replay_now = MAX (end, 0);
  gboolean all = TRUE;
  for (guint i = 1; i < tb.peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb.peers, i);
      all &= !p || p->status != TB_ONLINE || tb_settled (p, proto_family_of (&tb.cfg->proto)) || strcmp (p->state, "done") == 0;
    }
  /* every process exited: a peer that is not done, failed or left was stuck */
  for (guint i = 1; i < tb.peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb.peers, i);
      if (p && p->status == TB_ONLINE)
        p->exited = strcmp (p->state, "done") == 0 || strcmp (p->state, "failed") == 0
                    || strcmp (p->state, "left") == 0;
    }
  tb.outcome = all ? SIM_OUTCOME_COMPLETED : SIM_OUTCOME_STALLED;
  SimResult res;
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  tb_finish (&tb, &res, results);
  res_run_set_peers (run, (const SimPeerResult *) (const void *) results->data, results->len - 1);
  g_autoptr (GPtrArray) failed = g_ptr_array_new_with_free_func (g_free);
  guint checked = 0;
  int rc = CLI_EXIT_OK;
  gint64 id = res_run_id (run);
  if (!res_run_finish (run, &res, 0, failed, &checked, &error))
    {
      cli_error ("merge", "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  else
    {
      printf ("merged %u node databases into run %" G_GINT64_FORMAT " (testbed): %s, %u rounds, "
              "%u expectations%s\n", nodes->len, id, sim_outcome_name (res.outcome), res.rounds_completed,
              checked, failed->len ? " FAILED" : "");
      for (guint i = 0; i < failed->len; i++)
        printf ("    %s\n", (char *) failed->pdata[i]);
      if (tb.bad_lines)
        printf ("    %u malformed record lines refused\n", tb.bad_lines);
      rc = failed->len ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    }
  tb_teardown (&tb);
  sim_built_clear (&built);
  return rc;
}

int
cli_cmd_merge (int argc, char **argv)
{
  gboolean renumber = FALSE, any_build = FALSE;
  g_autofree char *scenario = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "renumber", 0, 0, G_OPTION_ARG_NONE, &renumber,
      "append runs whose ids are taken by other runs under new ids (printed)", NULL },
    { "any-build", 0, 0, G_OPTION_ARG_NONE, &any_build,
      "merge runs recorded by different builds (provenance.build)", NULL },
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario,
      "node databases: the scenario file (default: the path the coordinator recorded)", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("OUT.db IN.db... - combine results databases");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Copies every run of each IN into OUT (created if missing), with all its rows.\n"
      "A run id already in OUT with the same identity (scenario, point, seed, build,\n"
      "start, file, mode) is the same run and is skipped: merging twice changes\n"
      "nothing.  A different run under a taken id is a conflict: nothing of that\n"
      "file is merged unless --renumber gives it new ids.  Runs recorded by another\n"
      "build (provenance.build) than those in OUT are refused unless --any-build.\n"
      "\n"
      "Node databases (dlsim node ... -o DB) of one deployment, the coordinator's\n"
      "and its peers', become one testbed run: each node's times are moved onto the\n"
      "coordinator's clock (wall-clock start, then the ClientConnected/NewNodeInfo\n"
      "round trip; the run's params merge.clock.pN give the offset and what is left\n"
      "uncertain), and the run's [expect] is checked.\n"
      "\n"
      "Exit status: 0 merged (or nothing to do); 1 a conflict, an unreadable file or\n"
      "a failed expectation; 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("merge", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) < 2)
    {
      cli_error ("merge", "expected OUT.db and at least one IN.db (dlsim merge --help)");
      return CLI_EXIT_USAGE;
    }
  for (guint i = 1; rest[i]; i++)
    {
      sqlite3 *probe = cli_open_results ("merge", rest[i]);
      if (!probe)
        return CLI_EXIT_FAILURE;
      sqlite3_close (probe);
      if (g_strcmp0 (rest[i], rest[0]) == 0)
        {
          cli_error ("merge", "%s is both the output and an input", rest[0]);
          return CLI_EXIT_USAGE;
        }
    }
  g_autoptr (ResDb) out = res_db_open (rest[0], &error);
  if (!out)
    {
      cli_error ("merge", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  sqlite3 *db = res_db_handle (out);
  guint merged = 0, skipped = 0;
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) node_db_free);
  int rc = CLI_EXIT_OK;
  for (guint i = 1; rest[i] && rc == CLI_EXIT_OK; i++)
    {
      if (!read_nodes (rest[i], nodes))
        {
          rc = CLI_EXIT_FAILURE;
          break;
        }
      sqlite3_stmt *st = NULL;
      sqlite3_prepare_v2 (db, "ATTACH DATABASE ? AS src", -1, &st, NULL);
      sqlite3_bind_text (st, 1, rest[i], -1, SQLITE_STATIC);
      int arc = sqlite3_step (st);
      sqlite3_finalize (st);
      if (arc != SQLITE_DONE)
        {
          cli_error ("merge", "%s: %s", rest[i], sqlite3_errmsg (db));
          rc = CLI_EXIT_FAILURE;
          break;
        }
      sqlite3_exec (db, "SAVEPOINT merge_file", NULL, NULL, NULL);
      if (merge_plain (db, rest[i], renumber, any_build, &merged, &skipped))
        sqlite3_exec (db, "RELEASE merge_file", NULL, NULL, NULL);
      else
        {
          sqlite3_exec (db, "ROLLBACK TO merge_file; RELEASE merge_file", NULL, NULL, NULL);
          rc = CLI_EXIT_FAILURE;
        }
      sqlite3_exec (db, "DETACH DATABASE src", NULL, NULL, NULL);
    }
  if (rc != CLI_EXIT_OK)
    return rc;
  if (merged || skipped || !nodes->len)
    printf ("%u runs merged into %s, %u already there\n", merged, rest[0], skipped);
  if (nodes->len)
    rc = merge_nodes (out, nodes, scenario);
  return rc;
}
