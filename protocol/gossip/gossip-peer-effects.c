/* gossip-peer-effects.c — what the gossip peer (gossip-peer.c) does to the
 * outside, through gossip-peer-private.h: observations named by its state,
 * sends (observed), its links' host, the DHT's queued effects carried out
 * in order, and the payloads it encodes (a step's, a model sync's, an
 * asynchronous push's reply).  A leaf: it decides no transition and calls
 * nothing of gossip-peer.c; it reads its records (gossip-peer-records.c,
 * which calls nothing of it). */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

void
_gossip_peer_observe (GossipPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
         const char *detail)
{
  proto_outbox_observe (out, kind, _gossip_peer_state_names[p->base.state], p->have_step ? (int32_t) p->step : -1, other, type,
                        value, "%s", detail ? detail : "");
}

void
_gossip_peer_send_msg (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _gossip_peer_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

void
_gossip_peer_send_server (GossipPeer *p, ProtoOutbox *out, ProtoMsg *m)
{
  _gossip_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, m);
}

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _gossip_peer_send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  _gossip_peer_observe (ud, out, kind, other, type, -1, detail);
}

void
_gossip_peer_links_init (GossipPeer *p)
{
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
  /* push-pull: only the pusher knows it wants the link */
  p->links.opener_offers = _gossip_peer_push_pull (p);
}

void
_gossip_peer_send_or_queue (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

void
_gossip_peer_dht_apply (GossipPeer *p, ProtoOutbox *out)
{
  guint n = 0;
  GossipDhtEffect *fx = gossip_dht_effects (p->dht, &n);
  for (guint i = 0; i < n; i++)
    switch (fx[i].kind)
      {
      case GOSSIP_DHT_SEND:
        _gossip_peer_send_or_queue (p, out, fx[i].to, &fx[i].msg);
        break;
      case GOSSIP_DHT_OBSERVE:
        _gossip_peer_observe (p, out, fx[i].obs, fx[i].to, fx[i].type, fx[i].value, fx[i].detail);
        break;
      }
  gossip_dht_effects_done (p->dht);
}

void
_gossip_peer_send_payload (GossipPeer *p, ProtoOutbox *out, Nbr *nb)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->step;
  m.degree = p->nbrs->len;
  proto_msg_set_weights (&m, p->outgoing);
  if (p->out_idx)
    proto_msg_take_indices (&m, g_memdup2 (p->out_idx, p->out_n * sizeof *p->out_idx), p->out_n);
  nb->sent = TRUE;
  _gossip_peer_send_msg (p, out, nb->id, PROTO_VIA_LINK, &m);
}

void
_gossip_peer_sync_serve (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
  proto_msg_set_weights (&m, p->model);
  _gossip_peer_send_or_queue (p, out, to, &m);
}

/* An asynchronous push is answered with the current model (push-pull, as
 * AD-PSGD's atomic pairwise averaging: Lian et al., ICML 2018), so that a
 * slow peer gets fresh models too: whole, or with sparsification a random
 * `keep` of its coordinates (top-k's ranking belongs to the peer's own
 * steps and is not disturbed). */
void
_gossip_peer_reply_push (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
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
  _gossip_peer_send_msg (p, out, to, PROTO_VIA_LINK, &m);
}
