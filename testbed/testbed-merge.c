/* testbed-merge.c — the node databases of one deployment as one testbed
 * run (testbed-merge.h): onto the coordinator's clock, in time order,
 * through the run's tally (testbed-tally.c), which it calls and which
 * never calls it. */
#include "config.h"

#include "testbed/testbed-merge.h"
#include "testbed/testbed-private.h"
#include "testbed/testbed-node.h"
#include "results/res-merge.h"
#include "results/res-query.h"

#include <stdlib.h>
#include <string.h>

const char testbed_merge_help[] =
  "Node databases (dlsim node ... -o DB) of one deployment, the coordinator's\n"
  "and its peers', become one testbed run: each node's times are moved onto the\n"
  "coordinator's clock (wall-clock start, then the ClientConnected/NewNodeInfo\n"
  "round trip; the run's params merge.clock.pN give the offset and what is left\n"
  "uncertain), and the run's [expect] is checked.\n";

gboolean
testbed_node_id_of (const char *name, ProtoNodeId *out_id)
{
  guint64 id = 0;
  if (!name)
    return FALSE;
  if (strcmp (name, "coordinator") != 0
      && (name[0] != 'p' || !g_ascii_string_to_unsigned (name + 1, 10, 1, G_MAXUINT32 - 1, &id, NULL)))
    return FALSE;
  *out_id = (ProtoNodeId) id;
  return TRUE;
}

TestbedNode *
testbed_node_new (const char *path, gint64 run, char *name)
{
  ProtoNodeId id;
  if (!testbed_node_id_of (name, &id))
    {
      g_free (name);
      return NULL;
    }
  TestbedNode *n = g_new0 (TestbedNode, 1);
  n->path = g_strdup (path);
  n->run = run;
  n->name = name;
  n->id = id;
  n->lines = g_ptr_array_new_with_free_func (g_free);
  n->times = g_array_new (FALSE, FALSE, sizeof (DlTime));
  return n;
}

void
testbed_node_free (TestbedNode *n)
{
  if (!n)
    return;
  g_free (n->path);
  g_free (n->name);
  g_free (n->host);
  g_free (n->sets);
  g_free (n->scenario_path);
  g_free (n->scenario);
  g_ptr_array_unref (n->lines);
  g_array_unref (n->times);
  g_free (n);
}

void
testbed_node_add_line (TestbedNode *n, const char *line)
{
  DlTime last = n->times->len ? g_array_index (n->times, DlTime, n->times->len - 1) : 0;
  /* O, F and M lines carry their time; T and W lines follow one */
  if (line[0] == 'O' || line[0] == 'F' || line[0] == 'M')
    last = g_ascii_strtoll (line + 2, NULL, 10);
  g_ptr_array_add (n->lines, g_strdup (line));
  g_array_append_val (n->times, last);
}

gboolean
testbed_merge_read_nodes (struct sqlite3 *db, const char *path, GPtrArray *nodes, GError **error)
{
  ResRows *st = res_db_node_runs (db);
  gboolean ok = TRUE;
  while (ok && res_rows_next (st))
    {
      gint64 run = res_rows_int64 (st, 0);
      g_autofree char *t0 = res_db_param_value (db, run, TESTBED_NODE_PARAM_T0);
      TestbedNode *n = testbed_node_new (path, run, res_db_param_value (db, run, TESTBED_NODE_PARAM_NAME));
      if (!n || !t0 || !g_ascii_string_to_signed (t0, 10, 0, G_MAXINT64, &n->t0_unix_us, NULL))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "%s: run %" G_GINT64_FORMAT ": a node run without node.name or node.t0_unix_us", path, run);
          testbed_node_free (n);
          ok = FALSE;
          break;
        }
      g_ptr_array_add (nodes, n);
      n->scenario = g_strdup (res_rows_text (st, 1));
      n->point = res_rows_int64 (st, 2);
      n->seed = res_rows_int64 (st, 3);
      n->finished = !res_rows_is_null (st, 4);
      n->host = res_db_param_value (db, n->run, TESTBED_NODE_PARAM_HOST);
      n->sets = res_db_param_value (db, n->run, TESTBED_NODE_PARAM_SETS);
      n->scenario_path = res_db_param_value (db, n->run, TESTBED_NODE_PARAM_SCENARIO);
      ResRows *ls = res_db_node_lines (db, n->run);
      while (res_rows_next (ls))
        {
          const char *line = res_rows_text (ls, 0);
          if (line)
            testbed_node_add_line (n, line);
        }
      res_rows_free (ls);
    }
  res_rows_free (st);
  return ok;
}

/* The first time of an O line of `node` with this kind, other and a
 * message of this role (proto_msg_type_role). */
static gboolean
find_obs (const TestbedNode *n, ProtoObsKind kind, ProtoNodeId other, ProtoMsgRole role, DlTime *out)
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
          && atoi (f[7]) >= 0 && proto_msg_type_role ((ProtoMsgType) atoi (f[7])) == role)
        {
          *out = g_array_index (n->times, DlTime, i);
          return TRUE;
        }
    }
  return FALSE;
}

char *
testbed_merge_clock (const TestbedNode *coord, TestbedNode *n)
{
  DlTime wall = (n->t0_unix_us - coord->t0_unix_us) * 1000;
  DlTime a, b, c1, c2;
  if (find_obs (n, PROTO_OBS_SENT, PROTO_SERVER, PROTO_MSG_ROLE_HELLO, &a)
      && find_obs (n, PROTO_OBS_RECEIVED, PROTO_SERVER, PROTO_MSG_ROLE_WELCOME, &b)
      && find_obs (coord, PROTO_OBS_RECEIVED, n->id, PROTO_MSG_ROLE_HELLO, &c1)
      && find_obs (coord, PROTO_OBS_SENT, n->id, PROTO_MSG_ROLE_WELCOME, &c2))
    {
      a += wall;
      b += wall;
      DlTime theta = ((c1 - a) + (c2 - b)) / 2;
      DlTime delta = (b - a) - (c2 - c1);
      n->shift = wall + theta;
      return g_strdup_printf ("wall-clock start %+.3f ms; ClientConnected/NewNodeInfo offset %+.3f ms +- %.3f ms",
                              (double) wall / 1e6, (double) theta / 1e6, (double) MAX (delta, 0) / 2e6);
    }
  n->shift = wall;
  return g_strdup_printf ("wall-clock start %+.3f ms; no ClientConnected/NewNodeInfo round trip: "
                          "the wall clocks' skew is not removed", (double) wall / 1e6);
}

static int
entry_cmp (gconstpointer a, gconstpointer b)
{
  const TestbedMergeEntry *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

GArray *
testbed_merge_order (GPtrArray *nodes)
{
  GArray *order = g_array_new (FALSE, FALSE, sizeof (TestbedMergeEntry));
  for (guint i = 0; i < nodes->len; i++)
    {
      const TestbedNode *n = nodes->pdata[i];
      for (guint k = 0; k < n->lines->len; k++)
        {
          TestbedMergeEntry e = { .t = g_array_index (n->times, DlTime, k) + n->shift, .node = i, .index = k };
          g_array_append_val (order, e);
        }
    }
  g_array_sort (order, entry_cmp);
  return order;
}

char *
testbed_merge_retime (const char *line, DlTime t)
{
  if (line[0] != 'O' && line[0] != 'F' && line[0] != 'M')
    return g_strdup (line);
  const char *rest = strchr (line + 2, '\t');
  return g_strdup_printf ("%c\t%" G_GINT64_FORMAT "%s", line[0], t, rest ? rest : "");
}

/* The coordinator of nodes, if they are one deployment. */
static const TestbedNode *
deployment (GPtrArray *nodes, GError **error)
{
  const TestbedNode *coord = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < nodes->len; i++)
    {
      const TestbedNode *n = nodes->pdata[i];
      if (!g_hash_table_add (seen, n->name))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "%s: a second node named %s: merge one deployment's node databases at a time", n->path,
                       n->name);
          return NULL;
        }
      if (n->id == PROTO_SERVER)
        coord = n;
    }
  if (!coord)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                   "node databases without the coordinator's: add the database of "
                   "`dlsim node coordinator -o DB`");
      return NULL;
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      const TestbedNode *n = nodes->pdata[i];
      if (g_strcmp0 (n->scenario, coord->scenario) != 0 || n->seed != coord->seed || n->point != coord->point)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "%s: node %s ran scenario %s seed %" G_GINT64_FORMAT ", the coordinator %s seed %"
                       G_GINT64_FORMAT ": not one deployment", n->path, n->name, n->scenario, n->seed,
                       coord->scenario, coord->seed);
          return NULL;
        }
    }
  return coord;
}

/* The nodes' lines replayed through a run's tally, the result and each
 * peer's ([1..]). */
static void
replay (TestbedRun *tb, GPtrArray *nodes, const TestbedNode *coord, SimResult *res, GArray *results)
{
  tb->replaying = TRUE;
  DlTime end = 0;
  for (guint i = 0; i < nodes->len; i++)
    {
      const TestbedNode *n = nodes->pdata[i];
      for (guint k = 0; k < n->lines->len; k++)
        end = MAX (end, g_array_index (n->times, DlTime, k) + n->shift);
      if (n == coord)
        continue;
      TestbedPeer *p = _testbed_run_peer (tb, n->id, TRUE);
      /* a node killed never set its outcome */
      p->status = n->finished ? TESTBED_PEER_ONLINE : TESTBED_PEER_CRASHED;
      p->exited = p->eof = TRUE;
      p->joined = n->times->len ? g_array_index (n->times, DlTime, 0) + n->shift : 0;
      p->left = n->finished || !n->times->len ? -1 : g_array_index (n->times, DlTime, n->times->len - 1) + n->shift;
    }
  g_autoptr (GArray) order = testbed_merge_order (nodes);
  for (guint i = 0; i < order->len; i++)
    {
      const TestbedMergeEntry *e = &g_array_index (order, TestbedMergeEntry, i);
      const TestbedNode *n = nodes->pdata[e->node];
      tb->replay_now = MAX (e->t, 0);
      g_autofree char *line = testbed_merge_retime (n->lines->pdata[e->index], tb->replay_now);
      _testbed_run_ingest (tb, n->id, line);
    }
  tb->replay_now = MAX (end, 0);
  gboolean all = TRUE;
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TestbedPeer *p = g_ptr_array_index (tb->peers, i);
      all &= !p || p->status != TESTBED_PEER_ONLINE || _testbed_peer_settled (p, proto_family_of (&tb->cfg->proto))
             || strcmp (p->state, "done") == 0;
    }
  /* every process exited: a peer that is not done, failed or left was stuck */
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TestbedPeer *p = g_ptr_array_index (tb->peers, i);
      if (p && p->status == TESTBED_PEER_ONLINE)
        p->exited = strcmp (p->state, "done") == 0 || strcmp (p->state, "failed") == 0
                    || strcmp (p->state, "left") == 0;
    }
  tb->outcome = all ? SIM_OUTCOME_COMPLETED : SIM_OUTCOME_STALLED;
  _testbed_run_finish (tb, res, results);
}

TestbedRunStatus
testbed_merge_nodes (ResDb *out, GPtrArray *nodes, const char *scenario_path, TestbedReport *report,
                     gint64 *out_merged_as, GError **error)
{
  const TestbedNode *coord = deployment (nodes, error);
  if (!coord)
    return TESTBED_RUN_ERROR;
  /* merged before? the coordinator's host and start name the deployment */
  g_autofree char *source = g_strdup_printf ("%s@%" G_GINT64_FORMAT, coord->host ? coord->host : "?",
                                             coord->t0_unix_us);
  gint64 merged_as = res_db_merged_as (out, source);
  if (merged_as)
    {
      *out_merged_as = merged_as;
      return TESTBED_RUN_DONE;
    }
  const char *path = scenario_path ? scenario_path : coord->scenario_path;
  g_auto (GStrv) sets = coord->sets && *coord->sets ? g_strsplit (coord->sets, "\n", -1) : NULL;
  g_autoptr (GError) lerr = NULL;
  g_autoptr (SimScenario) s = path ? sim_scenario_load (path, (const char *const *) sets, &lerr) : NULL;
  if (!s)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "the nodes' scenario file: %s (give it with --scenario FILE)",
                   lerr ? lerr->message : "not recorded");
      return TESTBED_RUN_ERROR;
    }
  if (g_strcmp0 (s->name, coord->scenario) != 0 || coord->point < 0 || (guint) coord->point >= s->points->len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s is scenario %s; the nodes ran %s (point %" G_GINT64_FORMAT
                   ")", path, s->name, coord->scenario, coord->point);
      return TESTBED_RUN_ERROR;
    }
  const SimPoint *pt = s->points->pdata[coord->point];
  SimBuilt built;
  if (!sim_scenario_build (s, pt, (guint64) coord->seed, &built, error))
    return TESTBED_RUN_ERROR;
  ResRun *run = res_run_begin (out, 0, s, pt, (guint64) coord->seed, error);
  if (!run || !res_run_set_mode (run, "testbed", error))
    {
      sim_built_clear (&built);
      return TESTBED_RUN_ERROR;
    }
  res_run_add_param (run, "testbed.network", "nodes: dlsim node processes, merged", NULL);
  res_run_add_param (run, "merge.source", source, NULL);
  g_autofree char *ch = g_strdup_printf ("%s (%s)", coord->host ? coord->host : "?", coord->path);
  res_run_add_param (run, "merge.host.coordinator", ch, NULL);

  /* onto the coordinator's clock */
  for (guint i = 0; i < nodes->len; i++)
    {
      TestbedNode *n = nodes->pdata[i];
      if (n == coord)
        continue;
      g_autofree char *key = g_strdup_printf ("merge.clock.%s", n->name);
      g_autofree char *hk = g_strdup_printf ("merge.host.%s", n->name);
      g_autofree char *hv = g_strdup_printf ("%s (%s)", n->host ? n->host : "?", n->path);
      res_run_add_param (run, hk, hv, NULL);
      g_autofree char *val = testbed_merge_clock (coord, n);
      res_run_add_param (run, key, val, NULL);
    }

  TestbedRun tb;
  _testbed_run_init (&tb, s, pt, (guint64) coord->seed, sets, &built.cfg, run);
  g_autoptr (GArray) results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  replay (&tb, nodes, coord, &report->result, results);
  res_run_set_peers (run, (const SimPeerResult *) (const void *) results->data, results->len - 1);
  report->run_id = res_run_id (run);
  report->bad_lines = tb.bad_lines;
  TestbedRunStatus status = res_run_finish (run, &report->result, 0, report->failed, &report->checked, error)
                            ? TESTBED_RUN_DONE : TESTBED_RUN_ERROR;
  _testbed_run_clear (&tb);
  sim_built_clear (&built);
  return status;
}
