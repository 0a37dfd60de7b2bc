/* gossip-harness.c — the gossip tests' hand-held world (gossip-harness.h). */
#include "config.h"

#include "tests/gossip-harness.h"
#include "protocol/gossip/gossip-msgs.h"

#include <check.h>
#include <string.h>

ProtoConfig
gossip_cfg (guint min, guint rounds, guint fanout)
{
  ProtoConfig c;
  proto_config_init (&c, PROTO_VERSION_DISCO_1110);
  g_strlcpy (c.family, "gossip", sizeof c.family);
  c.min_participants = min;
  c.rounds = rounds;
  c.fanout = fanout;
  c.payload_timeout = 10 * DL_S;
  return c;
}

/* ---------------------------------------------------------------- a hand-held world */

void
gw_carry (GW *g, ProtoNodeId self, ProtoOutbox *out)
{
  for (guint i = 0; i < proto_outbox_len (out); i++)
    {
      ProtoAction *a = proto_outbox_get (out, i);
      switch (a->kind)
        {
        case PROTO_ACT_SEND:
          {
            GMsg q = { .from = self, .to = a->to, .via = a->via };
            proto_msg_copy (&q.msg, &a->msg);
            g_array_append_val (g->queue, q);
            break;
          }
        case PROTO_ACT_CONNECT_LINK:
          {
            guint64 pair = ((guint64) self << 32) | a->to;
            g_array_append_val (g->ups, pair);
            break;
          }
        case PROTO_ACT_START_TRAINING:
          g_array_append_val (g->train, self);
          break;
        case PROTO_ACT_OBSERVE:
          {
            g_autofree char *o = proto_observation_to_string (&a->obs);
            g_ptr_array_add (g->log, g_strdup_printf ("%u %s", self, o));
            break;
          }
        default:
          break;
        }
    }
}

void
gw_feed (GW *g, ProtoNodeId id, const ProtoInput *in)
{
  if (!g->alive[id])
    return;
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_machine_handle (g->m[id], g->now, in, &out);
  gw_carry (g, id, &out);
  proto_outbox_clear (&out);
}

GW *
gw_new (const ProtoConfig *cfg, guint n, gsize model_len)
{
  return gw_new_env (cfg, n, model_len, NULL);
}

GW *
gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs)
{
  GW *g = g_new0 (GW, 1);
  g->cfg = *cfg;
  g->n = n;
  g->m = g_new0 (ProtoMachine *, n + 1);
  g->rng = g_new0 (DlRandom *, n + 1);
  g->alive = g_new0 (gboolean, n + 1);
  const ProtoFamily *f = proto_family_of (cfg);
  g->m[0] = f->new_coordinator (cfg);
  g->alive[0] = TRUE;
  g_autoptr (LearnWeights) init = learn_weights_new (model_len);
  for (guint i = 1; i <= n; i++)
    {
      g->rng[i] = dl_random_new (1, "shares", i);
      ProtoPeerEnv env = { .region = "", .speed = 1, .uplink_bps = 20000000 };
      if (envs)
        env = envs[i - 1];
      env.initial = init;
      env.rng = g->rng[i];
      g->m[i] = f->new_peer (cfg, &env);
      g->alive[i] = TRUE;
    }
  g->queue = g_array_new (FALSE, FALSE, sizeof (GMsg));
  g->ups = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->train = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g->log = g_ptr_array_new_with_free_func (g_free);
  g->hold_type = -1;
  return g;
}

void
gw_free (GW *g)
{
  for (guint i = 0; i <= g->n; i++)
    {
      proto_machine_free (g->m[i]);
      if (g->rng[i])
        dl_random_free (g->rng[i]);
    }
  for (guint i = 0; i < g->queue->len; i++)
    proto_msg_clear (&g_array_index (g->queue, GMsg, i).msg);
  g_array_unref (g->queue);
  g_array_unref (g->ups);
  g_array_unref (g->train);
  g_ptr_array_unref (g->log);
  g_free (g->m);
  g_free (g->rng);
  g_free (g->alive);
  g_free (g);
}

void
gw_start_all (GW *g)
{
  for (guint i = 1; i <= g->n; i++)
    gw_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_START });
}

/* Training adds 1 * id to every weight. */
void
gw_train (GW *g, ProtoNodeId id)
{
  LearnWeights *cur = proto_machine_model (g->m[id]);
  g_autoptr (LearnWeights) w = learn_weights_copy (cur);
  float *d = learn_weights_data_mut (w);
  for (gsize k = 0; k < learn_weights_len (w); k++)
    d[k] += (float) id;
  gw_feed (g, id, &(ProtoInput) { .kind = PROTO_IN_TRAINING_DONE, .weights = w });
}

/* Delivers, brings links up and ends training until nothing moves. */
void
gw_settle (GW *g)
{
  for (guint guard = 0; guard < 100000; guard++)
    {
      guint qi = 0;
      while (qi < g->queue->len
             && ((g->hold_payloads && g_array_index (g->queue, GMsg, qi).msg.type == PROTO_MSG_GOSSIP_PAYLOAD)
                 || (int) g_array_index (g->queue, GMsg, qi).msg.type == g->hold_type))
        qi++;
      if (qi < g->queue->len)
        {
          GMsg q = g_array_index (g->queue, GMsg, qi);
          g_array_remove_index (g->queue, qi);
          ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = q.from, .via = q.via, .msg = &q.msg };
          if (g->alive[q.from])
            gw_feed (g, q.to, &in);
          proto_msg_clear (&q.msg);
          continue;
        }
      if (g->ups->len)
        {
          guint64 pair = g_array_index (g->ups, guint64, 0);
          g_array_remove_index (g->ups, 0);
          ProtoNodeId a = (ProtoNodeId) (pair >> 32), b = (ProtoNodeId) pair;
          gw_feed (g, a, &(ProtoInput) { .kind = PROTO_IN_LINK_UP, .from = b });
          gw_feed (g, b, &(ProtoInput) { .kind = PROTO_IN_LINK_UP, .from = a });
          continue;
        }
      if (g->train->len)
        {
          ProtoNodeId id = g_array_index (g->train, ProtoNodeId, 0);
          g_array_remove_index (g->train, 0);
          gw_train (g, id);
          continue;
        }
      return;
    }
  ck_abort_msg ("the hand-held world never settled");
}

guint
gw_count (GW *g, const char *needle)
{
  guint n = 0;
  for (guint i = 0; i < g->log->len; i++)
    n += strstr (g->log->pdata[i], needle) != NULL;
  return n;
}

GossipPeer *
gw_peer (GW *g, guint i)
{
  return g->m[i]->impl;
}

