/* gossip-peer-sync.c — model sync for a gossip peer that joins late
 * (gossip-peer-private.h), as DISCO's: the coordinator names a provider
 * (SignalModelProvider after NewNodeInfo, decentralized_controller.ts), the
 * newcomer links to it and asks (ModelSyncRequest over the link), the
 * provider answers with its current model (SharedModel), and the newcomer
 * trains from it (discojs/src/client/decentralized/decentralized_client.ts,
 * the model sync of a peer that joined mid-training).  Without an answer
 * in model_sync_timeout, or if the link fails, it trains from its own.
 * Gossip has no round-global model: the provider's is the latest model of
 * a peer in the latest step, not a completed round's. */
#include "config.h"

#include "protocol/gossip/gossip-peer-private.h"

static void
give_up (GossipPeer *p, ProtoOutbox *out, const char *why)
{
  gp_observe (p, out, PROTO_OBS_NOTE, p->sync_from, PROTO_MSG_SHARED_MODEL, -1, why);
  p->sync_from = PROTO_NO_NODE;
  gp_start_training (p, out);
}

void
gp_sync_expect (GossipPeer *p, ProtoOutbox *out)
{
  gp_set_state (p, out, GOSSIP_PEER_SYNCING);
  p->sync_from = PROTO_NO_NODE;
  p->sync_deadline = dl_time_add (p->now, p->cfg.model_sync_timeout);
}

void
gp_sync_provider (GossipPeer *p, ProtoOutbox *out, ProtoNodeId provider)
{
  if (p->state != GOSSIP_PEER_SYNCING || p->sync_from != PROTO_NO_NODE)
    return;
  if (provider == PROTO_NO_NODE || provider == p->id)
    {
      give_up (p, out, "no model provider: trains from its own");
      return;
    }
  p->sync_from = provider;
  gp_observe (p, out, PROTO_OBS_SYNC_STARTED, provider, PROTO_MSG_MODEL_SYNC_REQUEST, -1, NULL);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_MODEL_SYNC_REQUEST);
  gp_send_or_queue (p, out, provider, &m);
}

void
gp_sync_serve (GossipPeer *p, ProtoOutbox *out, ProtoNodeId to)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
  proto_msg_set_weights (&m, p->model);
  gp_send_or_queue (p, out, to, &m);
}

void
gp_sync_model (GossipPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *model)
{
  if (p->state != GOSSIP_PEER_SYNCING || from != p->sync_from || model == NULL)
    {
      gp_observe (p, out, PROTO_OBS_REJECTED, from, PROTO_MSG_SHARED_MODEL, -1, "a model it did not ask for");
      return;
    }
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (model);
  p->synced = TRUE;
  gp_observe (p, out, PROTO_OBS_SYNC_DONE, from, PROTO_MSG_SHARED_MODEL, -1, NULL);
  p->sync_from = PROTO_NO_NODE;
  gp_start_training (p, out);
}

void
gp_sync_deadline (GossipPeer *p, ProtoOutbox *out)
{
  if (p->state == GOSSIP_PEER_SYNCING && p->now >= p->sync_deadline)
    give_up (p, out, "model_sync_timeout: no model from the provider: trains from its own");
}

void
gp_sync_link_lost (GossipPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  if (p->state == GOSSIP_PEER_SYNCING && other == p->sync_from)
    give_up (p, out, "the link to the model provider is lost: trains from its own");
}
