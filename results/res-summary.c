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
  const char *key;     /* static or in text */
  const char *value;   /* static, borrowed or in text; "" for none; NULL: num */
  guint64 num;
} Entry;

struct _ResSummary {
  GArray *entries;         /* Entry: the peers' [0, n_peer_keys), then the run's */
  GStringChunk *text;      /* the keys and values made here */
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

/* key with value as the next row, both kept as they are (static, or
 * living as long as sum) */
static void
add (ResSummary *sum, const char *key, const char *value)
{
  Entry e = { key, value, 0 };
  g_array_append_val (sum->entries, e);
}

/* key with the number n (written as one, not as text) */
static void
add_num (ResSummary *sum, const char *key, guint64 n)
{
  Entry e = { key, NULL, n };
  g_array_append_val (sum->entries, e);
}

/* key with v as six significant digits, "" for NaN */
static void
add_double (ResSummary *sum, const char *key, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  add (sum, key, isnan (v) ? "" : g_string_chunk_insert (sum->text, g_ascii_formatd (buf, sizeof buf, "%.6g", v)));
}

/* "peer.NAME.FIELD" into text, without printf (six a peer) */
static const char *
peer_key (ResSummary *sum, const char *name, gsize name_len, const char *field)
{
  char buf[64];
  gsize field_len = strlen (field);
  g_assert (5 + name_len + 1 + field_len < sizeof buf);
  memcpy (buf, "peer.", 5);
  memcpy (buf + 5, name, name_len);
  buf[5 + name_len] = '.';
  memcpy (buf + 6 + name_len, field, field_len);
  return g_string_chunk_insert_len (sum->text, buf, (gssize) (6 + name_len + field_len));
}

void
_res_summary_add_peer (ResSummary *sum, const char *name, const SimPeerResult *pr)
{
  g_return_if_fail (!sum->run_added);
  gsize n = strlen (name);
  add (sum, peer_key (sum, name, n, "outcome"), sim_peer_outcome_name (pr->outcome));
  add_num (sum, peer_key (sum, name, n, "rounds"), pr->rounds);
  add (sum, peer_key (sum, name, n, "synced"), pr->synced ? "yes" : "no");
  add_num (sum, peer_key (sum, name, n, "retries_received"), pr->retries_received);
  add_num (sum, peer_key (sum, name, n, "fails_received"), pr->fails_received);
  /* borrowed, as the peers are, until res_run_finish returns */
  add (sum, peer_key (sum, name, n, "state"), pr->state ? pr->state : "");
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
          add_double (sum, g_string_chunk_insert (sum->text, key), stats[k].v);
        }
    }
}

/* The run's keys, in their order */
static void
add_run_keys (ResSummary *sum, const SimResult *res)
{
  add (sum, "outcome", sim_outcome_name (res->outcome));
  add_num (sum, "rounds_completed", res->rounds_completed);
  add_num (sum, "peers_finished", res->peers_finished);
  add_num (sum, "peers_failed", res->peers_failed);
  add_num (sum, "peers_hung", res->peers_hung);
  add_num (sum, "retries", res->retries);
  add_num (sum, "exclusions", res->exclusions);
  add_num (sum, "model_syncs", res->model_syncs);
  /* the counters the families declare (proto_counter_at), every one in every run */
  for (guint i = 0; proto_counter_at (i); i++)
    add_num (sum, proto_counter_at (i)->name, res->counters[i]);
  add_num (sum, "messages_dropped", res->messages_dropped);
  if (res->timeline_unfired > 0)   /* only then: the tables of every other run stay as they were */
    add_num (sum, "timeline_unfired", res->timeline_unfired);
  add_double (sum, "final_accuracy", res->final_accuracy);
  add_double (sum, "final_loss", res->final_loss);
  add_double (sum, "consensus_distance", res->consensus_distance);
  add_num (sum, "messages", res->messages);
  add_num (sum, "bytes", res->bytes);
  if (res->busiest_uplink_bytes > 0)
    add_num (sum, "busiest_uplink_bytes", res->busiest_uplink_bytes);
  add_double (sum, "sim_time_s", dl_time_to_s (res->end));
  add_metrics (sum, res);
  g_autoptr (GPtrArray) vk = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) vv = g_ptr_array_new_with_free_func (g_free);
  res_violations_summary (res, vk, vv);
  for (guint i = 0; i < vk->len; i++)
    add (sum, g_string_chunk_insert (sum->text, vk->pdata[i]), g_string_chunk_insert (sum->text, vv->pdata[i]));
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
      e->num = entry (sum, last)->num;
      if (last != i || !g_str_has_prefix (e->key, "peer."))
        continue;
      map_peer_keys (sum);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->peer_keys, e->key));
      if (at)
        *entry (sum, at - 1) = *e;
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

/* e's value as text: its own, or its number in buf */
static const char *
text_of (const Entry *e, char buf[24])
{
  if (e->value)
    return e->value;
  char tmp[24];
  guint64 n = e->num;
  int len = 0;
  do
    tmp[len++] = (char) ('0' + n % 10);
  while ((n /= 10) > 0);
  for (int k = 0; k < len; k++)
    buf[k] = tmp[len - 1 - k];
  buf[len] = '\0';
  return buf;
}

const char *
_res_summary_value (const ResSummary *sum, guint i, char buf[24])
{
  return text_of (entry (sum, i), buf);
}

gboolean
_res_summary_number (const ResSummary *sum, guint i, guint64 *out_n)
{
  const Entry *e = entry (sum, i);
  if (e->value)
    return FALSE;
  *out_n = e->num;
  return TRUE;
}

const char *
_res_summary_lookup (ResSummary *sum, const char *key, char buf[24])
{
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->run_keys, key));
  if (!at && g_str_has_prefix (key, "peer."))
    {
      map_peer_keys (sum);
      at = GPOINTER_TO_UINT (g_hash_table_lookup (sum->peer_keys, key));
    }
  return at ? text_of (entry (sum, at - 1), buf) : NULL;
}
