/* cmd-bench.c — `dlsim bench`: built-in benchmarks.  This file parses the
 * options and prints; the runs, their timing and the arithmetic of their
 * readings are bench/'s (bench/bench-run.h).  Wall-clock time is measured
 * there, around whole runs, never inside the simulator. */
#include "config.h"

#include "cli/cli.h"
#include "bench/bench-run.h"
#include "bench/phold.h"
#include "bench/fuzz-frames.h"
#include "base/dl-units.h"

#include <stdio.h>
#include <string.h>

static void
print_timed (const char *label, const BenchTimed *t)
{
  double rate = bench_timed_rate (t);
  printf ("%-10s %" G_GUINT64_FORMAT " events in %.3f s wall: %.0f events/s (order checksum %016" G_GINT64_MODIFIER "x)\n",
          label, t->res.events, t->wall_s, rate, t->res.checksum);
}

/* bench phold's command line: BenchPholdParams' fields as given, and
 * what to run.  _clear on caller memory (g_auto). */
typedef struct {
  int lps, epl, repeat;
  gint64 seed;
  double remote;
  char *end, *lookahead, *mean;   /* durations as given, NULL if not */
  gboolean compare, reference_only;
} PholdOptions;

static void
phold_options_clear (PholdOptions *o)
{
  g_clear_pointer (&o->end, g_free);
  g_clear_pointer (&o->lookahead, g_free);
  g_clear_pointer (&o->mean, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PholdOptions, phold_options_clear)

/* bench phold --help's summary */
static const char phold_summary[] =
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
  "    its draws differ, so only its rate is compared.";

/* Parses bench phold's options into o (its defaults set by the caller)
 * and checks the numbers; FALSE (said) on the first that is wrong. */
static gboolean
phold_parse (int argc, char **argv, PholdOptions *o)
{
  GOptionEntry entries[] = {
    { "lps", 0, 0, G_OPTION_ARG_INT, &o->lps, "number of logical processes (default 1000)", "N" },
    { "events-per-lp", 0, 0, G_OPTION_ARG_INT, &o->epl, "initial events per LP (default 16)", "K" },
    { "end", 0, 0, G_OPTION_ARG_STRING, &o->end, "simulated end time (default 100s)", "T" },
    { "remote", 0, 0, G_OPTION_ARG_DOUBLE, &o->remote, "probability an event goes to a random LP (default 0.25)", "P" },
    { "lookahead", 0, 0, G_OPTION_ARG_STRING, &o->lookahead, "minimum delay (default 100ms)", "D" },
    { "mean", 0, 0, G_OPTION_ARG_STRING, &o->mean, "mean of the exponential delay part (default 900ms)", "D" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o->seed, "seed of the LP random streams (default 1)", "N" },
    { "compare", 0, 0, G_OPTION_ARG_NONE, &o->compare, "also run the two reference loops (same-draws and plain) and print the ratios", NULL },
    { "reference", 0, 0, G_OPTION_ARG_NONE, &o->reference_only, "run only the reference loop", NULL },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &o->repeat, "with --compare: alternate runs R times each, keep the fastest (default 3)", "R" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the PHOLD engine benchmark");
  g_option_context_set_summary (ctx, phold_summary);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!cli_parse_options ("bench phold", ctx, &argc, &argv))
    return FALSE;
  if (argc > 1)
    {
      cli_error ("bench phold", "unexpected argument '%s'", argv[1]);
      return FALSE;
    }
  if (o->lps <= 0 || o->epl <= 0 || o->repeat <= 0)
    {
      cli_error ("bench phold", "--lps, --events-per-lp and --repeat must be positive");
      return FALSE;
    }
  if (!(o->remote >= 0 && o->remote <= 1))
    {
      cli_error ("bench phold", "--remote must be a probability in [0, 1], got %g", o->remote);
      return FALSE;
    }
  return TRUE;
}

/* Sets p from o, reading its durations; FALSE (said) on one that is not
 * a duration or a mean that is not positive. */
static gboolean
phold_params (const PholdOptions *o, BenchPholdParams *p)
{
  struct { const char *opt; const char *text; DlTime *dst; } durs[] = {
    { "--end", o->end, &p->end }, { "--lookahead", o->lookahead, &p->lookahead }, { "--mean", o->mean, &p->mean_delay },
  };
  g_autoptr (GError) error = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (durs); i++)
    if (durs[i].text && !dl_parse_duration (durs[i].text, durs[i].dst, &error))
      {
        cli_error ("bench phold", "%s: %s", durs[i].opt, error->message);
        return FALSE;
      }
  if (p->mean_delay <= 0)
    {
      cli_error ("bench phold", "--mean must be positive");
      return FALSE;
    }
  p->n_lps = (uint32_t) o->lps;
  p->events_per_lp = (uint32_t) o->epl;
  p->remote = o->remote;
  p->seed = (uint64_t) o->seed;
  return TRUE;
}

/* --compare: the engine against both references, each run `repeat` times
 * alternated; the exit status (1 if the engine and the same-draws
 * reference processed different event sequences). */
static int
phold_compare (const BenchPholdParams *p, int repeat)
{
  BenchPholdComparison c;
  BenchTimed e, r;
  if (!bench_phold_compare (p, (guint) repeat, &c, &e, &r))
    {
      print_timed ("engine", &e);
      print_timed ("reference", &r);
      cli_error ("bench phold", "engine and reference processed different event sequences");
      return CLI_EXIT_FAILURE;
    }
  print_timed ("engine", &c.engine);
  print_timed ("reference", &c.reference);
  print_timed ("plain", &c.plain);
  printf ("ratio engine/reference events/s: %.3f (fastest of %d alternating runs each)\n",
          bench_phold_comparison_ratio_reference (&c), repeat);
  printf ("ratio engine/plain events/s: %.3f (plain: binary heap of 16-byte (time, lp) entries, one generator)\n",
          bench_phold_comparison_ratio_plain (&c));
  return CLI_EXIT_OK;
}

static int
bench_phold (int argc, char **argv)
{
  BenchPholdParams p;
  bench_phold_params_init (&p);
  g_auto (PholdOptions) o = { .lps = (int) p.n_lps, .epl = (int) p.events_per_lp, .repeat = 3,
                              .seed = (gint64) p.seed, .remote = p.remote };
  if (!phold_parse (argc, argv, &o) || !phold_params (&o, &p))
    return CLI_EXIT_USAGE;

  char b1[DL_TIME_STR_LEN], b2[DL_TIME_STR_LEN], b3[DL_TIME_STR_LEN];
  printf ("phold: lps=%u events_per_lp=%u end=%s remote=%g lookahead=%s mean=%s seed=%" G_GUINT64_FORMAT "\n",
          p.n_lps, p.events_per_lp, dl_time_format (p.end, b1), p.remote,
          dl_time_format (p.lookahead, b2), dl_time_format (p.mean_delay, b3), p.seed);
  if (o.compare)
    return phold_compare (&p, o.repeat);
  BenchTimed t = bench_timed_run (o.reference_only ? bench_phold_run_reference : bench_phold_run_engine, &p);
  print_timed (o.reference_only ? "reference" : "engine", &t);
  return CLI_EXIT_OK;
}

/* bench scale's command line.  _clear on caller memory (g_auto). */
typedef struct {
  int peers, rounds, min_participants;
  gint64 size, seed;
  gboolean secure;
  char *version, *sharing, *transport, *uplink, *downlink;   /* as given, NULL if not */
  guint tr;                     /* --transport: its index in scale_transports */
} ScaleOptions;

static void
scale_options_clear (ScaleOptions *o)
{
  g_clear_pointer (&o->version, g_free);
  g_clear_pointer (&o->sharing, g_free);
  g_clear_pointer (&o->transport, g_free);
  g_clear_pointer (&o->uplink, g_free);
  g_clear_pointer (&o->downlink, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ScaleOptions, scale_options_clear)

/* --transport's names, in SimWireTransport's order */
static const char *const scale_transports[] = { "fluid", "tcp", "sctp" };

/* Parses bench scale's options into o (its defaults set by the caller),
 * checks the numbers and --sharing, and finds --transport (fluid unless
 * given, whatever the key's default); FALSE (said) on the first that is
 * wrong. */
static gboolean
scale_parse (int argc, char **argv, ScaleOptions *o)
{
  GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_STRING, &o->version, bench_scale_version_doc, "V" },
    { "sharing", 0, 0, G_OPTION_ARG_STRING, &o->sharing, "the network's bandwidth model: fair (default) or fifo", "MODEL" },
    { "transport", 0, 0, G_OPTION_ARG_STRING, &o->transport, "[network] transport: fluid (default here, whatever the key's default), tcp or sctp", "T" },
    { "peers", 0, 0, G_OPTION_ARG_INT, &o->peers, "number of peers, all in every round (default 100)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &o->rounds, "rounds each peer trains (default 3)", "R" },
    { "min-participants", 0, 0, G_OPTION_ARG_INT, &o->min_participants,
      "the coordinator's min_participants (default N: everyone in every round)", "M" },
    { "model-size", 0, 0, G_OPTION_ARG_INT64, &o->size, "floats in the model (default 100000)", "S" },
    { "uplink", 0, 0, G_OPTION_ARG_STRING, &o->uplink, "per-peer uplink (default 20Mbps)", "RATE" },
    { "downlink", 0, 0, G_OPTION_ARG_STRING, &o->downlink, "per-peer downlink (default 100Mbps)", "RATE" },
    { "secure", 0, 0, G_OPTION_ARG_NONE, &o->secure, "secure aggregation instead of mean", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o->seed, "scenario seed (default 1)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- protocol scale benchmark");
  g_option_context_set_summary (ctx, bench_scale_summary);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!cli_parse_options ("bench scale", ctx, &argc, &argv))
    return FALSE;
  if (argc > 1)
    {
      cli_error ("bench scale", "unexpected argument '%s'", argv[1]);
      return FALSE;
    }
  if (o->peers < 1 || o->rounds < 1 || o->size < 1 || o->min_participants < 0)
    {
      cli_error ("bench scale", "--peers, --rounds and --model-size must be positive (--min-participants: 0 or more)");
      return FALSE;
    }
  if (o->sharing && strcmp (o->sharing, "fair") != 0 && strcmp (o->sharing, "fifo") != 0)
    {
      cli_error ("bench scale", "--sharing: '%s': expected fair or fifo", o->sharing);
      return FALSE;
    }
  o->tr = 0;
  while (o->transport && o->tr < G_N_ELEMENTS (scale_transports) && strcmp (o->transport, scale_transports[o->tr]) != 0)
    o->tr++;
  if (o->tr == G_N_ELEMENTS (scale_transports))
    {
      cli_error ("bench scale", "--transport: '%s': expected fluid, tcp or sctp", o->transport);
      return FALSE;
    }
  return TRUE;
}

/* The world bench scale runs, from o (bench_scale_config), with its
 * transport and rates; FALSE (said, *cfg cleared) on an unknown
 * --version or a rate that is not one. */
static gboolean
scale_config (const ScaleOptions *o, SimWorldConfig *cfg)
{
  BenchScaleParams bp = {
    .version = o->version, .peers = (guint) o->peers, .min_participants = (guint) o->min_participants,
    .rounds = (guint) o->rounds, .model_size = (gsize) o->size, .seed = (guint64) o->seed, .secure = o->secure,
    .fifo = o->sharing && strcmp (o->sharing, "fifo") == 0,
  };
  g_autoptr (GError) error = NULL;
  if (!bench_scale_config (&bp, cfg, &error))
    {
      cli_error ("bench scale", "--version: %s", error->message);
      sim_world_config_clear (cfg);
      return FALSE;
    }
  cfg->transport = (SimWireTransport) o->tr;
  struct { const char *opt, *text; uint64_t *dst; } rates[] = {
    { "--uplink", o->uplink, &cfg->uplink_bps }, { "--downlink", o->downlink, &cfg->downlink_bps },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (rates); i++)
    if (rates[i].text && !dl_parse_rate (rates[i].text, rates[i].dst, &error))
      {
        cli_error ("bench scale", "%s: %s", rates[i].opt, error->message);
        sim_world_config_clear (cfg);
        return FALSE;
      }
  return TRUE;
}

/* Prints what bench scale ran (o, cfg) and how it went (rr, peak_mib). */
static void
scale_print (const ScaleOptions *o, const SimWorldConfig *cfg, const RunnerResult *rr, double peak_mib)
{
  const SimResult *r = &rr->result;
  double wall = rr->wall_seconds;
  char b[DL_TIME_STR_LEN];
  printf ("scale: version=%s peers=%d min_participants=%u rounds=%d model_size=%" G_GINT64_FORMAT
          " floats aggregation=%s sharing=%s transport=%s\n",
          bench_version_name (o->version), o->peers, cfg->proto.min_participants, o->rounds, o->size,
          o->secure ? "secure" : "mean", cfg->sharing_fifo ? "fifo" : "fair", scale_transports[o->tr]);
  printf ("outcome %s, rounds completed %u, peers finished %u, sim time %s\n",
          sim_outcome_name (r->outcome), r->rounds_completed, r->peers_finished, dl_time_format (r->end, b));
  printf ("%" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " messages, %.3f GB on the wire, "
          "%u dropped by the drop rule\n",
          r->events, r->messages, (double) r->bytes / 1e9, r->messages_dropped);
  printf ("wall %.2f s, %.0f events/s, peak memory %.1f MiB\n", wall, bench_rate (r->events, wall), peak_mib);
}

static int
bench_scale (int argc, char **argv)
{
  g_auto (ScaleOptions) o = { .peers = 100, .rounds = 3, .size = 100000, .seed = 1 };
  SimWorldConfig cfg;
  if (!scale_parse (argc, argv, &o) || !scale_config (&o, &cfg))
    return CLI_EXIT_USAGE;
  RunnerResult rr;
  double peak_mib = 0;
  g_autoptr (GError) error = NULL;
  if (!bench_scale_run (&cfg, &rr, &peak_mib, &error))
    {
      cli_error ("bench scale", "%s", error->message);
      runner_result_clear (&rr);
      sim_world_config_clear (&cfg);
      return CLI_EXIT_FAILURE;
    }
  scale_print (&o, &cfg, &rr, peak_mib);
  sim_world_config_clear (&cfg);
  int rc = rr.result.outcome == SIM_OUTCOME_COMPLETED ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
  runner_result_clear (&rr);
  return rc;
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
  g_option_context_set_summary (ctx, bench_record_summary);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_parse_options ("bench record", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
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
  if (!bench_record_config (&cfg, (guint64) seed, (guint) peers, (guint) rounds, (gsize) size, &error))
    {
      cli_error ("bench record", "%s", error->message);
      sim_world_config_clear (&cfg);
      return CLI_EXIT_FAILURE;
    }
  BenchRecordReading rd;
  BenchRecordStatus st = bench_record_run (&cfg, (guint) repeat, &rd, &error);
  const char *version = bench_version_name (NULL);
  sim_world_config_clear (&cfg);
  switch (st)
    {
    case BENCH_RECORD_NO_FOLDER:
      cli_error ("bench record", "%s", error->message);
      return CLI_EXIT_FAILURE;
    case BENCH_RECORD_RUN_FAILED:
      cli_error ("bench record", "%s", error->message);
      cli_error ("bench record", "the run did not complete");
      return CLI_EXIT_FAILURE;
    case BENCH_RECORD_INCOMPLETE:
      cli_error ("bench record", "the run did not complete");
      return CLI_EXIT_FAILURE;
    case BENCH_RECORD_DONE:
      break;
    }
  printf ("record: %s peers=%d rounds=%d model none (%" G_GINT64_FORMAT " floats), 1 Gbit/s, %d runs each\n",
          version, peers, rounds, size, repeat);
  printf ("with events  %.3f s (median; %.3f-%.3f)\n", rd.with_median, rd.with_min, rd.with_max);
  printf ("--no-events  %.3f s (median; %.3f-%.3f)\n", rd.without_median, rd.without_min, rd.without_max);
  printf ("recording costs %+.0f %% (with / without = %.2f)\n", (rd.median_ratio - 1) * 100, rd.median_ratio);
  printf ("paired runs: median with / without %.2f (%+.0f %%); fastest of each: %.2f (%+.0f %%)\n",
          rd.paired_median, (rd.paired_median - 1) * 100, rd.fastest_ratio, (rd.fastest_ratio - 1) * 100);
  printf ("writer thread: %.3f s of CPU (median), %.0f %% of a --no-events run's wall time\n", rd.writer_median,
          rd.writer_percent);
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
  if (!cli_parse_options ("bench fuzz-frames", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (inputs < 0)
    {
      cli_error ("bench fuzz-frames", "--inputs must be >= 0");
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
               "  scale    %s (dlsim bench scale --help)\n"
               "  record   the cost of recording events (dlsim bench record --help)\n"
               "  fuzz-frames  fuzz the testbed's frame reader (dlsim bench fuzz-frames --help)\n",
               bench_scale_list_line);
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
