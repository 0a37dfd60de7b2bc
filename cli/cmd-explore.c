/* cmd-explore.c — `dlsim explore FILE --runs N`: randomized fault search.
 *
 * Every run derives a fault plan from its seed, swarm-testing style: it
 * turns on a random subset of the fault kinds and draws their targets,
 * rates and times, then adds the plan to the base scenario as timeline
 * lines (the same `--set timeline.WHEN=ACTION` overrides a user can give, so
 * a plan is a scenario file's text).  Each run checks the properties of
 * host/sim-props.c; a run that breaks one is a failure, grouped by its
 * signature: the first violation's property and the state the node was in.
 * At the end: a table of distinct failures with their seeds, and which peer
 * states, dropped messages and drop rules the batch never reached.
 *
 * Each distinct failure is then shrunk (unless --no-shrink): delta debugging
 * (ddmin) over the plan's lines, keeping the signature, and written with
 * --found DIR as a standalone scenario file whose [expect] pins the
 * violation; the file is run once more to check that it reproduces.
 *
 * Deterministic: the plans come from (seed, "explore", run index); the same
 * command gives the same table.
 *
 * This file parses the options and prints; the search, the coverage, the
 * recording and the shrinking are explore/'s (explore/explore.h). */
#include "config.h"

#include "cli/cli.h"
#include "runner/runner-progress.h"
#include "explore/explore.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

/* the progress of a search: on a terminal a counter every 50 runs; in a log
 * (a batch job, | tee) a status line on stderr now and then, as dlsim run */
typedef struct {
  guint runs;
  gboolean tty;
  gint64 t0, interval, last;
} Progress;

static void
progress (const ExploreSearch *s, guint i, gpointer data)
{
  Progress *p = data;
  if (p->tty && (i + 1) % 50 == 0)
    {
      fprintf (stdout, "\r[%u/%u] %u failing, %u distinct", i + 1, p->runs, s->failing, s->failures->len);
      fflush (stdout);
    }
  else if (!p->tty && g_get_monotonic_time () - p->last >= p->interval)
    {
      p->last = g_get_monotonic_time ();
      fprintf (stderr, "dlsim explore: %u/%u runs, %u failing, %u distinct, %.0f s elapsed\n", i + 1, p->runs,
               s->failing, s->failures->len, (double) (p->last - p->t0) / 1e6);
      fflush (stderr);
    }
}

/* The distinct failures, one line each: signature, runs, the first seeds. */
static void
print_failures (GPtrArray *failures)
{
  printf ("%-60s %6s  %s\n", "signature", "runs", "seeds");
  for (guint i = 0; i < failures->len; i++)
    {
      ExploreFailure *f = failures->pdata[i];
      g_autoptr (GString) sd = g_string_new (NULL);
      for (guint k = 0; k < f->seeds->len && k < 6; k++)
        g_string_append_printf (sd, "%s%" G_GUINT64_FORMAT, k ? " " : "", g_array_index (f->seeds, guint64, k));
      if (f->seeds->len > 6)
        g_string_append (sd, " ...");
      g_autofree char *sig = cli_shown (f->signature, FALSE);   /* a guest's error text may be in it */
      printf ("%-60s %6u  %s\n", sig, f->seeds->len, sd->str);
    }
}

/* The coverage: what the batch never reached. */
static void
print_coverage (const ExploreSearch *search, const ExploreSpace *sp)
{
  ExploreCoverage cov;
  explore_coverage (search, sp, &cov);
  if (cov.n_states)
    printf ("\ncoverage: %u of %u peer states reached; never: %s\n", cov.states_reached, cov.n_states,
            cov.states_never);
  else   /* the peers name their states as they run: no list to count against */
    printf ("\ncoverage: %u peer states reached (the family lists none in advance): %s\n", cov.states_reached,
            cov.states_seen);
  printf ("messages never dropped for want of a listener: %s\n", cov.dropped_never);
  printf ("drop rules that never fired: %s\n", cov.rules_never);
  explore_coverage_clear (&cov);
}

/* Shrinks each failure and prints it; with FOUND (a folder, made if
 * missing) writes it there as a scenario file, checked to reproduce.
 * Returns the exit status. */
static int
shrink_failures (GPtrArray *failures, const char *path, char **bsets, const ExploreSpace *sp, const char *found)
{
  if (found && g_mkdir_with_parents (found, 0755) != 0)
    {
      cli_error ("explore", "%s: %s", found, g_strerror (errno));
      return CLI_EXIT_FAILURE;
    }
  int rc = CLI_EXIT_OK;
  printf ("\nshrunk (ddmin over the plan's lines):\n");
  for (guint i = 0; i < failures->len; i++)
    {
      ExploreFailure *f = failures->pdata[i];
      guint64 sd = g_array_index (f->seeds, guint64, 0);
      guint tries = 0;
      g_autoptr (GPtrArray) min = explore_shrink_failure (f, path, bsets, sp, &tries);
      g_autofree char *sig = cli_shown (f->signature, FALSE);
      printf ("  %s (seed %" G_GUINT64_FORMAT "): %u lines -> %u in %u runs\n", sig, sd, f->plan->len,
              min->len, tries);
      for (guint k = 0; k < min->len; k++)
        printf ("      %s\n", (char *) min->pdata[k]);
      if (!found)
        continue;
      g_autofree char *sname = explore_found_name (path, f->signature);
      g_autofree char *iname = g_strdup_printf ("%s.ini", sname);
      g_autofree char *fname = g_build_filename (found, iname, NULL);   /* "DIR/" gives no "//" */
      g_autofree char *origin = g_strdup_printf ("dlsim explore %s", path);
      gboolean ok = FALSE;
      ExploreFoundInfo info = { .origin = origin, .name = sname, .found_in = f->seeds->len,
                                .shrunk_from = f->plan->len, .then = EXPLORE_SHRINK_FAILURE_THEN,
                                .base_relative = TRUE };
      g_autoptr (GError) error = NULL;
      if (!explore_write_found (path, bsets, min, sd, f->signature, &info, fname, &ok, &error))
        {
          cli_error ("explore", "%s", error->message);
          return CLI_EXIT_FAILURE;
        }
      printf ("    -> %s: %s\n", fname, ok ? "reproduces" : "DOES NOT reproduce");
      if (!ok)
        rc = CLI_EXIT_FAILURE;
    }
  return rc;
}

/* The base's overrides, NULL-ended: --set's, then --version's and
 * --safety-only's (transfer full) */
static GPtrArray *
base_overrides (char **sets, const char *version, gboolean safety_only)
{
  GPtrArray *base_sets = g_ptr_array_new_with_free_func (g_free);
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (base_sets, g_strdup (*s));
  if (version)
    g_ptr_array_add (base_sets, g_strdup_printf ("protocol.version=%s", version));
  if (safety_only)
    g_ptr_array_add (base_sets, g_strdup ("scenario.properties=safety"));
  g_ptr_array_add (base_sets, NULL);
  return base_sets;
}

/* explore --help's summary */
static const char EXPLORE_SUMMARY[] =
  "Runs FILE (its first sweep point) N times, each with a fault plan drawn from\n"
  "its seed: a random subset of the fault kinds, with targets, times (absolute or\n"
  "`round R + D`) and sizes drawn at random, added as timeline lines.  Every run\n"
  "checks the properties: the safety ones (agreement, own-round-only,\n"
  "monotone-rounds, no-lost-model with a real model, retries-before-exclusion,\n"
  "sync-served) and the liveness ones (progress, excluded-was-told).  By default\n"
  "faults may go on to the end and every property is judged at the end; --heal\n"
  "ends each run's faults at a heal time and owes liveness only after it;\n"
  "--safety-only checks the safety properties alone.\n"
  "Prints the distinct failures (signature: the first violation's property, the\n"
  "state it names and the message dropped there) with their seeds, and the peer\n"
  "states, dropped messages and drop rules no run reached.  Each failure is\n"
  "shrunk by ddmin over its plan's lines; --found DIR writes it as a scenario file\n"
  "whose [expect] pins the violation, checked to reproduce.\n"
  "\n"
  "Shrinking also tries fewer peers and rounds, and rounder times and sizes.\n"
  "-o DB records every failing run (its fault plan as timeline params, its\n"
  "violations, its events).  -j N makes N runs at once; the output is the same.\n"
  "\n"
  "Exit status: 0 the search ran (failures found or not); 1 a file could not be\n"
  "written or a shrunk file did not reproduce; 2 usage error.";

/* Parses the options into the addresses ENTRIES names; FALSE (said) on
 * an option it cannot read. */
static gboolean
parse_options (int *argc, char ***argv, const GOptionEntry *entries)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - randomized fault search");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, EXPLORE_SUMMARY);
  return cli_parse_options ("explore", ctx, argc, argv);
}

/* Checks the options that stand alone: -j, one FILE (REST) and --runs,
 * --time-budget (into *out_budget_ns), --heal against --safety-only.
 * FALSE (said) on the first that is wrong. */
static gboolean
check_options (char **rest, gint runs, gint jobs, const char *budget, DlTime *out_budget_ns, gboolean heal,
               gboolean safety_only)
{
  if (jobs < 1 || jobs > 256)
    {
      cli_error ("explore", "-j %d: expected 1 to 256", jobs);
      return FALSE;
    }
  if (!rest || g_strv_length (rest) != 1 || runs < 1)
    {
      cli_error ("explore", "expected one scenario FILE and --runs N >= 1 (dlsim explore --help)");
      return FALSE;
    }
  g_autoptr (GError) error = NULL;
  if (budget && !dl_parse_duration (budget, out_budget_ns, &error))
    {
      cli_error ("explore", "--time-budget %s: %s", budget, error->message);
      return FALSE;
    }
  if (heal && safety_only)
    {
      cli_error ("explore", "--heal and --safety-only: choose one (--safety-only checks no liveness property)");
      return FALSE;
    }
  return TRUE;
}

/* The search space's fault kinds (--faults) and messages (--messages
 * split at its commas: MESSAGE_LIST, which SP then points into) into SP.
 * FALSE (said) on a name it does not know. */
static gboolean
parse_space (const char *faults, char **message_list, ExploreSpace *sp)
{
  g_autoptr (GError) error = NULL;
  if (!explore_parse_faults (faults, sp, &error))
    {
      cli_error ("explore", "%s", error->message);
      return FALSE;
    }
  if (message_list && !explore_parse_messages (message_list, sp, &error))
    {
      cli_error ("explore", "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* Makes the search SO asks for, showing its progress, and prints its
 * table: the counts, the distinct failures and the coverage of the space.
 * (transfer full) */
static ExploreSearch *
run_search (ExploreSearchOptions *so)
{
  gint64 t0 = g_get_monotonic_time ();
  Progress pr = { so->runs, isatty (1), t0, runner_progress_interval_from_env (), t0 };
  so->progress = progress;
  so->progress_data = &pr;
  ExploreSearch *search = explore_search_run (so);
  so->progress = NULL;
  so->progress_data = NULL;
  if (pr.tty)
    fputc ('\n', stdout);
  double secs = (double) (g_get_monotonic_time () - t0) / 1e6;
  printf ("%s: %u runs in %.1f s, %u failing, %u distinct failures%s\n\n", so->path, search->done, secs,
          search->failing, search->failures->len, search->done < so->runs ? " (time budget reached)" : "");
  if (search->invalid)
    printf ("(%u plans refused by the scenario and not run)\n", search->invalid);
  print_failures (search->failures);
  print_coverage (search, so->sp);
  return search;
}

/* -o DB: records the search's failing runs in OUT.  FALSE (said) when the
 * database cannot take them. */
static gboolean
record_failures (ExploreSearch *search, const char *path, char **bsets, const char *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResDb) db = cli_db_open (out, &error);
  guint recorded = 0;
  if (!db || !explore_record_failures (search, path, bsets, db, &recorded, &error))
    {
      cli_error ("explore", "%s", error->message);
      return FALSE;
    }
  printf ("\n%u failing runs recorded in %s (plans in params timeline.*, violations in violations)\n", recorded,
          out);
  return TRUE;
}

int
cli_cmd_explore (int argc, char **argv)
{
  gint runs = 100, jobs = 1, points = 20;
  gint64 seed = -1;
  gboolean no_shrink = FALSE, heal = FALSE, safety_only = FALSE, localize = FALSE, guided = FALSE;
  double certain = 0.9;
  g_autofree char *faults = NULL, *version = NULL, *found = NULL, *budget = NULL, *out = NULL, *messages = NULL;
  g_auto (GStrv) sets = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "runs", 'n', 0, G_OPTION_ARG_INT, &runs, "runs to make (default 100)", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "runs at once, in threads (default 1); the table does not change", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "base seed (default the scenario's); run i uses seed + i; --localize: the failing run's seed", "S" },
    { "faults", 0, 0, G_OPTION_ARG_STRING, &faults,
      "fault kinds the search may turn on (default all but coordinator-crash): drop, delay, crash, leave, join, "
      "partition, link-fail, link-down, link-slow, slow, jitter, rejoin, coordinator-crash (the coordinator, with "
      "replicas its leader, crashes once or twice; named only, so that default searches stay as they were; meant "
      "for a replicated coordinator: --set protocol.coordinator_replicas=5)", "KIND,..." },
    { "messages", 0, 0, G_OPTION_ARG_STRING, &messages,
      "the messages drop and delay pick from, each to and from a peer (default the family's own list); "
      "TYPE:KIND names one kind of a type that has kinds, a guest's messages: Guest:Payload", "TYPE[:KIND],..." },
    { "version", 0, 0, G_OPTION_ARG_STRING, &version, "protocol version (protocol.version)", "V" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a base value (repeatable)" CLI_SET_PATHS,
      "section.key=value" },
    { "found", 0, 0, G_OPTION_ARG_FILENAME, &found, "write each shrunk failure as a scenario file in DIR", "DIR" },
    { "no-shrink", 0, 0, G_OPTION_ARG_NONE, &no_shrink, "do not shrink the failures", NULL },
    { "heal", 0, 0, G_OPTION_ARG_NONE, &heal,
      "two phases: each run's faults end with `heal all` at 5 to 60 s, drawn per run (later faults are ignored, "
      "every fault is lifted); safety properties are checked in both phases, liveness ones only after the heal, "
      "owed within the stall window", NULL },
    { "safety-only", 0, 0, G_OPTION_ARG_NONE, &safety_only,
      "faults to the end and safety properties only (scenario.properties=safety)", NULL },
    { "guided", 0, 0, G_OPTION_ARG_NONE, &guided, "coverage as feedback: a quarter of the runs mutate a plan that "
      "reached a new drop in a state or a new signature (docs/found.md, \"Findability\"); the table still depends only "
      "on the seed", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "record every failing run (its plan in params, its violations, its events) in DB", "DB" },
    { "localize", 0, 0, G_OPTION_ARG_NONE, &localize, "FILE is a failing run: re-run it with its seed, re-seed every "
      "random stream at a cut t (`reseed` in [timeline]), print the share of --runs runs failing as it does at each cut, "
      "name the event after which it stays >= --certain; -o DB keeps the curve (dlsim plot DB localize)", NULL },
    { "points", 0, 0, G_OPTION_ARG_INT, &points, "--localize: cuts at 0, after every (n/N)-th of the run's n events, and at the failure (default 20)", "N" },
    { "certain", 0, 0, G_OPTION_ARG_DOUBLE, &certain, "--localize: the failure ratio counted as certain (default 0.9)", "R" },
    { "time-budget", 0, 0, G_OPTION_ARG_STRING, &budget,
      "stop starting runs after this much wall time (the table then depends on the machine)", "D" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  DlTime budget_ns = 0;
  if (!parse_options (&argc, &argv, entries) || !cli_check_sets ("explore", sets)
      || !check_options (rest, runs, jobs, budget, &budget_ns, heal, safety_only))
    return CLI_EXIT_USAGE;
  ExploreSpace sp = { .heal = heal };
  g_auto (GStrv) message_list = messages ? g_strsplit (messages, ",", -1) : NULL;   /* sp's: it lives as long */
  if (!parse_space (faults, message_list, &sp))
    return CLI_EXIT_USAGE;
  const char *path = rest[0];
  g_autoptr (GPtrArray) base_sets = base_overrides (sets, version, safety_only);
  char **bsets = (char **) base_sets->pdata;
  g_autoptr (GError) error = NULL;
  guint64 scenario_seed = 0;
  if (!explore_space_load (&sp, path, bsets, &scenario_seed, &error))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (localize)
    return cli_explore_localize (path, bsets, seed, (guint) runs, (guint) points, (guint) jobs, certain, out);
  ExploreSearchOptions so = {
    .path = path, .sets = bsets, .sp = &sp, .base = seed >= 0 ? (guint64) seed : scenario_seed,
    .runs = (guint) runs, .jobs = (guint) jobs, .budget = budget_ns, .keep_plans = out != NULL, .guided = guided,
  };
  g_autoptr (ExploreSearch) search = run_search (&so);
  if (out && !record_failures (search, path, bsets, out))
    return CLI_EXIT_FAILURE;
  if (no_shrink || search->failures->len == 0)
    return CLI_EXIT_OK;
  return shrink_failures (search->failures, path, bsets, &sp, found);
}
