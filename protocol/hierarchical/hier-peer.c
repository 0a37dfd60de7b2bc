/* hier-peer.c — the hierarchical family's peer (hier.h): the member's
 * part, the head's part and the asynchronous policies, every transition in
 * `static` handlers.  The arithmetic (cluster means, the count-weighted
 * mean of aggregates, staleness blends) is a leaf, hier-mix.c; the links
 * are protocol/session/session-links.h.
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

#include "protocol/hierarchical/hier.h"
#include "protocol/hierarchical/hier-mix-private.h"
#include "protocol/session/session-links.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <string.h>

/* mixed: a slow member's update, mixed into the next cluster mean. */
typedef struct {
  ProtoNodeId from;
  guint stale;                /* rounds behind the head's */
  LearnWeights *w;
} AsyncIn;

/* A head's aggregate of one round (hier-mix-private.h). */
typedef HierMixPart Agg;

typedef enum {
  HEAD_COLLECT,   /* its members' updates */
  HEAD_GATHER,    /* its children's subtrees */
  HEAD_UP,        /* its subtree went to its parent: the global comes down */
  HEAD_TOP,       /* at the top: the other top heads' subtrees */
} HeadPhase;

typedef struct HierPeer HierPeer;

struct HierPeer {
  ProtoMachineBase base;      /* its state, what it received, connected, rounds done */
  ProtoConfig cfg;
  ProtoNodeId id;
  DlRandom *rng;
  char *region;
  guint32 score;
  gboolean nat;
  LearnWeights *model;
  LearnWeights *initial;      /* the model every peer starts from */
  LearnWeights *last_global;  /* a head's: the latest global it sent down (a late joiner's sync) */
  gboolean synced;
  ProtoNodeId sync_from;      /* the head asked for the latest model (PROTO_NO_NODE: none yet) */
  DlTime sync_deadline;
  int32_t last_round_end;

  /* the cluster, as the coordinator last said */
  uint32_t epoch;
  uint32_t candidacy_epoch;   /* the last epoch it stood in (0: none) */
  ProtoNodeId head;
  GArray *members;            /* ProtoNodeId: whose updates the head awaits */
  gboolean pending;           /* a trained model waits for its round's result */
  ProtoNodeId sent_to;        /* the head it went to (PROTO_NO_NODE: not sent) */
  DlTime result_deadline;
  DlTime stand_deadline;      /* waiting for a head: stand again then (a lost candidacy or announcement) */
  DlTime admit_deadline;      /* connecting: say ClientConnected again then (a lost NewNodeInfo) */
  DlTime hello_deadline;      /* no HierCluster yet: say HierHello again then (a lost hello or cluster) */

  ProtoLinks links;           /* to its head, its members, the other heads (session-links.h) */
  GArray *probes;             /* HierProbe: round trips to landmarks it measures (cluster_by = latency) */

  /* the head's part */
  gboolean is_head;
  HeadPhase phase;
  uint32_t hr;                /* the round it aggregates */
  gboolean hr_set;
  GHashTable *updates;        /* member + 1 -> LearnWeights*: this round */
  GHashTable *next_updates;   /* those that came during the exchange */
  GArray *heads;              /* ProtoNodeId: the top heads it exchanges with (HierHeads; empty below the top) */
  GArray *top_last;           /* ProtoNodeId: the other top heads whose subtree was in its last global: in step */
  GArray *top_sent;           /* ProtoNodeId: the top heads its subtree of round hr went to (owes_subtree) */
  guint heads_expected;       /* how many heads the tree has */
  gboolean heads_known;       /* a HierHeads came: the tree is known */
  ProtoNodeId parent;         /* the head of heads it reports to (PROTO_NO_NODE: it is at the top) */
  GArray *children;           /* ProtoNodeId: the heads that report to it */
  GArray *child_aggs;         /* Agg: its children's subtrees */
  Agg own;                    /* this round's cluster mean (mean NULL: none yet) */
  ProtoNodeId up_to;          /* the parent this round's subtree went to (the tree may change meanwhile) */
  /* straggler policies at the head */
  DlTime round_start;         /* when its collection began: the last results went down */
  GHashTable *latency;        /* member + 1 -> 1 + its update's delay after round_start (this round) */
  GHashTable *dropped;        /* member + 1 -> 1 + the round from which it is waited for again */
  GArray *aggs;               /* Agg: this round's and later ones */
  /* straggler_policy = async (below) */
  LearnWeights *async_model;  /* the head's cluster model (NULL: not yet) */
  uint32_t async_version;     /* contributions mixed into it */
  guint async_since_push;     /* updates mixed in since it last pushed it to the other heads */
  uint32_t base_version;      /* a member's: the version of the model it trains from */
  GArray *async_in;           /* AsyncIn: mixed: slow members' updates for the next cluster mean */
  GHashTable *async_sent;     /* mixed: slow member + 1 -> 1 + when the head last sent it a model */
  DlTime last_median;         /* drop-slowest, mixed: the last judged round's median update delay */
  DlTime head_deadline;
  DlTime now;
};

/* the head's part and the asynchronous policies (below) */
static gboolean is_async (const HierPeer *p);
static void async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
static void async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
static void async_clear (HierPeer *p);
static gboolean mixed_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w);
static LearnWeights *mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean);
static void head_become (HierPeer *p, ProtoOutbox *out);
static void head_resign (HierPeer *p, ProtoOutbox *out);
static void head_members_changed (HierPeer *p, ProtoOutbox *out);
static void head_heads_changed (HierPeer *p, ProtoOutbox *out);
static void head_take_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w);
static void head_serve_sync (HierPeer *p, ProtoOutbox *out, ProtoNodeId from);
static void head_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg);
static void head_timer (HierPeer *p, ProtoOutbox *out);
static void head_take_global (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global);
static void head_clear (HierPeer *p);

static const char *const state_names[HIER_PEER_N_STATES] = {
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
  return (unsigned) s < HIER_PEER_N_STATES ? state_names[s] : "?";
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

static void
observe (HierPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *detail)
{
  proto_outbox_observe (out, kind, state_names[p->base.state], (int32_t) p->base.rounds_done, other, type, value, "%s",
                        detail ? detail : "");
}

static void
set_state (HierPeer *p, ProtoOutbox *out, HierPeerState s)
{
  if (p->base.state == s)
    return;
  p->base.state = s;
  observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

static void
send_msg (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

/* ---- links (protocol/session/session-links.h) ---- */

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  observe (ud, out, kind, other, type, -1, detail);
}

static void
send_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

static void
open_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (!proto_links_get (&p->links, id, NULL))
    proto_links_open (&p->links, out, id);
}

/* ---- round trips to landmarks (cluster_by = latency; the coordinator's
 * side is in hier-coord.c) ---- */

typedef struct {
  ProtoNodeId landmark;
  uint32_t index;             /* the landmark's group */
  DlTime sent;                /* its HierPing (NEVER: the link is not up yet) */
} Probe;

static void
probe_ping (HierPeer *p, ProtoOutbox *out, Probe *q)
{
  q->sent = p->now;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PING);
  m.round = q->index;
  send_link (p, out, q->landmark, &m);
}

/* The i-th probe is over: its round trip (G_MAXUINT64: no link) to the coordinator. */
static void
probe_report (HierPeer *p, ProtoOutbox *out, guint i, guint64 rtt)
{
  Probe q = g_array_index (p->probes, Probe, i);
  g_array_remove_index (p->probes, i);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RTT);
  m.round = q.index;
  m.node = q.landmark;
  m.key = rtt;
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

static void
on_probe (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  /* as a landmark: the links its probers will ping over */
  for (guint j = 0; j < msg->n_indices; j++)
    if (msg->indices[j] != p->id)
      open_link (p, out, msg->indices[j]);
  for (guint i = 0; i < msg->n_peers; i++)
    {
      Probe q = { .landmark = msg->peers[i], .index = msg->round + i, .sent = DL_TIME_NEVER };
      if (q.landmark == p->id || q.landmark == PROTO_NO_NODE)
        continue;
      g_array_append_val (p->probes, q);
      Probe *at = &g_array_index (p->probes, Probe, p->probes->len - 1);
      if (proto_links_is_up (&p->links, q.landmark))
        probe_ping (p, out, at);
      else
        open_link (p, out, q.landmark);
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
          probe_report (p, out, i, (guint64) (p->now - q->sent));
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
  set_state (p, out, HIER_PEER_TRAINING);
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
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
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
      set_state (p, out, HIER_PEER_WAIT_HEAD);
      return;
    }
  if (p->sent_to == p->head)
    return;
  p->sent_to = p->head;
  /* the head may take head_timeout to collect and as long to exchange */
  p->result_deadline = dl_time_add (p->now, dl_time_mul (hier_config (&p->cfg)->head_timeout, 3));
  if (p->head == p->id)
    {
      set_state (p, out, HIER_PEER_WAIT_RESULT);
      if (is_async (p))
        async_update (p, out, p->id, p->base_version, p->model);
      else if (!mixed_update (p, out, p->id, p->base_version, p->model))
        head_take_update (p, out, p->id, p->model);
      return;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_UPDATE);
  /* async: the version of the head's model it trained from (straggler_policy = async, below) */
  m.round = is_async (p) || p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED ? p->base_version : p->base.rounds_done;
  m.degree = 1;
  proto_msg_set_weights (&m, p->model);
  set_state (p, out, proto_links_is_up (&p->links, p->head) ? HIER_PEER_WAIT_RESULT : HIER_PEER_WAIT_LINK);
  send_link (p, out, p->head, &m);
}

static void
finish (HierPeer *p, ProtoOutbox *out)
{
  observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->base.rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      proto_links_close_all (&p->links, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->base.connected = FALSE;
      p->is_head = FALSE;
      set_state (p, out, HIER_PEER_LEFT);
      return;
    }
  /* it stays: no more updates of its (a head keeps heading) */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  m.helper = TRUE;
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  set_state (p, out, HIER_PEER_DONE);
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
  p->last_round_end = is_async (p) ? p->last_round_end + 1 : MAX ((int32_t) round, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, state_names[p->base.state], p->last_round_end, p->sent_to, -1, 1,
                        "the global model from head p%u", p->sent_to);
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
  observe (p, out, PROTO_OBS_NOTE, p->head, -1, p->epoch, why);
  if (p->head == p->id)
    return;
  p->head = PROTO_NO_NODE;
  p->sent_to = PROTO_NO_NODE;
  p->result_deadline = DL_TIME_NEVER;
  stand (p, out, p->epoch + 1);
  if (p->pending)
    set_state (p, out, HIER_PEER_WAIT_HEAD);
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
  observe (p, out, PROTO_OBS_SYNC_STARTED, from, PROTO_MSG_HIER_UPDATE, -1, NULL);
  send_link (p, out, from, &m);
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
          set_state (p, out, HIER_PEER_WAIT_HEAD);
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
            open_link (p, out, m);
        }
      head_members_changed (p, out);
    }
  if (was != p->head && p->head != p->id)
    open_link (p, out, p->head);   /* ready before the update needs it */
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

static void
agg_clear (Agg *a)
{
  g_clear_pointer (&a->mean, learn_weights_unref);
}

static void
head_clear (HierPeer *p)
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
  g_array_set_size (p->top_sent, 0);
  g_array_set_size (p->top_last, 0);
  p->phase = HEAD_COLLECT;
  p->hr_set = FALSE;
  p->head_deadline = DL_TIME_NEVER;
  async_clear (p);
}

/* id is in ids (ProtoNodeId) */
static gboolean
listed (const GArray *ids, ProtoNodeId id)
{
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, ProtoNodeId, i) == id)
      return TRUE;
  return FALSE;
}

/* head's aggregate of `round` in aggs (Agg), NULL if none */
static Agg *
find_in (GArray *aggs, ProtoNodeId head, uint32_t round)
{
  for (guint i = 0; i < aggs->len; i++)
    {
      Agg *a = &g_array_index (aggs, Agg, i);
      if (a->head == head && a->round == round)
        return a;
    }
  return NULL;
}

static void try_gather (HierPeer *p, ProtoOutbox *out);
static void try_top (HierPeer *p, ProtoOutbox *out);
static void say_hello (HierPeer *p, ProtoOutbox *out);
static DlTime peer_next_deadline (const void *impl);

static void
start_exchange (HierPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  agg_clear (&p->own);
  p->own = (Agg) { .head = p->id, .round = p->hr, .mean = mixed_blend (p, out, hier_mix_mean (p->updates, &n)) };
  p->own.count = n;
  p->phase = HEAD_GATHER;
  p->head_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
  proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, PROTO_NO_NODE, -1, n,
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
        observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_UPDATE,
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
            /* asynchronous until an update of its comes within the factor (mixed, below) */
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1), GUINT_TO_POINTER (G_MAXUINT));
            g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (ids[j] + 1),
                                 GSIZE_TO_POINTER ((gsize) p->now + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, ids[j], -1, -1,
                                  "head: slow: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: asynchronous from now on", dl_time_to_s (d[j]), p->cfg.drop_factor,
                                  dl_time_to_s (median));
          }
        else if (median > 0 && (double) d[j] > p->cfg.drop_factor * (double) median)
          {
            g_hash_table_insert (p->dropped, GUINT_TO_POINTER (ids[j] + 1),
                                 GUINT_TO_POINTER (p->hr + 1 + p->cfg.drop_rounds + 1));
            proto_outbox_observe (out, PROTO_OBS_NOTE, hier_peer_state_name (p->base.state), (int32_t) p->hr, ids[j], -1,
                                  (int64_t) p->cfg.drop_rounds,
                                  "head: slowest: its update came %.3f s into the round, over %.2f x the median "
                                  "%.3f s: not waited for in the next %u rounds", dl_time_to_s (d[j]),
                                  p->cfg.drop_factor, dl_time_to_s (median), p->cfg.drop_rounds);
          }
    }
  g_hash_table_remove_all (p->latency);
}

static void distribute (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t ahead);

/* Its subtree of round hr to top head h, once a round (top_sent). */
static void
send_top (HierPeer *p, ProtoOutbox *out, ProtoNodeId h, LearnWeights *subtree, guint32 count)
{
  if (h == p->id || listed (p->top_sent, h))
    return;
  g_array_append_val (p->top_sent, h);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_AGG);
  m.round = p->hr;
  m.degree = count;
  proto_msg_set_weights (&m, subtree);
  send_link (p, out, h, &m);
}

/* Top head h, which its subtree of round hr went to, owes it its own: h
 * was in step (in the first round every head is; later, its subtree of
 * the round before was in this head's last global), and has that round
 * (below cfg.rounds): one that finished before this head caught up sends
 * nothing more. */
static gboolean
owes_subtree (const HierPeer *p, ProtoNodeId h)
{
  return (p->hr == 0 || listed (p->top_last, h)) && p->hr < p->cfg.rounds;
}

/* Its subtree: its cluster and its children's subtrees; up to its parent,
 * or, at the top, to the other top heads. */
static void
try_gather (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->phase != HEAD_GATHER)
    return;
  gboolean all = p->heads_known;
  for (guint i = 0; i < p->children->len && all; i++)
    all = find_in (p->child_aggs, g_array_index (p->children, ProtoNodeId, i), p->hr) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
                p->heads_known ? "head_timeout: its subtree goes without the missing heads below it"
                               : "head_timeout: no heads tree yet: it goes alone");
  if (!p->heads_known)
    say_hello (p, out);   /* the tree may have been lost: the coordinator sends it again (hier-coord.c) */
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
      send_link (p, out, p->parent, &m);
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
  g_array_set_size (p->top_sent, 0);
  for (guint i = 0; i < p->heads->len && subtree; i++)
    send_top (p, out, g_array_index (p->heads, ProtoNodeId, i), subtree, (guint32) MIN (total, G_MAXUINT32));
  try_top (p, out);
}

/* Head h's aggregate for this round, or, if h is ahead (it was elected
 * earlier, or this head late), its latest later one. */
static Agg *
agg_for (HierPeer *p, ProtoNodeId h)
{
  Agg *best = find_in (p->aggs, h, p->hr);
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
    all = agg_for (p, g_array_index (p->heads, ProtoNodeId, i)) != NULL;
  for (guint i = 0; i < p->top_sent->len && all; i++)
    all = !owes_subtree (p, g_array_index (p->top_sent, ProtoNodeId, i))
          || agg_for (p, g_array_index (p->top_sent, ProtoNodeId, i)) != NULL;
  if (!all && p->now < p->head_deadline)
    return;
  if (!all)
    observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, -1,
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
      Agg *a = find_in (p->aggs, h, p->hr) ? NULL : agg_for (p, h);
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

/* distribute's steps: the global model of `round` down to its children:
 * those of the tree now, and those that sent it their subtree this round
 * (the tree may have changed since) */
static void
send_to_children (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t round)
{
  g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_array_append_vals (kids, p->children->data, p->children->len);
  for (guint i = 0; i < p->child_aggs->len; i++)
    if (g_array_index (p->child_aggs, Agg, i).round == round && !listed (p->children, g_array_index (p->child_aggs, Agg, i).head))
      g_array_append_val (kids, g_array_index (p->child_aggs, Agg, i).head);
  for (guint i = 0; i < kids->len && global; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = round;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, global);
      send_link (p, out, g_array_index (kids, ProtoNodeId, i), &m);
    }
}

/* ... and to the members whose updates it took, in id order; TRUE if it
 * is one of them itself (it takes the result last: it may start a round) */
static gboolean
send_to_members (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t round)
{
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
      send_link (p, out, id, &m);
    }
  return self;
}

/* ... the aggregates of rounds up to `ahead` go */
static void
drop_aggs_until (GArray *aggs, uint32_t ahead)
{
  for (guint i = aggs->len; i > 0; i--)
    if (g_array_index (aggs, Agg, i - 1).round <= ahead)
      {
        agg_clear (&g_array_index (aggs, Agg, i - 1));
        g_array_remove_index (aggs, i - 1);
      }
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
  send_to_children (p, out, global, total, round);
  /* its own member part last: it may start a round */
  gboolean self = send_to_members (p, out, global, total, round);
  if (ahead > round)
    observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, PROTO_MSG_HIER_AGG, ahead,
                "head: the other heads are ahead: it catches up with their round");
  p->hr = ahead;
  drop_aggs_until (p->aggs, ahead);
  drop_aggs_until (p->child_aggs, ahead);
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
      observe (p, out, PROTO_OBS_NOTE, p->parent, PROTO_MSG_HIER_RESULT, round,
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
  if (!listed (p->members, from))
    observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, "head: an update from a peer not (yet) listed");
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
  m.round = is_async (p) ? p->async_version : p->hr_set && p->hr > 0 ? p->hr - 1 : 0;
  m.degree = 0;
  proto_msg_set_weights (&m, p->last_global ? p->last_global : p->initial);
  observe (p, out, PROTO_OBS_SYNC_SERVED, from, PROTO_MSG_HIER_RESULT, -1, NULL);
  send_link (p, out, from, &m);
}

static void
head_take_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!p->is_head || msg->weights == NULL)
    return;
  if (is_async (p))
    {
      async_agg (p, out, from, msg->weights);
      return;
    }
  if (p->hr_set && msg->round < p->hr)
    {
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_HIER_AGG, msg->round, "an aggregate of a past round");
      return;
    }
  if (listed (p->children, from))
    {
      if (find_in (p->child_aggs, from, msg->round))
        return;
      Agg c = { .head = from, .round = msg->round, .count = msg->degree, .mean = learn_weights_ref (msg->weights) };
      g_array_append_val (p->child_aggs, c);
      try_gather (p, out);
      return;
    }
  if (find_in (p->aggs, from, msg->round))
    return;
  if (p->phase == HEAD_COLLECT && (!p->hr_set || msg->round > p->hr))
    {
      /* the other heads are ahead (this head was elected late): catch up,
       * this round's updates count for theirs */
      observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, msg->round,
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
  head_clear (p);
  p->round_start = p->now;
  observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "becomes its cluster's head");
}

static void
head_resign (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head)
    return;
  p->is_head = FALSE;
  head_clear (p);
  observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, p->epoch, "is no longer head");
}

static void
head_members_changed (HierPeer *p, ProtoOutbox *out)
{
  if (is_async (p))
    return;
  try_collect (p, out);
}

static void
head_heads_changed (HierPeer *p, ProtoOutbox *out)
{
  if (is_async (p))
    return;
  /* at the top, its subtree to the heads listed since it went out: the
   * tree came after it went alone at head_timeout, or a head was elected
   * since (protocol/hierarchical/scenarios/hier-late-tree.ini) */
  Agg *own = p->is_head && p->phase == HEAD_TOP ? find_in (p->aggs, p->id, p->hr) : NULL;
  for (guint i = 0; own && own->mean && i < p->heads->len; i++)
    send_top (p, out, g_array_index (p->heads, ProtoNodeId, i), own->mean, own->count);
  try_gather (p, out);
  try_top (p, out);
}

static void
head_timer (HierPeer *p, ProtoOutbox *out)
{
  if (!p->is_head || p->now < p->head_deadline || is_async (p))
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
      observe (p, out, PROTO_OBS_TIMER_FIRED, p->parent, PROTO_MSG_HIER_RESULT, -1,
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

static gboolean
is_async (const HierPeer *p)
{
  return p->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC;
}

static LearnWeights *
model_of (HierPeer *p)
{
  if (!p->async_model)
    p->async_model = learn_weights_ref (p->last_global ? p->last_global : p->model);
  return p->async_model;
}

static void
take (HierPeer *p, LearnWeights *y, double w)
{
  LearnWeights *x = hier_mix_blend (model_of (p), y, w);
  learn_weights_unref (p->async_model);
  p->async_model = x;
  p->async_version++;
}

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
  send_link (p, out, to, &m);
}

/* x to every head it knows in the tree */
static void
push (HierPeer *p, ProtoOutbox *out)
{
  p->async_since_push = 0;
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_array_append_vals (to, p->heads->data, p->heads->len);
  g_array_append_vals (to, p->children->data, p->children->len);
  if (p->parent != PROTO_NO_NODE)
    g_array_append_val (to, p->parent);
  for (guint i = 0; i < to->len; i++)
    {
      ProtoNodeId h = g_array_index (to, ProtoNodeId, i);
      if (h == p->id || h == PROTO_NO_NODE)
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->async_version;
      m.degree = 1;
      proto_msg_set_weights (&m, p->async_model);
      send_link (p, out, h, &m);
    }
}

static void
async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  model_of (p);
  guint s = p->async_version > base ? p->async_version - base : 0;
  double weight = hier_mix_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, s);
  take (p, w, weight);
  char detail[96];
  g_snprintf (detail, sizeof detail, "async: mixed in at staleness %u, weight %.3f: version %u", s, weight,
              p->async_version);
  observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
  answer (p, out, from, p->async_version, p->async_model);
  if (++p->async_since_push >= MAX (p->members->len, 1))
    push (p, out);
}

static void
async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  take (p, w, p->cfg.async_mix);
  char detail[80];
  g_snprintf (detail, sizeof detail, "async: another head's model mixed in: version %u", p->async_version);
  observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, -1, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
}

static void
async_clear (HierPeer *p)
{
  g_clear_pointer (&p->async_model, learn_weights_unref);
  p->async_version = 0;
  p->async_since_push = 0;
  for (guint i = 0; i < p->async_in->len; i++)
    learn_weights_unref (g_array_index (p->async_in, AsyncIn, i).w);
  g_array_set_size (p->async_in, 0);
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
  if (p->cfg.straggler_policy != PROTO_STRAGGLER_MIXED || !p->is_head || !dropped (p, from) || w == NULL)
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
          observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, d);
          return FALSE;
        }
    }
  g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) p->now + 1));
  guint s = p->hr > base + 1 ? p->hr - base - 1 : 0;
  AsyncIn a = { .from = from, .stale = s, .w = learn_weights_ref (w) };
  g_array_append_val (p->async_in, a);
  char detail[96];
  g_snprintf (detail, sizeof detail, "mixed: a slow member's update, %u rounds stale, for the next cluster mean", s);
  observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  /* the latest global at once: it trains again without waiting for the round */
  uint32_t round = p->hr > 0 ? p->hr - 1 : 0;
  LearnWeights *g = p->last_global ? p->last_global : p->initial;
  answer (p, out, from, round, g);
  return TRUE;
}

static LearnWeights *
mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean)
{
  for (guint i = 0; i < p->async_in->len; i++)
    {
      AsyncIn *a = &g_array_index (p->async_in, AsyncIn, i);
      if (mean)
        {
          double wt = hier_mix_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, a->stale);
          LearnWeights *x = hier_mix_blend (mean, a->w, wt);
          learn_weights_unref (mean);
          mean = x;
          char detail[80];
          g_snprintf (detail, sizeof detail, "mixed: mixed in at staleness %u, weight %.3f", a->stale, wt);
          observe (p, out, PROTO_OBS_NOTE, a->from, PROTO_MSG_HIER_UPDATE, a->stale, detail);
        }
      else
        mean = learn_weights_ref (a->w);   /* only slow members this round */
      learn_weights_unref (a->w);
    }
  g_array_set_size (p->async_in, 0);
  return mean;
}

/* ---- the machine ---- */

static gboolean
peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
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

/* HierHello to the coordinator, and again head_timeout later while no
 * HierCluster came: the hello may have been lost (a partition; with it
 * uncounted the clusters never form) or the announcement of its cluster
 * (it would wait for a head for good); the coordinator takes a repeat
 * before the clusters form as the first and answers one after with the
 * cluster as it is (hier-coord.c) */
static void
say_hello (HierPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_HELLO);
  m.degree = p->score;
  m.signal_data = g_strdup (p->region);
  m.helper = p->nat;
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  p->hello_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
}

/* it said hello and waits for its cluster */
static gboolean
awaits_cluster (const HierPeer *p)
{
  return p->epoch == 0 && p->hello_deadline != DL_TIME_NEVER && p->base.connected
         && p->base.state != HIER_PEER_DONE && p->base.state != HIER_PEER_LEFT;
}

/* NewNodeInfo: admitted, its id; it says hello, and trains (or syncs
 * first, a late joiner) */
static void
on_new_node_info (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  p->id = msg->node;
  p->links.self = p->id;
  say_hello (p, out);
  if (msg->joined_mid_training)
    {
      /* the clusters formed before it came: the latest global model
       * from its head before it trains (as DISCO's model sync) */
      set_state (p, out, HIER_PEER_SYNCING);
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
          open_link (p, out, h);
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
  else if (msg->weights && is_async (p))
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
      observe (p, out, PROTO_OBS_SYNC_DONE, from, PROTO_MSG_HIER_RESULT, msg->round, NULL);
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
      observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
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
  send_link (p, out, from, &m);
}

/* A message: counted, dropped unless it listens for it (peer_listens),
 * then one handler per type. */
static void
handle_message (HierPeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->base.received[msg->type]++;
  if (!peer_listens (p, msg->type, in->from))
    {
      observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
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
    set_state (p, out, HIER_PEER_WAIT_RESULT);
  for (guint i = 0; i < p->probes->len; i++)
    {
      Probe *q = &g_array_index (p->probes, Probe, i);
      if (q->landmark == other && q->sent == DL_TIME_NEVER)
        probe_ping (p, out, q);
    }
}

static void
link_lost (HierPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  for (guint i = p->probes->len; i-- > 0;)
    if (g_array_index (p->probes, Probe, i).landmark == other)
      probe_report (p, out, i, G_MAXUINT64);
  if (other == p->head && p->pending)
    head_lost (p, out, "the link to the head is lost");
}

/* ClientConnected to the coordinator, and again head_timeout later while
 * no NewNodeInfo came (connecting): the answer may have been lost, and the
 * coordinator answers a repeat as the first (hier-coord.c) */
static void
say_connected (HierPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HELLO);
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  p->admit_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
}

/* The deadline input: each timer that is due fires. */
static void
on_deadline (HierPeer *p, DlTime now, ProtoOutbox *out)
{
  head_timer (p, out);
  if (p->base.state == HIER_PEER_CONNECTING && now >= p->admit_deadline)
    {
      observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_WELCOME, -1,
                  "head_timeout: no NewNodeInfo: says ClientConnected again");
      say_connected (p, out);
    }
  if (awaits_cluster (p) && now >= p->hello_deadline)
    {
      observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_HIER_CLUSTER, -1,
                  "head_timeout: no cluster announced: says HierHello again");
      say_hello (p, out);
    }
  if (p->base.state == HIER_PEER_SYNCING && now >= p->sync_deadline)
    {
      observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_HIER_RESULT, -1,
                  "head_timeout: no model from the head: trains from its own");
      start_training (p, out);
    }
  if (p->base.state == HIER_PEER_WAIT_HEAD && now >= p->stand_deadline)
    {
      /* no head announced in head_timeout: its candidacy, or the
       * announcement, may have been lost (a partition); it stands again
       * and the coordinator says where things are */
      observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_HIER_CANDIDACY, p->candidacy_epoch,
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
          observe (p, out, PROTO_OBS_LINK, p->sent_to, -1, -1, "never came up: dropped");
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
  head_clear (p);
  g_array_set_size (p->probes, 0);
  observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
              in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
  set_state (p, out, HIER_PEER_LEFT);
}

/* its start: connects (ClientConnected) */
static void
on_start (HierPeer *p, ProtoOutbox *out)
{
  if (p->base.state != HIER_PEER_IDLE)
    return;
  p->base.connected = TRUE;
  say_connected (p, out);
  set_state (p, out, HIER_PEER_CONNECTING);
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
  DlTime before = peer_next_deadline (p);
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
  DlTime after = peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

static DlTime
peer_next_deadline (const void *impl)
{
  const HierPeer *p = impl;
  DlTime d = p->is_head ? p->head_deadline : DL_TIME_NEVER;
  if (p->base.state == HIER_PEER_CONNECTING)
    d = MIN (d, p->admit_deadline);
  if (p->base.state == HIER_PEER_WAIT_HEAD)
    d = MIN (d, p->stand_deadline);
  if (p->base.state == HIER_PEER_SYNCING)
    d = MIN (d, p->sync_deadline);
  if (awaits_cluster (p))
    d = MIN (d, p->hello_deadline);
  if (p->pending && p->sent_to != PROTO_NO_NODE && p->sent_to != p->id)
    d = MIN (d, p->result_deadline);
  return d;
}

static void
peer_free (void *impl)
{
  HierPeer *p = impl;
  if (!p)
    return;
  head_clear (p);
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

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const HierPeer *p = impl;
  HierPeerState s = p->base.state;
  v->settled = s == HIER_PEER_DONE || s == HIER_PEER_LEFT;
  v->synced = p->synced;
  /* a member waiting for its head's election or result waits on a peer */
  v->waiting_on_peer = s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT
                      || s == HIER_PEER_SYNCING;
}

static gboolean
peer_waiting_on_peer (const void *impl)
{
  const HierPeer *p = impl;
  HierPeerState s = p->base.state;
  return s == HIER_PEER_WAIT_HEAD || s == HIER_PEER_WAIT_LINK || s == HIER_PEER_WAIT_RESULT || s == HIER_PEER_SYNCING;
}

static LearnWeights *
peer_model (const void *impl)
{
  const HierPeer *p = impl;
  return p->model;
}

static const ProtoMachineClass peer_class = {
  .handle = peer_handle,
  .next_deadline = peer_next_deadline,
  .listens = peer_listens,
  .view = peer_view,
  .waiting_on_peer = peer_waiting_on_peer,
  .model = peer_model,
  .free = peer_free,
};

ProtoMachine *
hier_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  HierPeer *p = g_new0 (HierPeer, 1);
  proto_machine_base_init (&p->base, state_names, HIER_PEER_IDLE);
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
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
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
  return proto_machine_new (&peer_class, &p->base);
}

gboolean
hier_peer_is_head (const ProtoMachine *m)
{
  const HierPeer *p = m->impl;
  return p->is_head;
}
