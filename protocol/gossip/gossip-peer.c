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
 * peer_pool.ts), so the world and the testbed carry it unchanged.
 *
 * Every transition is here, in `static` handlers: the synchronous step,
 * model sync for a late joiner, asynchronous pushes (straggler_policy =
 * async, mixed), push-pull averaging of a scalar (gossip_mode = push-pull).  What lives outside are leaves it calls and that never
 * call back: the arithmetic (gossip-mix.h), the link pool
 * (protocol/session/session-links.h) and Kademlia's routing table and lookups
 * (gossip-dht-private.h), which answer with effects carried out here, and
 * its own leaves (gossip-peer-private.h): gossip-peer-effects.c
 * (observations, sends, the payloads it encodes), gossip-peer-model.c
 * (what a step shares, the pushes mixed in) and gossip-peer-records.c
 * (neighbours, clearing, the draw of targets, the machine's accessors). */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

#include <string.h>

/* ---- small helpers ---- */

static void
set_state (GossipPeer *p, ProtoOutbox *out, GossipPeerState s)
{
  if (p->base.state == s)
    return;
  p->base.state = s;
  /* a wait for the coordinator ends after payload_timeout: a message on its
   * stream may have been lost (a partition); the peer then says again
   * where it is (as DISCO's robust does: proto-config.h robust_wait_timeout);
   * in connecting, ClientConnected again: its NewNodeInfo may be lost */
  p->wait_deadline = (s == GOSSIP_PEER_WAIT_LIST && !p->dht) || s == GOSSIP_PEER_WAIT_GRAPH
                     || (s == GOSSIP_PEER_DONE && !p->dht) || s == GOSSIP_PEER_CONNECTING
                     ? dl_time_add (p->now, p->cfg.payload_timeout) : DL_TIME_NEVER;
  /* push-pull: the next list waits for the others' exchanges, a cycle at most */
  if (_gossip_peer_push_pull (p) && p->wait_deadline != DL_TIME_NEVER)
    p->wait_deadline = dl_time_add (p->wait_deadline, gossip_config (&p->cfg)->cycle);
  _gossip_peer_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, _gossip_peer_state_names[s]);
}

/* ---- links: a link per neighbour (or Kademlia contact), kept across
 * steps, set up by DISCO's signalling through the coordinator
 * (protocol/session/session-links.h) ---- */

/* ---- Kademlia discovery (discovery = kademlia): the routing table and
 * its lookups are a leaf (gossip-dht-private.h; NULL without kademlia);
 * what it decides to send or note is queued there as effects, carried out
 * here in order after each call ---- */

static void start_training (GossipPeer *p, ProtoOutbox *out);
static void say_ready (GossipPeer *p, ProtoOutbox *out);
static void finish (GossipPeer *p, ProtoOutbox *out);


/* A step's list (PeersForRound, GossipSample): the peer is in its step;
 * (transfer full) the candidates, every listed member but itself. */
static ProtoNodeId *
enter_step (GossipPeer *p, const ProtoMsg *msg, guint *n_out)
{
  p->step = msg->round;
  p->have_step = TRUE;
  ProtoNodeId *pool = g_new (ProtoNodeId, MAX (msg->n_peers, 1));
  guint n = 0;
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] != p->id)
      pool[n++] = msg->peers[i];
  *n_out = n;
  return pool;
}


/* ---- the step ---- */

static void
start_training (GossipPeer *p, ProtoOutbox *out)
{
  _gossip_peer_clear_step (p);
  if (_gossip_peer_push_pull (p))
    {
      /* push-pull trains nothing: ready for the next cycle at once */
      say_ready (p, out);
      return;
    }
  learn_weights_unref (p->start);
  p->start = learn_weights_ref (p->model);
  set_state (p, out, GOSSIP_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->base.rounds_done;
}

static void
helper_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  m.helper = TRUE;
  _gossip_peer_send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_DONE);
}

static void
finish (GossipPeer *p, ProtoOutbox *out)
{
  _gossip_peer_observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->base.rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      proto_links_close_all (&p->links, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->base.connected = FALSE;
      set_state (p, out, GOSSIP_PEER_LEFT);
      return;
    }
  /* it stays as a helper: it keeps mixing in the steps it is listed for,
   * without training, so that peers still training (late joiners) have
   * partners; the coordinator no longer waits for it (the helper flag) */
  p->helper = TRUE;
  helper_ready (p, out);
}

/* The peer's step (a push-pull cycle) is over: count it, observe its end
 * (value and detail), and go on: help, finish, or train again. */
static void
end_step (GossipPeer *p, ProtoOutbox *out, int64_t value, const char *detail)
{
  if (!p->helper)
    p->base.rounds_done++;
  p->last_round_end = MAX ((int32_t) p->step, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, _gossip_peer_state_names[p->base.state], p->last_round_end, PROTO_NO_NODE, -1,
                        value, "%s", detail);
  _gossip_peer_clear_step (p);
  if (p->helper)
    helper_ready (p, out);
  else if (p->base.rounds_done >= p->cfg.rounds)
    finish (p, out);
  else
    start_training (p, out);
}

/* Every neighbour answered or was given up: mix, end the step. */
static void
maybe_complete (GossipPeer *p, ProtoOutbox *out)
{
  if (p->base.state != GOSSIP_PEER_EXCHANGING)
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
  _gossip_peer_mix_inbox (p, out);
  g_autofree char *detail = g_strdup_printf ("%smixed %u of %u neighbours", p->helper ? "helper: " : "", got,
                                             p->nbrs->len);
  end_step (p, out, got + 1, detail);
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
  _gossip_peer_observe (p, out, PROTO_OBS_NOTE, nb->id, PROTO_MSG_GOSSIP_PAYLOAD, -1, why);
}

static void
take_payload (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  Nbr *nb = _gossip_peer_find_nbr (p, from);
  if (nb == NULL || nb->done)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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
      _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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

static void pp_exchange (GossipPeer *p, DlTime now, ProtoOutbox *out);

static void
handle_neighbors (GossipPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (_gossip_peer_push_pull (p))
    {
      /* push-pull: the peer pushes to its own draw; the peers that drew
       * it push to it, and it answers them whenever they do */
      pp_exchange (p, now, out);
      return;
    }
  g_array_set_size (p->nbrs, 0);
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] != p->id)
      {
        Nbr nb = { .id = msg->peers[i] };
        g_array_append_val (p->nbrs, nb);
      }
  _gossip_peer_build_outgoing (p);
  set_state (p, out, GOSSIP_PEER_EXCHANGING);
  p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  for (guint i = 0; i < p->nbrs->len; i++)
    {
      Nbr *nb = &g_array_index (p->nbrs, Nbr, i);
      ProtoLinkPhase s;
      if (!proto_links_get (&p->links, nb->id, &s))
        proto_links_open (&p->links, out, nb->id);
      else if (s == PROTO_LINKS_UP)
        _gossip_peer_send_payload (p, out, nb);
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


/* Ready for the coordinator's next step. */
static void
say_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  _gossip_peer_send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_WAIT_LIST);
}

/* PeersForRound: draw the targets of this step from the members. */
static void
handle_list (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint n = 0;
  g_autofree ProtoNodeId *pool = enter_step (p, msg, &n);
  if (_gossip_peer_push_pull (p))
    {
      /* every exchange of the last cycle is over (the coordinator lists
       * once every peer is ready, and a peer is ready once its push is
       * answered or given up): its value now is the cycle's result */
      ProtoMsg r;
      proto_msg_init (&r, PROTO_MSG_GOSSIP_PAYLOAD);
      r.round = p->step;
      r.comm_round = PROTO_GOSSIP_REPORT;
      proto_msg_set_weights (&r, p->model);
      _gossip_peer_send_server (p, out, &r);
    }
  guint k = _gossip_peer_draw_targets (p, pool, n);
  g_free (p->targets);
  p->targets = g_memdup2 (pool, MAX (k, 1) * sizeof *pool);
  p->n_targets = k;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
  m.round = p->step;
  proto_msg_set_peers (&m, pool, k);
  _gossip_peer_send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_WAIT_GRAPH);
}


/* ---- model sync for a gossip peer that joins late
 * as DISCO's: the coordinator names a provider
 * (SignalModelProvider after NewNodeInfo, decentralized_controller.ts), the
 * newcomer links to it and asks (ModelSyncRequest over the link), the
 * provider answers with its current model (SharedModel), and the newcomer
 * trains from it (discojs/src/client/decentralized/decentralized_client.ts,
 * the model sync of a peer that joined mid-training).  Without an answer
 * in model_sync_timeout, or if the link fails, it trains from its own.
 * Gossip has no round-global model: the provider's is the latest model of
 * a peer in the latest step, not a completed round's. */

static void
sync_give_up (GossipPeer *p, ProtoOutbox *out, const char *why)
{
  _gossip_peer_observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_SYNC_MODEL, -1, why);
  p->sync_from = PROTO_NO_NODE;
  start_training (p, out);
}

static void
sync_expect (GossipPeer *p, ProtoOutbox *out)
{
  set_state (p, out, GOSSIP_PEER_SYNCING);
  p->sync_from = PROTO_NO_NODE;
  p->sync_deadline = dl_time_add (p->now, p->cfg.model_sync_timeout);
}

static void
sync_provider (GossipPeer *p, ProtoOutbox *out, ProtoNodeId provider)
{
  if (p->base.state != GOSSIP_PEER_SYNCING || p->sync_from != PROTO_NO_NODE)
    return;
  if (provider == PROTO_NO_NODE || provider == p->id)
    {
      sync_give_up (p, out, "no model provider: trains from its own");
      return;
    }
  p->sync_from = provider;
  _gossip_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, provider, PROTO_MSG_SYNC_REQUEST, -1, NULL);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SYNC_REQUEST);
  _gossip_peer_send_or_queue (p, out, provider, &m);
}

static void
sync_model (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *model)
{
  if (p->base.state != GOSSIP_PEER_SYNCING || from != p->sync_from || model == NULL)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_SYNC_MODEL, -1, "a model it did not ask for");
      return;
    }
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (model);
  p->synced = TRUE;
  _gossip_peer_observe (p, out, PROTO_OBS_SYNC_DONE, from, PROTO_MSG_SYNC_MODEL, -1, NULL);
  p->sync_from = PROTO_NO_NODE;
  start_training (p, out);
}

static void
sync_deadline (GossipPeer *p, ProtoOutbox *out)
{
  if (p->base.state == GOSSIP_PEER_SYNCING && p->now >= p->sync_deadline)
    sync_give_up (p, out, "model_sync_timeout: no model from the provider: trains from its own");
}

static void
sync_link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  if (p->base.state == GOSSIP_PEER_SYNCING && other == p->sync_from)
    sync_give_up (p, out, "the link to the model provider is lost: trains from its own");
}

/* ---- asynchronous gossip (straggler_policy = async, and
 * the slow peers of mixed): a step of the peer's own (GossipSample), pushes
 * answered with a reply (push-pull), and the pushes received mixed in by
 * staleness (gossip-mix.h). */

static void
async_step (GossipPeer *p, ProtoOutbox *out, ProtoNodeId *pool, guint n)
{
  guint k = _gossip_peer_draw_targets (p, pool, n);
  _gossip_peer_build_outgoing (p);
  for (guint i = 0; i < k; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
      m.round = p->base.rounds_done;
      m.comm_round = PROTO_GOSSIP_PUSH;   /* no step in common: answered with a reply */
      proto_msg_set_weights (&m, p->outgoing);
      if (p->out_idx)
        proto_msg_take_indices (&m, g_memdup2 (p->out_idx, p->out_n * sizeof *p->out_idx), p->out_n);
      _gossip_peer_send_or_queue (p, out, pool[i], &m);
    }
  g_clear_pointer (&p->outgoing, learn_weights_unref);
  g_clear_pointer (&p->out_idx, g_free);
  p->out_n = 0;
  _gossip_peer_mix_inbox (p, out);
  p->base.rounds_done++;
  p->last_round_end = MAX ((int32_t) p->step, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, gossip_peer_state_name (p->base.state), p->last_round_end, PROTO_NO_NODE, -1, 1,
                        "asynchronous: pushed to %u of %u candidates", k, n);
  if (p->dht)
    {
      /* kademlia: a random key, to keep the buckets fresh */
      gossip_dht_refresh (p->dht, p->now, dl_random_u64 (p->rng));
      _gossip_peer_dht_apply (p, out);
    }
  if (p->base.rounds_done >= p->cfg.rounds)
    finish (p, out);
  else
    start_training (p, out);
}

/* GossipSample: an asynchronous step.  Push the model to `fanout` of the
 * candidates (a push waits for its link, the peer does not), mix the pushes
 * received meanwhile by staleness, and train again. */
static void
handle_sample (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint n = 0;
  g_autofree ProtoNodeId *pool = enter_step (p, msg, &n);
  async_step (p, out, pool, n);
}

/* ---- push-pull averaging (gossip_mode = push-pull)
 * Jelasity, Montresor, Babaoglu, "Gossip-based aggregation in large
 * dynamic networks", ACM TOCS 23(3), 2005, Figure 1 with AVERAGE: once a
 * cycle, a peer sends its value to one random peer; that peer answers with
 * its own and both take the mean.  Here the receiver takes the mean and
 * answers with it, and the pusher moves by what the receiver moved
 * (gossip_pushpull_take): the same when nothing comes between, and the
 * sum of the values is kept when a third peer's push does.  A cycle's
 * push goes at a uniform instant within `cycle` from the step's graph, so
 * that exchanges seldom overlap, as the paper's analysis assumes; a push
 * not answered within payload_timeout is given up (a lost push changes
 * nothing; a lost answer leaves the receiver's half done). */

static void
pp_cycle_done (GossipPeer *p, ProtoOutbox *out, const char *how)
{
  p->pp_target = PROTO_NO_NODE;
  p->pp_push_at = DL_TIME_NEVER;
  p->pp_waiting = FALSE;
  g_autofree char *detail = g_strconcat ("push-pull: ", how, NULL);
  end_step (p, out, 1, detail);
}

static void
pp_exchange (GossipPeer *p, DlTime now, ProtoOutbox *out)
{
  set_state (p, out, GOSSIP_PEER_EXCHANGING);
  if (p->n_targets == 0)
    {
      pp_cycle_done (p, out, "alone, no exchange");
      return;
    }
  p->pp_target = p->targets[0];
  p->pp_push_at = dl_time_add (now, (DlTime) (dl_random_uniform (p->rng) * (double) gossip_config (&p->cfg)->cycle));
  p->xchg_deadline = dl_time_add (p->pp_push_at, p->cfg.payload_timeout);
}

static void
pp_push (GossipPeer *p, ProtoOutbox *out)
{
  p->pp_push_at = DL_TIME_NEVER;
  p->pp_sent = _gossip_peer_pp_value (p);
  p->pp_waiting = TRUE;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->step;
  m.comm_round = PROTO_GOSSIP_PUSH;
  proto_msg_set_weights (&m, p->model);
  _gossip_peer_send_or_queue (p, out, p->pp_target, &m);
}

/* A push or an answer of push-pull (the value is its weights' first). */
static void
pp_receive (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  float v = learn_weights_data (msg->weights)[0];
  if (msg->comm_round == PROTO_GOSSIP_PUSH)
    {
      float mean = gossip_pushpull_mean (_gossip_peer_pp_value (p), v);
      _gossip_peer_pp_set (p, mean);
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
      m.round = msg->round;
      m.comm_round = PROTO_GOSSIP_REPLY;
      proto_msg_set_weights (&m, p->model);
      _gossip_peer_send_or_queue (p, out, from, &m);   /* its end of the link may not have seen it up yet */
      return;
    }
  if (p->base.state != GOSSIP_PEER_EXCHANGING || !p->pp_waiting || from != p->pp_target)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
               "an answer to no push under way (it was given up)");
      return;
    }
  _gossip_peer_pp_set (p, gossip_pushpull_take (_gossip_peer_pp_value (p), p->pp_sent, v));
  pp_cycle_done (p, out, "exchanged");
}

static void
pp_deadline (GossipPeer *p, DlTime now, ProtoOutbox *out)
{
  if (p->base.state != GOSSIP_PEER_EXCHANGING)
    return;
  if (now >= p->pp_push_at)
    pp_push (p, out);
  else if (now >= p->xchg_deadline)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, p->pp_target, PROTO_MSG_GOSSIP_PAYLOAD, -1,
               "payload_timeout: the push is not answered, given up");
      pp_cycle_done (p, out, "no answer");
    }
}

static void
link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  _gossip_peer_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  gossip_dht_link_lost (p->dht, p->now, other);
  _gossip_peer_dht_apply (p, out);
  sync_link_lost (p, out, other);
  if (_gossip_peer_push_pull (p))
    {
      if (p->base.state == GOSSIP_PEER_EXCHANGING && other == p->pp_target)
        pp_cycle_done (p, out, "link lost, no exchange");
      return;
    }
  Nbr *nb = p->base.state == GOSSIP_PEER_EXCHANGING ? _gossip_peer_find_nbr (p, other) : NULL;
  if (nb && !(nb->got && nb->sent))
    {
      give_up (p, out, nb, "link lost: mixed as absent");
      maybe_complete (p, out);
    }
}

/* ProtoMsg Welcome: its id, then training (or a sync first, if it joined
 * mid-training). */
static void
on_welcome (GossipPeer *p, ProtoOutbox *out, const ProtoMsg *msg)
{
  p->id = msg->node;
  p->links.self = p->id;
  if (gossip_config (&p->cfg)->discovery == PROTO_DISCOVERY_KADEMLIA)
    {
      const GossipConfig *gc = gossip_config (&p->cfg);
      p->dht = gossip_dht_new (p->id, gc->dht_k, gc->dht_alpha, gc->dht_rpc_timeout);
    }
  if (_gossip_peer_push_pull (p))
    {
      /* its value: uniform in [0, 1) from its own stream */
      _gossip_peer_pp_set (p, (float) dl_random_uniform (p->rng));
      p->pp_start = _gossip_peer_pp_value (p);
      start_training (p, out);
    }
  else if (msg->joined_mid_training)
    sync_expect (p, out);
  else
    start_training (p, out);
}

/* SyncRequest: a joining peer asks for this one's model. */
static void
on_sync_request (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  _gossip_peer_observe (p, out, PROTO_OBS_SYNC_SERVED, from, PROTO_MSG_SYNC_REQUEST, -1, NULL);
  _gossip_peer_sync_serve (p, out, from);
}

/* Neighbors: this step's graph, if it is this step's. */
static void
on_neighbors (GossipPeer *p, DlTime now, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (msg->round != p->step)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_NEIGHBORS, msg->round, "another step's graph");
      return;
    }
  handle_neighbors (p, now, msg, out);
}

/* DhtFindNode: a kademlia lookup, answered from the routing table. */
static void
on_dht_find_node (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  gossip_dht_handle_find (p->dht, from, msg);
  _gossip_peer_dht_apply (p, out);
}

/* DhtNodes: a kademlia lookup's answer. */
static void
on_dht_nodes (GossipPeer *p, DlTime now, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  gossip_dht_handle_nodes (p->dht, now, from, msg);
  _gossip_peer_dht_apply (p, out);
}

/* GossipPayload: a push-pull value, an asynchronous push (or its reply),
 * or a step's payload (kept if the step's graph has not come yet). */
static void
on_payload (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (_gossip_peer_push_pull (p))
    {
      if (msg->weights != NULL && learn_weights_len (msg->weights) >= 1 && !learn_weights_is_symbolic (msg->weights)
          && (msg->comm_round == PROTO_GOSSIP_PUSH || msg->comm_round == PROTO_GOSSIP_REPLY))
        pp_receive (p, out, from, msg);
      else
        _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
                 "not a push-pull value");
    }
  else if (msg->comm_round != PROTO_GOSSIP_STEP)
    {
      if (msg->weights == NULL)
        return;
      if (msg->comm_round == PROTO_GOSSIP_PUSH)
        _gossip_peer_reply_push (p, out, from);
      if (p->base.state == GOSSIP_PEER_DONE)
        return;   /* finished: it answers, but mixes no more */
      Pushed x = { .from = from, .round = msg->round, .values = learn_weights_ref (msg->weights),
                   .indices = msg->n_indices ? g_memdup2 (msg->indices, msg->n_indices * sizeof *msg->indices)
                                             : NULL,
                   .n_indices = msg->n_indices };
      g_array_append_val (p->inbox, x);
    }
  else if (msg->round != p->step)
    _gossip_peer_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
             "another step's payload");
  else if (p->base.state == GOSSIP_PEER_WAIT_GRAPH)
    {
      Early e = { .from = from };
      proto_msg_copy (&e.msg, msg);
      g_array_append_val (p->early, e);
    }
  else
    {
      take_payload (p, out, from, msg);
      maybe_complete (p, out);
    }
}

/* A message: counted, dropped unless listened for, then one handler per
 * type. */
static void
handle_message (GossipPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES)
    return;
  p->base.received[msg->type]++;
  /* a step's payload is listened for only during a step */
  gboolean outside_step = msg->type == PROTO_MSG_GOSSIP_PAYLOAD && msg->comm_round == PROTO_GOSSIP_STEP
                          && p->base.state != GOSSIP_PEER_WAIT_GRAPH && p->base.state != GOSSIP_PEER_EXCHANGING;
  if (!_gossip_peer_listens (p, msg->type, in->from) || outside_step)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  _gossip_peer_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_WELCOME:
      on_welcome (p, out, msg);
      break;
    case PROTO_MSG_SYNC_PROVIDER:
      sync_provider (p, out, msg->node);
      break;
    case PROTO_MSG_SYNC_MODEL:
      sync_model (p, out, in->from, msg->weights);
      break;
    case PROTO_MSG_SYNC_REQUEST:
      on_sync_request (p, out, in->from);
      break;
    case PROTO_MSG_ROUND_PEERS:
      handle_list (p, msg, out);
      break;
    case PROTO_MSG_NEIGHBORS:
      on_neighbors (p, now, out, in->from, msg);
      break;
    case PROTO_MSG_GOSSIP_SAMPLE:
      handle_sample (p, msg, out);
      break;
    case PROTO_MSG_DHT_FIND_NODE:
      on_dht_find_node (p, out, in->from, msg);
      break;
    case PROTO_MSG_DHT_NODES:
      on_dht_nodes (p, now, out, in->from, msg);
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      on_payload (p, out, in->from, msg);
      break;
    case PROTO_MSG_SIGNAL:
      proto_links_signal (&p->links, out, msg);
      break;
    default:
      break;
    }
}

/* Start: it says hello to the coordinator. */
static void
on_start (GossipPeer *p, ProtoOutbox *out)
{
  if (p->base.state != GOSSIP_PEER_IDLE)
    return;
  p->base.connected = TRUE;
  {
    ProtoMsg m;
    proto_msg_init (&m, PROTO_MSG_HELLO);
    _gossip_peer_send_server (p, out, &m);
  }
  set_state (p, out, GOSSIP_PEER_CONNECTING);
}

/* The deadline: the DHT's, the sync's, push-pull's, a helper's notice
 * again, a silent coordinator asked again, or a step's missing payloads. */
static void
on_deadline (GossipPeer *p, DlTime now, ProtoOutbox *out)
{
  gossip_dht_deadline (p->dht, now);
  _gossip_peer_dht_apply (p, out);
  sync_deadline (p, out);
  if (_gossip_peer_push_pull (p))
    pp_deadline (p, now, out);
  if (p->base.state == GOSSIP_PEER_DONE && p->helper && now >= p->wait_deadline)
    {
      /* a helper's notice may have been lost too: the coordinator would
       * wait for it as for a peer still training */
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_READY);
      m.helper = TRUE;
      _gossip_peer_send_server (p, out, &m);
      p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
    }
  if ((p->base.state == GOSSIP_PEER_CONNECTING || p->base.state == GOSSIP_PEER_WAIT_LIST
       || p->base.state == GOSSIP_PEER_WAIT_GRAPH)
      && now >= p->wait_deadline)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, -1, -1,
                  "no answer from the coordinator: says again where it is");
      ProtoMsg m;
      if (p->base.state == GOSSIP_PEER_CONNECTING)
        proto_msg_init (&m, PROTO_MSG_HELLO);   /* no NewNodeInfo: admitted again */
      else if (p->base.state == GOSSIP_PEER_WAIT_LIST)
        proto_msg_init (&m, PROTO_MSG_READY);
      else
        {
          proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
          m.round = p->step;
          proto_msg_set_peers (&m, p->targets, p->n_targets);
        }
      _gossip_peer_send_server (p, out, &m);
      p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
    }
  if (!_gossip_peer_push_pull (p) && p->base.state == GOSSIP_PEER_EXCHANGING && now >= p->xchg_deadline)
    {
      _gossip_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_GOSSIP_PAYLOAD, -1,
               "payload_timeout: the missing neighbours are mixed as absent");
      for (guint i = 0; i < p->nbrs->len; i++)
        give_up (p, out, &g_array_index (p->nbrs, Nbr, i), "no payload by the deadline");
      maybe_complete (p, out);
    }
}

/* Training done: the model kept, then ready (or, kademlia, its own step). */
static void
on_trained (GossipPeer *p, ProtoOutbox *out, const ProtoInput *in)
{
  if (p->base.state != GOSSIP_PEER_TRAINING || in->weights == NULL)
    return;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (in->weights);
  if (p->dht)
    {
      /* kademlia: no coordinator step; the partners come from the routing table */
      g_autofree ProtoNodeId *pool = NULL;
      guint n = gossip_dht_contacts (p->dht, &pool);
      set_state (p, out, GOSSIP_PEER_WAIT_LIST);
      async_step (p, out, pool, n);
      return;
    }
  say_ready (p, out);
}

/* A link up: a neighbour's payload goes out if it waited for it. */
static void
on_link_up (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from)
{
  if (!proto_links_up (&p->links, out, from))
    return;
  Nbr *nb = p->base.state == GOSSIP_PEER_EXCHANGING ? _gossip_peer_find_nbr (p, from) : NULL;
  if (nb && !nb->sent && !nb->gave_up)
    {
      _gossip_peer_send_payload (p, out, nb);
      maybe_complete (p, out);
    }
}

/* The coordinator's stream closed, or it leaves: every link closed. */
static void
on_leave (GossipPeer *p, ProtoOutbox *out, ProtoInputKind kind)
{
  if (!p->base.connected)
    return;
  proto_links_close_all (&p->links, out);
  if (kind == PROTO_IN_LEAVE)
    proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
  p->base.connected = FALSE;
  _gossip_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
           kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
  _gossip_peer_clear_step (p);
  _gossip_peer_clear_async (p);
  set_state (p, out, GOSSIP_PEER_LEFT);
}

static void
gossip_peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  GossipPeer *p = impl;
  p->now = now;
  DlTime before = _gossip_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (p, out);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, now, in, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (p, now, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      on_trained (p, out, in);
      break;
    case PROTO_IN_LINK_UP:
      on_link_up (p, out, in->from);
      break;
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
      if (proto_links_get (&p->links, in->from, NULL))
        link_lost (p, out, in->from, in->kind == PROTO_IN_LINK_FAILED ? "failed" : "closed");
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      on_leave (p, out, in->kind);
      break;
    }
  DlTime after = _gossip_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

/* ---- the machine (proto-machine.h) ---- */

static const ProtoMachineClass peer_class = {
  .handle = gossip_peer_handle,
  .next_deadline = _gossip_peer_next_deadline,
  .listens = _gossip_peer_listens,
  .view = _gossip_peer_view,
  .model = _gossip_peer_model,
  .free = _gossip_peer_free,
};

ProtoMachine *
gossip_peer_new (const ProtoConfig *cfg, LearnWeights *initial, DlRandom *rng)
{
  GossipPeer *p = g_new0 (GossipPeer, 1);
  proto_machine_base_init (&p->base, _gossip_peer_state_names, GOSSIP_PEER_IDLE);
  p->base.error = p->error;
  p->cfg = *cfg;
  p->id = PROTO_NO_NODE;
  p->rng = rng;
  p->model = learn_weights_ref (initial);
  p->nbrs = g_array_new (FALSE, TRUE, sizeof (Nbr));
  p->early = g_array_new (FALSE, TRUE, sizeof (Early));
  _gossip_peer_links_init (p);
  p->inbox = g_array_new (FALSE, TRUE, sizeof (Pushed));
  p->last_round_end = -1;
  p->xchg_deadline = DL_TIME_NEVER;
  p->wait_deadline = DL_TIME_NEVER;
  p->sync_from = PROTO_NO_NODE;
  p->sync_deadline = DL_TIME_NEVER;
  p->pp_target = PROTO_NO_NODE;
  p->pp_push_at = DL_TIME_NEVER;
  return proto_machine_new (&peer_class, &p->base);
}
