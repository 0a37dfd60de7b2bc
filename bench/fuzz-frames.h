/* fuzz-frames.h — a seeded fuzzer for the testbed's frame reader
 * (testbed/testbed-frame.c) and what lies behind it: random bytes, mutated valid
 * frames (bit flips, truncation, insertion, length-field damage) and valid
 * frames, fed in random chunks, half of them to a reader with an
 * unauthenticated stream's limit (a HELLO's size); HELLOs answering a
 * CHALLENGE, intact or with one byte changed, whose HMAC must verify if and
 * only if nothing changed and the secret, nonce and ids are the ones it was
 * made with; and well-formed but hostile messages (ids of nobody, of the
 * receiver, of the server; huge rounds and counts; weights of the wrong
 * size) that decode and then go into a coordinator and a peer of every
 * family, as an authenticated stream's would.  It counts what the reader
 * accepted and refused; a crash, a leak, a sanitizer report or a HELLO
 * verified when it should not be (or not when it should) is the
 * failure.  Used by tests/test-frame.c (a short run) and `dlsim bench
 * fuzz-frames` (1M inputs and more). */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  guint64 inputs, frames_ok, frames_bad, need_more, roundtrips;
  guint64 hellos_verified, hellos_refused;   /* HELLOs that decoded: proof accepted, refused */
  guint64 hostile_fed;                       /* hostile messages fed to a machine */
} BenchFuzzStats;

/* FALSE if a valid frame did not decode to the message it was made from,
 * or a HELLO's proof was judged wrongly.  The machines: every family's
 * at its defaults and, when the default family has versions, it at its
 * robust version (`dlsim bench fuzz-frames`). */
gboolean bench_fuzz_frames (guint64 inputs, uint64_t seed, BenchFuzzStats *out);
/* The same with every family's machines at their defaults and one more
 * pair of the scenario whose text is extra (a "[protocol]" section; NULL:
 * none): tests/test-frame.c none, a family's tests its own. */
gboolean bench_fuzz_frames_with (guint64 inputs, uint64_t seed, const char *extra, BenchFuzzStats *out);

G_END_DECLS
