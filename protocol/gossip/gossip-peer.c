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
 * (gossip-dht-private.h), which answer with effects carried out here. */
#include "config.h"

#include "protocol/gossip/gossip-peer.h"
#include "protocol/gossip/gossip-dht-private.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/session/session-links.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

#include <string.h>

typedef struct {
  ProtoNodeId id;
  gboolean sent;        /* our payload went to it this step */
  gboolean done;        /* its payload came, or it is given up */
  gboolean got;
  gboolean gave_up;     /* no payload by the deadline, or its link is lost */
  LearnWeights *values;
  guint32 *indices;
  guint32 n_indices;
  guint32 degree;
} Nbr;

typedef struct {
  ProtoNodeId from;     /* Early: the sender; a pending push: the target */
  ProtoMsg msg;
} Early;

/* An asynchronous push received: mixed in at the end of the peer's step. */
typedef struct {
  ProtoNodeId from;
  guint32 round;        /* the sender's round */
  LearnWeights *values;
  guint32 *indices;
  guint32 n_indices;
} Pushed;

typedef struct GossipPeer GossipPeer;

struct GossipPeer {
  ProtoMachineBase base;   /* its state, what it received, connected, rounds done; error: the
                              text below */
  ProtoConfig cfg;
  ProtoNodeId id;
  DlRandom *rng;
  LearnWeights *model;
  LearnWeights *start;     /* the model this step's training began from (top-k ranks the change) */
  float *residual;         /* error feedback: change not sent yet */
  gboolean helper;         /* finished, stays, and keeps mixing for the others (no training) */
  char error[PROTO_OBS_DETAIL_LEN];   /* "" until it fails */

  uint32_t step;           /* the coordinator's step this peer is in (or was last) */
  gboolean have_step;
  GArray *nbrs;            /* Nbr, ascending id */
  ProtoLinks links;        /* its links (session-links.h), kept across steps, with their queues */
  GArray *early;           /* Early: payloads of this step that came before Neighbors */
  GArray *inbox;           /* Pushed: asynchronous pushes not mixed in yet */
  int32_t last_round_end;  /* the round of its last round-end observation (-1: none) */
  LearnWeights *outgoing;  /* this step's payload values */
  guint32 *out_idx;        /* and indices (NULL: dense) */
  guint32 out_n;
  DlTime xchg_deadline;
  GossipDht *dht;          /* discovery = kademlia (gossip-dht.c, a leaf), NULL otherwise */
  DlTime wait_deadline;    /* waiting for the coordinator (list, graph): say again where it is then */
  ProtoNodeId *targets;    /* its draws of this step, for a repeat */
  guint n_targets;
  /* model sync when it joins late (below) */
  ProtoNodeId sync_from;   /* the provider asked (PROTO_NO_NODE: none yet) */
  DlTime sync_deadline;
  gboolean synced;
  DlTime now;              /* the time of the input being handled */
  /* gossip_mode = push-pull (below) */
  float pp_start;          /* its value as drawn */
  ProtoNodeId pp_target;   /* this cycle's partner (PROTO_NO_NODE: none) */
  DlTime pp_push_at;       /* when its push goes (NEVER: it went, or there is none) */
  float pp_sent;           /* the value pushed */
  gboolean pp_waiting;     /* pushed, not answered yet */
};

static gboolean
push_pull (const GossipPeer *p)
{
  return gossip_config (&p->cfg)->gossip_mode == PROTO_GOSSIP_MODE_PUSH_PULL;
}

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

static void
observe (GossipPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
         const char *detail)
{
  proto_outbox_observe (out, kind, state_names[p->base.state], p->have_step ? (int32_t) p->step : -1, other, type,
                        value, "%s", detail ? detail : "");
}

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
  if (push_pull (p) && p->wait_deadline != DL_TIME_NEVER)
    p->wait_deadline = dl_time_add (p->wait_deadline, gossip_config (&p->cfg)->cycle);
  observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

static void
send_msg (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

static void
send_server (GossipPeer *p, ProtoOutbox *out, ProtoMsg *m)
{
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, m);
}

/* ---- links: a link per neighbour (or Kademlia contact), kept across
 * steps, set up by DISCO's signalling through the coordinator
 * (protocol/session/session-links.h) ---- */

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
links_init (GossipPeer *p)
{
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
  /* push-pull: only the pusher knows it wants the link */
  p->links.opener_offers = push_pull (p);
}

static void
send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

/* ---- Kademlia discovery (discovery = kademlia): the routing table and
 * its lookups are a leaf (gossip-dht-private.h; NULL without kademlia);
 * what it decides to send or note is queued there as effects, carried out
 * here in order after each call ---- */

static void
dht_apply (GossipPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  GossipDhtEffect *fx = gossip_dht_effects (p->dht, &n);
  for (guint i = 0; i < n; i++)
    switch (fx[i].kind)
      {
      case GOSSIP_DHT_SEND:
        send_or_queue (p, out, fx[i].to, &fx[i].msg);
        break;
      case GOSSIP_DHT_OBSERVE:
        observe (p, out, fx[i].obs, fx[i].to, fx[i].type, fx[i].value, fx[i].detail);
        break;
      }
  gossip_dht_effects_done (p->dht);
}

static void start_training (GossipPeer *p, ProtoOutbox *out);
static void say_ready (GossipPeer *p, ProtoOutbox *out);
static void build_outgoing (GossipPeer *p);
static void finish (GossipPeer *p, ProtoOutbox *out);
static void mix_inbox (GossipPeer *p, ProtoOutbox *out);
static guint draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n);

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

static Nbr *
find_nbr (GossipPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->nbrs->len; i++)
    if (g_array_index (p->nbrs, Nbr, i).id == id)
      return &g_array_index (p->nbrs, Nbr, i);
  return NULL;
}


/* ---- the step ---- */

static void
start_training (GossipPeer *p, ProtoOutbox *out)
{
  clear_step (p);
  if (push_pull (p))
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

/* What this step shares of the model (gossip-mix.h). */
static void
build_outgoing (GossipPeer *p)
{
  gsize n = learn_weights_len (p->model);
  if (gossip_config (&p->cfg)->sparsify == PROTO_SPARSIFY_NONE || n == 0)
    {
      p->outgoing = learn_weights_ref (p->model);
      return;
    }
  guint32 k = gossip_keep_count (n, gossip_config (&p->cfg)->keep);
  gboolean symbolic = learn_weights_is_symbolic (p->model);
  if (gossip_config (&p->cfg)->sparsify == PROTO_SPARSIFY_RANDOM_K)
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
      const float *x = learn_weights_data (p->model), *b = learn_weights_data (p->start);
      g_autofree float *score = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        score[i] = x[i] - b[i] + (p->residual ? p->residual[i] : 0.0f);
      p->out_idx = gossip_pick_top (score, (guint32) n, k);
      if (gossip_config (&p->cfg)->error_feedback)
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
  send_msg (p, out, nb->id, PROTO_VIA_LINK, &m);
}

static void
helper_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  m.helper = TRUE;
  send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_DONE);
}

static void
finish (GossipPeer *p, ProtoOutbox *out)
{
  observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->base.rounds_done, NULL);
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
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, state_names[p->base.state], p->last_round_end, PROTO_NO_NODE, -1,
                        value, "%s", detail);
  clear_step (p);
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
  mix_inbox (p, out);
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
  observe (p, out, PROTO_OBS_NOTE, nb->id, PROTO_MSG_GOSSIP_PAYLOAD, -1, why);
}

static void
take_payload (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  Nbr *nb = find_nbr (p, from);
  if (nb == NULL || nb->done)
    {
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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
  if (push_pull (p))
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
  build_outgoing (p);
  set_state (p, out, GOSSIP_PEER_EXCHANGING);
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


/* Ready for the coordinator's next step. */
static void
say_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_READY);
  send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_WAIT_LIST);
}

/* PeersForRound: draw the targets of this step from the members. */
static void
handle_list (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint n = 0;
  g_autofree ProtoNodeId *pool = enter_step (p, msg, &n);
  if (push_pull (p))
    {
      /* every exchange of the last cycle is over (the coordinator lists
       * once every peer is ready, and a peer is ready once its push is
       * answered or given up): its value now is the cycle's result */
      ProtoMsg r;
      proto_msg_init (&r, PROTO_MSG_GOSSIP_PAYLOAD);
      r.round = p->step;
      r.comm_round = PROTO_GOSSIP_REPORT;
      proto_msg_set_weights (&r, p->model);
      send_server (p, out, &r);
    }
  guint k = draw_targets (p, pool, n);
  g_free (p->targets);
  p->targets = g_memdup2 (pool, MAX (k, 1) * sizeof *pool);
  p->n_targets = k;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
  m.round = p->step;
  proto_msg_set_peers (&m, pool, k);
  send_server (p, out, &m);
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
  observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_SYNC_MODEL, -1, why);
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
  observe (p, out, PROTO_OBS_SYNC_STARTED, provider, PROTO_MSG_SYNC_REQUEST, -1, NULL);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SYNC_REQUEST);
  send_or_queue (p, out, provider, &m);
}

static void
sync_serve (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
  proto_msg_set_weights (&m, p->model);
  send_or_queue (p, out, to, &m);
}

static void
sync_model (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *model)
{
  if (p->base.state != GOSSIP_PEER_SYNCING || from != p->sync_from || model == NULL)
    {
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_SYNC_MODEL, -1, "a model it did not ask for");
      return;
    }
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (model);
  p->synced = TRUE;
  observe (p, out, PROTO_OBS_SYNC_DONE, from, PROTO_MSG_SYNC_MODEL, -1, NULL);
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
clear_async (GossipPeer *p)
{
  for (guint i = 0; i < p->inbox->len; i++)
    {
      Pushed *x = &g_array_index (p->inbox, Pushed, i);
      learn_weights_unref (x->values);
      g_free (x->indices);
    }
  g_array_set_size (p->inbox, 0);
}

/* The pushes received since the last step, by staleness, in arrival order. */
static void
mix_inbox (GossipPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->inbox->len; i++)
    {
      Pushed *x = &g_array_index (p->inbox, Pushed, i);
      guint stale = p->base.rounds_done > x->round ? p->base.rounds_done - x->round : 0;
      double w = gossip_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, stale);
      GossipContribution c = { .values = x->values, .indices = x->indices, .n_indices = x->n_indices };
      LearnWeights *y = gossip_blend (p->model, &c, w);
      learn_weights_unref (p->model);
      p->model = y;
      proto_outbox_observe (out, PROTO_OBS_NOTE, gossip_peer_state_name (p->base.state), p->have_step ? (int32_t) p->step : -1,
                            x->from, PROTO_MSG_GOSSIP_PAYLOAD, stale,
                            "asynchronous push mixed in: staleness %u, weight %.3f", stale, w);
      learn_weights_unref (x->values);
      g_free (x->indices);
    }
  g_array_set_size (p->inbox, 0);
}

/* An asynchronous push is answered with the current model (push-pull, as
 * AD-PSGD's atomic pairwise averaging: Lian et al., ICML 2018), so that a
 * slow peer gets fresh models too: whole, or with sparsification a random
 * `keep` of its coordinates (top-k's ranking belongs to the peer's own
 * steps and is not disturbed). */
static void
reply_push (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
{
  if (!proto_links_is_up (&p->links, to))
    return;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->base.rounds_done;
  m.comm_round = PROTO_GOSSIP_REPLY;
  gsize n = learn_weights_len (p->model);
  if (gossip_config (&p->cfg)->sparsify == PROTO_SPARSIFY_NONE || n == 0)
    proto_msg_set_weights (&m, p->model);
  else
    {
      guint32 k = gossip_keep_count (n, gossip_config (&p->cfg)->keep);
      guint32 *idx = gossip_pick_random (p->rng, (guint32) n, k);
      g_autoptr (LearnWeights) v = NULL;
      if (learn_weights_is_symbolic (p->model))
        v = learn_weights_new_symbolic (k);
      else
        {
          v = learn_weights_new (k);
          float *d = learn_weights_data_mut (v);
          for (guint32 j = 0; j < k; j++)
            d[j] = learn_weights_data (p->model)[idx[j]];
        }
      proto_msg_set_weights (&m, v);
      proto_msg_take_indices (&m, idx, k);
    }
  send_msg (p, out, to, PROTO_VIA_LINK, &m);
}

/* The targets of a step: `fanout` of the candidates, a partial Fisher-Yates
 * from the peer's stream (in place; the first k of pool). */
static guint
draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n)
{
  guint k = MIN (push_pull (p) ? 1 : gossip_config (&p->cfg)->fanout, n);
  for (guint i = 0; i < k; i++)
    {
      guint j = i + (guint) dl_random_below (p->rng, n - i);
      ProtoNodeId t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
  return k;
}

static void
async_step (GossipPeer *p, ProtoOutbox *out, ProtoNodeId *pool, guint n)
{
  guint k = draw_targets (p, pool, n);
  build_outgoing (p);
  for (guint i = 0; i < k; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
      m.round = p->base.rounds_done;
      m.comm_round = PROTO_GOSSIP_PUSH;   /* no step in common: answered with a reply */
      proto_msg_set_weights (&m, p->outgoing);
      if (p->out_idx)
        proto_msg_take_indices (&m, g_memdup2 (p->out_idx, p->out_n * sizeof *p->out_idx), p->out_n);
      send_or_queue (p, out, pool[i], &m);
    }
  g_clear_pointer (&p->outgoing, learn_weights_unref);
  g_clear_pointer (&p->out_idx, g_free);
  p->out_n = 0;
  mix_inbox (p, out);
  p->base.rounds_done++;
  p->last_round_end = MAX ((int32_t) p->step, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, gossip_peer_state_name (p->base.state), p->last_round_end, PROTO_NO_NODE, -1, 1,
                        "asynchronous: pushed to %u of %u candidates", k, n);
  if (p->dht)
    {
      /* kademlia: a random key, to keep the buckets fresh */
      gossip_dht_refresh (p->dht, p->now, dl_random_u64 (p->rng));
      dht_apply (p, out);
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
pp_set (GossipPeer *p, float v)
{
  g_autoptr (LearnWeights) w = learn_weights_new (1);
  learn_weights_data_mut (w)[0] = v;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (w);
}

static float
pp_value (const GossipPeer *p)
{
  return learn_weights_data (p->model)[0];
}

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
  p->pp_sent = pp_value (p);
  p->pp_waiting = TRUE;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->step;
  m.comm_round = PROTO_GOSSIP_PUSH;
  proto_msg_set_weights (&m, p->model);
  send_or_queue (p, out, p->pp_target, &m);
}

/* A push or an answer of push-pull (the value is its weights' first). */
static void
pp_receive (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  float v = learn_weights_data (msg->weights)[0];
  if (msg->comm_round == PROTO_GOSSIP_PUSH)
    {
      float mean = gossip_pushpull_mean (pp_value (p), v);
      pp_set (p, mean);
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
      m.round = msg->round;
      m.comm_round = PROTO_GOSSIP_REPLY;
      proto_msg_set_weights (&m, p->model);
      send_or_queue (p, out, from, &m);   /* its end of the link may not have seen it up yet */
      return;
    }
  if (p->base.state != GOSSIP_PEER_EXCHANGING || !p->pp_waiting || from != p->pp_target)
    {
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
               "an answer to no push under way (it was given up)");
      return;
    }
  pp_set (p, gossip_pushpull_take (pp_value (p), p->pp_sent, v));
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
      observe (p, out, PROTO_OBS_TIMER_FIRED, p->pp_target, PROTO_MSG_GOSSIP_PAYLOAD, -1,
               "payload_timeout: the push is not answered, given up");
      pp_cycle_done (p, out, "no answer");
    }
}

static void
link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  gossip_dht_link_lost (p->dht, p->now, other);
  dht_apply (p, out);
  sync_link_lost (p, out, other);
  if (push_pull (p))
    {
      if (p->base.state == GOSSIP_PEER_EXCHANGING && other == p->pp_target)
        pp_cycle_done (p, out, "link lost, no exchange");
      return;
    }
  Nbr *nb = p->base.state == GOSSIP_PEER_EXCHANGING ? find_nbr (p, other) : NULL;
  if (nb && !(nb->got && nb->sent))
    {
      give_up (p, out, nb, "link lost: mixed as absent");
      maybe_complete (p, out);
    }
}

static gboolean
gossip_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const GossipPeer *p = impl;
  (void) from;
  switch (type)
    {
    case PROTO_MSG_WELCOME:
      return p->base.state == GOSSIP_PEER_CONNECTING;
    case PROTO_MSG_ROUND_PEERS:
      return p->base.state == GOSSIP_PEER_WAIT_LIST || (p->base.state == GOSSIP_PEER_DONE && p->helper);
    case PROTO_MSG_NEIGHBORS:
      return p->base.state == GOSSIP_PEER_WAIT_GRAPH;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      /* asynchronous pushes come at any time; a step's payload outside the
       * step is dropped by handle_message, which sees which it is */
      return p->base.state >= GOSSIP_PEER_TRAINING && p->base.state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_GOSSIP_SAMPLE:
      return p->base.state == GOSSIP_PEER_WAIT_LIST;
    case PROTO_MSG_DHT_FIND_NODE:
    case PROTO_MSG_DHT_NODES:
      return p->dht != NULL && p->base.state >= GOSSIP_PEER_TRAINING && p->base.state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_SIGNAL:
      return p->base.state >= GOSSIP_PEER_SYNCING && p->base.state <= GOSSIP_PEER_DONE;
    case PROTO_MSG_SYNC_PROVIDER:
    case PROTO_MSG_SYNC_MODEL:
      return p->base.state == GOSSIP_PEER_SYNCING;
    case PROTO_MSG_SYNC_REQUEST:
      return p->base.state >= GOSSIP_PEER_TRAINING && p->base.state <= GOSSIP_PEER_DONE;
    default:
      return FALSE;
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
  if (push_pull (p))
    {
      /* its value: uniform in [0, 1) from its own stream */
      pp_set (p, (float) dl_random_uniform (p->rng));
      p->pp_start = pp_value (p);
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
  observe (p, out, PROTO_OBS_SYNC_SERVED, from, PROTO_MSG_SYNC_REQUEST, -1, NULL);
  sync_serve (p, out, from);
}

/* Neighbors: this step's graph, if it is this step's. */
static void
on_neighbors (GossipPeer *p, DlTime now, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (msg->round != p->step)
    {
      observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_NEIGHBORS, msg->round, "another step's graph");
      return;
    }
  handle_neighbors (p, now, msg, out);
}

/* DhtFindNode: a kademlia lookup, answered from the routing table. */
static void
on_dht_find_node (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  gossip_dht_handle_find (p->dht, from, msg);
  dht_apply (p, out);
}

/* DhtNodes: a kademlia lookup's answer. */
static void
on_dht_nodes (GossipPeer *p, DlTime now, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  gossip_dht_handle_nodes (p->dht, now, from, msg);
  dht_apply (p, out);
}

/* GossipPayload: a push-pull value, an asynchronous push (or its reply),
 * or a step's payload (kept if the step's graph has not come yet). */
static void
on_payload (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (push_pull (p))
    {
      if (msg->weights != NULL && learn_weights_len (msg->weights) >= 1 && !learn_weights_is_symbolic (msg->weights)
          && (msg->comm_round == PROTO_GOSSIP_PUSH || msg->comm_round == PROTO_GOSSIP_REPLY))
        pp_receive (p, out, from, msg);
      else
        observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
                 "not a push-pull value");
    }
  else if (msg->comm_round != PROTO_GOSSIP_STEP)
    {
      if (msg->weights == NULL)
        return;
      if (msg->comm_round == PROTO_GOSSIP_PUSH)
        reply_push (p, out, from);
      if (p->base.state == GOSSIP_PEER_DONE)
        return;   /* finished: it answers, but mixes no more */
      Pushed x = { .from = from, .round = msg->round, .values = learn_weights_ref (msg->weights),
                   .indices = msg->n_indices ? g_memdup2 (msg->indices, msg->n_indices * sizeof *msg->indices)
                                             : NULL,
                   .n_indices = msg->n_indices };
      g_array_append_val (p->inbox, x);
    }
  else if (msg->round != p->step)
    observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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
  if (!gossip_peer_listens (p, msg->type, in->from) || outside_step)
    {
      observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
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

static DlTime
gossip_peer_next_deadline (const void *impl)
{
  const GossipPeer *p = impl;
  DlTime t = p->base.state == GOSSIP_PEER_EXCHANGING ? MIN (p->xchg_deadline, p->pp_push_at)
             : p->base.state == GOSSIP_PEER_SYNCING  ? p->sync_deadline
                                                : DL_TIME_NEVER;
  if (p->base.state == GOSSIP_PEER_CONNECTING || p->base.state == GOSSIP_PEER_WAIT_LIST || p->base.state == GOSSIP_PEER_WAIT_GRAPH
      || (p->base.state == GOSSIP_PEER_DONE && p->helper))
    t = MIN (t, p->wait_deadline);
  return MIN (t, gossip_dht_next_deadline (p->dht));
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
    send_server (p, out, &m);
  }
  set_state (p, out, GOSSIP_PEER_CONNECTING);
}

/* The deadline: the DHT's, the sync's, push-pull's, a helper's notice
 * again, a silent coordinator asked again, or a step's missing payloads. */
static void
on_deadline (GossipPeer *p, DlTime now, ProtoOutbox *out)
{
  gossip_dht_deadline (p->dht, now);
  dht_apply (p, out);
  sync_deadline (p, out);
  if (push_pull (p))
    pp_deadline (p, now, out);
  if (p->base.state == GOSSIP_PEER_DONE && p->helper && now >= p->wait_deadline)
    {
      /* a helper's notice may have been lost too: the coordinator would
       * wait for it as for a peer still training */
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_READY);
      m.helper = TRUE;
      send_server (p, out, &m);
      p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
    }
  if ((p->base.state == GOSSIP_PEER_CONNECTING || p->base.state == GOSSIP_PEER_WAIT_LIST
       || p->base.state == GOSSIP_PEER_WAIT_GRAPH)
      && now >= p->wait_deadline)
    {
      observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, -1, -1,
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
      send_server (p, out, &m);
      p->wait_deadline = dl_time_add (now, p->cfg.payload_timeout);
    }
  if (!push_pull (p) && p->base.state == GOSSIP_PEER_EXCHANGING && now >= p->xchg_deadline)
    {
      observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_GOSSIP_PAYLOAD, -1,
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
  Nbr *nb = p->base.state == GOSSIP_PEER_EXCHANGING ? find_nbr (p, from) : NULL;
  if (nb && !nb->sent && !nb->gave_up)
    {
      send_payload (p, out, nb);
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
  observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
           kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
  clear_step (p);
  clear_async (p);
  set_state (p, out, GOSSIP_PEER_LEFT);
}

static void
gossip_peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  GossipPeer *p = impl;
  p->now = now;
  DlTime before = gossip_peer_next_deadline (p);
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
  DlTime after = gossip_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

/* ---- the machine (proto-machine.h) ---- */

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  const GossipPeer *p = impl;
  GossipPeerState s = p->base.state;
  /* a helper owes nothing, whichever step it is helping with */
  v->settled = p->helper || s == GOSSIP_PEER_DONE || s == GOSSIP_PEER_FAILED || s == GOSSIP_PEER_LEFT;
  v->failed = s == GOSSIP_PEER_FAILED;
  v->synced = p->synced;
  v->waiting_on_peer = s == GOSSIP_PEER_SYNCING;
}

static LearnWeights *
peer_model (const void *impl)
{
  const GossipPeer *p = impl;
  return p->model;
}

static void
gossip_peer_free (void *impl)
{
  GossipPeer *p = impl;
  clear_step (p);
  clear_async (p);
  gossip_dht_free (p->dht);
  g_free (p->targets);
  g_array_unref (p->inbox);
  g_array_unref (p->nbrs);
  g_array_unref (p->early);
  proto_links_clear (&p->links);
  learn_weights_unref (p->model);
  learn_weights_unref (p->start);
  g_free (p->residual);
  g_free (p);
}

static const ProtoMachineClass peer_class = {
  .handle = gossip_peer_handle,
  .next_deadline = gossip_peer_next_deadline,
  .listens = gossip_peer_listens,
  .view = peer_view,
  .model = peer_model,
  .free = gossip_peer_free,
};

ProtoMachine *
gossip_peer_new (const ProtoConfig *cfg, LearnWeights *initial, DlRandom *rng)
{
  GossipPeer *p = g_new0 (GossipPeer, 1);
  proto_machine_base_init (&p->base, state_names, GOSSIP_PEER_IDLE);
  p->base.error = p->error;
  p->cfg = *cfg;
  p->id = PROTO_NO_NODE;
  p->rng = rng;
  p->model = learn_weights_ref (initial);
  p->nbrs = g_array_new (FALSE, TRUE, sizeof (Nbr));
  p->early = g_array_new (FALSE, TRUE, sizeof (Early));
  links_init (p);
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

gboolean
gossip_peer_helper (const ProtoMachine *m)
{
  const GossipPeer *p = m->impl;
  return p->helper;
}

float
gossip_peer_pushpull_start (const ProtoMachine *m)
{
  const GossipPeer *p = m->impl;
  return p->pp_start;
}
