/* hier-head.c — the head's part of a hierarchical peer (hier-peer-private.h).
 *
 * A round at a head:
 *   collect: one HierUpdate from every member the coordinator listed (its
 *     own model included, without a message); head_timeout after the first,
 *     it goes with what came;
 *   exchange: the cluster's mean (sum in member id order, divided by the
 *     count) goes as HierAgg(round, count) to every other head; once every
 *     head in HierHeads sent its own for the round (or head_timeout after the
 *     exchange began), the global model is the count-weighted mean of the
 *     clusters' means, summed in head id order, the same at every head;
 *   down: HierResult(round, global) to every member that contributed.
 * Updates that come during the exchange count for the next round.  A head
 * that is behind the others (elected late) catches up: an aggregate of a
 * later round, while it collects, moves its round there. */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"

#include <string.h>

static void
agg_clear (Agg *a)
{
  g_clear_pointer (&a->mean, learn_weights_unref);
}

void
hh_clear (HierPeer *p)
{
  g_hash_table_remove_all (p->updates);
  g_hash_table_remove_all (p->next_updates);
  for (guint i = 0; i < p->aggs->len; i++)
    agg_clear (&g_array_index (p->aggs, Agg, i));
  g_array_set_size (p->aggs, 0);
  p->phase = HEAD_COLLECT;
  p->hr_set = FALSE;
  p->head_deadline = DL_TIME_NEVER;
}

static gboolean
is_member (const HierPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->members->len; i++)
    if (g_array_index (p->members, ProtoNodeId, i) == id)
      return TRUE;
  return FALSE;
}

static Agg *
find_agg (HierPeer *p, ProtoNodeId head, uint32_t round)
{
  for (guint i = 0; i < p->aggs->len; i++)
    {
      Agg *a = &g_array_index (p->aggs, Agg, i);
      if (a->head == head && a->round == round)
        return a;
    }
  return NULL;
}

/* The mean of `n` models in id order (ids ascending). */
static LearnWeights *
mean_of (GHashTable *updates, guint *n)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, updates);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (ids, id);
    }
  g_array_sort (ids, hier_cmp_id);
  *n = ids->len;
  g_autofree LearnWeights **ws = g_new (LearnWeights *, MAX (ids->len, 1));
  for (guint i = 0; i < ids->len; i++)
    ws[i] = g_hash_table_lookup (updates, GUINT_TO_POINTER (g_array_index (ids, ProtoNodeId, i) + 1));
  return learn_weights_mean (ws, ids->len);
}

static void try_finish_exchange (HierPeer *p, ProtoOutbox *out);

static void
start_exchange (HierPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  g_autoptr (LearnWeights) mean = mean_of (p->updates, &n);
  p->phase = HEAD_EXCHANGE;
  p->head_deadline = dl_time_add (p->now, p->cfg.head_timeout);
  Agg own = { .head = p->id, .round = p->hr, .count = n, .mean = learn_weights_ref (mean) };
  g_array_append_val (p->aggs, own);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, PROTO_NO_NODE, -1, n,
                        "head: cluster mean of %u updates, to %u other heads", n,
                        p->heads->len ? p->heads->len - 1 : 0);
  for (guint i = 0; i < p->heads->len; i++)
    {
      ProtoNodeId h = g_array_index (p->heads, ProtoNodeId, i);
      if (h == p->id)
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->hr;
      m.degree = n;
      proto_msg_set_weights (&m, mean);
      hp_send_link (p, out, h, &m);
    }
  try_finish_exchange (p, out);
}

static void
try_collect (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_COLLECT || !p->hr_set || g_hash_table_size (p->updates) == 0)
    return;
  gboolean all = TRUE;
  for (guint i = 0; i < p->members->len && all; i++)
    all = g_hash_table_contains (p->updates, GUINT_TO_POINTER (g_array_index (p->members, ProtoNodeId, i) + 1));
  if (all || p->now >= p->head_deadline)
    {
      if (!all)
        hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_UPDATE,
                    g_hash_table_size (p->updates), "head_timeout: the cluster's mean goes without the missing members");
      start_exchange (p, out);
    }
}

/* Head h's aggregate for this round, or, if h is ahead (it was elected
 * earlier, or this head late), its latest later one. */
static Agg *
agg_for (HierPeer *p, ProtoNodeId h)
{
  Agg *best = find_agg (p, h, p->hr);
  if (best)
    return best;
  for (guint i = 0; i < p->aggs->len; i++)
    {
      Agg *a = &g_array_index (p->aggs, Agg, i);
      if (a->head == h && a->round > p->hr && (!best || a->round > best->round))
        best = a;
    }
  return best;
}

static void
try_finish_exchange (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_EXCHANGE)
    return;
  /* every cluster's head is known (an election may still run elsewhere) and sent its own */
  gboolean all = p->heads->len >= p->heads_expected;
  for (guint i = 0; i < p->heads->len && all; i++)
    all = agg_for (p, g_array_index (p->heads, ProtoNodeId, i)) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
                "head_timeout: the global model goes without the missing heads");
  /* the count-weighted mean over the clusters, in head id order; a head
   * that is ahead brings this one to its round */
  g_autoptr (GArray) mine = g_array_new (FALSE, FALSE, sizeof (Agg));
  uint32_t ahead = p->hr;
  /* every aggregate of this round, listed head or not (a cluster that
   * finished leaves the list after sending its last), and for a listed head
   * without one, its later one */
  for (guint i = 0; i < p->aggs->len; i++)
    if (g_array_index (p->aggs, Agg, i).round == p->hr)
      g_array_append_val (mine, g_array_index (p->aggs, Agg, i));
  for (guint i = 0; i < p->heads->len; i++)
    {
      ProtoNodeId h = g_array_index (p->heads, ProtoNodeId, i);
      Agg *a = find_agg (p, h, p->hr) ? NULL : agg_for (p, h);
      if (a)
        {
          g_array_append_val (mine, *a);
          ahead = MAX (ahead, a->round);
        }
    }
  g_array_sort (mine, hier_cmp_id);   /* Agg starts with its head id */
  guint64 total = 0;
  for (guint i = 0; i < mine->len; i++)
    total += g_array_index (mine, Agg, i).count;
  LearnWeights *global = NULL;
  if (total > 0)
    {
      Agg *first = &g_array_index (mine, Agg, 0);
      global = learn_weights_copy (first->mean);
      if (!learn_weights_is_symbolic (global))
        {
          learn_weights_scal (global, (float) first->count);
          for (guint i = 1; i < mine->len; i++)
            learn_weights_axpy (global, (float) g_array_index (mine, Agg, i).count, g_array_index (mine, Agg, i).mean);
          learn_weights_scal (global, (float) (1.0 / (double) total));
        }
    }
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, PROTO_NO_NODE, -1,
                        (int64_t) total, "head: global model of %u clusters, %" G_GUINT64_FORMAT " updates", mine->len,
                        total);
  /* down to the contributors (its own member part last: it may start a round) */
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, p->updates);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (to, id);
    }
  g_array_sort (to, hier_cmp_id);
  uint32_t round = p->hr;
  gboolean self = FALSE;
  for (guint i = 0; i < to->len && global; i++)
    {
      ProtoNodeId id = g_array_index (to, ProtoNodeId, i);
      if (id == p->id)
        {
          self = TRUE;
          continue;
        }
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = round;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, global);
      hp_send_link (p, out, id, &m);
    }
  /* the next round: the updates that came meanwhile */
  if (ahead > round)
    hp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, ahead,
                "head: the other heads are ahead: it catches up with their round");
  p->hr = ahead;
  for (guint i = p->aggs->len; i > 0; i--)
    if (g_array_index (p->aggs, Agg, i - 1).round <= ahead)
      {
        agg_clear (&g_array_index (p->aggs, Agg, i - 1));
        g_array_remove_index (p->aggs, i - 1);
      }
  GHashTable *t = p->updates;
  p->updates = p->next_updates;
  p->next_updates = t;
  g_hash_table_remove_all (p->next_updates);
  p->hr++;
  p->phase = HEAD_COLLECT;
  p->head_deadline = g_hash_table_size (p->updates) ? dl_time_add (p->now, p->cfg.head_timeout) : DL_TIME_NEVER;
  if (self && global)
    hp_take_result (p, out, round, global);
  if (global)
    learn_weights_unref (global);
  try_collect (p, out);
}

void
hh_take_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w)
{
  if (!p->is_head)
    return;
  if (!p->hr_set)
    {
      p->hr = p->rounds_done;   /* a new head starts at its own round */
      p->hr_set = TRUE;
    }
  GHashTable *into = p->phase == HEAD_COLLECT ? p->updates : p->next_updates;
  g_hash_table_insert (into, GUINT_TO_POINTER (from + 1), learn_weights_ref (w));
  if (p->phase == HEAD_COLLECT && p->head_deadline == DL_TIME_NEVER)
    p->head_deadline = dl_time_add (p->now, p->cfg.head_timeout);
  if (!is_member (p, from))
    hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, "head: an update from a peer not (yet) listed");
  try_collect (p, out);
}

void
hh_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!p->is_head || msg->weights == NULL)
    return;
  if (p->hr_set && msg->round < p->hr)
    {
      hp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_HIER_AGG, msg->round, "an aggregate of a past round");
      return;
    }
  if (find_agg (p, from, msg->round))
    return;
  if (p->phase == HEAD_COLLECT && (!p->hr_set || msg->round > p->hr))
    {
      /* the other heads are ahead (this head was elected late): catch up,
       * this round's updates count for theirs */
      hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, msg->round,
                  "head: the other heads are at this round: it catches up");
      p->hr = msg->round;
      p->hr_set = TRUE;
    }
  Agg a = { .head = from, .round = msg->round, .count = msg->degree, .mean = learn_weights_ref (msg->weights) };
  g_array_append_val (p->aggs, a);
  try_finish_exchange (p, out);
}

void
hh_become (HierPeer *p, ProtoOutbox *out)
{
  if (p->is_head)
    return;
  p->is_head = TRUE;
  hh_clear (p);
  hp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "becomes its cluster's head");
}

void
hh_resign (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head)
    return;
  p->is_head = FALSE;
  hh_clear (p);
  hp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "is no longer head");
}

void
hh_members_changed (HierPeer *p, ProtoOutbox *out)
{
  try_collect (p, out);
}

void
hh_heads_changed (HierPeer *p, ProtoOutbox *out)
{
  try_finish_exchange (p, out);
}

void
hh_deadline (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->now < p->head_deadline)
    return;
  if (p->phase == HEAD_COLLECT)
    try_collect (p, out);
  else
    try_finish_exchange (p, out);
}
