/* res-summary.c — a run's summary (the summary table's rows of a run):
 * the peers' keys, then the run's, in the order they are made, in one
 * array.  A key made twice stays two rows, each with the value made last
 * (what a map from key to value gave before); the run's keys are few, so
 * only they go into a map for that, and the peers' keys, distinct by
 * construction (one name per peer), get a map only when something looks
 * one up (an expectation on a peer).  A leaf: res-db.c writes the rows. */
#include "config.h"

#include "results/res-summary-private.h"
#include "results/res-violations.h"
#include "protocol/proto-machine.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char *key;     /* in text */
  const char *value;   /* in text; "" for none */
} Entry;

struct _ResSummary {
  GArray *entries;         /* Entry: the peers' [0, n_peer_keys), then the run's */
  GStringChunk *text;      /* every key and value */
  guint n_peer_keys;
  gboolean run_added;
  GHashTable *run_keys;    /* a run key -> its last index + 1 (keys borrowed) */
  GHashTable *peer_keys;   /* a peer key -> its index + 1, made on first need */
};

ResSummary *
_res_summary_new (void)
{
  ResSummary *sum = g_new0 (ResSummary, 1);
  sum->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  sum->text = g_string_chunk_new (64 * 1024);
  sum->run_keys = g_hash_table_new (g_str_hash, g_str_equal);
  return sum;
}

void
_res_summary_free (ResSummary *sum)
{
  if (!sum)
    return;
  g_array_unref (sum->entries);
  g_string_chunk_free (sum->text);
  g_hash_table_unref (sum->run_keys);
  if (sum->peer_keys)
    g_hash_table_unref (sum->peer_keys);
  g_free (sum);
}

/* key (copied) with value (taken) as the next row */
static void
add (ResSummary *sum, const char *key, char *value)
{
  Entry e = { g_string_chunk_insert (sum->text, key), g_string_chunk_insert (sum->text, value) };
  g_free (value);
  g_array_append_val (sum->entries, e);
}

static char *
fmt_double (double v)
{
  if (isnan (v))
    return g_strdup ("");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

void
_res_summary_add_peer (ResSummary *sum, const char *name, const SimPeerResult *pr)
{
  g_return_if_fail (!sum->run_added);
  g_autofree char *k1 = g_strdup_printf ("peer.%s.outcome", name);
  g_autofree char *k2 = g_strdup_printf ("peer.%s.rounds", name);
  g_autofree char *k3 = g_strdup_printf ("peer.%s.synced", name);
  g_autofree char *k4 = g_strdup_printf ("peer.%s.retries_received", name);
  g_autofree char *k5 = g_strdup_printf ("peer.%s.fails_received", name);
  g_autofree char *k6 = g_strdup_printf ("peer.%s.state", name);
  add (sum, k1, g_strdup (sim_peer_outcome_name (pr->outcome)));
  add (sum, k2, g_strdup_printf ("%u", pr->rounds));
  add (sum, k3, g_strdup (pr->synced ? "yes" : "no"));
  add (sum, k4, g_strdup_printf ("%u", pr->retries_received));
  add (sum, k5, g_strdup_printf ("%u", pr->fails_received));
  add (sum, k6, g_strdup (pr->state ? pr->state : ""));
  sum->n_peer_keys = sum->entries->len;
}

/* The machines' METRIC observations (e.g. the pipeline's step latency)
 * as metric.NAME.STAT keys */
static void
add_metrics (ResSummary *sum, const SimResult *res)
{
  for (guint i = 0; res->metrics && i < res->metrics->len; i++)
    {
      const SimMetricStat *m = &g_array_index (res->metrics, SimMetricStat, i);
      const struct { const char *stat; double v; } stats[] = {
        { "count", m->count }, { "sum", m->sum }, { "mean", m->mean },
        { "median", m->median }, { "p90", m->p90 }, { "max", m->max },
      };
      for (gsize k = 0; k < G_N_ELEMENTS (stats); k++)
        {
          g_autofree char *key = g_strdup_printf ("metric.%s.%s", m->name, stats[k].stat);
          add (sum, key, fmt_double (stats[k].v));
        }
    }
}

/* The run's keys, in their order */
static void
add_run_keys (ResSummary *sum, const SimResult *res)
{
  add (sum, "outcome", g_strdup (sim_outcome_name (res->outcome)));
  add (sum, "rounds_completed", g_strdup_printf ("%u", res->rounds_completed));
  add (sum, "peers_finished", g_strdup_printf ("%u", res->peers_finished));
  add (sum, "peers_failed", g_strdup_printf ("%u", res->peers_failed));
  add (sum, "peers_hung", g_strdup_printf ("%u", res->peers_hung));
  add (sum, "retries", g_strdup_printf ("%u", res->retries));
  add (sum, "exclusions", g_strdup_printf ("%u", res->exclusions));
  add (sum, "model_syncs", g_strdup_printf ("%u", res->model_syncs));
  /* the counters the families declare (proto_counter_at), every one in every run */
  for (guint i = 0; proto_counter_at (i); i++)
    add (sum, proto_counter_at (i)->name, g_strdup_printf ("%u", res->counters[i]));
  add (sum, "messages_dropped", g_strdup_printf ("%u", res->messages_dropped));
  if (res->timeline_unfired > 0)   /* only then: the tables of every other run stay as they were */
    add (sum, "timeline_unfired", g_strdup_printf ("%u", res->timeline_unfired));
  add (sum, "final_accuracy", fmt_double (res->final_accuracy));
  add (sum, "final_loss", fmt_double (res->final_loss));
  add (sum, "consensus_distance", fmt_double (res->consensus_distance));
  add (sum, "messages", g_strdup_printf ("%" G_GUINT64_FORMAT, res->messages));
  add (sum, "bytes", g_strdup_printf ("%" G_GUINT64_FORMAT, res->bytes));
  if (res->busiest_uplink_bytes > 0)
    add (sum, "busiest_uplink_bytes", g_strdup_printf ("%" G_GUINT64_FORMAT, res->busiest_uplink_bytes));
  add (sum, "sim_time_s", fmt_double (dl_time_to_s (res->end)));
  add_metrics (sum, res);
  g_autoptr (GPtrArray) vk = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) vv = g_ptr_array_new ();
  res_violations_summary (res, vk, vv);
  for (guint i = 0; i < vk->len; i++)
    add (sum, vk->pdata[i], vv->pdata[i]);
}

static Entry *
entry (const ResSummary *sum, guint i)
{
  return &g_array_index (sum->entries, Entry, i);
}

/* The peers' keys into a map (they are distinct: a name each) */
static void
map_peer_keys (ResSummary *sum)
{
  if (sum->peer_keys)
    return;
  sum->peer_keys = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < sum->n_peer_keys; i++)
    g_hash_table_insert (sum->peer_keys, (gpointer) entry (sum, i)->key, GUINT_TO_POINTER (i + 1));
}

/* Every row of a key made twice gets its last value: the run's keys
 * through their map, and a peer's key that a run key repeats (none of
 * the keys made above starts with "peer.") through the peers' map. */
static void
give_last_values (ResSummary *sum)
{
  guint n = sum->entries->len;
  for (guint i = sum->n_peer_keys; i < n; i++)
    g_hash_table_insert (sum->run_keys, (gpointer) entry (sum, i)->key, GUINT_TO_POINTER (i + 1));
  for (guint i = sum->n_peer_keys; i < n; i++)
    {
      Entry *e = entry (sum, i);
      guint last = GPOINTER_TO_UINT (g_hash_table_lookup (sum->run_keys, e->key)) - 1;
      e->value = entry (sum, last)->value;
      if (last != i || !g_str_has_prefix (e->key, "peer."))
        continue;
      map_peer_keys (sum);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->peer_keys, e->key));
      if (at)
        entry (sum, at - 1)->value = e->value;
    }
}

void
_res_summary_add_run (ResSummary *sum, const SimResult *res)
{
  g_return_if_fail (!sum->run_added);
  sum->run_added = TRUE;
  add_run_keys (sum, res);
  give_last_values (sum);
}

guint
_res_summary_len (const ResSummary *sum)
{
  return sum->entries->len;
}

const char *
_res_summary_key (const ResSummary *sum, guint i)
{
  return entry (sum, i)->key;
}

const char *
_res_summary_value (const ResSummary *sum, guint i)
{
  return entry (sum, i)->value;
}

const char *
_res_summary_lookup (ResSummary *sum, const char *key)
{
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->run_keys, key));
  if (!at && g_str_has_prefix (key, "peer."))
    {
      map_peer_keys (sum);
      at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->peer_keys, key));
    }
  return at ? entry (sum, at - 1)->value : NULL;
}
