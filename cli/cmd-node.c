/* cmd-node.c — `dlsim node coordinator|peer`: one testbed process running
 * one protocol machine on real sockets (testbed/testbed-host.c).  `dlsim
 * testbed` starts its peers this way; on several machines a user starts
 * them by hand.
 *
 * With --report the process writes what it records (observations, facts,
 * metrics, traffic) to stdout as tab-separated lines, which `dlsim
 * testbed` reads back (testbed/testbed-records.c); it reads control lines on stdin
 * ("leave", "rule ...").  stdin closing means the orchestrator is gone: the
 * peer leaves and exits, so no process outlives its testbed.
 *
 * Every node of a deployment holds its shared secret (testbed-host.h: a
 * HELLO proves it): --secret-file FILE, which a coordinator creates (mode
 * 0600, 32 random bytes in hex) if it does not exist; `dlsim testbed` hands
 * it to its children in the environment (DLSIM_TESTBED_SECRET), never in
 * argv, which any user may read.
 *
 * This file parses the options and prints; the secret and the process's
 * main loop are testbed/testbed-node.c, the record and control lines
 * testbed/testbed-records.c. */
#include "config.h"

#include "cli/cli.h"
#include "testbed/testbed-node.h"
#include "testbed/testbed-records.h"
#include "results/res-node.h"
#include "scenario/sim-scenario.h"
#include "testbed/testbed-host.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* What a node started by hand says on stderr as the run goes: a peer when
 * its training of a round is done, when it has aggregated the round and
 * when it has finished its rounds; the coordinator each round it starts
 * and when its session ends with no peer left.  Rounds count from 1, as
 * in the database.  With --report it says nothing: dlsim testbed reads the
 * same records from stdout.  A recorder in front of the sink's. */
typedef struct {
  SimRecorder inner;
  const char *name;                    /* "coordinator" or pN */
  char phase[PROTO_OBS_DETAIL_LEN];    /* the node's last state */
} NodeSay;

static void
say_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  NodeSay *s = ud;
  if (s->inner.observation)
    s->inner.observation (s->inner.user_data, t, node, o);
  double at_s = (double) t / DL_S;
  /* a machine's text (a guest's `failed TEXT`) is shown, never raw */
  g_autofree char *detail = cli_shown (o->detail, FALSE);
  switch (o->kind)
    {
    case PROTO_OBS_PHASE:
      if (strcmp (s->phase, "training") == 0 && strcmp (o->detail, "training") != 0)
        fprintf (stderr, "dlsim node %s: round %d: training done, %.1f s after start\n", s->name, o->round + 1,
                 at_s);
      g_strlcpy (s->phase, o->detail, sizeof s->phase);
      break;
    case PROTO_OBS_ROUND_START:
      fprintf (stderr, "dlsim node %s: round %d started with %" G_GINT64_FORMAT " peers, %.1f s after start\n",
               s->name, o->round + 1, o->value, at_s);
      break;
    case PROTO_OBS_ROUND_END:
      fprintf (stderr, "dlsim node %s: round %d: aggregated %" G_GINT64_FORMAT " models, %.1f s after start\n",
               s->name, o->round + 1, o->value, at_s);
      break;
    case PROTO_OBS_FINISHED:
      if (*o->detail)   /* a finish the machine explains (a session that generated every step) */
        fprintf (stderr, "dlsim node %s: finished: %s (%" G_GINT64_FORMAT "), %.1f s after start\n", s->name,
                 detail, o->value, at_s);
      else
        fprintf (stderr, "dlsim node %s: finished its %" G_GINT64_FORMAT " rounds, %.1f s after start\n", s->name,
                 o->value, at_s);
      break;
    case PROTO_OBS_RESET:
      fprintf (stderr, "dlsim node %s: no peer left, %.1f s after start (%s)\n", s->name, at_s, detail);
      break;
    case PROTO_OBS_ERROR:
      fprintf (stderr, "dlsim node %s: training failed, %.1f s after start (%s)\n", s->name, at_s, detail);
      break;
    default:
      return;
    }
  fflush (stderr);
}

static void
say_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  NodeSay *s = ud;
  if (s->inner.fact)
    s->inner.fact (s->inner.user_data, t, node, other, kind, detail);
}

static void
say_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double value)
{
  NodeSay *s = ud;
  if (s->inner.metric)
    s->inner.metric (s->inner.user_data, t, round, peer, name, value);
}

static void
say_traffic (gpointer ud, ProtoMsgType type, gsize bytes)
{
  NodeSay *s = ud;
  if (s->inner.traffic)
    s->inner.traffic (s->inner.user_data, type, bytes);
}

static void
say_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  NodeSay *s = ud;
  if (s->inner.violation)
    s->inner.violation (s->inner.user_data, t, property, node, explanation);
}

static gboolean
split_hostport (const char *s, char **host, guint16 *port)
{
  const char *colon = s ? strrchr (s, ':') : NULL;
  guint64 p;
  if (!colon || colon == s || !g_ascii_string_to_unsigned (colon + 1, 10, 0, 65535, &p, NULL))
    return FALSE;
  *host = g_strndup (s, (gsize) (colon - s));
  *port = (guint16) p;
  return TRUE;
}

static void
say_ignored (const char *line)
{
  g_autofree char *shown = cli_shown (line, FALSE);
  fprintf (stderr, "dlsim node: ignoring control line '%s'\n", shown);
}

/* Parses the options into the addresses ENTRIES names; FALSE (said) on
 * an option it cannot read. */
static gboolean
parse_options (int *argc, char ***argv, const GOptionEntry *entries)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("coordinator|peer - one testbed process");
  g_option_context_set_summary (ctx, "Runs one protocol machine over real sockets.  Examples:\n"
                                     "  dlsim node coordinator --listen MYIP:7000 --secret-file dlsim.secret --scenario S.ini\n"
                                     "  dlsim node peer --coordinator HOST:7000 --name p1 --listen MYIP --secret-file dlsim.secret --scenario S.ini\n"
                                     "The coordinator creates dlsim.secret if it does not exist: copy it to each\n"
                                     "peer's machine (scp).  A stream that does not prove it is refused.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  return cli_parse_options ("node", ctx, argc, argv);
}

/* Checks the role (argv[1]) against the options it needs: a peer's
 * --coordinator and --name pN (its number in *out_id), a coordinator's
 * --listen HOST:PORT (split into *out_host, *out_port).  FALSE (said) on
 * the first that is missing or wrong. */
static gboolean
check_role (int argc, char **argv, const char *scenario, const char *coordinator, const char *name,
            const char *listen, gboolean *out_is_peer, guint64 *out_id, char **out_host, guint16 *out_port)
{
  if (argc != 2 || (strcmp (argv[1], "coordinator") != 0 && strcmp (argv[1], "peer") != 0))
    {
      cli_error ("node", "expected 'coordinator' or 'peer' (dlsim node --help)");
      return FALSE;
    }
  gboolean is_peer = strcmp (argv[1], "peer") == 0;
  if (!scenario)
    {
      cli_error ("node", "--scenario FILE is required");
      return FALSE;
    }
  if (is_peer && (!coordinator || !name))
    {
      cli_error ("node", "a peer needs --coordinator HOST:PORT and --name pN (missing: %s)",
                 !coordinator && !name ? "both" : !coordinator ? "--coordinator" : "--name");
      return FALSE;
    }
  if (is_peer && (name[0] != 'p' || !g_ascii_string_to_unsigned (name + 1, 10, 1, G_MAXUINT32 - 1, out_id, NULL)))
    {
      cli_error ("node", "--name %s: a peer's name is p and its number in the scenario (p1, p2, ...)", name);
      return FALSE;
    }
  if (!is_peer && (!listen || !split_hostport (listen, out_host, out_port)))
    {
      cli_error ("node", "a coordinator needs --listen HOST:PORT");
      return FALSE;
    }
  *out_is_peer = is_peer;
  return TRUE;
}

/* The deployment's secret from SECRET_FILE, which a coordinator creates
 * (and says so); NULL (said) when there is none. (transfer full) */
static char *
read_secret (const char *secret_file, gboolean is_peer)
{
  g_autoptr (GError) error = NULL;
  gboolean created = FALSE;
  char *secret = testbed_node_secret (secret_file, is_peer, &created, &error);
  if (created)
    fprintf (stderr, "dlsim node: a new secret in %s (mode 0600): copy it to each peer's machine\n", secret_file);
  if (!secret)
    cli_error ("node", "%s", error->message);
  return secret;
}

/* Loads SCENARIO and builds its sweep point POINT with the run's seed
 * into *built; a peer's number ID must name one of its peers.  NULL
 * (said, nothing built) on failure. (transfer full) */
static SimScenario *
load_point (const char *scenario, GStrv sets, gint point, gint64 seed, gboolean is_peer, guint64 id,
            const char *name, SimBuilt *built)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (scenario, (const char *const *) sets, &error);
  if (!s)
    {
      cli_error ("node", "%s", error->message);
      return NULL;
    }
  if (point < 0 || (guint) point >= s->points->len)
    {
      cli_error ("node", "--point %d: the scenario has %u points", point, s->points->len);
      return NULL;
    }
  if (!sim_scenario_build (s, s->points->pdata[point], seed >= 0 ? (guint64) seed : s->seed, built, &error))
    {
      cli_error ("node", "%s", error->message);
      return NULL;
    }
  if (is_peer && id > testbed_host_max_peer (&built->cfg))
    {
      cli_error ("node", "--name %s: %s has peers p1..p%u", name, scenario, testbed_host_max_peer (&built->cfg));
      sim_built_clear (built);
      return NULL;
    }
  return g_steal_pointer (&s);
}

/* Runs the node P describes until its session ends: a peer dials first;
 * with --report the control lines on stdin drive it.  Finishes RN (when
 * recording) as the run ended and returns the exit code. */
static int
run_node (const TestbedHostParams *p, TestbedRecordSink *sink, ResNode *rn, gboolean is_peer, gboolean report)
{
  g_autoptr (GError) error = NULL;
  int rc = CLI_EXIT_OK;
  TestbedHost *node = testbed_host_new (p, &error);
  if (!node)
    {
      cli_error ("node", "%s", error->message);
      if (rn)
        res_node_finish (rn, "error");
      return CLI_EXIT_FAILURE;
    }
  sink->peer = testbed_host_peer (node);
  if (!is_peer)
    fprintf (stderr, "dlsim node: coordinator listening on %s:%u\n", p->listen_host, testbed_host_port (node));
  if (is_peer && !testbed_host_start (node, &error))
    {
      cli_error ("node", "%s", error->message);
      rc = CLI_EXIT_FAILURE;
    }
  else
    {
      testbed_node_serve (node, report, rn, say_ignored);
      if (is_peer && testbed_host_refused (node))
        {
          cli_error ("node", "%s", testbed_host_refused (node));
          rc = CLI_EXIT_FAILURE;
        }
    }
  fflush (stdout);
  testbed_host_free (node);
  if (rn)
    res_node_finish (rn, rc == CLI_EXIT_OK ? "recorded" : "error");
  return rc;
}

int
cli_cmd_node (int argc, char **argv)
{
  g_autofree char *coordinator = NULL, *name = NULL, *scenario = NULL, *listen = NULL, *out = NULL;
  g_autofree char *secret_file = NULL, *secret = NULL;
  g_auto (GStrv) sets = NULL;
  gint64 seed = -1, t0 = 0;
  gint point = 0;
  gboolean report = FALSE, emulate_latency = FALSE;
  GOptionEntry entries[] = {
    { "coordinator", 0, 0, G_OPTION_ARG_STRING, &coordinator, "peer: the coordinator's address", "HOST:PORT" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "peer: its name in the scenario (p1, p2, ...)", "pN" },
    { "listen", 0, 0, G_OPTION_ARG_STRING, &listen,
      "coordinator: HOST:PORT to listen on; peer: the HOST its links listen on (default 127.0.0.1)", "ADDR" },
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario, "the scenario file (required)", "FILE" },
    { "secret-file", 0, 0, G_OPTION_ARG_FILENAME, &secret_file,
      "the deployment's shared secret, mode 0600 (required; a coordinator creates FILE if it does not exist)",
      "FILE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a scenario value (repeatable)" CLI_SET_PATHS,
      "section.key=value" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "the run's seed (default: the scenario's)", "N" },
    { "point", 0, 0, G_OPTION_ARG_INT, &point, "the sweep point to run (default 0)", "K" },
    { "t0", 0, 0, G_OPTION_ARG_INT64, &t0, "the run's start on this machine's monotonic clock, in us", "US" },
    { "emulate-latency", 0, 0, G_OPTION_ARG_NONE, &emulate_latency,
      "add the scenario's latency to what this process sends, and link_setup before a dial", NULL },
    { "report", 0, 0, G_OPTION_ARG_NONE, &report, "write records to stdout and read control lines on stdin", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "record this node's records in DB (merge the nodes' databases with dlsim merge)", "DB" },
    { NULL }
  };
  if (!parse_options (&argc, &argv, entries))
    return CLI_EXIT_USAGE;
  if (!cli_check_sets ("node", sets))
    return CLI_EXIT_USAGE;
  gboolean is_peer = FALSE;
  guint64 id = 0;
  g_autofree char *host = NULL;
  guint16 port = 0;
  if (!check_role (argc, argv, scenario, coordinator, name, listen, &is_peer, &id, &host, &port))
    return CLI_EXIT_USAGE;
  if (!(secret = read_secret (secret_file, is_peer)))
    return CLI_EXIT_USAGE;
  SimBuilt built;
  g_autoptr (SimScenario) s = load_point (scenario, sets, point, seed, is_peer, id, name, &built);
  if (!s)
    return CLI_EXIT_USAGE;
  signal (SIGPIPE, SIG_IGN);
  gint64 t0_us = t0 > 0 ? t0 : g_get_monotonic_time ();
  TestbedRecordSink sink;
  testbed_record_sink_init (&sink, report || !out ? stdout : NULL);
  g_autoptr (ResDb) db = NULL;
  ResNode *rn = NULL;
  if (out)
    {
      g_autoptr (GError) error = NULL;
      db = cli_db_open (out, &error);
      if (db)
        rn = testbed_node_record_begin (db, s, s->points->pdata[point], seed >= 0 ? (guint64) seed : s->seed,
                                        is_peer ? name : "coordinator", t0_us, sets, scenario, &error);
      if (!rn)
        {
          cli_error ("node", "%s", error->message);
          sim_built_clear (&built);
          return CLI_EXIT_FAILURE;
        }
      sink.line = (void (*) (gpointer, const char *)) res_node_add_line;
      sink.line_ud = rn;
    }
  NodeSay say = { testbed_record_sink_recorder (&sink), is_peer ? name : "coordinator", "" };
  SimRecorder said = { say_observation, say_fact, say_metric, say_traffic, &say, say_violation };
  TestbedHostParams p = { .cfg = &built.cfg, .id = (ProtoNodeId) id,
                    .listen_host = is_peer ? (listen ? listen : "127.0.0.1") : host, .listen_port = port,
                    .coordinator = coordinator, .t0_us = t0_us,
                    .rec = report ? say.inner : said, .emulate_latency = emulate_latency,
                    .secret = secret };
  int rc = run_node (&p, &sink, rn, is_peer, report);
  sim_built_clear (&built);
  return rc;
}
