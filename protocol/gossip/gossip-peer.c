/* gossip-peer.c — the gossip family's peer machine (gossip-peer.h).
 *
 * Not a port of any DISCO code: DISCO has no gossip.  The averaging is
 * decentralized SGD's (Lian et al., "Can decentralized algorithms
 * outperform centralized algorithms?", NeurIPS 2017) with Metropolis–
 * Hastings weights; the sparsification is top-k / random-k with error
 * feedback (Stich et al., "Sparsified SGD with memory", NeurIPS 2018),
 * applied to what a peer shares of its model (gossip-mix.h).  The link
 * set-up reuses DISCO's signalling through the coordinator (SignalForPeer
 * offer/answer, the larger id offers: discojs/src/client/decentralized/
 * peer_pool.ts), so the world and the testbed carry it unchanged. */
#include "config.h"

#include "protocol/gossip/gossip-peer.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/gossip/gossip-peer-private.h"

#include <string.h>

static const char *const state_names[GOSSIP_PEER_N_STATES] = {
  [GOSSIP_PEER_IDLE] = "idle",
  [GOSSIP_PEER_CONNECTING] = "connecting",
  [GOSSIP_PEER_SYNCING] = "syncing",
  [GOSSIP_PEER_TRAINING] = "training",
  [GOSSIP_PEER_WAIT_LIST] = "wait-list",
  [GOSSIP_PEER_WAIT_GRAPH] = "wait-graph",
  [GOSSIP_PEER_EXCHANGING] = "exchanging",
  [GOSSIP_PEER_DONE] = "done",
  [GOSSIP_PEER_LEFT] = "left",
  [GOSSIP_PEER_FAILED] = "failed",
};

const char *
gossip_peer_state_name (GossipPeerState s)
{
  return (unsigned) s < GOSSIP_PEER_N_STATES ? state_names[s] : "?";
}

/* ---- small helpers ---- */

void
gp_observe (GossipPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
         const char *detail)
{
  proto_outbox_observe (out, kind, state_names[p->state], p->have_step ? (int32_t) p->step : -1, other, type,
                        value, "%s", detail ? detail : "");
}

void
gp_set_state (GossipPeer *p, ProtoOutbox *out, GossipPeerState s)
{
  if (p->state == s)
    return;
  p->state = s;
  /* a wait for the coordinator ends after payload_timeout: a message on its
   * stream may have been lost (a partition); the peer then says again
   * where it is (as DISCO's robust does: proto-config.h robust_wait_timeout) */
  p->wait_deadline = (s == GOSSIP_PEER_WAIT_LIST && !p->dht) || s == GOSSIP_PEER_WAIT_GRAPH
                     || (s == GOSSIP_PEER_DONE && !p->dht)
                     ? dl_time_add (p->now, p->cfg.payload_timeout) : DL_TIME_NEVER;
  gp_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

void
gp_send_msg (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  gp_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

void
gp_send_server (GossipPeer *p, ProtoOutbox *out, ProtoMsg *m)
{
  gp_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, m);
}

static void
nbr_clear (Nbr *n)
{
  g_clear_pointer (&n->values, learn_weights_unref);
  g_clear_pointer (&n->indices, g_free);
}

static void
clear_step (GossipPeer *p)
{
  for (guint i = 0; i < p->nbrs->len; i++)
    nbr_clear (&g_array_index (p->nbrs, Nbr, i));
  g_array_set_size (p->nbrs, 0);
  for (guint i = 0; i < p->early->len; i++)
    proto_msg_clear (&g_array_index (p->early, Early, i).msg);
  g_array_set_size (p->early, 0);
  g_clear_pointer (&p->outgoing, learn_weights_unref);
  g_clear_pointer (&p->out_idx, g_free);
  p->out_n = 0;
  p->xchg_deadline = DL_TIME_NEVER;
}



static Nbr *
find_nbr (GossipPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->nbrs->len; i++)
    if (g_array_index (p->nbrs, Nbr, i).id == id)
      return &g_array_index (p->nbrs, Nbr, i);
  return NULL;
}







/* ---- the step ---- */

void
gp_start_training (GossipPeer *p, ProtoOutbox *out)
{
  clear_step (p);
  learn_weights_unref (p->base);
  p->base = learn_weights_ref (p->model);
  gp_set_state (p, out, GOSSIP_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->rounds_done;
}

/* What this step shares of the model (gossip-mix.h). */
void
gp_build_outgoing (GossipPeer *p)
{
  gsize n = learn_weights_len (p->model);
  if (p->cfg.sparsify == PROTO_SPARSIFY_NONE || n == 0)
    {
      p->outgoing = learn_weights_ref (p->model);
      return;
    }
  guint32 k = gossip_keep_count (n, p->cfg.keep);
  gboolean symbolic = learn_weights_is_symbolic (p->model);
  if (p->cfg.sparsify == PROTO_SPARSIFY_RANDOM_K)
    p->out_idx = gossip_pick_random (p->rng, (guint32) n, k);
  else if (symbolic)
    {
      /* model none: nothing to rank; the size is what matters */
      p->out_idx = g_new (guint32, k);
      for (guint32 i = 0; i < k; i++)
        p->out_idx[i] = i;
    }
  else
    {
      const float *x = learn_weights_data (p->model), *b = learn_weights_data (p->base);
      g_autofree float *score = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        score[i] = x[i] - b[i] + (p->residual ? p->residual[i] : 0.0f);
      p->out_idx = gossip_pick_top (score, (guint32) n, k);
      if (p->cfg.error_feedback)
        {
          if (!p->residual)
            p->residual = g_new0 (float, n);
          memcpy (p->residual, score, n * sizeof *score);
          for (guint32 j = 0; j < k; j++)
            p->residual[p->out_idx[j]] = 0;
        }
    }
  p->out_n = k;
  if (symbolic)
    p->outgoing = learn_weights_new_symbolic (k);
  else
    {
      p->outgoing = learn_weights_new (k);
      float *v = learn_weights_data_mut (p->outgoing);
      const float *x = learn_weights_data (p->model);
      for (guint32 j = 0; j < k; j++)
        v[j] = x[p->out_idx[j]];
    }
}

static void
send_payload (GossipPeer *p, ProtoOutbox *out, Nbr *nb)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->step;
  m.degree = p->nbrs->len;
  proto_msg_set_weights (&m, p->outgoing);
  if (p->out_idx)
    proto_msg_take_indices (&m, g_memdup2 (p->out_idx, p->out_n * sizeof *p->out_idx), p->out_n);
  nb->sent = TRUE;
  gp_send_msg (p, out, nb->id, PROTO_VIA_LINK, &m);
}

void
gp_helper_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
  m.helper = TRUE;
  gp_send_server (p, out, &m);
  gp_set_state (p, out, GOSSIP_PEER_DONE);
}

void
gp_finish (GossipPeer *p, ProtoOutbox *out)
{
  gp_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      proto_links_close_all (&p->links, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      gp_set_state (p, out, GOSSIP_PEER_LEFT);
      return;
    }
  /* it stays as a helper: it keeps mixing in the steps it is listed for,
   * without training, so that peers still training (late joiners) have
   * partners; the coordinator no longer waits for it (the helper flag) */
  p->helper = TRUE;
  gp_helper_ready (p, out);
}

/* Every neighbour answered or was given up: mix, end the step. */
static void
maybe_complete (GossipPeer *p, ProtoOutbox *out)
{
  if (p->state != GOSSIP_PEER_EXCHANGING)
    return;
  guint got = 0;
  for (guint i = 0; i < p->nbrs->len; i++)
    {
      const Nbr *nb = &g_array_index (p->nbrs, Nbr, i);
      /* its payload is in and ours is out, or it is given up */
      if (!nb->gave_up && !(nb->done && nb->sent))
        return;
      got += nb->got;
    }
  g_autofree GossipContribution *cs = g_new0 (GossipContribution, MAX (got, 1));
  guint k = 0;
  for (guint i = 0; i < p->nbrs->len; i++)
    {
      const Nbr *nb = &g_array_index (p->nbrs, Nbr, i);
      if (nb->got)
        cs[k++] = (GossipContribution) { .values = nb->values, .indices = nb->indices,
                                         .n_indices = nb->n_indices, .degree = nb->degree };
    }
  LearnWeights *mixed = gossip_mix (p->model, p->nbrs->len, cs, got);
  learn_weights_unref (p->model);
  p->model = mixed;
  gp_mix_inbox (p, out);
  if (!p->helper)
    p->rounds_done++;
  p->last_round_end = MAX ((int32_t) p->step, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, state_names[p->state], p->last_round_end, PROTO_NO_NODE, -1,
                        got + 1, "%smixed %u of %u neighbours", p->helper ? "helper: " : "", got, p->nbrs->len);
  clear_step (p);
  if (p->helper)
    gp_helper_ready (p, out);
  else if (p->rounds_done >= p->cfg.rounds)
    gp_finish (p, out);
  else
    gp_start_training (p, out);
}

static void
give_up (GossipPeer *p, ProtoOutbox *out, Nbr *nb, const char *why)
{
  if (nb->gave_up || (nb->done && nb->sent))
    return;
  nb->gave_up = TRUE;
  if (nb->got && !nb->sent)
    why = "our payload never went out (no link): its payload is still mixed";
  nb->done = TRUE;
  gp_observe (p, out, PROTO_OBS_NOTE, nb->id, PROTO_MSG_GOSSIP_PAYLOAD, -1, why);
}

static void
take_payload (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  Nbr *nb = find_nbr (p, from);
  if (nb == NULL || nb->done)
    {
      gp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
               !nb ? "not a neighbour in this step"
                   : nb->gave_up ? "came after it was given up" : "a second payload in one step");
      return;
    }
  gsize len = learn_weights_len (p->model);
  gboolean fits = msg->weights != NULL
                  && (msg->n_indices ? msg->indices[msg->n_indices - 1] < len
                                     : learn_weights_len (msg->weights) == len);
  if (!fits)
    {
      gp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
               "payload does not fit the model");
      give_up (p, out, nb, "its payload was refused");
      return;
    }
  nb->done = nb->got = TRUE;
  nb->values = learn_weights_ref (msg->weights);
  nb->degree = msg->degree;
  if (msg->n_indices)
    {
      nb->indices = g_memdup2 (msg->indices, msg->n_indices * sizeof *msg->indices);
      nb->n_indices = msg->n_indices;
    }
}

static void
handle_neighbors (GossipPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  g_array_set_size (p->nbrs, 0);
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] != p->id)
      {
        Nbr nb = { .id = msg->peers[i] };
        g_array_append_val (p->nbrs, nb);
      }
  gp_build_outgoing (p);
  gp_set_state (p, out, GOSSIP_PEER_EXCHANGING);
  p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  for (guint i = 0; i < p->nbrs->len; i++)
    {
      Nbr *nb = &g_array_index (p->nbrs, Nbr, i);
      ProtoLinkPhase s;
      if (!proto_links_get (&p->links, nb->id, &s))
        proto_links_open (&p->links, out, nb->id);
      else if (s == PROTO_LINKS_UP)
        send_payload (p, out, nb);
    }
  /* payloads that beat the Neighbors message */
  for (guint i = 0; i < p->early->len; i++)
    {
      Early *e = &g_array_index (p->early, Early, i);
      take_payload (p, out, e->from, &e->msg);
      proto_msg_clear (&e->msg);
    }
  g_array_set_size (p->early, 0);
  maybe_complete (p, out);
}




/* PeersForRound: draw the targets of this step from the members. */
static void
handle_list (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  p->step = msg->round;
  p->have_step = TRUE;
  g_autofree ProtoNodeId *pool = g_new (ProtoNodeId, MAX (msg->n_peers, 1));
  guint n = 0;
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] != p->id)
      pool[n++] = msg->peers[i];
  guint k = gp_draw_targets (p, pool, n);
  g_free (p->targets);
  p->targets = g_memdup2 (pool, MAX (k, 1) * sizeof *pool);
  p->n_targets = k;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
  m.round = p->step;
  proto_msg_set_peers (&m, pool, k);
  gp_send_server (p, out, &m);
  gp_set_state (p, out, GOSSIP_PEER_WAIT_GRAPH);
}


static void
link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  gp_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  gd_link_lost (p, out, other);
  gp_sync_link_lost (p, out, other);
  Nbr *nb = p->state == GOSSIP_PEER_EXCHANGING ? find_nbr (p, other) : NULL;
  if (nb && !(nb->got && nb->sent))
    {
      give_up (p, out, nb, "link lost: mixed as absent");
      maybe_complete (p, out);
    }
}

gboolean
gossip_peer_listens (const GossipPeer *p, ProtoMsgType type, ProtoNodeId from)
{
  (void) from;
  switch (type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      return p->state == GOSSIP_PEER_CONNECTING;
    case PROTO_MSG_PEERS_FOR_ROUND:
      return p->state == GOSSIP_PEER_WAIT_LIST || (p->state == GOSSIP_PEER_DONE && p->helper);
    case PROTO_MSG_NEIGHBORS:
      return p->state == GOSSIP_PEER_WAIT_GRAPH;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      /* asynchronous pushes come at any time; a step's payload outside the
       * step is dropped by handle_message, which sees which it is */
      return p->state >= GOSSIP_PEER_TRAINING && p->state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_GOSSIP_SAMPLE:
      return p->state == GOSSIP_PEER_WAIT_LIST;
    case PROTO_MSG_DHT_FIND_NODE:
    case PROTO_MSG_DHT_NODES:
      return p->dht != NULL && p->state >= GOSSIP_PEER_TRAINING && p->state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      return p->state >= GOSSIP_PEER_SYNCING && p->state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
    case PROTO_MSG_SHARED_MODEL:
      return p->state == GOSSIP_PEER_SYNCING;
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      return p->state >= GOSSIP_PEER_TRAINING && p->state <= GOSSIP_PEER_DONE;
    default:
      return FALSE;
    }
}

static void
handle_message (GossipPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->received[msg->type]++;
  /* a step's payload is listened for only during a step */
  gboolean outside_step = msg->type == PROTO_MSG_GOSSIP_PAYLOAD && msg->comm_round == PROTO_GOSSIP_STEP
                          && p->state != GOSSIP_PEER_WAIT_GRAPH && p->state != GOSSIP_PEER_EXCHANGING;
  if (!gossip_peer_listens (p, msg->type, in->from) || outside_step)
    {
      gp_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  gp_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      p->id = msg->node;
      p->links.self = p->id;
      if (p->cfg.discovery == PROTO_DISCOVERY_KADEMLIA)
        gd_start (p);
      if (msg->joined_mid_training)
        gp_sync_expect (p, out);
      else
        gp_start_training (p, out);
      break;
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
      gp_sync_provider (p, out, msg->node);
      break;
    case PROTO_MSG_SHARED_MODEL:
      gp_sync_model (p, out, in->from, msg->weights);
      break;
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      gp_observe (p, out, PROTO_OBS_SYNC_SERVED, in->from, PROTO_MSG_MODEL_SYNC_REQUEST, -1, NULL);
      gp_sync_serve (p, out, in->from);
      break;
    case PROTO_MSG_PEERS_FOR_ROUND:
      handle_list (p, msg, out);
      break;
    case PROTO_MSG_NEIGHBORS:
      if (msg->round != p->step)
        {
          gp_observe (p, out, PROTO_OBS_REJECTED, in->from, PROTO_MSG_NEIGHBORS, msg->round, "another step's graph");
          break;
        }
      handle_neighbors (p, now, msg, out);
      break;
    case PROTO_MSG_GOSSIP_SAMPLE:
      gp_handle_sample (p, msg, out);
      break;
    case PROTO_MSG_DHT_FIND_NODE:
      gd_handle_find (p, out, in->from, msg);
      break;
    case PROTO_MSG_DHT_NODES:
      gd_handle_nodes (p, out, in->from, msg);
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      if (msg->comm_round != PROTO_GOSSIP_STEP)
        {
          if (msg->weights == NULL)
            break;
          if (msg->comm_round == PROTO_GOSSIP_PUSH)
            gp_reply_push (p, out, in->from);
          if (p->state == GOSSIP_PEER_DONE)
            break;   /* finished: it answers, but mixes no more */
          Pushed x = { .from = in->from, .round = msg->round, .values = learn_weights_ref (msg->weights),
                       .indices = msg->n_indices ? g_memdup2 (msg->indices, msg->n_indices * sizeof *msg->indices)
                                                 : NULL,
                       .n_indices = msg->n_indices };
          g_array_append_val (p->inbox, x);
        }
      else if (msg->round != p->step)
        gp_observe (p, out, PROTO_OBS_REJECTED, in->from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
                 "another step's payload");
      else if (p->state == GOSSIP_PEER_WAIT_GRAPH)
        {
          Early e = { .from = in->from };
          proto_msg_copy (&e.msg, msg);
          g_array_append_val (p->early, e);
        }
      else
        {
          take_payload (p, out, in->from, msg);
          maybe_complete (p, out);
        }
      break;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      proto_links_signal (&p->links, out, msg);
      break;
    default:
      break;
    }
}

void
gossip_peer_handle (GossipPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  p->now = now;
  DlTime before = gossip_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      if (p->state != GOSSIP_PEER_IDLE)
        break;
      p->connected = TRUE;
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_CLIENT_CONNECTED);
        gp_send_server (p, out, &m);
      }
      gp_set_state (p, out, GOSSIP_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, now, in, out);
      break;
    case PROTO_IN_DEADLINE:
      gd_deadline (p, out);
      gp_sync_deadline (p, out);
      if (p->state == GOSSIP_PEER_DONE && p->helper && now >= p->wait_deadline)
        {
          /* a helper's notice may have been lost too: the coordinator would
           * wait for it as for a peer still training */
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
          m.helper = TRUE;
          gp_send_server (p, out, &m);
          p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
        }
      if ((p->state == GOSSIP_PEER_WAIT_LIST || p->state == GOSSIP_PEER_WAIT_GRAPH) && now >= p->wait_deadline)
        {
          gp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, -1, -1,
                      "no answer from the coordinator: says again where it is");
          ProtoMsg m;
          if (p->state == GOSSIP_PEER_WAIT_LIST)
            proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
          else
            {
              proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
              m.round = p->step;
              proto_msg_set_peers (&m, p->targets, p->n_targets);
            }
          gp_send_server (p, out, &m);
          p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
        }
      if (p->state == GOSSIP_PEER_EXCHANGING && now >= p->xchg_deadline)
        {
          gp_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_GOSSIP_PAYLOAD, -1,
                   "payload_timeout: the missing neighbours are mixed as absent");
          for (guint i = 0; i < p->nbrs->len; i++)
            give_up (p, out, &g_array_index (p->nbrs, Nbr, i), "no payload by the deadline");
          maybe_complete (p, out);
        }
      break;
    case PROTO_IN_TRAINING_DONE:
      if (p->state != GOSSIP_PEER_TRAINING || in->weights == NULL)
        break;
      learn_weights_unref (p->model);
      p->model = learn_weights_ref (in->weights);
      if (p->dht)
        {
          /* kademlia: no coordinator step; the partners come from the routing table */
          g_autofree ProtoNodeId *pool = NULL;
          guint n = gd_contacts (p, &pool);
          gp_set_state (p, out, GOSSIP_PEER_WAIT_LIST);
          gp_async_step (p, out, pool, n);
          break;
        }
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
        gp_send_server (p, out, &m);
      }
      gp_set_state (p, out, GOSSIP_PEER_WAIT_LIST);
      break;
    case PROTO_IN_LINK_UP:
      {
        if (!proto_links_up (&p->links, out, in->from))
          break;
        Nbr *nb = p->state == GOSSIP_PEER_EXCHANGING ? find_nbr (p, in->from) : NULL;
        if (nb && !nb->sent && !nb->gave_up)
          {
            send_payload (p, out, nb);
            maybe_complete (p, out);
          }
        break;
      }
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
      gp_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
               in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      clear_step (p);
      gp_clear_async (p);
      gp_set_state (p, out, GOSSIP_PEER_LEFT);
      break;
    }
  DlTime after = gossip_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

DlTime
gossip_peer_next_deadline (const GossipPeer *p)
{
  DlTime t = p->state == GOSSIP_PEER_EXCHANGING ? p->xchg_deadline
             : p->state == GOSSIP_PEER_SYNCING  ? p->sync_deadline
                                                : DL_TIME_NEVER;
  if (p->state == GOSSIP_PEER_WAIT_LIST || p->state == GOSSIP_PEER_WAIT_GRAPH
      || (p->state == GOSSIP_PEER_DONE && p->helper))
    t = MIN (t, p->wait_deadline);
  return MIN (t, gd_next_deadline (p));
}

GossipPeer *
gossip_peer_new (const ProtoConfig *cfg, LearnWeights *initial, DlRandom *rng)
{
  GossipPeer *p = g_new0 (GossipPeer, 1);
  p->cfg = *cfg;
  p->state = GOSSIP_PEER_IDLE;
  p->id = PROTO_NO_NODE;
  p->rng = rng;
  p->model = learn_weights_ref (initial);
  p->nbrs = g_array_new (FALSE, TRUE, sizeof (Nbr));
  p->early = g_array_new (FALSE, TRUE, sizeof (Early));
  gp_links_init (p);
  p->inbox = g_array_new (FALSE, TRUE, sizeof (Pushed));
  p->last_round_end = -1;
  p->xchg_deadline = DL_TIME_NEVER;
  p->wait_deadline = DL_TIME_NEVER;
  p->sync_from = PROTO_NO_NODE;
  p->sync_deadline = DL_TIME_NEVER;
  return p;
}

void
gossip_peer_free (GossipPeer *p)
{
  if (!p)
    return;
  clear_step (p);
  gp_clear_async (p);
  gd_free (p->dht);
  g_free (p->targets);
  g_array_unref (p->inbox);
  g_array_unref (p->nbrs);
  g_array_unref (p->early);
  proto_links_clear (&p->links);
  learn_weights_unref (p->model);
  learn_weights_unref (p->base);
  g_free (p->residual);
  g_free (p);
}

GossipPeerState gossip_peer_state (const GossipPeer *p) { return p->state; }
gboolean gossip_peer_helper (const GossipPeer *p) { return p->helper; }
gboolean gossip_peer_synced (const GossipPeer *p) { return p->synced; }
gboolean gossip_peer_connected (const GossipPeer *p) { return p->connected; }
guint gossip_peer_rounds_done (const GossipPeer *p) { return p->rounds_done; }
const char *gossip_peer_error (const GossipPeer *p) { return p->error; }
LearnWeights *gossip_peer_model (const GossipPeer *p) { return p->model; }

guint
gossip_peer_received_count (const GossipPeer *p, ProtoMsgType type)
{
  return (unsigned) type < PROTO_MSG_N_TYPES ? p->received[type] : 0;
}
