/* gossip-peer-model.c — the gossip peer's model arithmetic
 * (gossip-peer.c has the transitions), through gossip-peer-private.h:
 * what a step shares of the model (sparsification with error feedback,
 * gossip-mix.h), and the asynchronous pushes received, mixed in by
 * staleness.  A leaf: it decides no transition and calls nothing of
 * gossip-peer.c. */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"
#include "protocol/gossip/gossip-msgs.h"

#include <string.h>

/* What this step shares of the model (gossip-mix.h). */
void
_gossip_peer_build_outgoing (GossipPeer *p)
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

/* The pushes received since the last step, by staleness, in arrival order. */
void
_gossip_peer_mix_inbox (GossipPeer *p, ProtoOutbox *out)
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
