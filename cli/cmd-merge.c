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
#include "results/res-merge.h"
#include "results/res-query.h"
#include "protocol/disco/disco-msgs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- plain runs */

static void
say_renumbered (const char *path, gint64 from, gint64 to, gpointer data)
{
  (void) data;
  printf ("%s: run %" G_GINT64_FORMAT " is run %" G_GINT64_FORMAT " in the output\n", path, from, to);
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

/* The node runs of one input file (read-only). */
static gboolean
read_nodes (const char *path, GPtrArray *nodes)
{
  struct sqlite3 *db = cli_open_results ("merge", path);
  if (!db)
    return FALSE;
  ResRows *st = res_db_node_runs (db);
  gboolean ok = TRUE;
  while (ok && res_rows_next (st))
    {
      NodeDb *n = g_new0 (NodeDb, 1);
      g_ptr_array_add (nodes, n);
      n->path = g_strdup (path);
      n->run = res_rows_int64 (st, 0);
      n->scenario = g_strdup (res_rows_text (st, 1));
      n->point = res_rows_int64 (st, 2);
      n->seed = res_rows_int64 (st, 3);
      n->finished = !res_rows_is_null (st, 4);
      n->name = res_db_param_value (db, n->run, "node.name");
      n->host = res_db_param_value (db, n->run, "node.host");
      n->sets = res_db_param_value (db, n->run, "node.sets");
      n->scenario_path = res_db_param_value (db, n->run, "node.scenario_path");
      g_autofree char *t0 = res_db_param_value (db, n->run, "node.t0_unix_us");
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
      ResRows *ls = res_db_node_lines (db, n->run);
      DlTime last = 0;
      while (res_rows_next (ls))
        {
          const char *line = res_rows_text (ls, 0);
          if (!line)
            continue;
          /* O, F and M lines carry their time; T and W lines follow one */
          if (line[0] == 'O' || line[0] == 'F' || line[0] == 'M')
            last = g_ascii_strtoll (line + 2, NULL, 10);
          g_ptr_array_add (n->lines, g_strdup (line));
          g_array_append_val (n->times, last);
        }
      res_rows_free (ls);
    }
  res_rows_free (st);
  res_db_close_read (db);
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
  gint64 merged_as = res_db_merged_as (out, source);
  if (merged_as)
    {
      printf ("these node databases are already merged as run %lld: nothing to do\n", (long long) merged_as);
      return CLI_EXIT_OK;
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
      struct sqlite3 *probe = cli_open_results ("merge", rest[i]);
      if (!probe)
        return CLI_EXIT_FAILURE;
      res_db_close_read (probe);
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
  ResMergeOptions mo = { .renumber = renumber, .any_build = any_build, .renumbered = say_renumbered };
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
      g_autoptr (GError) merr = NULL;
      if (!res_db_merge_runs (out, rest[i], &mo, &merged, &skipped, &merr))
        {
          cli_error ("merge", "%s", merr->message);
          rc = CLI_EXIT_FAILURE;
        }
    }
  if (rc != CLI_EXIT_OK)
    return rc;
  if (merged || skipped || !nodes->len)
    printf ("%u runs merged into %s, %u already there\n", merged, rest[0], skipped);
  if (nodes->len)
    rc = merge_nodes (out, nodes, scenario);
  return rc;
}
