/* gossip-peer-records.c — the gossip peer's records (gossip-peer.c),
 * through gossip-peer-private.h: its states' names, its mode, its
 * neighbours (lookup, clearing the step), the inbox's clearing, the draw
 * of a step's targets from its stream, push-pull's value, and the
 * machine's accessors (its drop rule, its next deadline, its view, its
 * freeing, gossip-peer.h's).  A leaf: it decides no transition, emits
 * nothing and calls nothing of gossip-peer.c or of its other leaves. */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

const char *const _gossip_peer_state_names[GOSSIP_PEER_N_STATES] = {
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

gboolean
_gossip_peer_push_pull (const GossipPeer *p)
{
  return gossip_config (&p->cfg)->gossip_mode == PROTO_GOSSIP_MODE_PUSH_PULL;
}

const char *
gossip_peer_state_name (GossipPeerState s)
{
  return (unsigned) s < GOSSIP_PEER_N_STATES ? _gossip_peer_state_names[s] : "?";
}

void
_gossip_peer_nbr_clear (Nbr *n)
{
  g_clear_pointer (&n->values, learn_weights_unref);
  g_clear_pointer (&n->indices, g_free);
}

void
_gossip_peer_clear_step (GossipPeer *p)
{
  for (guint i = 0; i < p->nbrs->len; i++)
    _gossip_peer_nbr_clear (&g_array_index (p->nbrs, Nbr, i));
  g_array_set_size (p->nbrs, 0);
  for (guint i = 0; i < p->early->len; i++)
    proto_msg_clear (&g_array_index (p->early, Early, i).msg);
  g_array_set_size (p->early, 0);
  g_clear_pointer (&p->outgoing, learn_weights_unref);
  g_clear_pointer (&p->out_idx, g_free);
  p->out_n = 0;
  p->xchg_deadline = DL_TIME_NEVER;
}

Nbr *
_gossip_peer_find_nbr (GossipPeer *p, ProtoNodeId id)
{
  for (guint i = 0; i < p->nbrs->len; i++)
    if (g_array_index (p->nbrs, Nbr, i).id == id)
      return &g_array_index (p->nbrs, Nbr, i);
  return NULL;
}

void
_gossip_peer_clear_async (GossipPeer *p)
{
  for (guint i = 0; i < p->inbox->len; i++)
    {
      Pushed *x = &g_array_index (p->inbox, Pushed, i);
      learn_weights_unref (x->values);
      g_free (x->indices);
    }
  g_array_set_size (p->inbox, 0);
}

/* The targets of a step: `fanout` of the candidates, a partial Fisher-Yates
 * from the peer's stream (in place; the first k of pool). */
guint
_gossip_peer_draw_targets (GossipPeer *p, ProtoNodeId *pool, guint n)
{
  guint k = MIN (_gossip_peer_push_pull (p) ? 1 : gossip_config (&p->cfg)->fanout, n);
  for (guint i = 0; i < k; i++)
    {
      guint j = i + (guint) dl_random_below (p->rng, n - i);
      ProtoNodeId t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
  return k;
}

void
_gossip_peer_pp_set (GossipPeer *p, float v)
{
  g_autoptr (LearnWeights) w = learn_weights_new (1);
  learn_weights_data_mut (w)[0] = v;
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (w);
}

float
_gossip_peer_pp_value (const GossipPeer *p)
{
  return learn_weights_data (p->model)[0];
}

gboolean
_gossip_peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
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

DlTime
_gossip_peer_next_deadline (const void *impl)
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

void
_gossip_peer_view (const void *impl, ProtoPeerView *v)
{
  const GossipPeer *p = impl;
  GossipPeerState s = p->base.state;
  /* a helper owes nothing, whichever step it is helping with */
  v->settled = p->helper || s == GOSSIP_PEER_DONE || s == GOSSIP_PEER_FAILED || s == GOSSIP_PEER_LEFT;
  v->failed = s == GOSSIP_PEER_FAILED;
  v->synced = p->synced;
  v->waiting_on_peer = s == GOSSIP_PEER_SYNCING;
}

LearnWeights *
_gossip_peer_model (const void *impl)
{
  const GossipPeer *p = impl;
  return p->model;
}

void
_gossip_peer_free (void *impl)
{
  GossipPeer *p = impl;
  _gossip_peer_clear_step (p);
  _gossip_peer_clear_async (p);
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
