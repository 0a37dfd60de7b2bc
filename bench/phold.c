/* phold.c — PHOLD on the dlsim engine: one handler, the LP index as the
 * event argument, one random stream per LP (as in ROSS). */
#include "config.h"

#include "bench/phold.h"
#include "base/dl-random.h"
#include "sim/sim-engine.h"

struct PholdLps {
  BenchPholdParams params;
  DlRandom *streams;   /* dl_random_array_new: LP i's is dl_random_array_at (streams, i) */
};

void
bench_phold_params_init (BenchPholdParams *p)
{
  *p = (BenchPholdParams) {
    .n_lps = 1000,
    .events_per_lp = 16,
    .end = 100 * DL_S,
    .remote = 0.25,
    .lookahead = 100 * DL_MS,
    .mean_delay = 900 * DL_MS,
    .seed = 1,
  };
}

PholdLps *
bench_phold_lps_new (const BenchPholdParams *p)
{
  PholdLps *lps = g_new0 (PholdLps, 1);
  lps->params = *p;
  lps->streams = dl_random_array_new (p->n_lps, p->seed, "phold");
  return lps;
}

void
bench_phold_lps_free (PholdLps *lps)
{
  if (!lps)
    return;
  dl_random_array_free (lps->streams);
  g_free (lps);
}

DlTime
bench_phold_initial_delay (PholdLps *lps, uint32_t lp)
{
  DlRandom *r = dl_random_array_at (lps->streams, lp);
  return lps->params.lookahead
         + (DlTime) dl_random_exponential (r, (double) lps->params.mean_delay);
}

void
bench_phold_draw (PholdLps *lps, uint32_t lp, uint32_t *out_dest, DlTime *out_delay)
{
  DlRandom *r = dl_random_array_at (lps->streams, lp);
  uint32_t dest = lp;
  if (dl_random_uniform (r) < lps->params.remote)
    dest = (uint32_t) dl_random_below (r, lps->params.n_lps);
  *out_dest = dest;
  *out_delay = lps->params.lookahead
               + (DlTime) dl_random_exponential (r, (double) lps->params.mean_delay);
}

typedef struct {
  PholdLps *lps;
  uint64_t checksum;
} EngineModel;

static void
phold_event (SimEngine *engine, void *ctx, uint64_t arg)
{
  EngineModel *m = ctx;
  uint32_t lp = (uint32_t) arg;
  uint32_t dest;
  DlTime delay;
  m->checksum = bench_phold_checksum_step (m->checksum, sim_engine_now (engine), lp);
  bench_phold_draw (m->lps, lp, &dest, &delay);
  sim_engine_schedule_in (engine, delay, phold_event, m, dest);
}

BenchPholdResult
bench_phold_run_engine (const BenchPholdParams *p)
{
  g_autoptr (SimEngine) engine = sim_engine_new ();
  EngineModel m = { .lps = bench_phold_lps_new (p), .checksum = 0 };
  for (uint32_t lp = 0; lp < p->n_lps; lp++)
    for (uint32_t k = 0; k < p->events_per_lp; k++)
      sim_engine_schedule_in (engine, bench_phold_initial_delay (m.lps, lp), phold_event, &m, lp);
  BenchPholdResult res = { .max_pending = sim_engine_pending (engine) };
  sim_engine_run_until (engine, p->end);
  res.events = sim_engine_events_run (engine);
  res.checksum = m.checksum;
  bench_phold_lps_free (m.lps);
  return res;
}
