/* fuzz-frames.h — a seeded fuzzer for the testbed's frame reader
 * (sim/sim-frame.c) and the message decoder behind it: random bytes,
 * mutated valid frames (bit flips, truncation, insertion, length-field
 * damage) and valid frames, fed in random chunks.  It counts what the
 * reader accepted and refused; a crash, a leak or a sanitizer report is the
 * failure.  Used by tests/test-frame.c (a short run) and `dlsim bench
 * fuzz-frames` (1M inputs and more). */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  guint64 inputs, frames_ok, frames_bad, need_more, roundtrips;
} BenchFuzzStats;

/* FALSE if a valid frame did not decode to the message it was made from. */
gboolean bench_fuzz_frames (guint64 inputs, uint64_t seed, BenchFuzzStats *out);

G_END_DECLS
