/* dl-random.c — xoshiro256** as a GSL generator type, and the derivation of
 * per-(seed, name, node) stream keys.
 *
 * Seeding: key = mix(mix(mix(seed) ^ fnv1a(name)) ^ node); the four state
 * words are successive splitmix64 outputs from the key, as the xoshiro
 * authors recommend.  GSL's own seeding (an unsigned long) is not used. */
#include "config.h"

#include "base/dl-random.h"

#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <string.h>

typedef struct {
  uint64_t s[4];
} Xoshiro;

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static inline uint64_t
xoshiro_next (Xoshiro *x)
{
  uint64_t *s = x->s;
  const uint64_t result = rotl (s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

uint64_t
dl_mix64 (uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void
xoshiro_seed_key (Xoshiro *x, uint64_t key)
{
  uint64_t z = key;
  for (int i = 0; i < 4; i++)
    {
      z += UINT64_C (0x9e3779b97f4a7c15);
      x->s[i] = dl_mix64 (z);
    }
  if ((x->s[0] | x->s[1] | x->s[2] | x->s[3]) == 0)
    x->s[0] = 1;
}

static void
gsl_xoshiro_set (void *state, unsigned long seed)
{
  xoshiro_seed_key (state, (uint64_t) seed);
}

static unsigned long
gsl_xoshiro_get (void *state)
{
  return (unsigned long) xoshiro_next (state);
}

static double
gsl_xoshiro_get_double (void *state)
{
  return (double) (xoshiro_next (state) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type xoshiro_type = {
  "xoshiro256**",
  ULONG_MAX,
  0,
  sizeof (Xoshiro),
  gsl_xoshiro_set,
  gsl_xoshiro_get,
  gsl_xoshiro_get_double,
};

uint64_t
dl_random_stream_key (uint64_t seed, const char *stream, int64_t node)
{
  /* FNV-1a over the stream name. */
  uint64_t h = UINT64_C (0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *) (stream ? stream : ""); *p; p++)
    {
      h ^= *p;
      h *= UINT64_C (0x100000001b3);
    }
  uint64_t k = dl_mix64 (seed ^ UINT64_C (0x6a09e667f3bcc909));
  k = dl_mix64 (k ^ h);
  k = dl_mix64 (k ^ (uint64_t) node);
  return k;
}

/* A stream is one block: GSL's generator header and, after it, its state
 * (48 bytes).  gsl_rng_alloc allocates the two apart, and every draw then
 * loaded the header and, through its pointer, the state: two cache misses
 * where a caller keeps many streams (PHOLD's 100 000 LPs: 35 % of its CPU
 * time in dl_random_uniform, docs/performance.md, "PHOLD's streams on one
 * line").  A stream alone is malloc's block (an aligned one for each of
 * push-pull's 100 000 nodes made that run 12-23 % slower);
 * dl_random_array_new's are a line each. */
typedef struct {
  gsl_rng rng;
  Xoshiro state;
} Stream;

typedef struct {
  Stream s;
  uint8_t pad[DL_RANDOM_STREAM_BYTES - sizeof (Stream)];
} StreamLine;

G_STATIC_ASSERT (sizeof (StreamLine) == DL_RANDOM_STREAM_BYTES);

static void
stream_init (Stream *s, uint64_t key)
{
  s->rng.type = &xoshiro_type;
  s->rng.state = &s->state;
  xoshiro_seed_key (&s->state, key);
}

DlRandom *
dl_random_new (uint64_t seed, const char *stream, int64_t node)
{
  Stream *s = g_new (Stream, 1);
  stream_init (s, dl_random_stream_key (seed, stream, node));
  return &s->rng;
}

DlRandom *
dl_random_array_new (uint32_t n, uint64_t seed, const char *stream)
{
  g_return_val_if_fail (n > 0, NULL);
  StreamLine *a = g_aligned_alloc (n, sizeof (StreamLine), DL_RANDOM_STREAM_BYTES);
  for (uint32_t i = 0; i < n; i++)
    stream_init (&a[i].s, dl_random_stream_key (seed, stream, i));
  return &a[0].s.rng;
}

void
dl_random_reseed (DlRandom *r, uint64_t salt)
{
  /* the stream's next output keys the new state: two streams re-seeded
   * with one salt stay apart, and the stream before it is untouched */
  uint64_t next = xoshiro_next (r->state);
  xoshiro_seed_key (r->state, dl_mix64 (dl_mix64 (salt ^ UINT64_C (0x510e527fade682d1)) ^ next));
}

void
dl_random_free (DlRandom *r)
{
  g_free (r);   /* (the block: rng is Stream's first field) */
}

void
dl_random_array_free (DlRandom *first)
{
  g_aligned_free (first);   /* (rng is the first line's first field) */
}

uint64_t
dl_random_u64 (DlRandom *r)
{
  return xoshiro_next (r->state);
}

double
dl_random_uniform (DlRandom *r)
{
  return gsl_xoshiro_get_double (r->state);
}

uint64_t
dl_random_below (DlRandom *r, uint64_t n)
{
  g_return_val_if_fail (n > 0, 0);
  /* Rejection on the top multiple of n, m = UINT64_MAX - UINT64_MAX % n:
   * unbiased.  x >= m exactly when x's own multiple, x - x % n, is m,
   * the only multiple of n above UINT64_MAX - n: one division a draw,
   * the same draws as testing x >= m. */
  uint64_t x, q;
  do
    {
      x = xoshiro_next (r->state);
      q = x % n;
    }
  while (x - q > UINT64_MAX - n);
  return q;
}

gboolean
dl_random_bernoulli (DlRandom *r, double p)
{
  if (p <= 0)
    return FALSE;
  if (p >= 1)
    return TRUE;
  return dl_random_uniform (r) < p;
}

double
dl_random_exponential (DlRandom *r, double mean)
{
  /* -mean * log(1 - U), U in [0,1): never log(0). */
  return -mean * log1p (-dl_random_uniform (r));
}
