/* sim-peers.c — what a peer is, from the configuration alone: the device a
 * node id stands for (a trace's return is the peer that came back), its
 * drawn attributes (speed, straggler, NAT, rates, from its own
 * "peer-attributes" and "bandwidth" streams), its region, and what its
 * machine is told of itself.  Pure functions of SimWorldConfig, the same in
 * the simulator and the testbed; a leaf of host/: sim/'s sim-net-chan.c,
 * sim-net-rates.c and sim-churn.c call it, it calls none of them. */
#include "config.h"

#include "host/sim-types.h"

#include <math.h>

ProtoNodeId
sim_peer_origin (const SimWorldConfig *cfg, ProtoNodeId id)
{
  if (!cfg->session_origin || id <= cfg->max_peers || id - cfg->max_peers > cfg->session_origin->len)
    return id;
  return g_array_index (cfg->session_origin, guint, id - cfg->max_peers - 1);
}

/* One draw of d, at least floor.  Drawn once into a variable: MAX's
 * macro evaluated its argument twice, so the clamp tested one draw and
 * returned another (a peer got speed -0.185). */
static double
draw_at_least (const DlDist *d, DlRandom *r, double floor)
{
  double x = dl_dist_sample (d, r);
  return x >= floor ? x : floor;   /* and a NaN (none is drawn) gives the floor */
}

/* Position of i in a permutation of [0, n) keyed by key: a 4-round
 * Feistel network over the fewest even number of bits that covers n,
 * walking the cycle until the value falls inside [0, n) (under 4 steps
 * expected).  O(1) a peer, nothing stored. */
static guint64
permute (guint64 i, guint64 n, guint64 key)
{
  guint bits = 2;
  while (bits < 62 && (G_GUINT64_CONSTANT (1) << bits) < n)
    bits += 2;
  guint half = bits / 2;
  guint64 mask = (G_GUINT64_CONSTANT (1) << half) - 1;
  do
    {
      guint64 l = i >> half, r = i & mask;
      for (guint64 k = 0; k < 4; k++)
        {
          guint64 f = dl_mix64 (key ^ dl_mix64 ((k << 40) ^ r)) & mask;
          guint64 t = l ^ f;
          l = r;
          r = t;
        }
      i = (l << half) | r;
    }
  while (i >= n);
  return i;
}

/* Is peer id a straggler?  Exactly round(share x n_peers) of p1..pN are,
 * drawn from the seed ("stragglers" stream); peers beyond them (arrivals)
 * count in blocks of n_peers, each block with the same number. */
static gboolean
is_straggler (const SimWorldConfig *cfg, ProtoNodeId id)
{
  guint64 n = MAX (cfg->n_peers, 1);
  guint64 k = (guint64) llround (cfg->straggler_share * (double) n);
  if (k == 0 || id == PROTO_SERVER)
    return FALSE;
  guint64 block = (id - 1) / n;
  guint64 key = dl_random_stream_key (cfg->seed, "stragglers", (int64_t) block);
  return permute ((id - 1) % n, n, key) < k;
}

void
sim_peer_attributes (const SimWorldConfig *cfg, ProtoNodeId id, SimPeerAttrs *out)
{
  id = sim_peer_origin (cfg, id);   /* a return is the same device */
  /* per-peer attributes come from the node's own stream */
  g_autoptr (DlRandom) attrs = dl_random_new (cfg->seed, "peer-attributes", id);
  out->speed = draw_at_least (&cfg->speed, attrs, SIM_PEER_MIN_SPEED);
  out->straggler = is_straggler (cfg, id);
  if (cfg->straggler_share > 0 && cfg->straggler_share < 1)
    (void) dl_random_uniform (attrs);   /* the draw a coin flip a peer took: the draws after it stay */
  out->nat_symmetric = dl_random_bernoulli (attrs, cfg->nat_symmetric_share);
  int r = sim_peer_region (cfg, id);
  out->region = r >= 0 ? cfg->region_names[r] : "";
  out->uplink_bps = cfg->uplink_bps;
  out->downlink_bps = cfg->downlink_bps;
  if (cfg->rates_drawn)
    {
      /* a stream of their own: drawing rates shifts no other draw */
      g_autoptr (DlRandom) bw = dl_random_new (cfg->seed, "bandwidth", id);
      out->uplink_bps = (uint64_t) llround (draw_at_least (&cfg->uplink, bw, SIM_PEER_MIN_BPS));
      out->downlink_bps = (uint64_t) llround (draw_at_least (&cfg->downlink, bw, SIM_PEER_MIN_BPS));
    }
  if (cfg->capacity && id < cfg->capacity->len)
    {
      /* a capacity trace's device: FedScale counts a training sample as 3
       * inferences of `computation` ms (client_metadata.py,
       * get_completion_time), and one rate both ways */
      const SimCapacity *c = &g_array_index (cfg->capacity, SimCapacity, id);
      if (c->ms_per_sample > 0)
        {
          out->speed = (double) cfg->sample_cost / (3 * c->ms_per_sample * 1e6);
          out->uplink_bps = out->downlink_bps = c->bps;
        }
    }
}

int
sim_peer_region (const SimWorldConfig *cfg, ProtoNodeId id)
{
  if (cfg->n_regions == 0 || id == PROTO_SERVER)
    return -1;
  id = sim_peer_origin (cfg, id);
  guint total = 0;
  for (guint i = 0; i < cfg->n_regions; i++)
    total += cfg->region_counts[i];
  /* the counts in order, then the same again for peers beyond them */
  guint k = total ? (id - 1) % total : 0;
  for (guint i = 0; i < cfg->n_regions; i++)
    {
      if (k < cfg->region_counts[i])
        return (int) i;
      k -= cfg->region_counts[i];
    }
  return 0;
}

ProtoPeerEnv
sim_peer_env (const SimWorldConfig *cfg, const SimPeerAttrs *a, LearnWeights *initial, DlRandom *rng)
{
  return (ProtoPeerEnv) {
    .initial = initial,
    .rng = rng,
    .region = a->region,
    .speed = a->speed / (a->straggler ? cfg->straggler_slowdown : 1.0),
    .uplink_bps = a->uplink_bps,
    .nat_symmetric = a->nat_symmetric,
  };
}
