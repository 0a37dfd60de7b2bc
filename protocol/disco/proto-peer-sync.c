/* proto-peer-sync.c — model sync for late joiners (#1110): the newcomer's
 * side (ModelSyncRequest, SignalModelProvider, the link to the provider,
 * SharedModel, the sync timeouts) and the provider's (handleSignalNewPeer in
 * decentralized_client.ts: a link to the newcomer, then #latestModel, after
 * the round in flight when #roundFinishedPromise is set).  robust's sync
 * retries, re-targeting and the coordinator's checkpoint are here too
 * (proto-config.h). */
#include "config.h"

#include "protocol/disco/proto-peer.h"
#include "protocol/disco/proto-aggregator.h"
#include "protocol/disco/proto-peer-private.h"
#include "protocol/disco/disco-msgs.h"

void
_proto_peer_try_serve (ProtoPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->serves->len;)
    {
      Serve *s = &g_array_index (p->serves, Serve, i);
      if (!s->link_ready || s->wait_round)
        {
          i++;
          continue;
        }
      ProtoNodeId n = s->newcomer;
      g_array_remove_index (p->serves, i);
      Link *l = _proto_peer_find_link (p, n);
      if (n == PROTO_SERVER && p->latest_model != NULL)
        {
          /* robust: the coordinator's checkpoint, over the stream */
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          _proto_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
          continue;
        }
      if (p->latest_model == NULL)
        _proto_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1, "Failed to get the latest model: nothing sent");
      else if (l == NULL)
        _proto_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1,
                             "link to the newcomer destroyed: SharedModel not sent");
      else
        {
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          _proto_peer_send_msg (p, out, n, PROTO_VIA_LINK, &m);
          /* between PeersForRound and Start the round in flight is about to
           * finish, but #roundFinishedPromise is not set yet: the previous
           * round's model goes out (S13a) */
          gboolean stale = p->state == PROTO_PEER_LINKING || p->state == PROTO_PEER_WAIT_DECISION;
          _proto_peer_observe (p, out, PROTO_OBS_SYNC_SERVED, n, -1, stale ? 1 : 0,
                   stale ? "the previous round's model: a round is in its connect phase" : NULL);
        }
    }
}

void
_proto_peer_handle_signal_new_peer (ProtoPeer *p, DlTime now, ProtoNodeId newcomer, ProtoOutbox *out)
{
  if (newcomer == p->id)
    {
      /* `void this.handleSignalNewPeer(event)`: getPeers rejects, unhandled */
      _proto_peer_observe (p, out, PROTO_OBS_ERROR, newcomer, PROTO_MSG_SIGNAL_NEW_PEER, -1,
               "peers to connect contains our id (provider side)");
      _proto_peer_node_exits (p, out, "unhandled rejection 'peers to connect contains our id'");
      return;
    }
  Serve s = { .newcomer = newcomer, .wait_round = p->round_finished_pending };
  if (p->cfg.robust_serve_after_round
      && (p->state == PROTO_PEER_LINKING || p->state == PROTO_PEER_WAIT_DECISION))
    s.wait_round = TRUE;   /* S13: the round in its connect phase ends first */
  if (newcomer == PROTO_SERVER && p->cfg.robust_checkpoint)
    {
      s.link_ready = TRUE;
      g_array_append_val (p->serves, s);
      _proto_peer_try_serve (p, out);
      return;
    }
  if (p->cfg.robust_sync_retry)
    for (guint i = 0; i < p->serves->len; i++)
      if (g_array_index (p->serves, Serve, i).newcomer == newcomer)
        {
          if (_proto_peer_find_link (p, newcomer))
            return;   /* a repeated request: one SharedModel is enough */
          /* S14a: a Retry's pool shutdown destroyed the link: start over */
          g_array_remove_index (p->serves, i);
          break;
        }
  gboolean known = _proto_peer_find_link (p, newcomer) != NULL;
  GArray *saved = g_array_copy (p->pending);  /* a sync getPeers does not disturb the round's */
  _proto_peer_get_peers (p, now, out, &newcomer, 1, FALSE);
  g_array_unref (p->pending);
  p->pending = saved;
  s.link_ready = known;
  g_array_append_val (p->serves, s);
  _proto_peer_try_serve (p, out);
}

void
_proto_peer_handle_signal_model_provider (ProtoPeer *p, DlTime now, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (p->cfg.robust_sync_retry && p->provider != PROTO_NO_NODE && p->provider != msg->node)
    {
      /* S12: re-targeted; a link to the old provider that is not up goes */
      Link *old = _proto_peer_find_link (p, p->provider);
      if (old && old->state != PROTO_LINK_UP)
        _proto_peer_drop_link (p, out, p->provider);
      g_array_set_size (p->pending, 0);
    }
  p->provider = msg->node;
  if (msg->node == PROTO_SERVER && p->cfg.robust_checkpoint)
    {
      /* robust: the coordinator serves its checkpoint over the stream */
      _proto_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "the coordinator's checkpoint");
      _proto_peer_set_state (p, out, PROTO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
      return;
    }
  _proto_peer_observe (p, out, PROTO_OBS_SYNC_STARTED, msg->node, -1, -1, "provider assigned");
  if (msg->node == p->id && p->cfg.robust_sync_retry)
    {
      /* robust: no trained model exists anywhere; start from our own */
      _proto_peer_observe (p, out, PROTO_OBS_NOTE, PROTO_SERVER, PROTO_MSG_SIGNAL_MODEL_PROVIDER, -1,
                  "no trained model to sync: starts from its own");
      p->provider = PROTO_NO_NODE;
      p->sync_needed = FALSE;
      p->sync_deadline = DL_TIME_NEVER;
      _proto_peer_after_sync (p, out);
      return;
    }
  if (msg->node == p->id)
    {
      _proto_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, msg->node, -1, -1, "told to sync from itself");
      _proto_peer_fail (p, out, FALSE, "training failed: peers to connect contains our id (provider is self)");
      return;
    }
  _proto_peer_get_peers (p, now, out, &msg->node, 1, FALSE);
  if (p->pending->len > 0)
    {
      _proto_peer_set_state (p, out, PROTO_PEER_SYNC_LINKING);
      /* getPeers has no timeout; robust bounds it (S12) */
      p->sync_deadline = p->cfg.robust_sync_retry ? dl_time_add (now, p->cfg.model_sync_timeout) : DL_TIME_NEVER;
    }
  else
    {
      _proto_peer_set_state (p, out, PROTO_PEER_SYNC_WAIT_MODEL);
      p->sync_deadline = dl_time_add (now, p->cfg.model_sync_timeout);
    }
  return;
}

void
_proto_peer_handle_shared_model (ProtoPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (msg->weights == NULL || learn_weights_len (msg->weights) != learn_weights_len (p->model))
    {
      _proto_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1, "model of the wrong size");
      return;
    }
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (msg->weights);
  learn_weights_unref (p->latest_model);
  p->latest_model = learn_weights_ref (msg->weights);
  p->sync_needed = FALSE;
  p->synced = TRUE;
  p->sync_deadline = DL_TIME_NEVER;
  _proto_peer_observe (p, out, PROTO_OBS_SYNC_DONE, from, -1, -1, NULL);
  _proto_peer_after_sync (p, out);
  return;
}

/* A sync wait ended (SignalModelProvider, the link, or SharedModel). */
void
_proto_peer_sync_expired (ProtoPeer *p, DlTime now, ProtoOutbox *out)
{
  p->sync_deadline = DL_TIME_NEVER;
  _proto_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, -1, "model sync timeout");
  if (p->cfg.robust_sync_retry)
    {
      /* S11, S12: ask again, for as long as the peer stays; the
       * coordinator names another provider or serves its checkpoint */
      if (p->provider != PROTO_NO_NODE && p->provider != PROTO_SERVER)
        {
          Link *old = _proto_peer_find_link (p, p->provider);
          if (old && old->state != PROTO_LINK_UP)
            _proto_peer_drop_link (p, out, p->provider);
        }
      g_array_set_size (p->pending, 0);
      p->provider = PROTO_NO_NODE;
      _proto_peer_begin_round (p, now, out);
      return;
    }
  _proto_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, p->provider, -1, -1, "model sync timed out");
  _proto_peer_fail (p, out, FALSE, p->state == PROTO_PEER_SYNC_WAIT_PROVIDER
                           ? "training failed: timed out waiting for SignalModelProvider"
                           : "training failed: timed out waiting for SharedModel");
  return;
}
