/* cmd-bench.c — `dlsim bench`: built-in benchmarks.  Wall-clock time is
 * measured here, in the command, never inside the simulator. */
#include "config.h"

#include "cli/cli.h"
#include "bench/phold.h"
#include "bench/fuzz-frames.h"
#include "protocol/disco/disco-config.h"
#include "base/dl-units.h"
#include "results/res-db.h"
#include "runner/runner.h"
#include "sim/sim-world.h"

#include <glib/gstdio.h>

#include <sys/resource.h>

#include <stdio.h>
#include <string.h>

typedef struct {
  BenchPholdResult res;
  double wall_s;
} Timed;

static Timed
timed_run (BenchPholdResult (*fn) (const BenchPholdParams *), const BenchPholdParams *p)
{
  gint64 t0 = g_get_monotonic_time ();
  Timed t = { .res = fn (p) };
  t.wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return t;
}

static void
print_timed (const char *label, const Timed *t)
{
  double rate = t->wall_s > 0 ? (double) t->res.events / t->wall_s : 0;
  printf ("%-10s %" G_GUINT64_FORMAT " events in %.3f s wall: %.0f events/s (order checksum %016" G_GINT64_MODIFIER "x)\n",
          label, t->res.events, t->wall_s, rate, t->res.checksum);
}

static int
bench_phold (int argc, char **argv)
{
  BenchPholdParams p;
  bench_phold_params_init (&p);
  int lps = (int) p.n_lps, epl = (int) p.events_per_lp, repeat = 3;
  gint64 seed = (gint64) p.seed;
  double remote = p.remote;
  g_autofree char *end = NULL, *lookahead = NULL, *mean = NULL;
  gboolean compare = FALSE, reference_only = FALSE;
  GOptionEntry entries[] = {
    { "lps", 0, 0, G_OPTION_ARG_INT, &lps, "number of logical processes (default 1000)", "N" },
    { "events-per-lp", 0, 0, G_OPTION_ARG_INT, &epl, "initial events per LP (default 16)", "K" },
    { "end", 0, 0, G_OPTION_ARG_STRING, &end, "simulated end time (default 100s)", "T" },
    { "remote", 0, 0, G_OPTION_ARG_DOUBLE, &remote, "probability an event goes to a random LP (default 0.25)", "P" },
    { "lookahead", 0, 0, G_OPTION_ARG_STRING, &lookahead, "minimum delay (default 100ms)", "D" },
    { "mean", 0, 0, G_OPTION_ARG_STRING, &mean, "mean of the exponential delay part (default 900ms)", "D" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the LP random streams (default 1)", "N" },
    { "compare", 0, 0, G_OPTION_ARG_NONE, &compare, "also run the two reference loops (same-draws and plain) and print the ratios", NULL },
    { "reference", 0, 0, G_OPTION_ARG_NONE, &reference_only, "run only the reference loop", NULL },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "with --compare: alternate runs R times each, keep the fastest (default 3)", "R" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the PHOLD engine benchmark");
  g_option_context_set_summary (ctx,
      "dlsim bench phold --lps N --events-per-lp K --end T [--remote P] [--compare]\n\n"
      "Runs the classic PHOLD model on the dlsim event engine: each event schedules\n"
      "one new event at now + lookahead + exponential(mean) on a random LP (with\n"
      "probability P) or on itself. Prints events, wall seconds and events/s.\n"
      "--compare runs two references side by side and prints both ratios:\n"
      "  reference: a bare binary heap of (time, seq, lp) making the same draws\n"
      "    from the same per-LP streams; it must process the identical event\n"
      "    sequence (equal counts and order checksums) or the command exits 1;\n"
      "  plain: a binary heap of 16-byte (time, lp) entries with one generator\n"
      "    for all LPs and no tie-break counter, the least work PHOLD needs;\n"
      "    its draws differ, so only its rate is compared.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("bench phold", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (argc > 1)
    {
      cli_error ("bench phold", "unexpected argument '%s'", argv[1]);
      return CLI_EXIT_USAGE;
    }
  if (lps <= 0 || epl <= 0 || repeat <= 0)
    {
      cli_error ("bench phold", "--lps, --events-per-lp and --repeat must be positive");
      return CLI_EXIT_USAGE;
    }
  if (!(remote >= 0 && remote <= 1))
    {
      cli_error ("bench phold", "--remote must be a probability in [0, 1], got %g", remote);
      return CLI_EXIT_USAGE;
    }
  struct { const char *opt; const char *text; DlTime *dst; } durs[] = {
    { "--end", end, &p.end }, { "--lookahead", lookahead, &p.lookahead }, { "--mean", mean, &p.mean_delay },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (durs); i++)
    if (durs[i].text && !dl_parse_duration (durs[i].text, durs[i].dst, &error))
      {
        cli_error ("bench phold", "%s: %s", durs[i].opt, error->message);
        return CLI_EXIT_USAGE;
      }
  if (p.mean_delay <= 0)
    {
      cli_error ("bench phold", "--mean must be positive");
      return CLI_EXIT_USAGE;
    }
  p.n_lps = (uint32_t) lps;
  p.events_per_lp = (uint32_t) epl;
  p.remote = remote;
  p.seed = (uint64_t) seed;

  char b1[DL_TIME_STR_LEN], b2[DL_TIME_STR_LEN], b3[DL_TIME_STR_LEN];
  printf ("phold: lps=%u events_per_lp=%u end=%s remote=%g lookahead=%s mean=%s seed=%" G_GUINT64_FORMAT "\n",
          p.n_lps, p.events_per_lp, dl_time_format (p.end, b1), p.remote,
          dl_time_format (p.lookahead, b2), dl_time_format (p.mean_delay, b3), p.seed);

  if (!compare)
    {
      Timed t = timed_run (reference_only ? bench_phold_run_reference : bench_phold_run_engine, &p);
      print_timed (reference_only ? "reference" : "engine", &t);
      return CLI_EXIT_OK;
    }

  Timed best_e = { .wall_s = -1 }, best_r = { .wall_s = -1 }, best_p = { .wall_s = -1 };
  for (int i = 0; i < repeat; i++)
    {
      Timed e = timed_run (bench_phold_run_engine, &p);
      Timed r = timed_run (bench_phold_run_reference, &p);
      Timed pl = timed_run (bench_phold_run_plain, &p);
      if (best_p.wall_s < 0 || pl.wall_s < best_p.wall_s)
        best_p = pl;
      if (e.res.events != r.res.events || e.res.checksum != r.res.checksum)
        {
          print_timed ("engine", &e);
          print_timed ("reference", &r);
          cli_error ("bench phold", "engine and reference processed different event sequences");
          return CLI_EXIT_FAILURE;
        }
      if (best_e.wall_s < 0 || e.wall_s < best_e.wall_s)
        best_e = e;
      if (best_r.wall_s < 0 || r.wall_s < best_r.wall_s)
        best_r = r;
    }
  print_timed ("engine", &best_e);
  print_timed ("reference", &best_r);
  print_timed ("plain", &best_p);
  double rate_e = best_e.wall_s > 0 ? (double) best_e.res.events / best_e.wall_s : 0;
  double rate_r = best_r.wall_s > 0 ? (double) best_r.res.events / best_r.wall_s : 0;
  double rate_p = best_p.wall_s > 0 ? (double) best_p.res.events / best_p.wall_s : 0;
  printf ("ratio engine/reference events/s: %.3f (fastest of %d alternating runs each)\n",
          rate_r > 0 ? rate_e / rate_r : 0, repeat);
  printf ("ratio engine/plain events/s: %.3f (plain: binary heap of 16-byte (time, lp) entries, one generator)\n",
          rate_p > 0 ? rate_e / rate_p : 0);
  return CLI_EXIT_OK;
}

/* The protocol benchmarks' run: N peers, all in every round
 * (min_participants = N), R rounds, mean aggregation, model `none` of S
 * floats, the default network, no time limit to speak of. */
static void
protocol_run_config (SimWorldConfig *cfg, gint64 seed, int peers, int rounds, gint64 size)
{
  sim_world_config_init (cfg);
  cfg->seed = (uint64_t) seed;
  cfg->n_peers = cfg->max_peers = cfg->proto.min_participants = (guint) peers;
  cfg->proto.rounds = (guint) rounds;
  cfg->time_limit = 1000 * DL_H;
  cfg->model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = (gsize) size };
}

static int
bench_scale (int argc, char **argv)
{
  int peers = 100, rounds = 3, min_participants = 0;
  gint64 size = 100000, seed = 1;
  g_autofree char *uplink = NULL, *downlink = NULL;
  gboolean secure = FALSE;
  g_autofree char *version = NULL, *sharing = NULL;
  GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_STRING, &version, "protocol version (default disco-1110)", "V" },
    { "sharing", 0, 0, G_OPTION_ARG_STRING, &sharing, "the network's bandwidth model: fair (default) or fifo", "MODEL" },
    { "peers", 0, 0, G_OPTION_ARG_INT, &peers, "number of peers, all in every round (default 100)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "rounds each peer trains (default 3)", "R" },
    { "min-participants", 0, 0, G_OPTION_ARG_INT, &min_participants,
      "the coordinator's min_participants (default N: everyone in every round)", "M" },
    { "model-size", 0, 0, G_OPTION_ARG_INT64, &size, "floats in the model (default 100000)", "S" },
    { "uplink", 0, 0, G_OPTION_ARG_STRING, &uplink, "per-peer uplink (default 20Mbps)", "RATE" },
    { "downlink", 0, 0, G_OPTION_ARG_STRING, &downlink, "per-peer downlink (default 100Mbps)", "RATE" },
    { "secure", 0, 0, G_OPTION_ARG_NONE, &secure, "secure aggregation instead of mean", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "scenario seed (default 1)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- protocol scale benchmark");
  g_option_context_set_summary (ctx,
      "dlsim bench scale --peers N --rounds R --model-size S\n\n"
      "Runs DISCO (disco-1110, or --version) with N peers that all take part in every round\n"
      "(min_participants = N), all-to-all mean aggregation, model `none` (weights\n"
      "are only a size, shared and never copied), default network. Prints the\n"
      "run's outcome, simulated time, events, messages and bytes, wall seconds\n"
      "and the process's peak resident memory.\n\n"
      "--min-participants M < N: only disco-pre775 then caps a round at M peers\n"
      "(its coordinator lists the first M ready peers); the other versions list\n"
      "every ready peer once M are ready, as DISCO does.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("bench scale", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (argc > 1)
    {
      cli_error ("bench scale", "unexpected argument '%s'", argv[1]);
      return CLI_EXIT_USAGE;
    }
  if (peers < 1 || rounds < 1 || size < 1 || min_participants < 0)
    {
      cli_error ("bench scale", "--peers, --rounds and --model-size must be positive (--min-participants: 0 or more)");
      return CLI_EXIT_USAGE;
    }
  if (min_participants == 0 || min_participants > peers)
    min_participants = peers;
  if (sharing && strcmp (sharing, "fair") != 0 && strcmp (sharing, "fifo") != 0)
    {
      cli_error ("bench scale", "--sharing: '%s': expected fair or fifo", sharing);
      return CLI_EXIT_USAGE;
    }
  ProtoVersion pv = PROTO_VERSION_DISCO_1110;
  if (version && !proto_version_from_name (version, &pv, &error))
    {
      cli_error ("bench scale", "--version: %s", error->message);
      return CLI_EXIT_USAGE;
    }
  SimWorldConfig cfg;
  protocol_run_config (&cfg, seed, peers, rounds, size);
  /* bench scale runs DISCO (its summary says so): its version and
   * aggregation are DISCO's part of the config */
  proto_disco_set_version (&cfg.proto, pv);
  disco_config_mut (&cfg.proto)->aggregation = secure ? PROTO_AGG_SECURE : PROTO_AGG_MEAN;
  cfg.proto.min_participants = (guint) min_participants;
  cfg.sharing_fifo = sharing && strcmp (sharing, "fifo") == 0;
  struct { const char *opt, *text; uint64_t *dst; } rates[] = {
    { "--uplink", uplink, &cfg.uplink_bps }, { "--downlink", downlink, &cfg.downlink_bps },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (rates); i++)
    if (rates[i].text && !dl_parse_rate (rates[i].text, rates[i].dst, &error))
      {
        cli_error ("bench scale", "%s: %s", rates[i].opt, error->message);
        sim_world_config_clear (&cfg);
        return CLI_EXIT_USAGE;
      }
  RunnerOptions ro = { 0 };
  RunnerResult rr;
  if (!runner_run_config (&cfg, NULL, NULL, cfg.seed, &ro, &rr, &error))
    {
      cli_error ("bench scale", "%s", error->message);
      runner_result_clear (&rr);
      sim_world_config_clear (&cfg);
      return CLI_EXIT_FAILURE;
    }
  const SimResult *r = &rr.result;
  double wall = rr.wall_seconds;
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  char b[DL_TIME_STR_LEN];
  printf ("scale: version=%s peers=%d min_participants=%d rounds=%d model_size=%" G_GINT64_FORMAT
          " floats aggregation=%s sharing=%s\n",
          proto_version_name (pv), peers, min_participants, rounds, size, secure ? "secure" : "mean",
          cfg.sharing_fifo ? "fifo" : "fair");
  printf ("outcome %s, rounds completed %u, peers finished %u, sim time %s\n",
          sim_outcome_name (r->outcome), r->rounds_completed, r->peers_finished, dl_time_format (r->end, b));
  printf ("%" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " messages, %.3f GB on the wire, "
          "%u dropped by the drop rule\n",
          r->events, r->messages, (double) r->bytes / 1e9, r->messages_dropped);
  printf ("wall %.2f s, %.0f events/s, peak memory %.1f MiB\n", wall,
          wall > 0 ? (double) r->events / wall : 0, (double) ru.ru_maxrss / 1024.0);
  sim_world_config_clear (&cfg);
  int rc = r->outcome == SIM_OUTCOME_COMPLETED ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
  runner_result_clear (&rr);
  return rc;
}

/* One recorded run of bench record: the same steps as `dlsim run` (open,
 * runs row, world, drain, finish, close), timed as a whole. */
static double
record_once (const SimWorldConfig *cfg, const char *path, gboolean events, gboolean *ok, double *writer_cpu,
             GError **error)
{
  SimScenario scenario = { 0 };
  scenario.name = (char *) "bench-record";
  scenario.path = (char *) "";
  SimPoint point = { 0 };
  point.label = (char *) "";
  point.keys = g_ptr_array_new ();
  point.values = g_ptr_array_new ();
  point.expects = g_array_new (FALSE, TRUE, sizeof (SimExpect));
  gint64 t0 = g_get_monotonic_time ();
  double wall = -1;
  ResDb *db = res_db_open (path, error);
  if (db)
    {
      RunnerOptions ro = { .db = db, .no_events = !events, .no_wall = TRUE };
      RunnerResult rr;
      if (runner_run_config (cfg, &scenario, &point, cfg->seed, &ro, &rr, error))
        wall = 0;
      if (rr.ran)
        {
          *ok = rr.result.outcome == SIM_OUTCOME_COMPLETED;
          *writer_cpu = rr.writer_cpu_seconds;
        }
      runner_result_clear (&rr);
    }
  res_db_close (db);
  if (wall == 0)
    wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_ptr_array_unref (point.keys);
  g_ptr_array_unref (point.values);
  g_array_unref (point.expects);
  res_db_remove_files (path);
  return wall;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static int
bench_record (int argc, char **argv)
{
  int peers = 100, rounds = 10, repeat = 5;
  gint64 size = 100000, seed = 1;
  GOptionEntry entries[] = {
    { "peers", 0, 0, G_OPTION_ARG_INT, &peers, "number of peers, all in every round (default 100)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "rounds each peer trains (default 10)", "R" },
    { "model-size", 0, 0, G_OPTION_ARG_INT64, &size, "floats in the model (default 100000)", "S" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "runs of each kind, alternated (default 5)", "K" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "scenario seed (default 1)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the cost of recording events");
  g_option_context_set_summary (ctx,
      "dlsim bench record --peers N --rounds R\n\n"
      "Runs DISCO (disco-1110) with N peers, all in every round, all-to-all mean,\n"
      "model `none` (a pure-protocol run), 1 Gbit/s links, recorded into a\n"
      "results database in a temporary folder: K times with events and K times\n"
      "with --no-events, alternated.  Each time covers what `dlsim run` does for\n"
      "a run (open, runs row, simulation, writing every row, close).  Prints the\n"
      "events recorded, the median wall seconds of each kind and their ratio,\n"
      "then two steadier readings on a shared machine: the median of each\n"
      "with-events run's ratio to the --no-events run right after it, and the\n"
      "ratio of the fastest run of each kind; and the CPU time of the thread\n"
      "that writes the rows (what a recorded run adds on a second core).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("bench record", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (argc > 1)
    {
      cli_error ("bench record", "unexpected argument '%s'", argv[1]);
      return CLI_EXIT_USAGE;
    }
  if (peers < 1 || rounds < 1 || size < 1 || repeat < 1)
    {
      cli_error ("bench record", "--peers, --rounds, --model-size and --repeat must be positive");
      return CLI_EXIT_USAGE;
    }
  SimWorldConfig cfg;
  protocol_run_config (&cfg, seed, peers, rounds, size);
  cfg.uplink_bps = cfg.downlink_bps = 1000000000;
  g_autofree char *dir = g_dir_make_tmp ("dlsim-bench-record-XXXXXX", &error);
  if (!dir)
    {
      cli_error ("bench record", "%s", error->message);
      sim_world_config_clear (&cfg);
      return CLI_EXIT_FAILURE;
    }
  g_autofree char *path = g_build_filename (dir, "r.db", NULL);
  g_autoptr (GArray) with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) writer = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean all_ok = TRUE;
  for (int k = 0; k < 2 * repeat && all_ok; k++)
    {
      gboolean events = k % 2 == 0, ok = FALSE;
      double cpu = 0;
      double wall = record_once (&cfg, path, events, &ok, &cpu, &error);
      if (wall < 0)
        {
          cli_error ("bench record", "%s", error ? error->message : "the run failed");
          all_ok = FALSE;
          break;
        }
      all_ok = ok;
      g_array_append_val (events ? with : without, wall);
      if (events)
        g_array_append_val (writer, cpu);
    }
  g_rmdir (dir);
  sim_world_config_clear (&cfg);
  if (!all_ok)
    {
      cli_error ("bench record", "the run did not complete");
      return CLI_EXIT_FAILURE;
    }
  /* each with-events run against the --no-events run right after it: on a
   * shared machine the load drifts, and neighbours see the same load */
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint k = 0; k < with->len && k < without->len; k++)
    {
      double q = g_array_index (with, double, k) / g_array_index (without, double, k);
      g_array_append_val (pairs, q);
    }
  g_array_sort (pairs, cmp_double);
  g_array_sort (with, cmp_double);
  g_array_sort (without, cmp_double);
  g_array_sort (writer, cmp_double);
  double a = g_array_index (with, double, with->len / 2), b = g_array_index (without, double, without->len / 2);
  printf ("record: disco-1110 peers=%d rounds=%d model none (%" G_GINT64_FORMAT " floats), 1 Gbit/s, %d runs each\n",
          peers, rounds, size, repeat);
  printf ("with events  %.3f s (median; %.3f-%.3f)\n", a, g_array_index (with, double, 0),
          g_array_index (with, double, with->len - 1));
  printf ("--no-events  %.3f s (median; %.3f-%.3f)\n", b, g_array_index (without, double, 0),
          g_array_index (without, double, without->len - 1));
  printf ("recording costs %+.0f %% (with / without = %.2f)\n", (a / b - 1) * 100, a / b);
  double q = g_array_index (pairs, double, pairs->len / 2);
  double fa = g_array_index (with, double, 0), fb = g_array_index (without, double, 0);
  printf ("paired runs: median with / without %.2f (%+.0f %%); fastest of each: %.2f (%+.0f %%)\n", q,
          (q - 1) * 100, fa / fb, (fa / fb - 1) * 100);
  printf ("writer thread: %.3f s of CPU (median), %.0f %% of a --no-events run's wall time\n",
          g_array_index (writer, double, writer->len / 2), 100 * g_array_index (writer, double, writer->len / 2) / b);
  return CLI_EXIT_OK;
}

static int
bench_fuzz (int argc, char **argv)
{
  gint64 inputs = 1000000, seed = 1;
  GOptionEntry entries[] = {
    { "inputs", 0, 0, G_OPTION_ARG_INT64, &inputs, "inputs to feed (default 1000000)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed of the input stream (default 1)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- fuzz the testbed's frame reader, HELLO proofs and machines");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || inputs < 0)
    {
      cli_error ("bench fuzz-frames", "%s", error ? error->message : "--inputs must be >= 0");
      return CLI_EXIT_USAGE;
    }
  BenchFuzzStats st;
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = bench_fuzz_frames ((guint64) inputs, (uint64_t) seed, &st);
  double wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  printf ("%" G_GUINT64_FORMAT " inputs in %.2f s: %" G_GUINT64_FORMAT " frames accepted, %" G_GUINT64_FORMAT
          " refused, %" G_GUINT64_FORMAT " valid round trips; HELLO proofs %" G_GUINT64_FORMAT " verified, %"
          G_GUINT64_FORMAT " refused; %" G_GUINT64_FORMAT " hostile messages into machines%s\n",
          st.inputs, wall, st.frames_ok, st.frames_bad, st.roundtrips, st.hellos_verified, st.hellos_refused,
          st.hostile_fed, ok ? "" : "; A ROUND TRIP OR A HELLO PROOF FAILED");
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int
cli_cmd_bench (int argc, char **argv)
{
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      FILE *out = argc < 2 ? stderr : stdout;
      fprintf (out,
               "Usage: dlsim bench MODEL [OPTIONS]\n\n"
               "Models:\n"
               "  phold    PHOLD on the event engine (dlsim bench phold --help)\n"
               "  scale    DISCO with N peers, all-to-all mean (dlsim bench scale --help)\n"
               "  record   the cost of recording events (dlsim bench record --help)\n"
               "  fuzz-frames  fuzz the testbed's frame reader (dlsim bench fuzz-frames --help)\n");
      return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "phold") == 0)
    return bench_phold (argc - 1, argv + 1);
  if (strcmp (argv[1], "scale") == 0)
    return bench_scale (argc - 1, argv + 1);
  if (strcmp (argv[1], "record") == 0)
    return bench_record (argc - 1, argv + 1);
  if (strcmp (argv[1], "fuzz-frames") == 0)
    return bench_fuzz (argc - 1, argv + 1);
  cli_error ("bench", "unknown benchmark '%s' (available: phold, scale, record, fuzz-frames)", argv[1]);
  return CLI_EXIT_USAGE;
}
