/* sim-engine-keys.h — sim-engine-keys.c's storage of the engine's
 * buckets of keys.  Nothing outside sim/sim-engine*.c includes it. */
#pragma once

#include <glib.h>
#include <stdint.h>

/* A pending event's key: (time, seq, slot) as one unsigned 128-bit number
 * (times are never negative: the past is refused, now starts at 0). */
__extension__ typedef unsigned __int128 SimEngineKey;

/* keys (cap old_cap, NULL if 0) grown to new_cap > old_cap, its keys kept;
 * capacities are 64 doubled (a bucket crosses its thresholds exactly) */
SimEngineKey *_sim_engine_keys_resize (SimEngineKey *keys, uint32_t old_cap, uint32_t new_cap);
/* keys of capacity cap (NULL if 0) freed */
void _sim_engine_keys_free (SimEngineKey *keys, uint32_t cap);
