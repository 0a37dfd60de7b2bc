/* disco-aggregator.c — DISCO's Aggregator, MeanAggregator and
 * SecureAggregator (discojs/src/aggregator/{aggregator,mean,secure}.ts).
 *
 * Followed exactly:
 * - Aggregator.add: validity first (isValidContribution), then _add, then
 *   if isFull(): aggregate(), communicationRound++, and after the last
 *   communication round: communicationRound = 0, round++, contributions
 *   cleared; then emit 'aggregation'.
 * - MeanAggregator.isFull: contributions[0].size >= nodes.size (threshold 1,
 *   relative); every stored contribution counts, also one from a node that
 *   is no longer in the set.  _add ignores the communication round.
 * - SecureAggregator.isFull: contributions[communicationRound].size ===
 *   nodes.size (exactly); aggregate: the sum in communication round 0, the
 *   mean in round 1.  _add refuses communication rounds other than 0 and 1.
 * - setRound only raises; re-adding a node overwrites its entry.
 *
 * One difference, on purpose: DISCO sums the stored contributions in their
 * insertion (arrival) order; dlsim sums them in node-id order, so every peer
 * of a round computes bit-identical weights whatever the arrival order.  The
 * results differ from DISCO's only in float rounding (tested), and no
 * machine decision reads a weight value, so no outcome depends on it.
 *
 * Not modelled: the Byzantine aggregator, DP clipping, absolute thresholds
 * and minNbOfParticipants on the mean aggregator (decentralized tasks never
 * set them). */
#include "config.h"

#include "protocol/disco/disco-aggregator.h"
#include "base/dl-idset.h"
#include "base/dl-idmap.h"

typedef struct {
  ProtoNodeId node;
  LearnWeights *w;
} Contribution;

/* A communication round's contributions: a DlIdMap from the node to its
 * weights (one load per Payload at 1 000 peers all-to-all, where a
 * GHashTable was three cache misses).  Nothing reads their arrival order
 * (combine sums in node-id order), so there is no list beside the map (a
 * Contribution array was 16 bytes a Payload more: issue 44). */
typedef struct {
  DlIdMap by_node;    /* node -> its weights (a reference) */
} Store;

static void
store_init (Store *s)
{
  dl_id_map_init (&s->by_node);
}

static void
store_clear (Store *s)
{
  uint32_t node;
  gpointer w;
  for (guint at = 0; dl_id_map_next (&s->by_node, &at, &node, &w);)
    learn_weights_unref (w);
  dl_id_map_remove_all (&s->by_node);
}

static void
store_free (Store *s)
{
  store_clear (s);
  dl_id_map_clear (&s->by_node);
}

static guint
store_len (const Store *s)
{
  return dl_id_map_size (&s->by_node);
}

static gboolean
store_find (const Store *s, ProtoNodeId node)
{
  return dl_id_map_lookup (&s->by_node, node) != NULL;
}

/* stores node's w, in place of any it had */
static void
store_put (Store *s, ProtoNodeId node, LearnWeights *w)
{
  g_assert (w != NULL);
  LearnWeights *old = dl_id_map_lookup (&s->by_node, node);
  dl_id_map_insert (&s->by_node, node, learn_weights_ref (w));
  if (old)
    learn_weights_unref (old);
}

/* (transfer full) the contributions, in no set order (the weights
 * borrowed) */
static GArray *
store_items (const Store *s)
{
  GArray *c = g_array_sized_new (FALSE, FALSE, sizeof (Contribution), store_len (s));
  Contribution x;
  gpointer w;
  for (guint at = 0; dl_id_map_next (&s->by_node, &at, &x.node, &w);)
    {
      x.w = w;
      g_array_append_val (c, x);
    }
  return c;
}

/* What a Payload reads comes first, in two cache lines (the struct is
 * 64-byte aligned): the kind, the rounds, the node set (whose size is the
 * nodes' count: `nodes` has no duplicates) and the stores.  The count was
 * read from the GArray's own record, a third line apart from the
 * aggregator's three (docs/performance.md, hn23). */
struct DiscoAggregator {
  DiscoAggregation kind;
  uint32_t round;
  guint comm_round;
  guint n_comm_rounds;
  gboolean strict;      /* robust: full = one contribution of this round from each node */
  DlIdSet node_set;     /* the nodes' ids: "is the sender a node" per Payload */
  GArray *nodes;        /* the same ids, ProtoNodeId, in setNodes order */
  Store store[2];
  double max_share_value;
  DlRandom *rng;
  GHashTable *weights;  /* robust, async and mixed: node + 1 -> its weight (a double, boxed) */
  uint32_t weights_round;
};

#define AGG_ALIGN 64
/* the lines a Payload reads */
#define AGG_HOT_BYTES offsetof (DiscoAggregator, max_share_value)
G_STATIC_ASSERT (AGG_HOT_BYTES <= 2 * AGG_ALIGN);

DiscoAggregator *
disco_aggregator_new (DiscoAggregation kind, double max_share_value, DlRandom *rng)
{
  DiscoAggregator *a = g_aligned_alloc0 (1, sizeof (DiscoAggregator), AGG_ALIGN);
  a->kind = kind;
  a->max_share_value = max_share_value;
  a->rng = rng;
  a->nodes = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  dl_id_set_init (&a->node_set);
  a->n_comm_rounds = kind == DISCO_AGG_SECURE ? 2 : 1;
  store_init (&a->store[0]);
  store_init (&a->store[1]);
  a->weights = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  return a;
}

void
disco_aggregator_set_weights (DiscoAggregator *a, uint32_t round, const ProtoNodeId *ids, const double *w, guint n)
{
  g_hash_table_remove_all (a->weights);
  a->weights_round = round;
  for (guint i = 0; i < n; i++)
    g_hash_table_insert (a->weights, GUINT_TO_POINTER (ids[i] + 1), g_memdup2 (&w[i], sizeof w[i]));
}

void
disco_aggregator_free (DiscoAggregator *a)
{
  if (!a)
    return;
  g_array_unref (a->nodes);
  dl_id_set_clear (&a->node_set);
  g_hash_table_unref (a->weights);
  store_free (&a->store[0]);
  store_free (&a->store[1]);
  g_aligned_free (a);
}

void
disco_aggregator_set_nodes (DiscoAggregator *a, const ProtoNodeId *ids, guint n)
{
  g_array_set_size (a->nodes, 0);
  dl_id_set_remove_all (&a->node_set);
  for (guint i = 0; i < n; i++)
    if (dl_id_set_add (&a->node_set, ids[i]))  /* a Set: no duplicates */
      g_array_append_val (a->nodes, ids[i]);
}

guint disco_aggregator_n_nodes (const DiscoAggregator *a) { return dl_id_set_size (&a->node_set); }
ProtoNodeId disco_aggregator_node (const DiscoAggregator *a, guint i) { return g_array_index (a->nodes, ProtoNodeId, i); }
uint32_t disco_aggregator_round (const DiscoAggregator *a) { return a->round; }
guint disco_aggregator_comm_round (const DiscoAggregator *a) { return a->comm_round; }
guint disco_aggregator_n_comm_rounds (const DiscoAggregator *a) { return a->n_comm_rounds; }

gboolean
disco_aggregator_has_node (const DiscoAggregator *a, ProtoNodeId id)
{
  return dl_id_set_contains (&a->node_set, id);
}

void
disco_aggregator_set_round (DiscoAggregator *a, uint32_t round)
{
  if (round > a->round)
    {
      a->round = round;
      if (a->strict)
        {
          /* robust: what is stored belongs to an older round */
          a->comm_round = 0;
          store_clear (&a->store[0]);
          store_clear (&a->store[1]);
        }
    }
}

guint
disco_aggregator_stored (const DiscoAggregator *a, guint comm_round)
{
  return comm_round < 2 ? store_len (&a->store[comm_round]) : 0;
}

gboolean
disco_aggregator_is_valid (const DiscoAggregator *a, ProtoNodeId node, uint32_t round)
{
  /* isWithinRoundCutoff: this.round - round <= roundCutoff (0) */
  return disco_aggregator_has_node (a, node) && (int64_t) a->round - (int64_t) round <= 0;
}

void
disco_aggregator_prefetch (const DiscoAggregator *a, ProtoNodeId node, guint stage)
{
  if (stage == 0)
    {
      for (gsize b = 0; b < AGG_HOT_BYTES; b += AGG_ALIGN)
        __builtin_prefetch ((const char *) a + b);
      return;
    }
  if (node < 64 * (guint64) a->node_set.words)
    __builtin_prefetch (&a->node_set.bits[node >> 6]);
  dl_id_map_prefetch (&a->store[0].by_node, node);
  if (a->kind != DISCO_AGG_MEAN)
    dl_id_map_prefetch (&a->store[1].by_node, node);
}

static gboolean
is_full (const DiscoAggregator *a)
{
  if (a->strict)
    {
      const Store *s = &a->store[a->kind == DISCO_AGG_MEAN ? 0 : a->comm_round];
      for (guint i = 0; i < a->nodes->len; i++)
        if (!store_find (s, g_array_index (a->nodes, ProtoNodeId, i)))
          return FALSE;
      return TRUE;
    }
  switch (a->kind)
    {
    case DISCO_AGG_MEAN:
      return store_len (&a->store[0]) >= disco_aggregator_n_nodes (a);
    case DISCO_AGG_SECURE:
      return store_len (&a->store[a->comm_round]) == disco_aggregator_n_nodes (a);
    }
  g_assert_not_reached ();
}

static gint
cmp_contribution (gconstpointer x, gconstpointer y)
{
  ProtoNodeId a = ((const Contribution *) x)->node, b = ((const Contribution *) y)->node;
  return a < b ? -1 : a > b;
}

/* aggregation.sum / aggregation.avg over every stored contribution, in
 * node-id order (see the file comment). */
static LearnWeights *
combine (const DiscoAggregator *a, const Store *s, gboolean mean)
{
  g_autoptr (GArray) c = store_items (s);
  if (a->strict)   /* robust: only the current nodes' contributions */
    for (guint i = c->len; i > 0; i--)
      if (!disco_aggregator_has_node (a, g_array_index (c, Contribution, i - 1).node))
        g_array_remove_index (c, i - 1);
  g_array_sort (c, cmp_contribution);
  g_autofree LearnWeights **ws = g_new (LearnWeights *, MAX (c->len, 1));
  for (guint i = 0; i < c->len; i++)
    ws[i] = g_array_index (c, Contribution, i).w;
  if (mean && c->len > 0 && g_hash_table_size (a->weights) && a->weights_round == a->round)
    {
      /* sum w x / sum w, in node-id order; equal weights: the plain mean */
      g_autofree double *wt = g_new (double, c->len);
      gboolean equal = TRUE;
      double total = 0;
      for (guint i = 0; i < c->len; i++)
        {
          double *v = g_hash_table_lookup (a->weights, GUINT_TO_POINTER (g_array_index (c, Contribution, i).node + 1));
          wt[i] = v ? *v : 1.0;
          total += wt[i];
          equal &= wt[i] == wt[0];
        }
      if (!equal && total > 0)
        {
          LearnWeights *r = learn_weights_copy (ws[0]);
          learn_weights_scal (r, (float) (wt[0] / total));
          for (guint i = 1; i < c->len; i++)
            learn_weights_axpy (r, (float) (wt[i] / total), ws[i]);
          return r;
        }
    }
  return mean ? learn_weights_mean (ws, c->len) : learn_weights_sum (ws, c->len);
}

LearnWeights *
disco_aggregator_add (DiscoAggregator *a, ProtoNodeId node, LearnWeights *w, uint32_t round,
                      guint comm_round, gboolean *refused)
{
  *refused = FALSE;
  if (!disco_aggregator_is_valid (a, node, round)
      || (a->kind == DISCO_AGG_SECURE && comm_round > 1))
    {
      *refused = TRUE;
      return NULL;
    }
  store_put (&a->store[a->kind == DISCO_AGG_MEAN ? 0 : comm_round], node, w);
  if (disco_aggregator_n_nodes (a) == 0 || !is_full (a))
    return NULL;
  LearnWeights *r;
  if (a->kind == DISCO_AGG_MEAN)
    r = combine (a, &a->store[0], TRUE);
  else
    r = combine (a, &a->store[a->comm_round], a->comm_round == 1);
  a->comm_round++;
  if (a->comm_round == a->n_comm_rounds)
    {
      a->comm_round = 0;
      a->round++;
      store_clear (&a->store[0]);
      store_clear (&a->store[1]);
    }
  return r;
}

LearnWeights **
disco_aggregator_make_payloads (DiscoAggregator *a, LearnWeights *base)
{
  guint n = a->nodes->len;
  LearnWeights **out = g_new0 (LearnWeights *, MAX (n, 1));
  if (a->kind == DISCO_AGG_SECURE && a->comm_round == 0 && n > 1 && !learn_weights_is_symbolic (base))
    {
      /* generateAllShares: n-1 uniform shares, the last completes the sum */
      gsize len = learn_weights_len (base);
      LearnWeights *sum = learn_weights_new (len);
      double mx = a->max_share_value;
      for (guint i = 0; i + 1 < n; i++)
        {
          out[i] = learn_weights_new (len);
          float *d = learn_weights_data_mut (out[i]);
          for (gsize k = 0; k < len; k++)
            d[k] = (float) ((dl_random_uniform (a->rng) * 2 - 1) * mx);
          learn_weights_axpy (sum, 1.0f, out[i]);
        }
      out[n - 1] = learn_weights_copy (base);
      learn_weights_axpy (out[n - 1], -1.0f, sum);
      learn_weights_unref (sum);
      return out;
    }
  for (guint i = 0; i < n; i++)
    out[i] = learn_weights_ref (base);
  return out;
}

void
disco_aggregator_payloads_free (LearnWeights **payloads, guint n)
{
  for (guint i = 0; i < n; i++)
    if (payloads[i])
      learn_weights_unref (payloads[i]);
  g_free (payloads);
}

void
disco_aggregator_abort (DiscoAggregator *a)
{
  a->comm_round = 0;
  store_clear (&a->store[0]);
  store_clear (&a->store[1]);
}

gboolean
disco_aggregator_has_contribution (const DiscoAggregator *a, ProtoNodeId node)
{
  guint c = a->kind == DISCO_AGG_MEAN ? 0 : a->comm_round;
  return c < 2 && store_find (&a->store[c], node);
}

void
disco_aggregator_set_strict (DiscoAggregator *a, gboolean strict)
{
  a->strict = strict;
}
