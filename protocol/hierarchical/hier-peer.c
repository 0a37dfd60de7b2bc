/* hier-peer.c — the member's part of a hierarchical peer, and its links
 * (hier-peer-private.h; the head's part is hier-head.c).
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
 * Links: protocol/proto-links.h (DISCO's signalling through the
 * coordinator). */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"

#include <math.h>
#include <string.h>

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

void
hp_observe (HierPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *detail)
{
  proto_outbox_observe (out, kind, state_names[p->state], (int32_t) p->rounds_done, other, type, value, "%s",
                        detail ? detail : "");
}

static void
set_state (HierPeer *p, ProtoOutbox *out, HierPeerState s)
{
  if (p->state == s)
    return;
  p->state = s;
  hp_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

static void
send_msg (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  hp_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

/* ---- links (protocol/proto-links.h) ---- */

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  hp_observe (ud, out, kind, other, type, -1, detail);
}

void
hp_send_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

static void
open_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (!proto_links_get (&p->links, id, NULL))
    proto_links_open (&p->links, out, id);
}

/* ---- round trips to landmarks (cluster_by = latency, hier-latency.c) ---- */

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
  hp_send_link (p, out, q->landmark, &m);
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
handle_probe (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
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
handle_pong (HierPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
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
  a->round = p->rounds_done;
}

static void
stand (HierPeer *p, ProtoOutbox *out, uint32_t epoch)
{
  if (p->candidacy_epoch >= epoch)
    return;
  p->candidacy_epoch = epoch;
  p->stand_deadline = dl_time_add (p->now, p->cfg.head_timeout);
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
  if (!p->pending || p->state == HIER_PEER_DONE || p->state == HIER_PEER_LEFT)
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
  p->result_deadline = dl_time_add (p->now, dl_time_mul (p->cfg.head_timeout, 3));
  if (p->head == p->id)
    {
      set_state (p, out, HIER_PEER_WAIT_RESULT);
      if (hh_async (p))
        hh_async_update (p, out, p->id, p->base_version, p->model);
      else if (!hh_mixed_update (p, out, p->id, p->base_version, p->model))
        hh_take_update (p, out, p->id, p->model);
      return;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_UPDATE);
  /* async: the version of the head's model it trained from (hier-async.c) */
  m.round = hh_async (p) || p->cfg.straggler_policy == PROTO_STRAGGLER_MIXED ? p->base_version : p->rounds_done;
  m.degree = 1;
  proto_msg_set_weights (&m, p->model);
  set_state (p, out, proto_links_is_up (&p->links, p->head) ? HIER_PEER_WAIT_RESULT : HIER_PEER_WAIT_LINK);
  hp_send_link (p, out, p->head, &m);
}

static void
finish (HierPeer *p, ProtoOutbox *out)
{
  hp_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      proto_links_close_all (&p->links, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      p->is_head = FALSE;
      set_state (p, out, HIER_PEER_LEFT);
      return;
    }
  /* it stays: no more updates of its (a head keeps heading) */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
  m.helper = TRUE;
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  set_state (p, out, HIER_PEER_DONE);
}

void
hp_take_result (HierPeer *p, ProtoOutbox *out, uint32_t round, LearnWeights *global)
{
  if (!p->pending)
    return;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (global);
  p->base_version = round;
  p->rounds_done++;
  /* async: `round` is the head's version, not a round */
  p->last_round_end = hh_async (p) ? p->last_round_end + 1 : MAX ((int32_t) round, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, state_names[p->state], p->last_round_end, p->sent_to, -1, 1,
                        "the global model from head p%u", p->sent_to);
  p->pending = FALSE;
  if (p->rounds_done >= p->cfg.rounds)
    finish (p, out);
  else
    start_training (p, out);
}

/* The head is lost (no result in time, or its link): stand for the next epoch. */
static void
head_lost (HierPeer *p, ProtoOutbox *out, const char *why)
{
  hp_observe (p, out, PROTO_OBS_NOTE, p->head, -1, p->epoch, why);
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
  if (p->state != HIER_PEER_SYNCING || from == PROTO_NO_NODE || from == p->id || p->sync_from == from)
    return;
  p->sync_from = from;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_UPDATE);
  m.degree = 0;   /* no model: a request for the latest global */
  hp_observe (p, out, PROTO_OBS_SYNC_STARTED, from, PROTO_MSG_HIER_UPDATE, -1, NULL);
  hp_send_link (p, out, from, &m);
}

static void
handle_cluster (HierPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
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
        hh_resign (p, out);
      stand (p, out, p->epoch);
      if (p->pending && p->state != HIER_PEER_WAIT_HEAD)
        {
          p->sent_to = PROTO_NO_NODE;
          set_state (p, out, HIER_PEER_WAIT_HEAD);
        }
      return;
    }
  if (p->head == p->id)
    hh_become (p, out);
  else if (p->is_head)
    hh_resign (p, out);
  if (p->is_head)
    {
      /* both ends open a link; the larger id offers (a smaller head's members offer to it) */
      for (guint i = 0; i < p->members->len; i++)
        {
          ProtoNodeId m = g_array_index (p->members, ProtoNodeId, i);
          if (m != p->id)
            open_link (p, out, m);
        }
      hh_members_changed (p, out);
    }
  if (was != p->head && p->head != p->id)
    open_link (p, out, p->head);   /* ready before the update needs it */
  if (p->state == HIER_PEER_SYNCING)
    {
      /* from its head, or, heading a cluster of its own, from another
       * head once it knows them (HierHeads) */
      if (p->head != p->id)
        ask_sync (p, out, p->head);
      return;
    }
  send_update (p, out);
}

gboolean
hier_peer_listens (const HierPeer *p, ProtoMsgType type, ProtoNodeId from)
{
  (void) from;
  gboolean on = p->state >= HIER_PEER_SYNCING && p->state <= HIER_PEER_DONE;
  switch (type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      return p->state == HIER_PEER_CONNECTING;
    case PROTO_MSG_HIER_CLUSTER:
    case PROTO_MSG_HIER_HEADS:
    case PROTO_MSG_SIGNAL_FOR_PEER:
    case PROTO_MSG_HIER_PROBE:
    case PROTO_MSG_HIER_PING:
    case PROTO_MSG_HIER_PONG:
      return on;
    case PROTO_MSG_HIER_UPDATE:
    case PROTO_MSG_HIER_AGG:
      return on && p->is_head;
    case PROTO_MSG_HIER_RESULT:
      return p->state == HIER_PEER_WAIT_RESULT || p->state == HIER_PEER_SYNCING || (on && p->is_head);
    default:
      return FALSE;
    }
}

static void
handle_message (HierPeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->received[msg->type]++;
  if (!hier_peer_listens (p, msg->type, in->from))
    {
      hp_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  hp_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      {
        p->id = msg->node;
        p->links.self = p->id;
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_HIER_HELLO);
        m.degree = p->score;
        m.signal_data = g_strdup (p->region);
        m.helper = p->nat;
        send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
        if (msg->joined_mid_training)
          {
            /* the clusters formed before it came: the latest global model
             * from its head before it trains (as DISCO's model sync) */
            set_state (p, out, HIER_PEER_SYNCING);
            p->sync_deadline = dl_time_add (p->now, p->cfg.head_timeout);
          }
        else
          start_training (p, out);
        break;
      }
    case PROTO_MSG_HIER_CLUSTER:
      handle_cluster (p, msg, out);
      break;
    case PROTO_MSG_HIER_HEADS:
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
      if (p->state == HIER_PEER_SYNCING && p->is_head)
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
      hh_heads_changed (p, out);
      break;
    case PROTO_MSG_HIER_UPDATE:
      if (msg->degree == 0)
        hh_serve_sync (p, out, in->from);   /* a late joiner's request */
      else if (msg->weights && hh_async (p))
        hh_async_update (p, out, in->from, msg->round, msg->weights);
      else if (msg->weights && hh_mixed_update (p, out, in->from, msg->round, msg->weights))
        ;
      else if (msg->weights)
        hh_take_update (p, out, in->from, msg->weights);
      break;
    case PROTO_MSG_HIER_AGG:
      hh_take_agg (p, out, in->from, msg);
      break;
    case PROTO_MSG_HIER_RESULT:
      if (p->state == HIER_PEER_SYNCING)
        {
          if (in->from != p->sync_from || msg->weights == NULL || msg->degree != 0)
            break;
          learn_weights_unref (p->model);
          p->model = learn_weights_ref (msg->weights);
          p->synced = TRUE;
          p->base_version = msg->round;
          hp_observe (p, out, PROTO_OBS_SYNC_DONE, in->from, PROTO_MSG_HIER_RESULT, msg->round, NULL);
          start_training (p, out);
          break;
        }
      if (p->is_head && (in->from == p->parent || in->from == p->up_to) && in->from != PROTO_NO_NODE && msg->weights)
        {
          hh_take_global (p, out, msg->round, msg->weights);
          break;
        }
      if (in->from != p->sent_to || msg->weights == NULL)
        {
          hp_observe (p, out, PROTO_OBS_REJECTED, in->from, (int32_t) msg->type, msg->round,
                      "a result from another head than the one that has its update");
          break;
        }
      hp_take_result (p, out, msg->round, msg->weights);
      break;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      proto_links_signal (&p->links, out, msg);
      break;
    case PROTO_MSG_HIER_PROBE:
      handle_probe (p, msg, out);
      break;
    case PROTO_MSG_HIER_PING:
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_HIER_PONG);
        m.round = msg->round;
        hp_send_link (p, out, in->from, &m);
        break;
      }
    case PROTO_MSG_HIER_PONG:
      handle_pong (p, in->from, msg, out);
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
  if (p->state == HIER_PEER_WAIT_LINK && other == p->head)
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
  hp_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  for (guint i = p->probes->len; i-- > 0;)
    if (g_array_index (p->probes, Probe, i).landmark == other)
      probe_report (p, out, i, G_MAXUINT64);
  if (other == p->head && p->pending)
    head_lost (p, out, "the link to the head is lost");
}

void
hier_peer_handle (HierPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  p->now = now;
  DlTime before = hier_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      if (p->state != HIER_PEER_IDLE)
        break;
      p->connected = TRUE;
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_CLIENT_CONNECTED);
        send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
      }
      set_state (p, out, HIER_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, in, out);
      break;
    case PROTO_IN_DEADLINE:
      hh_deadline (p, out);
      if (p->state == HIER_PEER_SYNCING && now >= p->sync_deadline)
        {
          hp_observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_HIER_RESULT, -1,
                      "head_timeout: no model from the head: trains from its own");
          start_training (p, out);
        }
      if (p->state == HIER_PEER_WAIT_HEAD && now >= p->stand_deadline)
        {
          /* no head announced in head_timeout: its candidacy, or the
           * announcement, may have been lost (a partition); it stands again
           * and the coordinator says where things are */
          hp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_HIER_CANDIDACY, p->candidacy_epoch,
                      "no head announced: stands again");
          uint32_t e = p->candidacy_epoch;
          p->candidacy_epoch = e ? e - 1 : 0;
          stand (p, out, MAX (e, 1));
        }
      if (p->pending && p->sent_to != PROTO_NO_NODE && p->sent_to != p->id && now >= p->result_deadline)
        head_lost (p, out, "head_timeout: no result from the head");
      break;
    case PROTO_IN_TRAINING_DONE:
      if (p->state != HIER_PEER_TRAINING || in->weights == NULL)
        break;
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (in->weights);
      p->pending = TRUE;
      send_update (p, out);
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
      if (!p->connected)
        break;
      proto_links_close_all (&p->links, out);
      if (in->kind == PROTO_IN_LEAVE)
        proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      p->is_head = FALSE;
      hh_clear (p);
      g_array_set_size (p->probes, 0);
      hp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
                  in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      set_state (p, out, HIER_PEER_LEFT);
      break;
    }
  DlTime after = hier_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

DlTime
hier_peer_next_deadline (const HierPeer *p)
{
  DlTime d = p->is_head ? p->head_deadline : DL_TIME_NEVER;
  if (p->state == HIER_PEER_WAIT_HEAD)
    d = MIN (d, p->stand_deadline);
  if (p->state == HIER_PEER_SYNCING)
    d = MIN (d, p->sync_deadline);
  if (p->pending && p->sent_to != PROTO_NO_NODE && p->sent_to != p->id)
    d = MIN (d, p->result_deadline);
  return d;
}

HierPeer *
hier_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  HierPeer *p = g_new0 (HierPeer, 1);
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
  p->members = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
  p->probes = g_array_new (FALSE, FALSE, sizeof (Probe));
  p->async_in = g_array_new (FALSE, FALSE, sizeof (AsyncIn));
  p->async_sent = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->updates = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) learn_weights_unref);
  p->next_updates = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) learn_weights_unref);
  p->heads = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->aggs = g_array_new (FALSE, TRUE, sizeof (Agg));
  p->parent = PROTO_NO_NODE;
  p->up_to = PROTO_NO_NODE;
  p->children = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  p->child_aggs = g_array_new (FALSE, TRUE, sizeof (Agg));
  p->latency = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->round_start = DL_TIME_NEVER;
  return p;
}

void
hier_peer_free (HierPeer *p)
{
  if (!p)
    return;
  hh_clear (p);
  proto_links_clear (&p->links);
  g_array_unref (p->probes);
  g_array_unref (p->async_in);
  g_hash_table_unref (p->async_sent);
  g_hash_table_unref (p->updates);
  g_hash_table_unref (p->next_updates);
  g_array_unref (p->heads);
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

HierPeerState hier_peer_state (const HierPeer *p) { return p->state; }
gboolean hier_peer_connected (const HierPeer *p) { return p->connected; }
gboolean hier_peer_is_head (const HierPeer *p) { return p->is_head; }
gboolean hier_peer_synced (const HierPeer *p) { return p->synced; }
guint hier_peer_rounds_done (const HierPeer *p) { return p->rounds_done; }
LearnWeights *hier_peer_model (const HierPeer *p) { return p->model; }

guint
hier_peer_received_count (const HierPeer *p, ProtoMsgType type)
{
  return (unsigned) type < PROTO_MSG_N_TYPES ? p->received[type] : 0;
}
