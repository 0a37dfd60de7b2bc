/* sim-net-rates.c — a bandwidth trace's rows as the network keeps them
 * (sim-bwtrace.c reads the file): by peer, for a node's own rows, and by
 * time, for the order of the changes; a new node's rows and its rates
 * now; and a rate as a fact names it.  The changes themselves are
 * sim-net.c's (ev_rate: the flows in flight re-solved at the instant).
 *
 * A leaf under sim-net.c (sim-world-private.h draws the world's files):
 * it calls only host/sim-peers.c's sim_peer_origin, the engine's clock
 * and GLib. */
#include "config.h"

#include "sim/sim-world-private.h"

static gint
cmp_peer_time (gconstpointer a, gconstpointer b)
{
  const SimRateChange *x = a, *y = b;
  if (x->peer != y->peer)
    return x->peer < y->peer ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;   /* (a peer's times differ: sim-bwtrace.c) */
}

static gint
cmp_time_line (gconstpointer a, gconstpointer b)
{
  const SimRateChange *x = a, *y = b;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* The trace's rows by peer (a node's own rows, for fifo's serialization)
 * and by time (the order of the changes; at one instant, the file's). */
void
_sim_net_rates_init (SimWorld *w)
{
  if (!w->cfg.rates || w->cfg.rates->len == 0)
    return;
  for (int k = 0; k < 2; k++)
    {
      GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (SimRateChange), w->cfg.rates->len);
      g_array_append_vals (a, w->cfg.rates->data, w->cfg.rates->len);
      g_array_sort (a, k ? cmp_time_line : cmp_peer_time);
      *(k ? &w->rates_by_time : &w->rates_by_peer) = a;
    }
}

/* n's rates now: [network] or peers.capacity's (set by the caller), or
 * its device's latest row at or before now */
void
sim_net_node_rates (SimWorld *w, Node *n)
{
  if (!w->rates_by_peer)
    return;
  ProtoNodeId dev = sim_peer_origin (&w->cfg, n->id);
  const SimRateChange *r = (const SimRateChange *) (const void *) w->rates_by_peer->data;
  guint lo = 0, hi = w->rates_by_peer->len;
  while (lo < hi)   /* the device's first row */
    {
      guint mid = lo + (hi - lo) / 2;
      if (r[mid].peer < dev)
        lo = mid + 1;
      else
        hi = mid;
    }
  guint end = lo;
  while (end < w->rates_by_peer->len && r[end].peer == dev)
    end++;
  if (end == lo)
    return;
  n->rates = &r[lo];
  n->n_rates = end - lo;
  DlTime now = sim_engine_now (w->engine);
  for (guint i = 0; i < n->n_rates && n->rates[i].at <= now; i++)
    {
      n->up_bps = n->rates[i].up_bps;
      n->down_bps = n->rates[i].down_bps;
    }
}

void
_sim_net_rates_format (char *buf, gsize size, uint64_t bps)
{
  static const struct { double scale; const char *unit; } units[] = {
    { 1e9, "Gbps" }, { 1e6, "Mbps" }, { 1e3, "kbps" }, { 1, "bps" },
  };
  gsize u = 0;
  while (u + 1 < G_N_ELEMENTS (units) && (double) bps < units[u].scale)
    u++;
  g_snprintf (buf, size, "%.9g%s", (double) bps / units[u].scale, units[u].unit);
}
