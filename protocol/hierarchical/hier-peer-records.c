/* hier-peer-records.c — the hierarchical peer's records (hier-peer.c),
 * through hier-peer-private.h: its states' names, lookups in its lists
 * of heads and aggregates, clearing the head's part, its construction and freeing, and
 * the machine's accessors (its drop rule, its next deadline, its view).
 * A leaf: it decides no transition, emits nothing and calls nothing of
 * hier-peer.c or of its other leaves. */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

const char *const _hier_peer_state_names[HIER_PEER_N_STATES] = {
  [HIER_PEER_IDLE] = "idle",
  [HIER_PEER_CONNECTING] = "connecting",
  [HIER_PEER_SYNCING] = "syncing",
  [HIER_PEER_TRAINING] = "training",
  [HIER_PEER_WAIT_HEAD] = "wait-head",
  [HIER_PEER_WAIT_LINK] = "wait-link",
  [HIER_PEER_WAIT_RESULT] = "wait-result",
  [HIER_PEER_DONE] = "done",
  [HIER_PEER_LEFT] = "left",
};

const char *
hier_peer_state_name (HierPeerState s)
{
  return (unsigned) s < HIER_PEER_N_STATES ? _hier_peer_state_names[s] : "?";
}

void
_hier_peer_agg_clear (Agg *a)
{
  g_clear_pointer (&a->mean, learn_weights_unref);
}

void
_hier_peer_head_clear (HierPeer *p)
{
  g_hash_table_remove_all (p->latency);
  g_hash_table_remove_all (p->dropped);
  g_hash_table_remove_all (p->async_sent);
  p->round_start = DL_TIME_NEVER;
  _hier_peer_agg_clear (&p->own);
  for (guint i = 0; i < p->child_aggs->len; i++)
    _hier_peer_agg_clear (&g_array_index (p->child_aggs, Agg, i));
  g_array_set_size (p->child_aggs, 0);
  g_hash_table_remove_all (p->updates);
  g_hash_table_remove_all (p->next_updates);
  for (guint i = 0; i < p->aggs->len; i++)
    _hier_peer_agg_clear (&g_array_index (p->aggs, Agg, i));
  g_array_set_size (p->aggs, 0);
  g_array_set_size (p->top_sent, 0);
  g_array_set_size (p->top_last, 0);
  p->phase = HEAD_COLLECT;
  p->hr_set = FALSE;
  p->head_deadline = DL_TIME_NEVER;
  _hier_peer_async_clear (p);
}

/* id is in ids (ProtoNodeId) */
gboolean
_hier_peer_listed (const GArray *ids, ProtoNodeId id)
{
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, ProtoNodeId, i) == id)
      return TRUE;
  return FALSE;
}

/* head's aggregate of `round` in aggs (Agg), NULL if none */
Agg *
_hier_peer_find_in (GArray *aggs, ProtoNodeId head, uint32_t round)
{
  for (guint i = 0; i < aggs->len; i++)
    {
      Agg *a = &g_array_index (aggs, Agg, i);
      if (a->head == head && a->round == round)
        return a;
    }
  return NULL;
}

/* drop-slowest: is member m not waited for in this round? */
gboolean
_hier_peer_dropped (const HierPeer *p, ProtoNodeId m)
{
  gpointer v = g_hash_table_lookup (p->dropped, GUINT_TO_POINTER (m + 1));
  return v && p->hr < GPOINTER_TO_UINT (v) - 1;
}

/* Top head h, which its subtree of round hr went to, owes it its own: h
 * was in step (in the first round every head is; later, its subtree of
 * the round before was in this head's last global), and has that round
 * (below cfg.rounds): one that finished before this head caught up sends
 * nothing more. */
gboolean
_hier_peer_owes_subtree (const HierPeer *p, ProtoNodeId h)
{
  return (p->hr == 0 || _hier_peer_listed (p->top_last, h)) && p->hr < p->cfg.rounds;
}

/* Head h's aggregate for this round, or, if h is ahead (it was elected
 * earlier, or this head late), its latest later one. */
Agg *
_hier_peer_agg_for (HierPeer *p, ProtoNodeId h)
{
  Agg *best = _hier_peer_find_in (p->aggs, h, p->hr);
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

/* ... the aggregates of rounds up to `ahead` go */
void
_hier_peer_drop_aggs_until (GArray *aggs, uint32_t ahead)
{
  for (guint i = aggs->len; i > 0; i--)
    if (g_array_index (aggs, Agg, i - 1).round <= ahead)
      {
        _hier_peer_agg_clear (&g_array_index (aggs, Agg, i - 1));
        g_array_remove_index (aggs, i - 1);
      }
}

gboolean
_hier_peer_is_async (const HierPeer *p)
{
  return p->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC;
}

void
_hier_peer_async_clear (HierPeer *p)
{
  g_clear_pointer (&p->async_model, learn_weights_unref);
  p->async_version = 0;
  p->async_since_push = 0;
  for (guint i = 0; i < p->async_in->len; i++)
    learn_weights_unref (g_array_index (p->async_in, AsyncIn, i).w);
  g_array_set_size (p->async_in, 0);
}

gboolean
_hier_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const HierPeer *p = impl;
  (void) from;
  gboolean on = p->base.state >= HIER_PEER_SYNCING && p->base.state <= HIER_PEER_DONE;
  switch (type)
    {
    case PROTO_MSG_WELCOME:
      return p->base.state == HIER_PEER_CONNECTING;
    case PROTO_MSG_HIER_CLUSTER:
    case PROTO_MSG_HIER_HEADS:
    case PROTO_MSG_SIGNAL:
    case PROTO_MSG_HIER_PROBE:
    case PROTO_MSG_HIER_PING:
    case PROTO_MSG_HIER_PONG:
      return on;
    case PROTO_MSG_HIER_UPDATE:
    case PROTO_MSG_HIER_AGG:
      return on && p->is_head;
    case PROTO_MSG_HIER_RESULT:
      return p->base.state == HIER_PEER_WAIT_RESULT || p->base.state == HIER_PEER_SYNCING || (on && p->is_head);
    default:
      return FALSE;
    }
}

/* it said hello and waits for its cluster */
gboolean
_hier_peer_awaits_cluster (const HierPeer *p)
{
  return p->epoch == 0 && p->hello_deadline != DL_TIME_NEVER && p->base.connected
         && p->base.state != HIER_PEER_DONE && p->base.state != HIER_PEER_LEFT;
}

DlTime
_hier_peer_next_deadline (const void *impl)
{
  const HierPeer *p = impl;
  DlTime d = p->is_head ? p->head_deadline : DL_TIME_NEVER;
  if (p->base.state == HIER_PEER_CONNECTING)
    d = MIN (d, p->admit_deadline);
  if (p->base.state == HIER_PEER_WAIT_HEAD)
    d = MIN (d, p->stand_deadline);
  if (p->base.state == HIER_PEER_SYNCING)
    d = MIN (d, p->sync_deadline);
  if (_hier_peer_awaits_cluster (p))
    d = MIN (d, p->hello_deadline);
  if (p->pending && p->sent_to != PROTO_NO_NODE && p->sent_to != p->id)
    d = MIN (d, p->result_deadline);
  return d;
}

void
_hier_peer_free (void *impl)
{
  HierPeer *p = impl;
  if (!p)
    return;
  _hier_peer_head_clear (p);
  proto_links_clear (&p->links);
  g_array_unref (p->probes);
  g_array_unref (p->async_in);
  g_hash_table_unref (p->async_sent);
  g_hash_table_unref (p->updates);
  g_hash_table_unref (p->next_updates);
  g_array_unref (p->heads);
  g_array_unref (p->top_sent);
  g_array_unref (p->top_last);
  g_array_unref (p->aggs);
  g_array_unref (p->children);
  g_array_unref (p->child_aggs);
  g_hash_table_unref (p->latency);
  g_hash_table_unref (p->dropped);
  g_array_unref (p->members);
  learn_weights_unref (p->model);
  learn_weights_unref (p->initial);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  g_free (p->region);
  g_free (p);
}

void
_hier_peer_view (const void *impl, ProtoPeerView *v)
{
  const HierPeer *p = impl;
  HierPeerState s = p->base.state;
  v->settled = s == HIER_PEER_DONE || s == HIER_PEER_LEFT;
  v->synced = p->synced;
  /* a member waiting for its head's election or result waits on a peer */
  v->waiting_on_peer = s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT
                      || s == HIER_PEER_SYNCING;
}

gboolean
_hier_peer_waiting_on_peer (const void *impl)
{
  const HierPeer *p = impl;
  HierPeerState s = p->base.state;
  return s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT || s == HIER_PEER_SYNCING;
}

LearnWeights *
_hier_peer_model (const void *impl)
{
  const HierPeer *p = impl;
  return p->model;
}

gboolean
hier_peer_is_head (const ProtoMachine *m)
{
  const HierPeer *p = m->impl;
  return p->is_head;
}

/* a new peer's state (its links: hier-peer-effects.c) */
void
_hier_peer_init (HierPeer *p, const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  proto_machine_base_init (&p->base, _hier_peer_state_names, HIER_PEER_IDLE);
  p->cfg = *cfg;
  p->id = PROTO_NO_NODE;
  p->rng = env->rng;
  p->region = g_strdup (env->region ? env->region : "");
  p->score = hier_score (env);
  p->nat = env->nat_symmetric;
  p->model = learn_weights_ref (env->initial);
  p->initial = learn_weights_ref (env->initial);
  p->sync_from = PROTO_NO_NODE;
  p->sync_deadline = DL_TIME_NEVER;
  p->last_round_end = -1;
  p->head = PROTO_NO_NODE;
  p->sent_to = PROTO_NO_NODE;
  p->result_deadline = DL_TIME_NEVER;
  p->head_deadline = DL_TIME_NEVER;
  p->stand_deadline = DL_TIME_NEVER;
  p->admit_deadline = DL_TIME_NEVER;
  p->hello_deadline = DL_TIME_NEVER;
  p->members = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->probes = g_array_new (FALSE, FALSE, sizeof (Probe));
  p->async_in = g_array_new (FALSE, FALSE, sizeof (AsyncIn));
  p->async_sent = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->updates = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) learn_weights_unref);
  p->next_updates = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) learn_weights_unref);
  p->heads = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->top_sent = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->top_last = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->aggs = g_array_new (FALSE, TRUE, sizeof (Agg));
  p->parent = PROTO_NO_NODE;
  p->up_to = PROTO_NO_NODE;
  p->children = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->child_aggs = g_array_new (FALSE, TRUE, sizeof (Agg));
  p->latency = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->round_start = DL_TIME_NEVER;
}
gint
hier_cmp_id (gconstpointer a, gconstpointer b)
{
  return proto_node_id_cmp (a, b);
}

guint32
hier_score (const ProtoPeerEnv *env)
{
  double s = env->speed * ((double) env->uplink_bps / 1e6) * 1000.0;
  return s >= (double) G_MAXUINT32 ? G_MAXUINT32 : (guint32) MAX (s, 1.0);
}
