/* plot-mean.c — "the accuracy at time t", one definition for the figures
 * (plot-private.h): at t, the mean of the latest value of every peer that
 * is there at t (joined, neither left nor crashed; a failed peer counts)
 * or that has finished its rounds; when no such peer has a value yet
 * (every session has left), the mean of every peer's latest value.  At a
 * run's end this is the summary's final_accuracy (sim_final_means,
 * host/sim-types.h).  A leaf: the figure files call it; it reads through
 * results/ (res-plot.h). */
#include "config.h"

#include "plots/plot-private.h"
#include "results/res-plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double value;
  gboolean has;    /* a value seen */
  gboolean gone;   /* left or crashed, without finishing */
} PeerNow;

typedef struct {
  double t;
  char *peer;
} Departure;

typedef struct {
  GHashTable *peers;   /* name -> PeerNow */
  double sum_there, sum_all;
  guint n_there, n_all;
} Means;

static PeerNow *
peer_now (Means *m, const char *name)
{
  PeerNow *p = g_hash_table_lookup (m->peers, name);
  if (!p)
    {
      p = g_new0 (PeerNow, 1);
      g_hash_table_insert (m->peers, g_strdup (name), p);
    }
  return p;
}

static int
cmp_departure (const void *a, const void *b)
{
  double x = ((const Departure *) a)->t, y = ((const Departure *) b)->t;
  return (x > y) - (x < y);
}

/* The times the peers that never finished left (a peer whose outcome says
 * it left or crashed without a time: at the run's end). */
static GArray *
departures (sqlite3 *db, gint64 run, double end)
{
  GArray *d = g_array_new (FALSE, FALSE, sizeof (Departure));
  g_autoptr (ResRows) r = res_plot_peer_ends (db, run);
  while (res_rows_next (r))
    {
      const char *outcome = res_rows_text (r, 2);   /* NULL: no outcome recorded */
      if (g_strcmp0 (outcome, "finished") == 0)
        continue;
      gboolean gone = g_strcmp0 (outcome, "left") == 0 || g_strcmp0 (outcome, "crashed") == 0;
      if (res_rows_is_null (r, 1) && !gone)
        continue;
      Departure x = { res_rows_is_null (r, 1) ? end : res_rows_double (r, 1), g_strdup (res_rows_text (r, 0)) };
      g_array_append_val (d, x);
    }
  if (d->len > 1)   /* an empty GArray's data is NULL, which qsort may not take */
    qsort (d->data, d->len, sizeof (Departure), cmp_departure);
  return d;
}

static void
on_value (Means *m, const char *peer, double v)
{
  PeerNow *p = peer_now (m, peer);
  if (p->has)
    {
      m->sum_all -= p->value;
      if (!p->gone)
        m->sum_there -= p->value;
    }
  else
    {
      m->n_all++;
      m->n_there += !p->gone;
    }
  p->value = v;
  p->has = TRUE;
  m->sum_all += v;
  if (!p->gone)
    m->sum_there += v;
}

static void
on_departure (Means *m, const char *peer)
{
  PeerNow *p = peer_now (m, peer);
  if (p->gone)
    return;
  p->gone = TRUE;
  if (p->has)
    {
      m->sum_there -= p->value;
      m->n_there--;
    }
}

static double
mean_now (const Means *m)
{
  if (m->n_there)
    return m->sum_there / m->n_there;
  return m->n_all ? m->sum_all / m->n_all : NAN;
}

GArray *
plot_mean_steps (sqlite3 *db, gint64 run, const char *metric, double end)
{
  GArray *steps = g_array_new (FALSE, FALSE, sizeof (PlotStep));
  Means m = { g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free), 0, 0, 0, 0 };
  g_autoptr (GArray) gone = departures (db, run, end);
  g_autoptr (ResRows) r = res_plot_metric_values (db, run, metric);
  gboolean more = res_rows_next (r);
  guint d = 0;
  while (more || d < gone->len)
    {
      /* every change at the next time, values before departures */
      double t = more ? res_rows_double (r, 0) : INFINITY;
      if (d < gone->len)
        t = MIN (t, g_array_index (gone, Departure, d).t);
      while (more && res_rows_double (r, 0) <= t)
        {
          on_value (&m, res_rows_text (r, 1), res_rows_double (r, 2));
          more = res_rows_next (r);
        }
      for (; d < gone->len && g_array_index (gone, Departure, d).t <= t; d++)
        on_departure (&m, g_array_index (gone, Departure, d).peer);
      PlotStep s = { t, mean_now (&m) };
      if (!isnan (s.mean))
        g_array_append_val (steps, s);
    }
  for (guint i = 0; i < gone->len; i++)
    g_free (g_array_index (gone, Departure, i).peer);
  g_hash_table_unref (m.peers);
  return steps;
}

double
plot_mean_at (GArray *steps, double t)
{
  /* the last step at or before t (binary search) */
  guint lo = 0, hi = steps->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (steps, PlotStep, mid).t <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo ? g_array_index (steps, PlotStep, lo - 1).mean : NAN;
}
