/* dl-random.h — named, seeded random streams.
 *
 * A stream is derived from (scenario seed, stream name, node id): two streams
 * that differ in any of the three are independent, and drawing from one never
 * shifts another (common random numbers across sweep points).  There is no
 * global generator.  The generator is xoshiro256** wrapped as a GSL generator
 * type, so GSL's tested samplers (gsl_ran_*) can draw from it directly.
 *
 * Shape: dl_random_new / dl_random_free (g_autoptr). */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef gsl_rng DlRandom;

/* Node id for streams that belong to no node (the coordinator's, the world's). */
#define DL_RANDOM_NO_NODE ((int64_t) -1)

/* (transfer full) */
DlRandom *dl_random_new (uint64_t seed, const char *stream, int64_t node);
void dl_random_free (DlRandom *r);
/* The bytes of one of dl_random_array_new's streams: its generator and
 * state on one cache line (a lone stream is a 48-byte block of malloc's). */
#define DL_RANDOM_STREAM_BYTES 64

/* (transfer full) n > 0 streams of nodes 0 .. n - 1, each what
 * dl_random_new (seed, stream, i) gives, in one array of one line each
 * (dl_random_array_at): for a caller that keeps a stream a node and draws
 * from them at random (PHOLD's LPs), one cache line a draw. */
DlRandom *dl_random_array_new (uint32_t n, uint64_t seed, const char *stream);
void dl_random_array_free (DlRandom *first);

static inline DlRandom *
dl_random_array_at (DlRandom *first, uint32_t i)
{
  return (DlRandom *) (void *) ((char *) first + (size_t) i * DL_RANDOM_STREAM_BYTES);
}

/* Re-seeds r in place from salt and its own state: what it draws after
 * this is a new stream (dlsim explore --localize re-seeds a run's streams
 * at a time t; the same salt on the same state gives the same stream). */
void dl_random_reseed (DlRandom *r, uint64_t salt);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DlRandom, dl_random_free)

/* The 64-bit key a stream is seeded from (exposed for tests). */
uint64_t dl_random_stream_key (uint64_t seed, const char *stream, int64_t node);

uint64_t dl_random_u64 (DlRandom *r);
/* Uniform in [0, 1). */
double dl_random_uniform (DlRandom *r);
/* Uniform integer in [0, n), unbiased; n > 0. */
uint64_t dl_random_below (DlRandom *r, uint64_t n);
/* TRUE with probability p. */
gboolean dl_random_bernoulli (DlRandom *r, double p);
/* Exponential with the given mean (mean > 0). */
double dl_random_exponential (DlRandom *r, double mean);

/* splitmix64 finaliser: a good 64-bit mixing function. */
uint64_t dl_mix64 (uint64_t x);

G_END_DECLS
