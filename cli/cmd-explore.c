/* cmd-explore.c — `dlsim explore FILE --runs N`: randomized fault search.
 *
 * Every run derives a fault plan from its seed, swarm-testing style: it
 * turns on a random subset of the fault kinds and draws their targets,
 * rates and times, then adds the plan to the base scenario as timeline
 * lines (the same `--set timeline.WHEN=ACTION` overrides a user can give, so
 * a plan is a scenario file's text).  Each run checks the properties of
 * sim/sim-props.c; a run that breaks one is a failure, grouped by its
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
 * command gives the same table. */
#include "config.h"

#include <pthread.h>

#include "cli/cli.h"
#include "cli/run-progress.h"
#include "explore/explore.h"
#include "runner/runner.h"
#include "protocol/proto-machine.h"
#include "results/res-db.h"
#include "sim/sim-props.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *signature, *property, *explanation;
  GArray *seeds;          /* guint64 */
  GPtrArray *plan;        /* the first failing run's */
  GPtrArray *plans;       /* every failing run's (GPtrArray*), for -o */
} Failure;

static void
failure_free (gpointer data)
{
  Failure *f = data;
  g_free (f->signature);
  g_free (f->property);
  g_free (f->explanation);
  g_array_unref (f->seeds);
  g_ptr_array_unref (f->plan);
  g_ptr_array_unref (f->plans);
  g_free (f);
}

static char *
file_name (const char *signature)
{
  GString *s = g_string_new (NULL);
  for (const char *c = signature; *c; c++)
    if (g_ascii_isalnum (*c))
      g_string_append_c (s, *c);
    else if (s->len > 0 && s->str[s->len - 1] != '-')
      g_string_append_c (s, '-');
  while (s->len > 0 && s->str[s->len - 1] == '-')
    g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}

/* ---------------------------------------------------------------- -o DB */

/* Runs the plan again (runs are deterministic: the same run) into db, with
 * its events; the plan is in the run's params as timeline.* and the
 * overridden keys, and the violations in its violations rows. */
static gboolean
record_run (const char *path, char **sets, GPtrArray *plan, guint64 seed, ResDb *db, GError **error)
{
  g_autoptr (SimScenario) s = explore_load (path, sets, plan, error);
  if (!s)
    return FALSE;
  RunnerOptions ro = { .db = db };
  RunnerResult rr;
  gboolean ok = runner_run_point (s, s->points->pdata[0], seed, &ro, &rr, error);
  runner_result_clear (&rr);
  return ok;
}

/* ---------------------------------------------------------------- -j N */

/* One run of the search, made by a worker: its plan, its failure signature
 * and what it reached, in tables of its own (merged in run order after). */
typedef struct {
  guint index;
  GPtrArray *plan;
  gboolean ok;
  char *sig, *property, *explanation;
  GHashTable *states, *dropped, *rules;
} Job;

typedef struct {
  const char *path;
  char **sets;
  const ExploreSpace *sp;
  guint64 base;
} JobCtx;

static void
job_run (gpointer data, gpointer user_data)
{
  Job *j = data;
  const JobCtx *c = user_data;
  g_autoptr (GString) kinds = g_string_new (NULL);
  j->plan = explore_plan_make (c->sp, c->base, j->index, kinds);
  ExploreObs o;
  explore_obs_init (&o, j->states, j->dropped, j->rules);
  j->ok = explore_run_plan (c->path, c->sets, j->plan, c->base + j->index, &o, &j->sig, NULL);
  j->property = g_strdup (o.first_property);
  j->explanation = g_strdup (o.first_explanation);
  explore_obs_clear (&o);
}

/* One worker thread: jobs w, w + n, w + 2n, ... of the batch.  Plain
 * pthreads (joined before the batch is read), which ThreadSanitizer follows;
 * GLib's thread pool synchronises with futexes it cannot see. */
typedef struct {
  Job *jobs;
  guint n, first, stride;
  const JobCtx *ctx;
} Worker;

static void *
worker_main (void *data)
{
  Worker *w = data;
  for (guint k = w->first; k < w->n; k += w->stride)
    job_run (&w->jobs[k], (gpointer) w->ctx);
  return NULL;
}

static void
job_clear (Job *j)
{
  g_clear_pointer (&j->plan, g_ptr_array_unref);
  g_free (j->sig);
  g_free (j->property);
  g_free (j->explanation);
  g_hash_table_unref (j->states);
  g_hash_table_unref (j->dropped);
  g_hash_table_unref (j->rules);
}

static void
merge_set (GHashTable *into, GHashTable *from)
{
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, from);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_hash_table_add (into, k);
}

int
cli_cmd_explore (int argc, char **argv)
{
  gint runs = 100, jobs = 1;
  gint64 seed = -1;
  gboolean no_shrink = FALSE;
  g_autofree char *faults = NULL, *version = NULL, *found = NULL, *budget = NULL, *out = NULL;
  g_auto (GStrv) sets = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "runs", 'n', 0, G_OPTION_ARG_INT, &runs, "runs to make (default 100)", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "runs at once, in threads (default 1); the table does not change", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "base seed (default the scenario's); run i uses seed + i", "S" },
    { "faults", 0, 0, G_OPTION_ARG_STRING, &faults,
      "fault kinds the search may turn on (default all but coordinator-crash): drop, delay, crash, leave, join, "
      "partition, link-fail, link-down, link-slow, slow, jitter, rejoin, coordinator-crash (the coordinator, with "
      "replicas its leader, crashes once or twice; named only, so that default searches stay as they were; meant "
      "for a replicated coordinator: --set protocol.coordinator_replicas=5)", "KIND,..." },
    { "version", 0, 0, G_OPTION_ARG_STRING, &version, "protocol version (protocol.version)", "V" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a base value", "section.key=value" },
    { "found", 0, 0, G_OPTION_ARG_FILENAME, &found, "write each shrunk failure as a scenario file in DIR", "DIR" },
    { "no-shrink", 0, 0, G_OPTION_ARG_NONE, &no_shrink, "do not shrink the failures", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "record every failing run (its plan in params, its violations, its events) in DB", "DB" },
    { "time-budget", 0, 0, G_OPTION_ARG_STRING, &budget,
      "stop starting runs after this much wall time (the table then depends on the machine)", "D" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - randomized fault search");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Runs FILE (its first sweep point) N times, each with a fault plan drawn from\n"
      "its seed: a random subset of the fault kinds, with targets, times (absolute or\n"
      "`round R + D`) and sizes drawn at random, added as timeline lines.  Every run\n"
      "checks the properties (agreement, own-round-only, monotone-rounds, progress,\n"
      "excluded-was-told, no-lost-model with a real model, retries-before-exclusion).\n"
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
      "written or a shrunk file did not reproduce; 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (jobs < 1 || jobs > 256)
    {
      cli_error ("explore", "-j %d: expected 1 to 256", jobs);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || runs < 1)
    {
      cli_error ("explore", "expected one scenario FILE and --runs N >= 1 (dlsim explore --help)");
      return CLI_EXIT_USAGE;
    }
  const char *path = rest[0];
  DlTime budget_ns = 0;
  if (budget && !dl_parse_duration (budget, &budget_ns, &error))
    {
      cli_error ("explore", "--time-budget %s: %s", budget, error->message);
      return CLI_EXIT_USAGE;
    }
  ExploreSpace sp = { 0 };
  if (!explore_parse_faults (faults, &sp, &error))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  /* the base: its overrides (and --version) come first */
  g_autoptr (GPtrArray) base_sets = g_ptr_array_new_with_free_func (g_free);
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (base_sets, g_strdup (*s));
  if (version)
    g_ptr_array_add (base_sets, g_strdup_printf ("protocol.version=%s", version));
  g_ptr_array_add (base_sets, NULL);
  char **bsets = (char **) base_sets->pdata;
  const ProtoFamily *family = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, (const char *const *) bsets, &error);
  if (!s)
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  {
    SimBuilt b;
    if (!sim_scenario_build (s, s->points->pdata[0], s->seed, &b, &error))
      {
        cli_error ("explore", "%s", error->message);
        return CLI_EXIT_USAGE;
      }
    sp.n_peers = MAX (b.cfg.n_peers, 2);
    sp.rounds = b.cfg.proto.rounds;
    family = proto_family_of (&b.cfg.proto);
    sp.msgs = proto_msg_family_named (family->name);
    sim_built_clear (&b);
  }
  guint64 base = seed >= 0 ? (guint64) seed : s->seed;
  g_autoptr (GHashTable) states = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) rules = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GPtrArray) failures = g_ptr_array_new_with_free_func (failure_free);
  g_autoptr (GHashTable) by_sig = g_hash_table_new (g_str_hash, g_str_equal);
  guint failing = 0, invalid = 0;
  gint64 t0 = g_get_monotonic_time ();
  guint done_runs = 0;
  gboolean tty = isatty (1);
  gint64 status_interval = cli_progress_interval_from_env (), last_status = t0;
  /* batches of runs, each made by up to `jobs` threads and then taken in run
   * order, so that -j changes nothing but the wall time; the time budget is
   * checked between batches (with -j 1, between runs) */
  JobCtx jc = { path, bsets, &sp, base };
  guint batch = jobs == 1 ? 1 : 16 * (guint) jobs;
  for (guint i0 = 0; i0 < (guint) runs; i0 += batch)
    {
      if (budget_ns > 0 && (g_get_monotonic_time () - t0) * 1000 >= budget_ns)
        break;   /* the wall clock decides here, and only here */
      guint n = MIN (batch, (guint) runs - i0);
      g_autofree Job *js = g_new0 (Job, n);
      for (guint k = 0; k < n; k++)
        {
          js[k].index = i0 + k;
          js[k].states = g_hash_table_new (g_direct_hash, g_direct_equal);
          js[k].dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
          js[k].rules = g_hash_table_new (g_direct_hash, g_direct_equal);
        }
      if (jobs == 1)
        job_run (&js[0], &jc);
      else
        {
          guint nt = MIN ((guint) jobs, n);
          g_autofree pthread_t *tids = g_new (pthread_t, nt);
          g_autofree Worker *ws = g_new (Worker, nt);
          for (guint t = 0; t < nt; t++)
            {
              ws[t] = (Worker) { js, n, t, nt, &jc };
              if (pthread_create (&tids[t], NULL, worker_main, &ws[t]) != 0)
                g_error ("explore: cannot start a worker thread");
            }
          for (guint t = 0; t < nt; t++)
            pthread_join (tids[t], NULL);
        }
      for (guint k = 0; k < n; k++)
        {
          Job *j = &js[k];
          guint i = j->index;
          done_runs++;
          merge_set (states, j->states);
          merge_set (dropped, j->dropped);
          merge_set (rules, j->rules);
          if (!j->ok)
            invalid++;   /* a plan the scenario refuses (e.g. a peer beyond max_peers) */
          else if (j->sig)
            {
              failing++;
              Failure *f = g_hash_table_lookup (by_sig, j->sig);
              if (!f)
                {
                  f = g_new0 (Failure, 1);
                  f->signature = g_strdup (j->sig);
                  f->property = g_strdup (j->property);
                  f->explanation = g_strdup (j->explanation);
                  f->seeds = g_array_new (FALSE, FALSE, sizeof (guint64));
                  f->plan = g_ptr_array_ref (j->plan);
                  f->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
                  g_ptr_array_add (failures, f);
                  g_hash_table_insert (by_sig, f->signature, f);
                }
              guint64 sd = base + i;
              g_array_append_val (f->seeds, sd);
              if (out)
                g_ptr_array_add (f->plans, g_ptr_array_ref (j->plan));
            }
          job_clear (j);
          if (tty && (i + 1) % 50 == 0)
            {
              fprintf (stdout, "\r[%u/%d] %u failing, %u distinct", i + 1, runs, failing, failures->len);
              fflush (stdout);
            }
          else if (!tty && g_get_monotonic_time () - last_status >= status_interval)
            {
              /* a log (a batch job, | tee): a status line on stderr now and then, as dlsim run */
              last_status = g_get_monotonic_time ();
              fprintf (stderr, "dlsim explore: %u/%d runs, %u failing, %u distinct, %.0f s elapsed\n", i + 1, runs,
                       failing, failures->len, (double) (last_status - t0) / 1e6);
              fflush (stderr);
            }
        }
    }
  if (tty)
    fputc ('\n', stdout);
  double secs = (double) (g_get_monotonic_time () - t0) / 1e6;
  printf ("%s: %u runs in %.1f s, %u failing, %u distinct failures%s\n\n", path, done_runs, secs, failing,
          failures->len, done_runs < (guint) runs ? " (time budget reached)" : "");
  if (invalid)
    printf ("(%u plans refused by the scenario and not run)\n", invalid);
  printf ("%-60s %6s  %s\n", "signature", "runs", "seeds");
  for (guint i = 0; i < failures->len; i++)
    {
      Failure *f = failures->pdata[i];
      g_autoptr (GString) sd = g_string_new (NULL);
      for (guint k = 0; k < f->seeds->len && k < 6; k++)
        g_string_append_printf (sd, "%s%" G_GUINT64_FORMAT, k ? " " : "", g_array_index (f->seeds, guint64, k));
      if (f->seeds->len > 6)
        g_string_append (sd, " ...");
      printf ("%-60s %6u  %s\n", f->signature, f->seeds->len, sd->str);
    }
  /* coverage: what the batch never reached */
  g_autoptr (GString) never = g_string_new (NULL);
  for (guint st = 0; st < family->n_peer_states; st++)
    if (!g_hash_table_contains (states, g_intern_string (family->peer_state_name_at (st))))
      g_string_append_printf (never, "%s%s", never->len ? ", " : "", family->peer_state_name_at (st));
  printf ("\ncoverage: %u of %u peer states reached; never: %s\n", g_hash_table_size (states), family->n_peer_states,
          never->len ? never->str : "-");
  g_autoptr (GString) nd = g_string_new (NULL), nr = g_string_new (NULL);
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    {
      if (!proto_msg_type_known (t))
        continue;
      const char *name = proto_msg_type_name (t);
      if (!g_hash_table_contains (dropped, name))
        g_string_append_printf (nd, "%s%s", nd->len ? ", " : "", name);
    }
  for (guint m = 0; m < explore_n_msgs (&sp); m++)
    {
      const char *type, *dir;
      explore_msg_at (&sp, m, &type, &dir);
      if (!g_hash_table_contains (rules, g_intern_string (type)) && !strstr (nr->str, type))
        g_string_append_printf (nr, "%s%s", nr->len ? ", " : "", type);
    }
  printf ("messages never dropped for want of a listener: %s\n", nd->len ? nd->str : "-");
  printf ("drop rules that never fired: %s\n", nr->len ? nr->str : "-");

  if (out)
    {
      g_autoptr (ResDb) db = cli_db_open (out, &error);
      if (!db)
        {
          cli_error ("explore", "%s", error->message);
          return CLI_EXIT_FAILURE;
        }
      guint recorded = 0;
      for (guint i = 0; i < failures->len; i++)
        {
          Failure *f = failures->pdata[i];
          for (guint k = 0; k < f->plans->len; k++)
            {
              if (!record_run (path, bsets, f->plans->pdata[k], g_array_index (f->seeds, guint64, k), db, &error))
                {
                  cli_error ("explore", "%s", error->message);
                  return CLI_EXIT_FAILURE;
                }
              recorded++;
            }
        }
      printf ("\n%u failing runs recorded in %s (plans in params timeline.*, violations in violations)\n", recorded,
              out);
    }
  if (no_shrink || failures->len == 0)
    return CLI_EXIT_OK;
  if (found && g_mkdir_with_parents (found, 0755) != 0)
    {
      cli_error ("explore", "%s: %s", found, g_strerror (errno));
      return CLI_EXIT_FAILURE;
    }
  int rc = CLI_EXIT_OK;
  printf ("\nshrunk (ddmin over the plan's lines):\n");
  for (guint i = 0; i < failures->len; i++)
    {
      Failure *f = failures->pdata[i];
      guint64 sd = g_array_index (f->seeds, guint64, 0);
      guint tries = 0;
      g_autoptr (GPtrArray) min = explore_ddmin_plan (path, bsets, f->plan, sd, f->signature, &tries);
      explore_shrink_size (path, bsets, min, sd, f->signature, sp.n_peers, sp.rounds, &tries);
      explore_shrink_values (path, bsets, min, sd, f->signature, &tries);
      printf ("  %s (seed %" G_GUINT64_FORMAT "): %u lines -> %u in %u runs\n", f->signature, sd, f->plan->len,
              min->len, tries);
      for (guint k = 0; k < min->len; k++)
        printf ("      %s\n", (char *) min->pdata[k]);
      if (!found)
        continue;
      g_autofree char *stem = g_path_get_basename (path);
      char *dot = strrchr (stem, '.');
      if (dot)
        *dot = '\0';
      g_autofree char *base_name = file_name (f->signature);
      g_autofree char *sname = g_strdup_printf ("%s-%s", stem, base_name);
      g_autofree char *fname = g_strdup_printf ("%s/%s.ini", found, sname);
      g_autofree char *origin = g_strdup_printf ("dlsim explore %s", path);
      gboolean ok = FALSE;
      if (!explore_write_found (path, bsets, min, sd, f->signature, origin, sname, f->seeds->len, f->plan->len,
                                fname, &ok, &error))
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

