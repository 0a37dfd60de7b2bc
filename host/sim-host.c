/* sim-host.c — the host layer shared by the simulator and the testbed: feed
 * an input, carry out the outbox, re-arm the deadline; and the tally of
 * observations.  It knows no network, no clock and no socket: the transport
 * does. */
#include "config.h"

#include "host/sim-host.h"

#include <math.h>
#include <string.h>

/* A peer's round sends a message to each other peer from one outbox (999
 * at 1 000 peers): the transport is told of each send PREPARE_AHEAD
 * actions before it, then half as many, so that what it reads for them
 * (cache misses: a table slot, then the record the slot points to) is
 * loaded by the time it runs (docs/performance.md, "World"). */
#define PREPARE_AHEAD 8

static inline void
prepare (ProtoNodeId self, ProtoOutbox *out, guint i, const SimTransport *tr, gpointer ud, int stage)
{
  if (i < proto_outbox_len (out))
    {
      const ProtoAction *a = proto_outbox_get (out, i);
      if (a->kind == PROTO_ACT_SEND)
        tr->prepare_send (ud, self, a->to, a->via, stage);
    }
}

static void
carry_out (ProtoNodeId self, ProtoOutbox *out, const SimTransport *tr, gpointer ud)
{
  gboolean ahead = tr->prepare_send != NULL && proto_outbox_len (out) > PREPARE_AHEAD;
  if (ahead)
    for (guint i = 0; i < PREPARE_AHEAD; i++)
      prepare (self, out, i, tr, ud, i < PREPARE_AHEAD / 2 ? 1 : 0);
  for (guint i = 0; i < proto_outbox_len (out); i++)
    {
      if (ahead)
        {
          prepare (self, out, i + PREPARE_AHEAD, tr, ud, 0);
          prepare (self, out, i + PREPARE_AHEAD / 2, tr, ud, 1);
        }
      ProtoAction *a = proto_outbox_get (out, i);
      switch (a->kind)
        {
        case PROTO_ACT_SEND:
          tr->send (ud, self, a->to, a->via, &a->msg);
          break;
        case PROTO_ACT_OPEN_LINK:
          tr->open_link (ud, self, a->to, a->initiator);
          break;
        case PROTO_ACT_CONNECT_LINK:
          tr->connect_link (ud, self, a->to);
          break;
        case PROTO_ACT_CLOSE_LINK:
          tr->close_link (ud, self, a->to);
          break;
        case PROTO_ACT_START_TRAINING:
          tr->start_training (ud, self, a->weights, a->round);
          break;
        case PROTO_ACT_DISCONNECT:
          tr->disconnect (ud, self);
          break;
        case PROTO_ACT_SET_DEADLINE:
          break;   /* re-armed once, after the outbox */
        case PROTO_ACT_OBSERVE:
          tr->observed (ud, self, &a->obs);
          break;
        case PROTO_ACT_RECONNECT:
          /* a replicated coordinator's session layer only: a transport
           * without replicas (the testbed refuses them) has no callback */
          if (tr->reconnect)
            tr->reconnect (ud, self);
          break;
        case PROTO_ACT_CLOSE_STREAM:
          if (tr->close_stream)
            tr->close_stream (ud, self, a->to);
          break;
        }
    }
}

/* Outboxes are reused: allocating one per input was 5 % of a 1 000-peer
 * run (docs/performance.md).  A transport may feed another machine from
 * inside carry_out, so each nesting depth has its own; and explore runs
 * worlds on several threads, so they are per thread.  A thread's arrays
 * are freed when it exits (outboxes_free, through a GPrivate whose
 * destructor runs at every thread's exit); the main thread's at process
 * exit. */
#define OUTBOX_DEPTH 8
static _Thread_local ProtoOutbox outboxes[OUTBOX_DEPTH];
static _Thread_local guint outbox_depth;

static void
outboxes_free (gpointer data)
{
  ProtoOutbox *o = data;
  for (guint i = 0; i < OUTBOX_DEPTH; i++)
    proto_outbox_clear (&o[i]);
}

static GPrivate outboxes_owner = G_PRIVATE_INIT (outboxes_free);

static ProtoOutbox *
outbox_take (void)
{
  if (outbox_depth >= OUTBOX_DEPTH)
    {
      ProtoOutbox *o = g_new (ProtoOutbox, 1);
      proto_outbox_init (o);
      outbox_depth++;
      return o;
    }
  ProtoOutbox *o = &outboxes[outbox_depth++];
  if (!o->actions)
    {
      proto_outbox_init (o);
      g_private_set (&outboxes_owner, outboxes);
    }
  return o;
}

static void
outbox_give (ProtoOutbox *o)
{
  outbox_depth--;
  if (outbox_depth >= OUTBOX_DEPTH)
    {
      proto_outbox_clear (o);
      g_free (o);
    }
  else
    proto_outbox_reset (o);
}

void
sim_host_feed (ProtoMachine *m, ProtoNodeId self, DlTime now, const ProtoInput *in, const SimTransport *tr,
               gpointer ud)
{
  ProtoOutbox *out = outbox_take ();
  proto_machine_handle (m, now, in, out);
  carry_out (self, out, tr, ud);
  outbox_give (out);
  const char *why = proto_machine_broken (m);
  if (why && tr->broken)
    tr->broken (ud, self, why);
  tr->arm (ud, self, proto_machine_next_deadline (m));
}

/* ---- the tally ---- */

void
sim_tally_init (SimTally *t)
{
  memset (t, 0, sizeof *t);
  t->round_done = g_array_new (FALSE, TRUE, sizeof (gboolean));
  t->metrics = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  t->metric_stats = g_array_new (FALSE, TRUE, sizeof (SimMetricStat));
  G_STATIC_ASSERT (PROTO_OBS_N_KINDS <= 32);
  for (guint i = 0; proto_counter_at (i); i++)
    t->counted_kinds |= 1u << proto_counter_at (i)->kind;
}

void
sim_tally_clear (SimTally *t)
{
  g_clear_pointer (&t->round_done, g_array_unref);
  g_clear_pointer (&t->metrics, g_hash_table_unref);
  g_clear_pointer (&t->metric_stats, g_array_unref);
}

/* the families' counters that read o (ProtoCounter's rules) */
static void
count (SimTally *t, ProtoNodeId node, const ProtoObservation *o)
{
  const ProtoCounter *c;
  for (guint i = 0; (c = proto_counter_at (i)); i++)
    {
      if (c->kind != o->kind || (c->coordinator_only && node != PROTO_SERVER))
        continue;
      switch (c->rule)
        {
        case PROTO_COUNT_MATCHES:
          t->counters[i] += o->value == c->value;
          break;
        case PROTO_COUNT_MIN_POSITIVE:
          if (o->value > 0 && (t->counters[i] == 0 || (guint) o->value < t->counters[i]))
            t->counters[i] = (guint) o->value;
          break;
        }
    }
}

void
sim_tally_observe (SimTally *t, ProtoNodeId node, const ProtoObservation *o)
{
  if (t->counted_kinds & (1u << o->kind))
    count (t, node, o);
  switch (o->kind)
    {
    case PROTO_OBS_RETRY:
      t->retries++;
      break;
    case PROTO_OBS_EXCLUDED:
      t->exclusions++;
      break;
    case PROTO_OBS_SYNC_DONE:
      t->model_syncs++;
      break;
    case PROTO_OBS_DROPPED:
      t->messages_dropped++;
      break;
    case PROTO_OBS_ROUND_END:
      {
        guint r = (guint) MAX (o->round, 0);
        if (r >= t->round_done->len)
          g_array_set_size (t->round_done, r + 1);
        g_array_index (t->round_done, gboolean, r) = TRUE;
        break;
      }
    case PROTO_OBS_METRIC:
      {
        GArray *v = g_hash_table_lookup (t->metrics, o->detail);
        if (!v)
          {
            v = g_array_new (FALSE, FALSE, sizeof (double));
            g_hash_table_insert (t->metrics, g_strdup (o->detail), v);
          }
        double x = proto_obs_metric_value (o);
        g_array_append_val (v, x);
        break;
      }
    default:
      break;
    }
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static gint
cmp_stat_name (gconstpointer a, gconstpointer b)
{
  return strcmp (((const SimMetricStat *) a)->name, ((const SimMetricStat *) b)->name);
}

/* the metrics' statistics, by name (a quantile is the nearest rank) */
static void
fill_metric_stats (const SimTally *t)
{
  g_array_set_size (t->metric_stats, 0);
  GHashTableIter it;
  gpointer k, val;
  g_hash_table_iter_init (&it, t->metrics);
  while (g_hash_table_iter_next (&it, &k, &val))
    {
      GArray *v = val;
      g_autoptr (GArray) sorted = g_array_copy (v);
      g_array_sort (sorted, cmp_double);
      SimMetricStat st = { .count = sorted->len };
      g_strlcpy (st.name, k, sizeof st.name);
      for (guint i = 0; i < sorted->len; i++)
        st.sum += g_array_index (sorted, double, i);
      guint n = sorted->len;
      /* none observed: count and sum 0, the rest empty */
      st.mean = n ? st.sum / n : NAN;
      st.median = n ? g_array_index (sorted, double, (n - 1) / 2) : NAN;
      st.p90 = n ? g_array_index (sorted, double, (guint) ((n * 9 + 9) / 10) - 1) : NAN;
      st.max = n ? g_array_index (sorted, double, n - 1) : NAN;
      g_array_append_val (t->metric_stats, st);
    }
  g_array_sort (t->metric_stats, cmp_stat_name);
}

void
sim_tally_declare_metric (SimTally *t, const char *name)
{
  if (!g_hash_table_contains (t->metrics, name))
    g_hash_table_insert (t->metrics, g_strdup (name), g_array_new (FALSE, FALSE, sizeof (double)));
}

guint
sim_tally_rounds_completed (const SimTally *t)
{
  guint n = 0;
  for (guint k = 0; k < t->round_done->len; k++)
    n += g_array_index (t->round_done, gboolean, k);
  return n;
}

void
sim_tally_fill (const SimTally *t, SimResult *r)
{
  r->rounds_completed = sim_tally_rounds_completed (t);
  r->retries = t->retries;
  r->exclusions = t->exclusions;
  r->model_syncs = t->model_syncs;
  r->messages_dropped = t->messages_dropped;
  memcpy (r->counters, t->counters, sizeof r->counters);
  fill_metric_stats (t);
  r->metrics = t->metric_stats;
}
