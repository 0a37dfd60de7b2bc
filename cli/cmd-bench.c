/* cmd-bench.c — `dlsim bench`: built-in benchmarks.  Wall-clock time is
 * measured here, in the command, never inside the simulator. */
#include "config.h"

#include "cli/cli.h"
#include "bench/phold.h"
#include "base/dl-units.h"

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
    { "compare", 0, 0, G_OPTION_ARG_NONE, &compare, "also run the bare binary-heap reference loop and print the ratio", NULL },
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
      "--compare runs a bare binary-heap loop doing the same draws side by side\n"
      "and prints engine/reference; both must process identical event sequences\n"
      "(equal counts and order checksums) or the command exits 1.");
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

  Timed best_e = { .wall_s = -1 }, best_r = { .wall_s = -1 };
  for (int i = 0; i < repeat; i++)
    {
      Timed e = timed_run (bench_phold_run_engine, &p);
      Timed r = timed_run (bench_phold_run_reference, &p);
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
  double ratio = best_e.wall_s > 0 ? best_r.wall_s / best_e.wall_s : 0;
  printf ("ratio engine/reference events/s: %.3f (fastest of %d alternating runs each)\n", ratio, repeat);
  return CLI_EXIT_OK;
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
               "  phold    PHOLD on the event engine (dlsim bench phold --help)\n");
      return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "phold") == 0)
    return bench_phold (argc - 1, argv + 1);
  cli_error ("bench", "unknown benchmark '%s' (available: phold)", argv[1]);
  return CLI_EXIT_USAGE;
}
