/* bench-run.h — what `dlsim bench` runs and the arithmetic of its
 * readings: timed PHOLD runs and their comparison (phold --compare), the
 * world of the protocol benchmarks (scale, record), the recorded runs of
 * bench record and their medians.  cli/cmd-bench.c parses the options and
 * prints; wall-clock time is measured here, never inside the simulator.
 *
 * The benchmarks' protocol is the default family (the registry's first),
 * configured by its own `configure` from key settings, as a scenario's
 * [protocol] section would: its quorum (min_participants) and, from bench
 * scale's options, its version and aggregation; which version ran is
 * bench_version_name's to say. */
#pragma once

#include "bench/phold.h"
#include "runner/runner.h"
#include "host/sim-types.h"

#include <glib.h>

G_BEGIN_DECLS

/* ------------------------------------------------------------ the help */

/* The lines that describe the protocol benchmarks (what they run), for
 * `dlsim bench --help` and the models' own --help. */
extern const char bench_scale_list_line[];
extern const char bench_scale_summary[];
extern const char bench_scale_version_doc[];
extern const char bench_record_summary[];

/* ------------------------------------------------------------ PHOLD */

/* One PHOLD run and its wall time (s).  wall_s < 0: no run yet. */
typedef struct {
  BenchPholdResult res;
  double wall_s;
} BenchTimed;

typedef BenchPholdResult (*BenchPholdFn) (const BenchPholdParams *p);

/* Runs fn (p), timed on the monotonic clock. */
BenchTimed bench_timed_run (BenchPholdFn fn, const BenchPholdParams *p);

/* events / wall_s; 0 when wall_s is not positive. */
double bench_rate (guint64 events, double wall_s);
/* The rate of a timed run. */
double bench_timed_rate (const BenchTimed *t);

/* phold --compare: the fastest run of each loop.  Shape: caller memory,
 * bench_phold_comparison_init. */
typedef struct {
  BenchTimed engine, reference, plain;
} BenchPholdComparison;

void bench_phold_comparison_init (BenchPholdComparison *c);
/* Adds one alternation's three runs: each is kept if it is the fastest
 * of its loop so far (the plain loop's always; the engine's and the
 * reference's only if they processed the same event sequence).  FALSE
 * if they did not (equal counts and order checksums): nothing of e and r
 * is kept. */
gboolean bench_phold_comparison_add (BenchPholdComparison *c, const BenchTimed *e, const BenchTimed *r,
                                     const BenchTimed *pl);
/* The engine's rate over the reference's and over the plain loop's (0
 * when the denominator's rate is 0). */
double bench_phold_comparison_ratio_reference (const BenchPholdComparison *c);
double bench_phold_comparison_ratio_plain (const BenchPholdComparison *c);
/* `repeat` alternations of the engine, reference and plain loops on p.
 * FALSE on the first alternation whose engine and reference runs differ:
 * those two are left in *out_e and *out_r. */
gboolean bench_phold_compare (const BenchPholdParams *p, guint repeat, BenchPholdComparison *c,
                              BenchTimed *out_e, BenchTimed *out_r);

/* ------------------------------------------------------------ protocol runs */

/* bench scale's run: `peers` peers, all in every round unless
 * min_participants is between 1 and peers - 1, `rounds` rounds, mean
 * aggregation (secure: secure aggregation), model `none` of model_size
 * floats, the default network (fifo: [network] sharing = fifo), no time
 * limit to speak of. */
typedef struct {
  const char *version;        /* [protocol] version; NULL: the key's default */
  guint peers;
  guint min_participants;     /* 0 or more than peers: peers */
  guint rounds;
  gsize model_size;           /* floats */
  guint64 seed;
  gboolean secure;            /* [protocol] aggregation = secure */
  gboolean fifo;
} BenchScaleParams;

/* Fills cfg (sim_world_config_init: sim_world_config_clear it, also on
 * failure).  FALSE (error set: the family's message) if the family takes
 * no such key or refuses the value (a version it does not have). */
gboolean bench_scale_config (const BenchScaleParams *p, SimWorldConfig *cfg, GError **error);

/* bench record's run: the default version, every peer in every round,
 * mean aggregation, model `none` of model_size floats, 1 Gbit/s links.
 * Fills cfg (sim_world_config_clear it, also on failure); FALSE (error
 * set) as bench_scale_config. */
gboolean bench_record_config (SimWorldConfig *cfg, guint64 seed, guint peers, guint rounds, gsize model_size,
                              GError **error);

/* The name of the protocol version a run given `version` (NULL: none)
 * runs: it, or [protocol] version's default ("disco-1110"); "-" if no
 * family has that key. */
const char *bench_version_name (const char *version);

/* Runs cfg unrecorded (runner_run_config); out: runner_result_clear it in
 * every case.  *peak_mib: the process's peak resident memory after the
 * run, in MiB. */
gboolean bench_scale_run (const SimWorldConfig *cfg, RunnerResult *out, double *peak_mib, GError **error);

/* ------------------------------------------------------------ record */

/* The median of n values: the value at n / 2 of them sorted (the upper of
 * the two middle ones for even n); values is not changed.  n > 0. */
double bench_median (const double *values, guint n);

/* What bench record prints, from its wall times with events (with[k]) and
 * without (without[k], run right after with[k]) and the writer thread's
 * CPU seconds of each with-events run. */
typedef struct {
  double with_median, with_min, with_max;
  double without_median, without_min, without_max;
  double median_ratio;        /* with_median / without_median */
  double paired_median;       /* the median of with[k] / without[k] */
  double fastest_ratio;       /* with_min / without_min */
  double writer_median;       /* the writer thread's CPU seconds */
  double writer_percent;      /* 100 * writer_median / without_median */
} BenchRecordReading;

/* n_with, n_without, n_writer > 0. */
void bench_record_reading (const double *with, guint n_with, const double *without, guint n_without,
                           const double *writer, guint n_writer, BenchRecordReading *out);

typedef enum {
  BENCH_RECORD_DONE,
  BENCH_RECORD_NO_FOLDER,     /* the temporary folder cannot be made (error set) */
  BENCH_RECORD_RUN_FAILED,    /* a run could not be made or recorded (error set) */
  BENCH_RECORD_INCOMPLETE,    /* a run did not complete its rounds */
} BenchRecordStatus;

/* Records cfg 2 * repeat times into a results database in a temporary
 * folder, with events and with --no-events alternated (with first), each
 * timed as `dlsim run` does a run (open, runs row, simulation, every row
 * written, close), and fills *out when every run completed. */
BenchRecordStatus bench_record_run (const SimWorldConfig *cfg, guint repeat, BenchRecordReading *out,
                                    GError **error);

G_END_DECLS
