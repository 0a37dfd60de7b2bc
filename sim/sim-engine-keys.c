/* sim-engine-keys.c — the storage of the engine's buckets of keys: a
 * bucket's array grown, or freed, in malloc's heap while small and in a
 * mapping of its own from MAP_FROM keys (on huge-page boundaries from
 * 2 MiB, base/dl-huge.h).  A leaf of sim-engine.c: it calls only base/
 * and the system, never the engine. */
#define _GNU_SOURCE 1   /* mremap */
#include "config.h"

#include "sim/sim-engine-keys.h"
#include "base/dl-huge.h"

#include <string.h>
#include <sys/mman.h>

/* A bucket of MAP_FROM keys or more has a mapping of its own: freed, its
 * pages go back to the system at once (from malloc's heap they did not:
 * glibc raises its mmap threshold as large blocks are freed, and the next
 * bucket grew the heap), and grown, mremap copies no bytes.  From 2 MiB
 * the mapping is dl-huge.h's, on a huge-page boundary.  Capacities are
 * 64 doubled, so a bucket crosses MAP_FROM and DL_HUGE exactly.  128 KiB,
 * not 256 as with a bucket a bit: with sixteen a digit a burst spreads
 * over many middling buckets, and 400 000 events left 11 MiB of them in
 * malloc's heap (test_buckets_shrink_after_burst). */
#define MAP_FROM 8192    /* keys: 128 KiB */

SimEngineKey *
_sim_engine_keys_resize (SimEngineKey *keys, uint32_t old_cap, uint32_t new_cap)
{
  gsize old_b = (gsize) old_cap * sizeof (SimEngineKey), new_b = (gsize) new_cap * sizeof (SimEngineKey);
  if (new_cap < MAP_FROM)
    return g_renew (SimEngineKey, keys, new_cap);
  if (old_b >= DL_HUGE)
    return dl_huge_grow (keys, old_b, new_b);
  void *p;
  if (old_cap >= MAP_FROM && new_b < DL_HUGE)
    p = mremap (keys, old_b, new_b, MREMAP_MAYMOVE);
  else if (new_b < DL_HUGE)
    p = mmap (NULL, new_b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  else
    p = dl_huge_grow (NULL, 0, new_b);
  if (p == MAP_FAILED)
    g_error ("sim-engine: no memory for a bucket of %u pending events", new_cap);
  if (old_cap && !(old_cap >= MAP_FROM && new_b < DL_HUGE))   /* (not mremap'd) */
    {
      memcpy (p, keys, old_b);
      _sim_engine_keys_free (keys, old_cap);
    }
  return p;
}

/* (a mapping of dl-huge.h's is unmapped like the others) */
void
_sim_engine_keys_free (SimEngineKey *keys, uint32_t cap)
{
  if (cap >= MAP_FROM)
    munmap (keys, cap * sizeof (SimEngineKey));
  else
    g_free (keys);
}
