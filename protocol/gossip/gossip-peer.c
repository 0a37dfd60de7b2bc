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

#include <string.h>

typedef enum { GL_WAIT_OFFER, GL_WAIT_ANSWER, GL_CONNECTING, GL_UP } GLinkState;

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
  ProtoNodeId from;
  ProtoMsg msg;
} Early;

struct GossipPeer {
  ProtoConfig cfg;
  GossipPeerState state;
  ProtoNodeId id;
  gboolean connected;
  DlRandom *rng;
  LearnWeights *model;
  LearnWeights *base;      /* the model this step's training began from (top-k ranks the change) */
  float *residual;         /* error feedback: change not sent yet */
  guint rounds_done;
  gboolean helper;         /* finished, stays, and keeps mixing for the others (no training) */
  guint received[PROTO_MSG_N_TYPES];
  char error[PROTO_OBS_DETAIL_LEN];

  uint32_t step;           /* the coordinator's step this peer is in (or was last) */
  gboolean have_step;
  GArray *nbrs;            /* Nbr, ascending id */
  GHashTable *links;       /* id + 1 -> GLinkState + 1 */
  GArray *early;           /* Early: payloads of this step that came before Neighbors */
  LearnWeights *outgoing;  /* this step's payload values */
  guint32 *out_idx;        /* and indices (NULL: dense) */
  guint32 out_n;
  DlTime xchg_deadline;
};

static const char *const state_names[GOSSIP_PEER_N_STATES] = {
  [GOSSIP_PEER_IDLE] = "idle",
  [GOSSIP_PEER_CONNECTING] = "connecting",
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
  proto_outbox_observe (out, kind, state_names[p->state], p->have_step ? (int32_t) p->step : -1, other, type,
                        value, "%s", detail ? detail : "");
}

static void
set_state (GossipPeer *p, ProtoOutbox *out, GossipPeerState s)
{
  if (p->state == s)
    return;
  p->state = s;
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

static gboolean
link_state (const GossipPeer *p, ProtoNodeId id, GLinkState *s)
{
  gpointer v = g_hash_table_lookup (p->links, GUINT_TO_POINTER (id + 1));
  if (v && s)
    *s = (GLinkState) (GPOINTER_TO_UINT (v) - 1);
  return v != NULL;
}

static void
set_link (GossipPeer *p, ProtoNodeId id, GLinkState s)
{
  g_hash_table_insert (p->links, GUINT_TO_POINTER (id + 1), GUINT_TO_POINTER ((guint) s + 1));
}

/* Our side of a link is destroyed. */
static void
drop_link (GossipPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (g_hash_table_remove (p->links, GUINT_TO_POINTER (id + 1)))
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, id);
}

static gint
cmp_id (gconstpointer a, gconstpointer b)
{
  ProtoNodeId x = *(const ProtoNodeId *) a, y = *(const ProtoNodeId *) b;
  return (x > y) - (x < y);
}

static void
close_all_links (GossipPeer *p, ProtoOutbox *out)
{
  GHashTableIter it;
  gpointer k;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_hash_table_iter_init (&it, p->links);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (ids, id);
    }
  /* in id order: the outbox must not follow the hash table's order */
  g_array_sort (ids, cmp_id);
  for (guint i = 0; i < ids->len; i++)
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, g_array_index (ids, ProtoNodeId, i));
  g_hash_table_remove_all (p->links);
}

/* A link object to `id` is created; the larger id offers (peer_pool.ts). */
static void
open_link (GossipPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  gboolean initiator = p->id > id;
  set_link (p, id, initiator ? GL_WAIT_ANSWER : GL_WAIT_OFFER);
  proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, id);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = initiator;
  if (initiator)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
      m.node = id;
      m.signal = PROTO_SIGNAL_OFFER;
      send_server (p, out, &m);
    }
}

/* ---- the step ---- */

static void
start_training (GossipPeer *p, ProtoOutbox *out)
{
  clear_step (p);
  learn_weights_unref (p->base);
  p->base = learn_weights_ref (p->model);
  set_state (p, out, GOSSIP_PEER_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (p->model);
  a->round = p->rounds_done;
}

/* What this step shares of the model (gossip-mix.h). */
static void
build_outgoing (GossipPeer *p)
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
  send_msg (p, out, nb->id, PROTO_VIA_LINK, &m);
}

static void
helper_ready (GossipPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
  m.helper = TRUE;
  send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_DONE);
}

static void
finish (GossipPeer *p, ProtoOutbox *out)
{
  observe (p, out, PROTO_OBS_FINISHED, PROTO_NO_NODE, -1, p->rounds_done, NULL);
  if (p->cfg.leave_after_training)
    {
      close_all_links (p, out);
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      set_state (p, out, GOSSIP_PEER_LEFT);
      return;
    }
  /* it stays as a helper: it keeps mixing in the steps it is listed for,
   * without training, so that peers still training (late joiners) have
   * partners; the coordinator no longer waits for it (the helper flag) */
  p->helper = TRUE;
  helper_ready (p, out);
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
  if (!p->helper)
    p->rounds_done++;
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, state_names[p->state], (int32_t) p->step, PROTO_NO_NODE, -1,
                        got + 1, "%smixed %u of %u neighbours", p->helper ? "helper: " : "", got, p->nbrs->len);
  clear_step (p);
  if (p->helper)
    helper_ready (p, out);
  else if (p->rounds_done >= p->cfg.rounds)
    finish (p, out);
  else
    start_training (p, out);
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
  build_outgoing (p);
  set_state (p, out, GOSSIP_PEER_EXCHANGING);
  p->xchg_deadline = dl_time_add (now, p->cfg.payload_timeout);
  for (guint i = 0; i < p->nbrs->len; i++)
    {
      Nbr *nb = &g_array_index (p->nbrs, Nbr, i);
      GLinkState s;
      if (!link_state (p, nb->id, &s))
        open_link (p, out, nb->id);
      else if (s == GL_UP)
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
  guint k = MIN (p->cfg.fanout, n);
  /* a partial Fisher-Yates on the list's order, from the peer's stream */
  for (guint i = 0; i < k; i++)
    {
      guint j = i + (guint) dl_random_below (p->rng, n - i);
      ProtoNodeId t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_TARGETS);
  m.round = p->step;
  proto_msg_set_peers (&m, pool, k);
  send_server (p, out, &m);
  set_state (p, out, GOSSIP_PEER_WAIT_GRAPH);
}

static void
handle_signal (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  ProtoNodeId other = msg->node;
  GLinkState s;
  gboolean known = link_state (p, other, &s);
  if (msg->signal == PROTO_SIGNAL_OFFER)
    {
      if (known && s != GL_WAIT_OFFER)
        {
          /* the other side made a new link: ours is stale */
          observe (p, out, PROTO_OBS_LINK, other, -1, -1, "offer for a link we hold: replaced");
          drop_link (p, out, other);
          known = FALSE;
        }
      if (!known)
        {
          set_link (p, other, GL_WAIT_OFFER);
          proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, other);
          proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = FALSE;
        }
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
      m.node = other;
      m.signal = PROTO_SIGNAL_ANSWER;
      send_server (p, out, &m);
      set_link (p, other, GL_CONNECTING);
    }
  else if (known && s == GL_WAIT_ANSWER)
    {
      set_link (p, other, GL_CONNECTING);
      proto_outbox_simple (out, PROTO_ACT_CONNECT_LINK, other);
    }
  else
    observe (p, out, PROTO_OBS_REJECTED, other, PROTO_MSG_SIGNAL_FOR_PEER, -1, "answer for no offer of ours");
}

static void
link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  drop_link (p, out, other);
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
      return p->state == GOSSIP_PEER_WAIT_GRAPH || p->state == GOSSIP_PEER_EXCHANGING;
    case PROTO_MSG_SIGNAL_FOR_PEER:
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
  if (!gossip_peer_listens (p, msg->type, in->from))
    {
      observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_NEW_NODE_INFO:
      p->id = msg->node;
      start_training (p, out);
      break;
    case PROTO_MSG_PEERS_FOR_ROUND:
      handle_list (p, msg, out);
      break;
    case PROTO_MSG_NEIGHBORS:
      if (msg->round != p->step)
        {
          observe (p, out, PROTO_OBS_REJECTED, in->from, PROTO_MSG_NEIGHBORS, msg->round, "another step's graph");
          break;
        }
      handle_neighbors (p, now, msg, out);
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      if (msg->round != p->step)
        observe (p, out, PROTO_OBS_REJECTED, in->from, PROTO_MSG_GOSSIP_PAYLOAD, msg->round,
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
      handle_signal (p, msg, out);
      break;
    default:
      break;
    }
}

void
gossip_peer_handle (GossipPeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
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
        send_server (p, out, &m);
      }
      set_state (p, out, GOSSIP_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, now, in, out);
      break;
    case PROTO_IN_DEADLINE:
      if (p->state == GOSSIP_PEER_EXCHANGING && now >= p->xchg_deadline)
        {
          observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_GOSSIP_PAYLOAD, -1,
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
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_PEER_IS_READY);
        send_server (p, out, &m);
      }
      set_state (p, out, GOSSIP_PEER_WAIT_LIST);
      break;
    case PROTO_IN_LINK_UP:
      {
        GLinkState s;
        if (!link_state (p, in->from, &s))
          {
            observe (p, out, PROTO_OBS_NOTE, in->from, -1, -1, "link up for a link we no longer hold");
            break;
          }
        set_link (p, in->from, GL_UP);
        observe (p, out, PROTO_OBS_LINK, in->from, -1, -1, "up");
        Nbr *nb = p->state == GOSSIP_PEER_EXCHANGING ? find_nbr (p, in->from) : NULL;
        if (nb && !nb->sent && !nb->gave_up)
          {
            send_payload (p, out, nb);
            maybe_complete (p, out);
          }
        break;
      }
    case PROTO_IN_LINK_FAILED:
      if (link_state (p, in->from, NULL))
        link_lost (p, out, in->from, "failed");
      break;
    case PROTO_IN_LINK_CLOSED:
      if (link_state (p, in->from, NULL))
        link_lost (p, out, in->from, "closed");
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      if (!p->connected)
        break;
      close_all_links (p, out);
      if (in->kind == PROTO_IN_LEAVE)
        proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
               in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      clear_step (p);
      set_state (p, out, GOSSIP_PEER_LEFT);
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
  return p->state == GOSSIP_PEER_EXCHANGING ? p->xchg_deadline : DL_TIME_NEVER;
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
  p->links = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->xchg_deadline = DL_TIME_NEVER;
  return p;
}

void
gossip_peer_free (GossipPeer *p)
{
  if (!p)
    return;
  clear_step (p);
  g_array_unref (p->nbrs);
  g_array_unref (p->early);
  g_hash_table_unref (p->links);
  learn_weights_unref (p->model);
  learn_weights_unref (p->base);
  g_free (p->residual);
  g_free (p);
}

GossipPeerState gossip_peer_state (const GossipPeer *p) { return p->state; }
gboolean gossip_peer_helper (const GossipPeer *p) { return p->helper; }
gboolean gossip_peer_connected (const GossipPeer *p) { return p->connected; }
guint gossip_peer_rounds_done (const GossipPeer *p) { return p->rounds_done; }
const char *gossip_peer_error (const GossipPeer *p) { return p->error; }
LearnWeights *gossip_peer_model (const GossipPeer *p) { return p->model; }

guint
gossip_peer_received_count (const GossipPeer *p, ProtoMsgType type)
{
  return (unsigned) type < PROTO_MSG_N_TYPES ? p->received[type] : 0;
}
