/* bench-run.c — what `dlsim bench` runs, and the arithmetic of its
 * readings (bench-run.h).  Wall-clock time is measured here, around whole
 * runs, never inside the simulator; cli/cmd-bench.c parses and prints. */
#include "config.h"

#include "bench/bench-run.h"
#include "protocol/proto-machine.h"
#include "scenario/sim-scenario.h"

#include "results/res-db.h"

#include <glib/gstdio.h>

#include <sys/resource.h>

#include <string.h>

/* ------------------------------------------------------------ the help */

const char bench_scale_list_line[] = "DISCO with N peers, all-to-all mean";

const char bench_scale_version_doc[] = "protocol version (default disco-1110)";

const char bench_scale_summary[] =
  "dlsim bench scale --peers N --rounds R --model-size S\n\n"
  "Runs DISCO (disco-1110, or --version) with N peers that all take part in every round\n"
  "(min_participants = N), all-to-all mean aggregation, model `none` (weights\n"
  "are only a size, shared and never copied), under the `fluid` transport\n"
  "whatever [network] transport's default (--transport for another).\n"
  "Prints the run's outcome, simulated time, events, messages and bytes,\n"
  "wall seconds and the process's peak resident memory.\n\n"
  "--min-participants M < N: only disco-pre775 then caps a round at M peers\n"
  "(its coordinator lists the first M ready peers); the other versions list\n"
  "every ready peer once M are ready, as DISCO does.";

const char bench_record_summary[] =
  "dlsim bench record --peers N --rounds R\n\n"
  "Runs DISCO (disco-1110) with N peers, all in every round, all-to-all mean,\n"
  "model `none` (a pure-protocol run), 1 Gbit/s links under `fluid`\n"
  "(whatever [network] transport's default), recorded into a\n"
  "results database in a temporary folder: K times with events and K times\n"
  "with --no-events, alternated.  Each time covers what `dlsim run` does for\n"
  "a run (open, runs row, simulation, writing every row, close).  Prints the\n"
  "events recorded, the median wall seconds of each kind and their ratio,\n"
  "then two steadier readings on a shared machine: the median of each\n"
  "with-events run's ratio to the --no-events run right after it, and the\n"
  "ratio of the fastest run of each kind; and the CPU time of the thread\n"
  "that writes the rows (what a recorded run adds on a second core).";

/* ------------------------------------------------------------ PHOLD */

BenchTimed
bench_timed_run (BenchPholdFn fn, const BenchPholdParams *p)
{
  gint64 t0 = g_get_monotonic_time ();
  BenchTimed t = { .res = fn (p) };
  t.wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return t;
}

double
bench_rate (guint64 events, double wall_s)
{
  return wall_s > 0 ? (double) events / wall_s : 0;
}

double
bench_timed_rate (const BenchTimed *t)
{
  return bench_rate (t->res.events, t->wall_s);
}

void
bench_phold_comparison_init (BenchPholdComparison *c)
{
  *c = (BenchPholdComparison) { .engine.wall_s = -1, .reference.wall_s = -1, .plain.wall_s = -1 };
}

static void
keep_fastest (BenchTimed *best, const BenchTimed *t)
{
  if (best->wall_s < 0 || t->wall_s < best->wall_s)
    *best = *t;
}

gboolean
bench_phold_comparison_add (BenchPholdComparison *c, const BenchTimed *e, const BenchTimed *r,
                            const BenchTimed *pl)
{
  keep_fastest (&c->plain, pl);
  if (e->res.events != r->res.events || e->res.checksum != r->res.checksum)
    return FALSE;
  keep_fastest (&c->engine, e);
  keep_fastest (&c->reference, r);
  return TRUE;
}

static double
ratio_of_rates (const BenchTimed *a, const BenchTimed *b)
{
  double rb = bench_timed_rate (b);
  return rb > 0 ? bench_timed_rate (a) / rb : 0;
}

double
bench_phold_comparison_ratio_reference (const BenchPholdComparison *c)
{
  return ratio_of_rates (&c->engine, &c->reference);
}

double
bench_phold_comparison_ratio_plain (const BenchPholdComparison *c)
{
  return ratio_of_rates (&c->engine, &c->plain);
}

gboolean
bench_phold_compare (const BenchPholdParams *p, guint repeat, BenchPholdComparison *c, BenchTimed *out_e,
                     BenchTimed *out_r)
{
  bench_phold_comparison_init (c);
  for (guint i = 0; i < repeat; i++)
    {
      BenchTimed e = bench_timed_run (bench_phold_run_engine, p);
      BenchTimed r = bench_timed_run (bench_phold_run_reference, p);
      BenchTimed pl = bench_timed_run (bench_phold_run_plain, p);
      if (!bench_phold_comparison_add (c, &e, &r, &pl))
        {
          *out_e = e;
          *out_r = r;
          return FALSE;
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------ protocol runs */

/* The key settings a benchmark gives its family, as a scenario's
 * [protocol] section would: "key", "value", ..., NULL; every other key has
 * its default (the key table's). */
typedef struct {
  ProtoKeyLookup look;
  const char *const *set;
} BenchKeys;

static const char *
bench_key_value (const ProtoKeyLookup *l, const char *section, const char *key)
{
  const BenchKeys *k = (const BenchKeys *) (const void *) l;
  for (guint i = 0; strcmp (section, "protocol") == 0 && k->set[i]; i += 2)
    if (strcmp (k->set[i], key) == 0)
      return k->set[i + 1];
  g_autofree char *full = g_strdup_printf ("%s.%s", section, key);
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    if (strcmp (t[i], full) == 0)
      return t[i + 1];
  return "";
}

static gboolean
bench_key_given (const ProtoKeyLookup *l, const char *section, const char *key)
{
  const BenchKeys *k = (const BenchKeys *) (const void *) l;
  for (guint i = 0; strcmp (section, "protocol") == 0 && k->set[i]; i += 2)
    if (strcmp (k->set[i], key) == 0)
      return TRUE;
  return FALSE;
}

/* The protocol benchmarks' run: N peers, all in every round
 * (min_participants = N), R rounds, mean aggregation, model `none` of S
 * floats, 1 Gbit/s links under fluid (sim_world_config_init's zeroed
 * transport, whatever the key's default), no time limit to speak of; the default
 * family (the registry's first) configured from `set` (BenchKeys) and
 * the other keys' defaults.  FALSE (error set: the family's message) if
 * the family takes a key of `set` not, or refuses its value. */
static gboolean
protocol_run_config (SimWorldConfig *cfg, const char *const *set, guint64 seed, guint peers, guint rounds, gsize size,
                     GError **error)
{
  sim_world_config_init (cfg);
  cfg->seed = seed;
  cfg->n_peers = cfg->max_peers = cfg->proto.min_participants = peers;
  cfg->proto.rounds = rounds;
  cfg->time_limit = 1000 * DL_H;
  cfg->model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = size };
  const ProtoFamily *f = proto_family_lookup (cfg->proto.family);
  for (guint i = 0; set[i]; i += 2)
    {
      g_autofree char *full = g_strdup_printf ("protocol.%s", set[i]);
      if (!sim_scenario_key_applies (full, f->name))
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "%s applies to family = %s only, not to family = %s",
                       full, sim_scenario_key_family (full), f->name);
          return FALSE;
        }
    }
  BenchKeys k = { { .value = bench_key_value, .given = bench_key_given }, set };
  return !f->keys || f->keys->configure (&cfg->proto, &k.look, error);
}

gboolean
bench_scale_config (const BenchScaleParams *p, SimWorldConfig *cfg, GError **error)
{
  guint min = p->min_participants == 0 || p->min_participants > p->peers ? p->peers : p->min_participants;
  g_autofree char *min_text = g_strdup_printf ("%u", min);
  const char *set[7] = { "min_participants", min_text, NULL };
  guint n = 2;
  if (p->version)
    set[n++] = "version", set[n++] = p->version;
  if (p->secure)
    set[n++] = "aggregation", set[n++] = "secure";
  if (!protocol_run_config (cfg, set, p->seed, p->peers, p->rounds, p->model_size, error))
    return FALSE;
  cfg->sharing_fifo = p->fifo;
  return TRUE;
}

gboolean
bench_record_config (SimWorldConfig *cfg, guint64 seed, guint peers, guint rounds, gsize model_size, GError **error)
{
  g_autofree char *all = g_strdup_printf ("%u", peers);
  const char *const set[] = { "min_participants", all, NULL };
  if (!protocol_run_config (cfg, set, seed, peers, rounds, model_size, error))
    return FALSE;
  cfg->uplink_bps = cfg->downlink_bps = 1000000000;
  return TRUE;
}

const char *
bench_version_name (const char *version)
{
  if (version)
    return version;
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    if (strcmp (t[i], "protocol.version") == 0)
      return t[i + 1];
  return "-";
}

gboolean
bench_scale_run (const SimWorldConfig *cfg, RunnerResult *out, double *peak_mib, GError **error)
{
  RunnerOptions ro = { 0 };
  gboolean ok = runner_run_config (cfg, NULL, NULL, cfg->seed, &ro, out, error);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  *peak_mib = (double) ru.ru_maxrss / 1024.0;
  return ok;
}

/* ------------------------------------------------------------ record */

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* values sorted, in a new array */
static GArray *
sorted_copy (const double *values, guint n)
{
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (double), n);
  g_array_append_vals (a, values, n);
  g_array_sort (a, cmp_double);
  return a;
}

double
bench_median (const double *values, guint n)
{
  g_return_val_if_fail (n > 0, 0);
  g_autoptr (GArray) s = sorted_copy (values, n);
  return g_array_index (s, double, n / 2);
}

void
bench_record_reading (const double *with, guint n_with, const double *without, guint n_without,
                      const double *writer, guint n_writer, BenchRecordReading *out)
{
  g_return_if_fail (n_with > 0 && n_without > 0 && n_writer > 0);
  /* each with-events run against the --no-events run right after it: on a
   * shared machine the load drifts, and neighbours see the same load */
  guint n_pairs = MIN (n_with, n_without);
  g_autofree double *pairs = g_new (double, n_pairs);
  for (guint k = 0; k < n_pairs; k++)
    pairs[k] = with[k] / without[k];
  g_autoptr (GArray) w = sorted_copy (with, n_with);
  g_autoptr (GArray) wo = sorted_copy (without, n_without);
  out->with_median = g_array_index (w, double, n_with / 2);
  out->with_min = g_array_index (w, double, 0);
  out->with_max = g_array_index (w, double, n_with - 1);
  out->without_median = g_array_index (wo, double, n_without / 2);
  out->without_min = g_array_index (wo, double, 0);
  out->without_max = g_array_index (wo, double, n_without - 1);
  out->median_ratio = out->with_median / out->without_median;
  out->paired_median = bench_median (pairs, n_pairs);
  out->fastest_ratio = out->with_min / out->without_min;
  out->writer_median = bench_median (writer, n_writer);
  out->writer_percent = 100 * out->writer_median / out->without_median;
}

/* One recorded run of bench record: the same steps as `dlsim run` (open,
 * runs row, world, drain, finish, close), timed as a whole.  < 0: the run
 * could not be made or recorded (error set). */
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

BenchRecordStatus
bench_record_run (const SimWorldConfig *cfg, guint repeat, BenchRecordReading *out, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-bench-record-XXXXXX", error);
  if (!dir)
    return BENCH_RECORD_NO_FOLDER;
  g_autofree char *path = g_build_filename (dir, "r.db", NULL);
  g_autoptr (GArray) with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) writer = g_array_new (FALSE, FALSE, sizeof (double));
  BenchRecordStatus status = BENCH_RECORD_DONE;
  for (guint k = 0; k < 2 * repeat && status == BENCH_RECORD_DONE; k++)
    {
      gboolean events = k % 2 == 0, ok = FALSE;
      double cpu = 0;
      g_autoptr (GError) local = NULL;
      double wall = record_once (cfg, path, events, &ok, &cpu, &local);
      if (wall < 0)
        {
          if (local)
            g_propagate_error (error, g_steal_pointer (&local));
          else
            g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the run failed");
          status = BENCH_RECORD_RUN_FAILED;
          break;
        }
      if (!ok)
        status = BENCH_RECORD_INCOMPLETE;
      g_array_append_val (events ? with : without, wall);
      if (events)
        g_array_append_val (writer, cpu);
    }
  g_rmdir (dir);
  if (status == BENCH_RECORD_DONE)
    bench_record_reading ((const double *) (void *) with->data, with->len, (const double *) (void *) without->data,
                          without->len, (const double *) (void *) writer->data, writer->len, out);
  return status;
}
