/* gossip-peer-async.c — asynchronous gossip (straggler_policy = async, and
 * the slow peers of mixed): a step of the peer's own (GossipSample), pushes
 * answered with a reply (push-pull), and the pushes received mixed in by
 * staleness (gossip-mix.h). */
#include "config.h"

#include "protocol/gossip/gossip-mix.h"
#include "protocol/gossip/gossip-peer-private.h"

#include <string.h>

void
gp_clear_async (GossipPeer *p)
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
void
gp_mix_inbox (GossipPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->inbox->len; i++)
    {
      Pushed *x = &g_array_index (p->inbox, Pushed, i);
      guint stale = p->rounds_done > x->round ? p->rounds_done - x->round : 0;
      double w = gossip_staleness_weight (p->cfg.async_mix, p->cfg.staleness_exponent, stale);
      GossipContribution c = { .values = x->values, .indices = x->indices, .n_indices = x->n_indices };
      LearnWeights *y = gossip_blend (p->model, &c, w);
      learn_weights_unref (p->model);
      p->model = y;
      proto_outbox_observe (out, PROTO_OBS_NOTE, gossip_peer_state_name (p->state), p->have_step ? (int32_t) p->step : -1,
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
void
gp_reply_push (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
{
  if (!proto_links_is_up (&p->links, to))
    return;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
  m.round = p->rounds_done;
  m.comm_round = PROTO_GOSSIP_REPLY;
  gsize n = learn_weights_len (p->model);
  if (p->cfg.sparsify == PROTO_SPARSIFY_NONE || n == 0)
    proto_msg_set_weights (&m, p->model);
  else
    {
      guint32 k = gossip_keep_count (n, p->cfg.keep);
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
  gp_send_msg (p, out, to, PROTO_VIA_LINK, &m);
}

/* The targets of a step: `fanout` of the candidates, a partial Fisher-Yates
 * from the peer's stream (in place; the first k of pool). */
guint
gp_draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n)
{
  guint k = MIN (p->cfg.fanout, n);
  for (guint i = 0; i < k; i++)
    {
      guint j = i + (guint) dl_random_below (p->rng, n - i);
      ProtoNodeId t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
  return k;
}

/* GossipSample: an asynchronous step.  Push the model to `fanout` of the
 * candidates (a push waits for its link, the peer does not), mix the pushes
 * received meanwhile by staleness, and train again. */
void
gp_handle_sample (GossipPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  p->step = msg->round;
  p->have_step = TRUE;
  g_autofree ProtoNodeId *pool = g_new (ProtoNodeId, MAX (msg->n_peers, 1));
  guint n = 0;
  for (guint i = 0; i < msg->n_peers; i++)
    if (msg->peers[i] != p->id)
      pool[n++] = msg->peers[i];
  gp_async_step (p, out, pool, n);
}

void
gp_async_step (GossipPeer *p, ProtoOutbox *out, ProtoNodeId *pool, guint n)
{
  guint k = gp_draw_targets (p, pool, n);
  gp_build_outgoing (p);
  for (guint i = 0; i < k; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_GOSSIP_PAYLOAD);
      m.round = p->rounds_done;
      m.comm_round = PROTO_GOSSIP_PUSH;   /* no step in common: answered with a reply */
      proto_msg_set_weights (&m, p->outgoing);
      if (p->out_idx)
        proto_msg_take_indices (&m, g_memdup2 (p->out_idx, p->out_n * sizeof *p->out_idx), p->out_n);
      gp_send_or_queue (p, out, pool[i], &m);
    }
  g_clear_pointer (&p->outgoing, learn_weights_unref);
  g_clear_pointer (&p->out_idx, g_free);
  p->out_n = 0;
  gp_mix_inbox (p, out);
  p->rounds_done++;
  p->last_round_end = MAX ((int32_t) p->step, p->last_round_end + 1);
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, gossip_peer_state_name (p->state), p->last_round_end, PROTO_NO_NODE, -1, 1,
                        "asynchronous: pushed to %u of %u candidates", k, n);
  gd_refresh (p, out);   /* kademlia: a random key, to keep the buckets fresh */
  if (p->rounds_done >= p->cfg.rounds)
    gp_finish (p, out);
  else
    gp_start_training (p, out);
}

