/* phold.h — the PHOLD benchmark model, on the dlsim engine and on a bare
 * binary-heap reference loop that does the same work.
 *
 * N logical processes (LPs) start with K events each.  Handling an event at
 * LP i draws, from LP i's own random stream, a destination (a uniformly
 * random LP with probability `remote`, else i) and a delay
 * lookahead + exponential(mean_delay), and schedules one new event there.
 * Both runners make the same draws in the same order, so they process the
 * same events in the same order: their event counts and order checksums
 * must be equal. */
#pragma once

#include "base/dl-time.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  uint32_t n_lps;
  uint32_t events_per_lp;
  DlTime end;
  double remote;
  DlTime lookahead;
  DlTime mean_delay;
  uint64_t seed;
} BenchPholdParams;

typedef struct {
  uint64_t events;     /* events handled with time <= end */
  uint64_t checksum;   /* order-sensitive hash of (time, lp) of each event */
  uint64_t max_pending;
} BenchPholdResult;

void bench_phold_params_init (BenchPholdParams *p);
BenchPholdResult bench_phold_run_engine (const BenchPholdParams *p);
BenchPholdResult bench_phold_run_reference (const BenchPholdParams *p);
/* A floor, not a check: a binary heap of 16-byte (time, lp) entries, one
 * generator for all LPs, no tie-break counter.  Same parameters, other
 * draws, so its events and checksum differ; only its rate is compared. */
BenchPholdResult bench_phold_run_plain (const BenchPholdParams *p);

/* Shared by both runners: the draws of one event at LP `lp`. */
typedef struct PholdLps PholdLps;
PholdLps *bench_phold_lps_new (const BenchPholdParams *p);
void bench_phold_lps_free (PholdLps *lps);
/* Draws (destination, delay) for an event handled at lp. */
void bench_phold_draw (PholdLps *lps, uint32_t lp, uint32_t *out_dest, DlTime *out_delay);
/* Delay of the initial event k of lp. */
DlTime bench_phold_initial_delay (PholdLps *lps, uint32_t lp);

static inline uint64_t
bench_phold_checksum_step (uint64_t c, DlTime t, uint32_t lp)
{
  c ^= (uint64_t) t + ((uint64_t) lp << 40);
  c *= UINT64_C (0x100000001b3);
  return c ^ (c >> 29);
}

G_END_DECLS
