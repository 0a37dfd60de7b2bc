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
 * Updates that come during the exchange count for the next round.
 * Straggler policies (straggler_policy): wait (above); deadline: the
 * collection ends round_deadline after the first update; drop-slowest: a
 * member whose update came later than drop_factor x the round's median is
 * not waited for in the next drop_rounds rounds.  A head
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
  g_hash_table_remove_all (p->latency);
  g_hash_table_remove_all (p->dropped);
  g_hash_table_remove_all (p->async_sent);
  p->round_start = DL_TIME_NEVER;
  agg_clear (&p->own);
  for (guint i = 0; i < p->child_aggs->len; i++)
    agg_clear (&g_array_index (p->child_aggs, Agg, i));
  g_array_set_size (p->child_aggs, 0);
  g_hash_table_remove_all (p->updates);
  g_hash_table_remove_all (p->next_updates);
  for (guint i = 0; i < p->aggs->len; i++)
    agg_clear (&g_array_index (p->aggs, Agg, i));
  g_array_set_size (p->aggs, 0);
  p->phase = HEAD_COLLECT;
  p->hr_set = FALSE;
  p->head_deadline = DL_TIME_NEVER;
  hh_async_clear (p);
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

static void try_gather (HierPeer *p, ProtoOutbox *out);
static void try_top (HierPeer *p, ProtoOutbox *out);

static void
start_exchange (HierPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  agg_clear (&p->own);
  p->own = (Agg) { .head = p->id, .round = p->hr, .mean = hh_mixed_blend (p, out, mean_of (p->updates, &n)) };
  p->own.count = n;
  p->phase = HEAD_GATHER;
  p->head_deadline = dl_time_add (p->now, p->cfg.head_timeout);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, PROTO_NO_NODE, -1, n,
                        "head: cluster mean of %u updates", n);
  try_gather (p, out);
}

/* drop-slowest: is member m not waited for in this round? */
static gboolean
dropped (const HierPeer *p, ProtoNodeId m)
{
  gpointer v = g_hash_table_lookup (p->dropped, GUINT_TO_POINTER (m + 1));
  return v && p->hr < GPOINTER_TO_UINT (v) - 1;
}

static void
try_collect (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_COLLECT || !p->hr_set || g_hash_table_size (p->updates) == 0)
    return;
  gboolean all = TRUE;
  for (guint i = 0; i < p->members->len && all; i++)
    {
      ProtoNodeId m = g_array_index (p->members, ProtoNodeId, i);
      all = dropped (p, m) || g_hash_table_contains (p->updates, GUINT_TO_POINTER (m + 1));
    }
  if (all || p->now >= p->head_deadline)
    {
      if (!all)
        hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_UPDATE,
                    g_hash_table_size (p->updates),
                    p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                    ? "round_deadline: the cluster's mean goes without the members still training"
                    : "head_timeout: the cluster's mean goes without the missing members");
      start_exchange (p, out);
    }
}

static int
cmp_time (const void *a, const void *b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* drop-slowest, at a round's end: a member whose update came later than
 * drop_factor x the median of this round's is not waited for in the next
 * drop_rounds rounds (it still counts when it is in time). */
static void
judge_members (HierPeer *p, ProtoOutbox *out)
{
  if (p->cfg.straggler_policy != PROTO_STRAGGLER_DROP_SLOWEST && p->cfg.straggler_policy != PROTO_STRAGGLER_MIXED)
    {
      g_hash_table_remove_all (p->latency);
      return;
    }
  guint n = g_hash_table_size (p->latency);
  if (n >= 3)
    {
      g_autofree DlTime *d = g_new (DlTime, n);
      g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
      GHashTableIter it;
      gpointer k, v;
      guint i = 0;
      g_hash_table_iter_init (&it, p->latency);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          ids[i] = GPOINTER_TO_UINT (k) - 1;
          d[i++] = (DlTime) GPOINTER_TO_SIZE (v) - 1;
        }
      g_autofree DlTime *sorted = g_memdup2 (d, n * sizeof *d);
      qsort (sorted, n, sizeof *sorted, cmp_time);
      DlTime median = sorted[n / 2];
      p->last_median = median;
      g_array_sort (p->members, hier_cmp_id);
      for (guint j = 0; j < n; j++)
        if (median > 0 && (double) d[j] > p->cfg.drop_factor * (double) median
            && p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED)
          {
            /* asynchronous until an update of its comes within the factor (hier-async.c) */
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1), GUINT_TO_POINTER (G_MAXUINT));
            g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (ids[j] + 1),
                                 GSIZE_TO_POINTER ((gsize) p->now + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, ids[j], -1, -1,
                                  "head: slow: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: asynchronous from now on", dl_time_to_s (d[j]), p->cfg.drop_factor,
                                  dl_time_to_s (median));
          }
        else if (median > 0 && (double) d[j] > p->cfg.drop_factor * (double) median)
          {
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1),
                                 GUINT_TO_POINTER (p->hr + 1 + p->cfg.drop_rounds + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, ids[j], -1,
                                  (int64_t) p->cfg.drop_rounds,
                                  "head: slowest: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: not waited for in the next %u rounds", dl_time_to_s (d[j]),
                                  p->cfg.drop_factor, dl_time_to_s (median), p->cfg.drop_rounds);
          }
    }
  g_hash_table_remove_all (p->latency);
}

/* The count-weighted mean of aggregates (sorted by head id here): the same
 * bits wherever the same set is combined.  A single one is itself. */
static LearnWeights *
combine (GArray *aggs, guint64 *total_out)
{
  g_array_sort (aggs, hier_cmp_id);   /* Agg starts with its head id */
  guint64 total = 0;
  for (guint i = 0; i < aggs->len; i++)
    total += g_array_index (aggs, Agg, i).count;
  *total_out = total;
  if (total == 0)
    return NULL;
  Agg *first = &g_array_index (aggs, Agg, 0);
  if (aggs->len == 1)
    return learn_weights_ref (first->mean);
  LearnWeights *w = learn_weights_copy (first->mean);
  if (!learn_weights_is_symbolic (w))
    {
      learn_weights_scal (w, (float) first->count);
      for (guint i = 1; i < aggs->len; i++)
        learn_weights_axpy (w, (float) g_array_index (aggs, Agg, i).count, g_array_index (aggs, Agg, i).mean);
      learn_weights_scal (w, (float) (1.0 / (double) total));
    }
  return w;
}

static Agg *
find_child_agg (HierPeer *p, ProtoNodeId child, uint32_t round)
{
  for (guint i = 0; i < p->child_aggs->len; i++)
    {
      Agg *a = &g_array_index (p->child_aggs, Agg, i);
      if (a->head == child && a->round == round)
        return a;
    }
  return NULL;
}

static gboolean
is_child (const HierPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->children->len; i++)
    if (g_array_index (p->children, ProtoNodeId, i) == id)
      return TRUE;
  return FALSE;
}

static void distribute (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t ahead);

/* Its subtree: its cluster and its children's subtrees; up to its parent,
 * or, at the top, to the other top heads. */
static void
try_gather (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_GATHER)
    return;
  gboolean all = p->heads_known;
  for (guint i = 0; i < p->children->len && all; i++)
    all = find_child_agg (p, g_array_index (p->children, ProtoNodeId, i), p->hr) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
                p->heads_known ? "head_timeout: its subtree goes without the missing heads below it"
                               : "head_timeout: no heads tree yet: it goes alone");
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (Agg));
  g_array_append_val (parts, p->own);
  for (guint i = 0; i < p->child_aggs->len; i++)
    if (g_array_index (p->child_aggs, Agg, i).round == p->hr)
      g_array_append_val (parts, g_array_index (p->child_aggs, Agg, i));
  guint64 total = 0;
  g_autoptr (LearnWeights) subtree = combine (parts, &total);
  p->head_deadline = dl_time_add (p->now, p->cfg.head_timeout);
  if (p->parent != PROTO_NO_NODE && p->heads_known)
    {
      p->phase = HEAD_UP;
      p->up_to = p->parent;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->hr;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, subtree);
      hp_send_link (p, out, p->parent, &m);
      /* kept, in case the global never comes down */
      agg_clear (&p->own);
      p->own = (Agg) { .head = p->id, .round = p->hr, .count = (guint32) MIN (total, G_MAXUINT32),
                       .mean = subtree ? learn_weights_ref (subtree) : NULL };
      return;
    }
  p->phase = HEAD_TOP;
  if (subtree)
    {
      Agg mine = { .head = p->id, .round = p->hr, .count = (guint32) MIN (total, G_MAXUINT32),
                   .mean = learn_weights_ref (subtree) };
      g_array_append_val (p->aggs, mine);
    }
  for (guint i = 0; i < p->heads->len && subtree; i++)
    {
      ProtoNodeId h = g_array_index (p->heads, ProtoNodeId, i);
      if (h == p->id)
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->hr;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, subtree);
      hp_send_link (p, out, h, &m);
    }
  try_top (p, out);
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

/* At the top: the global model from every top head's subtree. */
static void
try_top (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_TOP)
    return;
  gboolean all = p->heads_known;
  for (guint i = 0; i < p->heads->len && all; i++)
    all = agg_for (p, g_array_index (p->heads, ProtoNodeId, i)) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
                "head_timeout: the global model goes without the missing heads");
  /* every top aggregate of this round, listed head or not (a cluster that
   * finished leaves the list after sending its last), and for a listed head
   * without one, its later one (it is ahead: this head catches up) */
  g_autoptr (GArray) mine = g_array_new (FALSE, FALSE, sizeof (Agg));
  uint32_t ahead = p->hr;
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
  guint64 total = 0;
  LearnWeights *global = combine (mine, &total);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->state), (int32_t) p->hr, PROTO_NO_NODE, -1,
                        (int64_t) total, "head: global model of %u subtrees, %" G_GUINT64_FORMAT " updates", mine->len,
                        total);
  distribute (p, out, global, total, ahead);
  if (global)
    learn_weights_unref (global);
}

/* The round's global model down to its children and its members; the next
 * round begins with the updates that came meanwhile. */
static void
distribute (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t ahead)
{
  uint32_t round = p->hr;
  if (global)
    {
      g_clear_pointer (&p->last_global, learn_weights_unref);
      p->last_global = learn_weights_ref (global);
    }
  /* down to its children: those of the tree now, and those that sent it
   * their subtree this round (the tree may have changed since) */
  g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_array_append_vals (kids, p->children->data, p->children->len);
  for (guint i = 0; i < p->child_aggs->len; i++)
    if (g_array_index (p->child_aggs, Agg, i).round == round && !is_child (p, g_array_index (p->child_aggs, Agg, i).head))
      g_array_append_val (kids, g_array_index (p->child_aggs, Agg, i).head);
  for (guint i = 0; i < kids->len && global; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = round;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, global);
      hp_send_link (p, out, g_array_index (kids, ProtoNodeId, i), &m);
    }
  /* its own member part last: it may start a round */
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
  for (guint i = p->child_aggs->len; i > 0; i--)
    if (g_array_index (p->child_aggs, Agg, i - 1).round <= ahead)
      {
        agg_clear (&g_array_index (p->child_aggs, Agg, i - 1));
        g_array_remove_index (p->child_aggs, i - 1);
      }
  agg_clear (&p->own);
  GHashTable *t = p->updates;
  p->updates = p->next_updates;
  p->next_updates = t;
  g_hash_table_remove_all (p->next_updates);
  judge_members (p, out);
  p->hr++;
  p->phase = HEAD_COLLECT;
  p->round_start = p->now;
  p->head_deadline = g_hash_table_size (p->updates)
                     ? dl_time_add (p->now, p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                                            ? p->cfg.round_deadline : p->cfg.head_timeout)
                     : DL_TIME_NEVER;
  if (self && global)
    hp_take_result (p, out, round, global);
  try_collect (p, out);
}

void
hh_take_global (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global)
{
  if (!p->is_head || p->phase != HEAD_UP || round < p->hr)
    {
      hp_observe (p, out, PROTO_OBS_NOTE, p->parent, PROTO_MSG_HIER_RESULT, round,
                  "head: a global model it does not wait for");
      return;
    }
  distribute (p, out, global, 0, MAX (round, p->hr));
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
  if (p->phase == HEAD_COLLECT && p->round_start != DL_TIME_NEVER && p->now >= p->round_start)
    g_hash_table_insert (p->latency, GUINT_TO_POINTER (from + 1),
                         GSIZE_TO_POINTER ((gsize) (p->now - p->round_start) + 1));
  if (p->phase == HEAD_COLLECT && p->head_deadline == DL_TIME_NEVER)
    p->head_deadline = dl_time_add (p->now, p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                                                ? p->cfg.round_deadline : p->cfg.head_timeout);
  if (!is_member (p, from))
    hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, "head: an update from a peer not (yet) listed");
  try_collect (p, out);
}

void
hh_serve_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  if (!p->is_head)
    return;
  /* the latest global model (the initial one if no round ended here yet) */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
  m.round = hh_async (p) ? p->async_version : p->hr_set && p->hr > 0 ? p->hr - 1 : 0;
  m.degree = 0;
  proto_msg_set_weights (&m, p->last_global ? p->last_global : p->initial);
  hp_observe (p, out, PROTO_OBS_SYNC_SERVED, from, PROTO_MSG_HIER_RESULT, -1, NULL);
  hp_send_link (p, out, from, &m);
}

void
hh_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!p->is_head || msg->weights == NULL)
    return;
  if (hh_async (p))
    {
      hh_async_agg (p, out, from, msg->weights);
      return;
    }
  if (p->hr_set && msg->round < p->hr)
    {
      hp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_HIER_AGG, msg->round, "an aggregate of a past round");
      return;
    }
  if (is_child (p, from))
    {
      if (find_child_agg (p, from, msg->round))
        return;
      Agg c = { .head = from, .round = msg->round, .count = msg->degree, .mean = learn_weights_ref (msg->weights) };
      g_array_append_val (p->child_aggs, c);
      try_gather (p, out);
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
  try_top (p, out);
}

void
hh_become (HierPeer *p, ProtoOutbox *out)
{
  if (p->is_head)
    return;
  p->is_head = TRUE;
  hh_clear (p);
  p->round_start = p->now;
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
  if (hh_async (p))
    return;
  try_collect (p, out);
}

void
hh_heads_changed (HierPeer *p, ProtoOutbox *out)
{
  if (hh_async (p))
    return;
  try_gather (p, out);
  try_top (p, out);
}

void
hh_deadline (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->now < p->head_deadline || hh_async (p))
    return;
  if (p->phase == HEAD_COLLECT)
    try_collect (p, out);
  else if (p->phase == HEAD_GATHER)
    try_gather (p, out);
  else if (p->phase == HEAD_TOP)
    try_top (p, out);
  else
    {
      /* HEAD_UP: the global never came down: its members get its subtree's mean */
      hp_observe (p, out, PROTO_OBS_TIMER_FIRED, p->parent, PROTO_MSG_HIER_RESULT, -1,
                  "head_timeout: no global model from its parent: its subtree's mean goes down");
      g_autoptr (LearnWeights) w = p->own.mean ? learn_weights_ref (p->own.mean) : NULL;
      distribute (p, out, w, p->own.count, p->hr);
    }
}
