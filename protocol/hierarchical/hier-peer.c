/* hier-peer.c — the hierarchical family's peer (hier.h): the member's
 * part, the head's part and the asynchronous policies, every transition in
 * `static` handlers.  The arithmetic (cluster means, the count-weighted
 * mean of aggregates, staleness blends) is a leaf, hier-mix.c; the links
 * are protocol/session/session-links.h.  Its leaves, which it calls and
 * which never call it (hier-peer-private.h): hier-peer-effects.c
 * (observations, sends, the messages it encodes), hier-peer-records.c
 * (lookups, clearing, construction, the machine's accessors) and
 * hier-peer-policies.c (the straggler policies' bookkeeping).
 *
 * A member: connect, HierHello (its score and region: a node knows its own
 * host), train; stand in each election of its cluster (HierCandidacy);
 * once trained, its model goes to its head as HierUpdate over a link (to
 * itself without a message if it is the head) and it waits for the
 * HierResult, which becomes its model and ends the round.  A member that
 * gets no result 3 x head_timeout after its update (a head may wait
 * head_timeout for its members, then as long for the other heads), or
 * loses the link to its head, stands for the next epoch (the coordinator then elects a new head);
 * its trained model goes again to whichever head the election gives.
 * Links: protocol/session/session-links.h (the session layer's signalling through the
 * coordinator). */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <string.h>

/* the head's part and the asynchronous policies (below) */
static void async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
static void async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
static gboolean mixed_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
static void head_become (HierPeer *p, ProtoOutbox *out);
static void head_resign (HierPeer *p, ProtoOutbox *out);
static void head_members_changed (HierPeer *p, ProtoOutbox *out);
static void head_heads_changed (HierPeer *p, ProtoOutbox *out);
static void head_take_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
static void head_serve_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from);
static void head_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
static void head_timer (HierPeer *p, ProtoOutbox *out);
static void head_take_global (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global);

/* ---- links (protocol/session/session-links.h) ---- */

/* ---- round trips to landmarks (cluster_by = latency; the coordinator's
 * side is in hier-coord.c) ---- */

static void
on_probe (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  /* as a landmark: the links its probers will ping over */
  for (guint j = 0; j < msg->n_indices; j++)
    if (msg->indices[j] != p->id)
      _hier_peer_open_link (p, out, msg->indices[j]);
  for (guint i = 0; i < msg->n_peers; i++)
    {
      Probe q = { .landmark = msg->peers[i], .index = msg->round + i, .sent = DL_TIME_NEVER };
      if (q.landmark == p->id || q.landmark == PROTO_NO_NODE)
        continue;
      g_array_append_val (p->probes, q);
      Probe *at = &g_array_index (p->probes, Probe, p->probes->len - 1);
      if (proto_links_is_up (&p->links, q.landmark))
        _hier_peer_probe_ping (p, out, at);
      else
        _hier_peer_open_link (p, out, q.landmark);
    }
}

static void
on_pong (HierPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  for (guint i = 0; i < p->probes->len; i++)
    {
      Probe *q = &g_array_index (p->probes, Probe, i);
      if (q->landmark == from && q->index == msg->round && q->sent != DL_TIME_NEVER)
        {
          _hier_peer_probe_report (p, out, i, (guint64) (p->now - q->sent));
          return;
        }
    }
}

/* ---- the member ---- */

static void
start_training (HierPeer *p, ProtoOutbox *out)
{
  p->pending = FALSE;
  p->sent_to = PROTO_NO_NODE;
  p->result_deadline = DL_TIME_NEVER;
  _hier_peer_set_state (p, out, HIER_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->base.rounds_done;
}

static void
stand (HierPeer *p, ProtoOutbox *out, uint32_t epoch)
{
  if (p->candidacy_epoch >= epoch)
    return;
  p->candidacy_epoch = epoch;
  p->stand_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_CANDIDACY);
  m.round = epoch;
  m.degree = p->score;
  m.helper = !p->nat;   /* a peer behind symmetric NAT cannot be linked by others behind one: not a head */
  _hier_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

/* The trained model to the current head, if there is one (again, if the
 * head changed since it was sent). */
static void
send_update (HierPeer *p, ProtoOutbox *out)
{
  if (!p->pending || p->base.state == HIER_PEER_DONE || p->base.state == HIER_PEER_LEFT)
    return;
  if (p->head == PROTO_NO_NODE)
    {
      _hier_peer_set_state (p, out, HIER_PEER_WAIT_HEAD);
      return;
    }
  if (p->sent_to == p->head)
    return;
  p->sent_to = p->head;
  /* the head may take head_timeout to collect and as long to exchange */
  p->result_deadline = dl_time_add (p->now, dl_time_mul (hier_config (&p->cfg)->head_timeout, 3));
  if (p->head == p->id)
    {
      _hier_peer_set_state (p, out, HIER_PEER_WAIT_RESULT);
      if (_hier_peer_is_async (p))
        async_update (p, out, p->id, p->base_version, p->model);
      else if (!mixed_update (p, out, p->id, p->base_version, p->model))
        head_take_update (p, out, p->id, p->model);
      return;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_UPDATE);
  /* async: the version of the head's model it trained from (straggler_policy = async, below) */
  m.round = _hier_peer_is_async (p) || p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED ? p->base_version
                                                                                   : p->base.rounds_done;
  m.degree = 1;
  proto_msg_set_weights (&m, p->model);
  _hier_peer_set_state (p, out, proto_links_is_up (&p->links, p->head) ? HIER_PEER_WAIT_RESULT : HIER_PEER_WAIT_LINK);
  _hier_peer_send_link (p, out, p->head, &m);
}

static void
finish (HierPeer *p, ProtoOutbox *out)
{
  _hier_peer_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->base.rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      proto_links_close_all (&p->links, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->base.connected = FALSE;
      p->is_head = FALSE;
      _hier_peer_set_state (p, out, HIER_PEER_LEFT);
      return;
    }
  /* it stays: no more updates of its (a head keeps heading) */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  m.helper = TRUE;
  _hier_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  _hier_peer_set_state (p, out, HIER_PEER_DONE);
}

static void
take_result (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global)
{
  if (!p->pending)
    return;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (global);
  p->base_version = round;
  p->base.rounds_done++;
  /* async: `round` is the head's version, not a round */
  p->last_round_end = _hier_peer_is_async (p) ? p->last_round_end + 1 : MAX ((int32_t) round, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, _hier_peer_state_names[p->base.state], p->last_round_end, p->sent_to,
                        -1, 1, "the global model from head p%u", p->sent_to);
  p->pending = FALSE;
  if (p->base.rounds_done >= p->cfg.rounds)
    finish (p, out);
  else
    start_training (p, out);
}

/* The head is lost (no result in time, or its link): stand for the next epoch. */
static void
head_lost (HierPeer *p, ProtoOutbox *out, const char *why)
{
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, p->head, -1, p->epoch, why);
  if (p->head == p->id)
    return;
  p->head = PROTO_NO_NODE;
  p->sent_to = PROTO_NO_NODE;
  p->result_deadline = DL_TIME_NEVER;
  stand (p, out, p->epoch + 1);
  if (p->pending)
    _hier_peer_set_state (p, out, HIER_PEER_WAIT_HEAD);
}

/* A late joiner asks `from` (a head) for the latest global model. */
static void
ask_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  if (p->base.state != HIER_PEER_SYNCING || from == PROTO_NO_NODE || from == p->id || p->sync_from == from)
    return;
  p->sync_from = from;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_UPDATE);
  m.degree = 0;   /* no model: a request for the latest global */
  _hier_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, from, PROTO_MSG_HIER_UPDATE, -1, NULL);
  _hier_peer_send_link (p, out, from, &m);
}

static void
on_cluster (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (msg->round < p->epoch)
    return;
  p->epoch = msg->round;
  g_array_set_size (p->members, 0);
  g_array_append_vals (p->members, msg->peers, msg->n_peers);
  ProtoNodeId was = p->head;
  p->head = msg->node;
  if (p->head == PROTO_NO_NODE)
    {
      if (p->is_head)
        head_resign (p, out);
      stand (p, out, p->epoch);
      if (p->pending && p->base.state != HIER_PEER_WAIT_HEAD)
        {
          p->sent_to = PROTO_NO_NODE;
          _hier_peer_set_state (p, out, HIER_PEER_WAIT_HEAD);
        }
      return;
    }
  if (p->head == p->id)
    head_become (p, out);
  else if (p->is_head)
    head_resign (p, out);
  if (p->is_head)
    {
      /* both ends open a link; the larger id offers (a smaller head's members offer to it) */
      for (guint i = 0; i < p->members->len; i++)
        {
          ProtoNodeId m = g_array_index (p->members, ProtoNodeId, i);
          if (m != p->id)
            _hier_peer_open_link (p, out, m);
        }
      head_members_changed (p, out);
    }
  if (was != p->head && p->head != p->id)
    _hier_peer_open_link (p, out, p->head);   /* ready before the update needs it */
  if (p->base.state == HIER_PEER_SYNCING)
    {
      /* from its head, or, heading a cluster of its own, from another
       * head once it knows them (HierHeads) */
      if (p->head != p->id)
        ask_sync (p, out, p->head);
      return;
    }
  send_update (p, out);
}

/* ---- the head's part ----
 *
 * A round at a head:
 *   collect: one HierUpdate from every member the coordinator _hier_peer_listed (its
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

static void try_gather (HierPeer *p, ProtoOutbox *out);
static void try_top (HierPeer *p, ProtoOutbox *out);

static void
start_exchange (HierPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  _hier_peer_agg_clear (&p->own);
  p->own = (Agg) { .head = p->id, .round = p->hr,
                   .mean = _hier_peer_mixed_blend (p, out, hier_mix_mean (p->updates, &n)) };
  p->own.count = n;
  p->phase = HEAD_GATHER;
  p->head_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, PROTO_NO_NODE, -1, n,
                        "head: cluster mean of %u updates", n);
  try_gather (p, out);
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
      all = _hier_peer_dropped (p, m) || g_hash_table_contains (p->updates, GUINT_TO_POINTER (m + 1));
    }
  if (all || p->now >= p->head_deadline)
    {
      if (!all)
        _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_UPDATE,
                    g_hash_table_size (p->updates),
                    p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                    ? "round_deadline: the cluster's mean goes without the members still training"
                    : "head_timeout: the cluster's mean goes without the missing members");
      start_exchange (p, out);
    }
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
    all = _hier_peer_find_in (p->child_aggs, g_array_index (p->children, ProtoNodeId, i), p->hr) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
                p->heads_known ? "head_timeout: its subtree goes without the missing heads below it"
                               : "head_timeout: no heads tree yet: it goes alone");
  if (!p->heads_known)
    _hier_peer_say_hello (p, out);   /* the tree may have been lost: the coordinator sends it again (hier-coord.c) */
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (Agg));
  g_array_append_val (parts, p->own);
  for (guint i = 0; i < p->child_aggs->len; i++)
    if (g_array_index (p->child_aggs, Agg, i).round == p->hr)
      g_array_append_val (parts, g_array_index (p->child_aggs, Agg, i));
  guint64 total = 0;
  g_autoptr (LearnWeights) subtree = hier_mix_combine (parts, &total);
  p->head_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
  if (p->parent != PROTO_NO_NODE && p->heads_known)
    {
      p->phase = HEAD_UP;
      p->up_to = p->parent;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->hr;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, subtree);
      _hier_peer_send_link (p, out, p->parent, &m);
      /* kept, in case the global never comes down */
      _hier_peer_agg_clear (&p->own);
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
  g_array_set_size (p->top_sent, 0);
  for (guint i = 0; i < p->heads->len && subtree; i++)
    _hier_peer_send_top (p, out, g_array_index (p->heads, ProtoNodeId, i), subtree, (guint32) MIN (total, G_MAXUINT32));
  try_top (p, out);
}

/* At the top: the global model from every top head's subtree: of each
 * listed head, and of each its own went to that owes it (top_sent,
 * owes_subtree), listed or not.  A cluster whose members all finished
 * leaves the list (hier-coord.c: send_heads) once its head sent its last
 * subtree, and the news, through the coordinator, can come before that
 * subtree over a slower link: the round went without it, with no fault at
 * all (protocol/hierarchical/scenarios/hier-finished-head-awaited.ini). */
static void
try_top (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_TOP)
    return;
  gboolean all = p->heads_known;
  for (guint i = 0; i < p->heads->len && all; i++)
    all = _hier_peer_agg_for (p, g_array_index (p->heads, ProtoNodeId, i)) != NULL;
  for (guint i = 0; i < p->top_sent->len && all; i++)
    all = !_hier_peer_owes_subtree (p, g_array_index (p->top_sent, ProtoNodeId, i))
          || _hier_peer_agg_for (p, g_array_index (p->top_sent, ProtoNodeId, i)) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
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
      Agg *a = _hier_peer_find_in (p->aggs, h, p->hr) ? NULL : _hier_peer_agg_for (p, h);
      if (a)
        {
          g_array_append_val (mine, *a);
          ahead = MAX (ahead, a->round);
        }
    }
  g_array_set_size (p->top_last, 0);
  for (guint i = 0; i < mine->len; i++)
    if (g_array_index (mine, Agg, i).head != p->id && g_array_index (mine, Agg, i).round == ahead)
      g_array_append_val (p->top_last, g_array_index (mine, Agg, i).head);
  guint64 total = 0;
  LearnWeights *global = hier_mix_combine (mine, &total);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, PROTO_NO_NODE, -1,
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
  _hier_peer_send_to_children (p, out, global, total, round);
  /* its own member part last: it may start a round */
  gboolean self = _hier_peer_send_to_members (p, out, global, total, round);
  if (ahead > round)
    _hier_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, ahead,
                "head: the other heads are ahead: it catches up with their round");
  p->hr = ahead;
  _hier_peer_drop_aggs_until (p->aggs, ahead);
  _hier_peer_drop_aggs_until (p->child_aggs, ahead);
  _hier_peer_agg_clear (&p->own);
  GHashTable *t = p->updates;
  p->updates = p->next_updates;
  p->next_updates = t;
  g_hash_table_remove_all (p->next_updates);
  _hier_peer_judge_members (p, out);
  p->hr++;
  p->phase = HEAD_COLLECT;
  p->round_start = p->now;
  p->head_deadline = g_hash_table_size (p->updates)
                     ? dl_time_add (p->now, p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                                            ? p->cfg.round_deadline : hier_config (&p->cfg)->head_timeout)
                     : DL_TIME_NEVER;
  if (self && global)
    take_result (p, out, round, global);
  try_collect (p, out);
}

static void
head_take_global (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global)
{
  if (!p->is_head || p->phase != HEAD_UP || round < p->hr)
    {
      _hier_peer_observe (p, out, PROTO_OBS_NOTE, p->parent, PROTO_MSG_HIER_RESULT, round,
                  "head: a global model it does not wait for");
      return;
    }
  distribute (p, out, global, 0, MAX (round, p->hr));
}

static void
head_take_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w)
{
  if (!p->is_head)
    return;
  if (!p->hr_set)
    {
      p->hr = p->base.rounds_done;   /* a new head starts at its own round */
      p->hr_set = TRUE;
    }
  GHashTable *into = p->phase == HEAD_COLLECT ? p->updates : p->next_updates;
  g_hash_table_insert (into, GUINT_TO_POINTER (from + 1), learn_weights_ref (w));
  if (p->phase == HEAD_COLLECT && p->round_start != DL_TIME_NEVER && p->now >= p->round_start)
    g_hash_table_insert (p->latency, GUINT_TO_POINTER (from + 1),
                         GSIZE_TO_POINTER ((gsize) (p->now - p->round_start) + 1));
  if (p->phase == HEAD_COLLECT && p->head_deadline == DL_TIME_NEVER)
    p->head_deadline = dl_time_add (p->now, p->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE
                                                ? p->cfg.round_deadline : hier_config (&p->cfg)->head_timeout);
  if (!_hier_peer_listed (p->members, from))
    _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1,
                        "head: an update from a peer not (yet) listed");
  try_collect (p, out);
}

static void
head_serve_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  if (!p->is_head)
    return;
  /* the latest global model (the initial one if no round ended here yet) */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
  m.round = _hier_peer_is_async (p) ? p->async_version : p->hr_set && p->hr > 0 ? p->hr - 1 : 0;
  m.degree = 0;
  proto_msg_set_weights (&m, p->last_global ? p->last_global : p->initial);
  _hier_peer_observe (p, out, PROTO_OBS_SYNC_SERVED, from, PROTO_MSG_HIER_RESULT, -1, NULL);
  _hier_peer_send_link (p, out, from, &m);
}

static void
head_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!p->is_head || msg->weights == NULL)
    return;
  if (_hier_peer_is_async (p))
    {
      async_agg (p, out, from, msg->weights);
      return;
    }
  if (p->hr_set && msg->round < p->hr)
    {
      _hier_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_HIER_AGG, msg->round,
                          "an aggregate of a past round");
      return;
    }
  if (_hier_peer_listed (p->children, from))
    {
      if (_hier_peer_find_in (p->child_aggs, from, msg->round))
        return;
      Agg c = { .head = from, .round = msg->round, .count = msg->degree, .mean = learn_weights_ref (msg->weights) };
      g_array_append_val (p->child_aggs, c);
      try_gather (p, out);
      return;
    }
  if (_hier_peer_find_in (p->aggs, from, msg->round))
    return;
  if (p->phase == HEAD_COLLECT && (!p->hr_set || msg->round > p->hr))
    {
      /* the other heads are ahead (this head was elected late): catch up,
       * this round's updates count for theirs */
      _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, msg->round,
                  "head: the other heads are at this round: it catches up");
      p->hr = msg->round;
      p->hr_set = TRUE;
    }
  Agg a = { .head = from, .round = msg->round, .count = msg->degree, .mean = learn_weights_ref (msg->weights) };
  g_array_append_val (p->aggs, a);
  try_top (p, out);
}

static void
head_become (HierPeer *p, ProtoOutbox *out)
{
  if (p->is_head)
    return;
  p->is_head = TRUE;
  _hier_peer_head_clear (p);
  p->round_start = p->now;
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "becomes its cluster's head");
}

static void
head_resign (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head)
    return;
  p->is_head = FALSE;
  _hier_peer_head_clear (p);
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "is no longer head");
}

static void
head_members_changed (HierPeer *p, ProtoOutbox *out)
{
  if (_hier_peer_is_async (p))
    return;
  try_collect (p, out);
}

static void
head_heads_changed (HierPeer *p, ProtoOutbox *out)
{
  if (_hier_peer_is_async (p))
    return;
  /* at the top, its subtree to the heads listed since it went out: the
   * tree came after it went alone at head_timeout, or a head was elected
   * since (protocol/hierarchical/scenarios/hier-late-tree.ini) */
  Agg *own = p->is_head && p->phase == HEAD_TOP ? _hier_peer_find_in (p->aggs, p->id, p->hr) : NULL;
  for (guint i = 0; own && own->mean && i < p->heads->len; i++)
    _hier_peer_send_top (p, out, g_array_index (p->heads, ProtoNodeId, i), own->mean, own->count);
  try_gather (p, out);
  try_top (p, out);
}

static void
head_timer (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->now < p->head_deadline || _hier_peer_is_async (p))
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
      _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, p->parent, PROTO_MSG_HIER_RESULT, -1,
                  "head_timeout: no global model from its parent: its subtree's mean goes down");
      g_autoptr (LearnWeights) w = p->own.mean ? learn_weights_ref (p->own.mean) : NULL;
      distribute (p, out, w, p->own.count, p->hr);
    }
}

/* ---- `straggler_policy = async` at a head: FedAsync at each head (Xie,
 * Koyejo and Gupta, "Asynchronous Federated Optimization", 2019) and
 * asynchronous gossip
 * among the heads.  Nobody waits for anybody.
 *
 * - The head keeps its cluster's model x and a version (how many
 *   contributions it has mixed in).  A member's HierUpdate carries the
 *   version of the model it trained from (its last HierResult's round).
 * - The head mixes it in at once, x <- x + w (x_m - x), with the gossip
 *   family's weight w = async_mix x (1 + s)^-staleness_exponent, s = the
 *   head's version - the member's; the version goes up, and that member
 *   alone gets HierResult(version, x): its round ends and it trains again
 *   from x.
 * - After as many mixed updates as its cluster has active members (about
 *   one per member), the head pushes x as HierAgg to every head it knows in
 *   the tree (the top heads, its parent, its children); a head mixes a
 *   pushed model in with weight async_mix (heads' versions do not compare:
 *   no staleness between heads).
 * - A late joiner syncs x.
 * Models differ between clusters and within them over time, so the family
 * promises no agreement under async (hier-family.c). */

/* A member's answer: the model w (HierResult), to itself without a message. */
static void
answer (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, uint32_t round, LearnWeights *w)
{
  if (to == p->id)
    {
      take_result (p, out, round, w);
      return;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
  m.round = round;
  m.degree = 1;
  proto_msg_set_weights (&m, w);
  _hier_peer_send_link (p, out, to, &m);
}

static void
async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  _hier_peer_model_of (p);
  guint s = p->async_version > base ? p->async_version - base : 0;
  double weight = hier_mix_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, s);
  _hier_peer_take (p, w, weight);
  char detail[96];
  g_snprintf (detail, sizeof detail, "async: mixed in at staleness %u, weight %.3f: version %u", s, weight,
              p->async_version);
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
  answer (p, out, from, p->async_version, p->async_model);
  if (++p->async_since_push >= MAX (p->members->len, 1))
    _hier_peer_push (p, out);
}

static void
async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  _hier_peer_take (p, w, p->cfg.async_mix);
  char detail[80];
  g_snprintf (detail, sizeof detail, "async: another head's model mixed in: version %u", p->async_version);
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, -1, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
}

/* ---- straggler_policy = mixed ----
 *
 * Synchronous rounds among the members of similar speed, asynchronous for
 * the slow: at a round's end the head judges its members as drop-slowest
 * does (an update later than drop_factor x the round's median); a slow
 * member is no longer waited for, and its updates are taken
 * asynchronously: the head answers it at once with the latest global model
 * (it trains again without waiting for the round), and mixes the update
 * into its next cluster mean with the staleness weight
 * async_mix x (1 + s)^-staleness_exponent, s = the rounds since the global
 * it trained from.  An update that comes within drop_factor x the last
 * median of the model the head last sent it makes it synchronous again (as
 * the gossip family's mixed). */

static gboolean
mixed_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w)
{
  if (p->cfg.straggler_policy != PROTO_STRAGGLER_MIXED || !p->is_head || !_hier_peer_dropped (p, from) || w == NULL)
    return FALSE;
  gpointer sent = g_hash_table_lookup (p->async_sent, GUINT_TO_POINTER (from + 1));
  if (sent && p->last_median > 0)
    {
      DlTime took = p->now - ((DlTime) GPOINTER_TO_SIZE (sent) - 1);
      if ((double) took <= p->cfg.drop_factor * (double) p->last_median)
        {
          /* fast again: synchronous from this update on */
          g_hash_table_remove (p->dropped, GUINT_TO_POINTER (from + 1));
          g_hash_table_remove (p->async_sent, GUINT_TO_POINTER (from + 1));
          char d[96];
          g_snprintf (d, sizeof d, "mixed: fast again (%.3f s from its last model): synchronous", dl_time_to_s (took));
          _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, d);
          return FALSE;
        }
    }
  g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) p->now + 1));
  guint s = p->hr > base + 1 ? p->hr - base - 1 : 0;
  AsyncIn a = { .from = from, .stale = s, .w = learn_weights_ref (w) };
  g_array_append_val (p->async_in, a);
  char detail[96];
  g_snprintf (detail, sizeof detail, "mixed: a slow member's update, %u rounds stale, for the next cluster mean", s);
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  /* the latest global at once: it trains again without waiting for the round */
  uint32_t round = p->hr > 0 ? p->hr - 1 : 0;
  LearnWeights *g = p->last_global ? p->last_global : p->initial;
  answer (p, out, from, round, g);
  return TRUE;
}

/* ---- the machine ---- */

/* NewNodeInfo: admitted, its id; it says hello, and trains (or syncs
 * first, a late joiner) */
static void
on_new_node_info (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  p->id = msg->node;
  p->links.self = p->id;
  _hier_peer_say_hello (p, out);
  if (msg->joined_mid_training)
    {
      /* the clusters formed before it came: the latest global model
       * from its head before it trains (as DISCO's model sync) */
      _hier_peer_set_state (p, out, HIER_PEER_SYNCING);
      p->sync_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
    }
  else
    start_training (p, out);
}

/* HierHeads: the heads tree (a head's): top heads, parent, children */
static void
on_heads (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  g_array_set_size (p->heads, 0);
  g_array_append_vals (p->heads, msg->peers, msg->n_peers);
  p->heads_expected = msg->degree;
  p->heads_known = TRUE;
  p->parent = msg->node;
  g_array_set_size (p->children, 0);
  g_array_append_vals (p->children, msg->indices, msg->n_indices);
  {
    /* links to whoever it exchanges with: top heads, parent, children */
    g_autoptr (GArray) peers = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
    g_array_append_vals (peers, p->heads->data, p->heads->len);
    g_array_append_vals (peers, p->children->data, p->children->len);
    if (p->parent != PROTO_NO_NODE)
      g_array_append_val (peers, p->parent);
    for (guint i = 0; i < peers->len; i++)
      {
        ProtoNodeId h = g_array_index (peers, ProtoNodeId, i);
        if (h != p->id)
          _hier_peer_open_link (p, out, h);
      }
  }
  if (p->base.state == HIER_PEER_SYNCING && p->is_head)
    {
      /* a late joiner heading its own cluster syncs from its parent, or a top head */
      ProtoNodeId from = p->parent;
      for (guint i = 0; i < p->heads->len && from == PROTO_NO_NODE; i++)
        if (g_array_index (p->heads, ProtoNodeId, i) != p->id)
          from = g_array_index (p->heads, ProtoNodeId, i);
      if (from == PROTO_NO_NODE && msg->key <= G_MAXUINT32)
        from = (ProtoNodeId) msg->key;   /* a finished cluster's head */
      ask_sync (p, out, from);
    }
  head_heads_changed (p, out);
}

/* HierUpdate at a head: a late joiner's sync request (degree 0), or a
 * member's model by the straggler policy */
static void
on_update (HierPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (msg->degree == 0)
    head_serve_sync (p, out, from);   /* a late joiner's request */
  else if (msg->weights && _hier_peer_is_async (p))
    async_update (p, out, from, msg->round, msg->weights);
  else if (msg->weights && mixed_update (p, out, from, msg->round, msg->weights))
    ;
  else if (msg->weights)
    head_take_update (p, out, from, msg->weights);
}

/* HierResult: the model it syncs from, a head's global model from its
 * parent, or its round's result from its head */
static void
on_result (HierPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (p->base.state == HIER_PEER_SYNCING)
    {
      if (from != p->sync_from || msg->weights == NULL || msg->degree != 0)
        return;
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (msg->weights);
      p->synced = TRUE;
      p->base_version = msg->round;
      _hier_peer_observe (p, out, PROTO_OBS_SYNC_DONE, from, PROTO_MSG_HIER_RESULT, msg->round, NULL);
      start_training (p, out);
      return;
    }
  if (p->is_head && (from == p->parent || from == p->up_to) && from != PROTO_NO_NODE && msg->weights)
    {
      head_take_global (p, out, msg->round, msg->weights);
      return;
    }
  if (from != p->sent_to || msg->weights == NULL)
    {
      _hier_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
                  "a result from another head than the one that has its update");
      return;
    }
  take_result (p, out, msg->round, msg->weights);
}

/* HierPing: answered with a HierPong of its round */
static void
on_ping (HierPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PONG);
  m.round = msg->round;
  _hier_peer_send_link (p, out, from, &m);
}

/* A message: counted, dropped unless it listens for it (_hier_peer_listens),
 * then one handler per type. */
static void
handle_message (HierPeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->base.received[msg->type]++;
  if (!_hier_peer_listens (p, msg->type, in->from))
    {
      _hier_peer_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  _hier_peer_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_WELCOME:
      on_new_node_info (p, msg, out);
      break;
    case PROTO_MSG_HIER_CLUSTER:
      on_cluster (p, msg, out);
      break;
    case PROTO_MSG_HIER_HEADS:
      on_heads (p, msg, out);
      break;
    case PROTO_MSG_HIER_UPDATE:
      on_update (p, in->from, msg, out);
      break;
    case PROTO_MSG_HIER_AGG:
      head_take_agg (p, out, in->from, msg);
      break;
    case PROTO_MSG_HIER_RESULT:
      on_result (p, in->from, msg, out);
      break;
    case PROTO_MSG_SIGNAL:
      proto_links_signal (&p->links, out, msg);
      break;
    case PROTO_MSG_HIER_PROBE:
      on_probe (p, msg, out);
      break;
    case PROTO_MSG_HIER_PING:
      on_ping (p, in->from, msg, out);
      break;
    case PROTO_MSG_HIER_PONG:
      on_pong (p, in->from, msg, out);
      break;
    default:
      break;
    }
}

static void
link_up (HierPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  if (!proto_links_up (&p->links, out, other))
    return;
  if (p->base.state == HIER_PEER_WAIT_LINK && other == p->head)
    _hier_peer_set_state (p, out, HIER_PEER_WAIT_RESULT);
  for (guint i = 0; i < p->probes->len; i++)
    {
      Probe *q = &g_array_index (p->probes, Probe, i);
      if (q->landmark == other && q->sent == DL_TIME_NEVER)
        _hier_peer_probe_ping (p, out, q);
    }
}

static void
link_lost (HierPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  _hier_peer_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  for (guint i = p->probes->len; i-- > 0;)
    if (g_array_index (p->probes, Probe, i).landmark == other)
      _hier_peer_probe_report (p, out, i, G_MAXUINT64);
  if (other == p->head && p->pending)
    head_lost (p, out, "the link to the head is lost");
}

/* The deadline input: each timer that is due fires. */
static void
on_deadline (HierPeer *p, DlTime now, ProtoOutbox *out)
{
  head_timer (p, out);
  if (p->base.state == HIER_PEER_CONNECTING && now >= p->admit_deadline)
    {
      _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_WELCOME, -1,
                  "head_timeout: no NewNodeInfo: says ClientConnected again");
      _hier_peer_say_connected (p, out);
    }
  if (_hier_peer_awaits_cluster (p) && now >= p->hello_deadline)
    {
      _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_HIER_CLUSTER, -1,
                  "head_timeout: no cluster announced: says HierHello again");
      _hier_peer_say_hello (p, out);
    }
  if (p->base.state == HIER_PEER_SYNCING && now >= p->sync_deadline)
    {
      _hier_peer_observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_HIER_RESULT, -1,
                  "head_timeout: no model from the head: trains from its own");
      start_training (p, out);
    }
  if (p->base.state == HIER_PEER_WAIT_HEAD && now >= p->stand_deadline)
    {
      /* no head announced in head_timeout: its candidacy, or the
       * announcement, may have been lost (a partition); it stands again
       * and the coordinator says where things are */
      _hier_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_HIER_CANDIDACY, p->candidacy_epoch,
                  "no head announced: stands again");
      uint32_t e = p->candidacy_epoch;
      p->candidacy_epoch = e ? e - 1 : 0;
      stand (p, out, MAX (e, 1));
    }
  if (p->pending && p->sent_to != PROTO_NO_NODE && p->sent_to != p->id && now >= p->result_deadline)
    {
      /* a link to the head that never came up (its signalling was
       * lost: a partition) is dropped, so that an update to the same
       * head, re-elected, opens a new one instead of queueing behind
       * it for good (protocol/hierarchical/scenarios/hier-link-never-up.ini) */
      if (proto_links_get (&p->links, p->sent_to, NULL) && !proto_links_is_up (&p->links, p->sent_to))
        {
          _hier_peer_observe (p, out, PROTO_OBS_LINK, p->sent_to, -1, -1, "never came up: dropped");
          proto_links_lost (&p->links, out, p->sent_to);
        }
      head_lost (p, out, "head_timeout: no result from the head");
    }
}

/* The coordinator stream closed, or the peer leaves: it drops every link
 * and its cluster. */
static void
on_leave (HierPeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  if (!p->base.connected)
    return;
  proto_links_close_all (&p->links, out);
  if (in->kind == PROTO_IN_LEAVE)
    proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
  p->base.connected = FALSE;
  p->is_head = FALSE;
  _hier_peer_head_clear (p);
  g_array_set_size (p->probes, 0);
  _hier_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
              in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
  _hier_peer_set_state (p, out, HIER_PEER_LEFT);
}

/* its start: connects (ClientConnected) */
static void
on_start (HierPeer *p, ProtoOutbox *out)
{
  if (p->base.state != HIER_PEER_IDLE)
    return;
  p->base.connected = TRUE;
  _hier_peer_say_connected (p, out);
  _hier_peer_set_state (p, out, HIER_PEER_CONNECTING);
}

/* its training done: the update goes to its head */
static void
on_trained (HierPeer *p, LearnWeights *weights, ProtoOutbox *out)
{
  if (p->base.state != HIER_PEER_TRAINING || weights == NULL)
    return;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (weights);
  p->pending = TRUE;
  send_update (p, out);
}

static void
peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  HierPeer *p = impl;
  p->now = now;
  DlTime before = _hier_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (p, out);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, in, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (p, now, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      on_trained (p, in->weights, out);
      break;
    case PROTO_IN_LINK_UP:
      link_up (p, out, in->from);
      break;
    case PROTO_IN_LINK_FAILED:
      if (proto_links_get (&p->links, in->from, NULL))
        link_lost (p, out, in->from, "failed");
      break;
    case PROTO_IN_LINK_CLOSED:
      if (proto_links_get (&p->links, in->from, NULL))
        link_lost (p, out, in->from, "closed");
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      on_leave (p, in, out);
      break;
    }
  DlTime after = _hier_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

static const ProtoMachineClass peer_class = {
  .handle = peer_handle,
  .next_deadline = _hier_peer_next_deadline,
  .listens = _hier_peer_listens,
  .view = _hier_peer_view,
  .waiting_on_peer = _hier_peer_waiting_on_peer,
  .model = _hier_peer_model,
  .free = _hier_peer_free,
};

ProtoMachine *
hier_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  HierPeer *p = g_new0 (HierPeer, 1);
  _hier_peer_init (p, cfg, env);
  _hier_peer_links_init (p);
  return proto_machine_new (&peer_class, &p->base);
}
