/* disco-peer-sync.c — the bookkeeping of model sync for late joiners
 * (#1110): the provider's side (handleSignalNewPeer in
 * decentralized_client.ts: a link to the newcomer, then #latestModel, after
 * the round in flight when #roundFinishedPromise is set; robust's repeated
 * requests and the coordinator's checkpoint) and the newcomer's taking of
 * SharedModel.  A leaf of disco-peer.c (disco-peer-private.h): the
 * newcomer's phases (ModelSyncRequest, SignalModelProvider, the link to the
 * provider, the sync timeouts) are decided there; this file calls nothing
 * of disco-peer.c. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-peer-private.h"
#include "protocol/disco/disco-msgs.h"

void
_disco_peer_try_serve (DiscoPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < _disco_peer_n_serves (p);)
    {
      Serve *s = &g_array_index (p->serves, Serve, i);
      if (!s->link_ready || s->wait_round)
        {
          i++;
          continue;
        }
      ProtoNodeId n = s->newcomer;
      g_array_remove_index (p->serves, i);
      Link *l = _disco_peer_find_link (p, n);
      if (n == PROTO_SERVER && p->latest_model != NULL)
        {
          /* robust: the coordinator's checkpoint, over the stream */
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          _disco_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
          continue;
        }
      if (p->latest_model == NULL)
        _disco_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1, "Failed to get the latest model: nothing sent");
      else if (l == NULL)
        _disco_peer_observe (p, out, PROTO_OBS_SYNC_FAILED, n, -1, -1,
                             "link to the newcomer destroyed: SharedModel not sent");
      else
        {
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
          proto_msg_set_weights (&m, p->latest_model);
          _disco_peer_send_msg (p, out, n, PROTO_VIA_LINK, &m);
          /* between PeersForRound and Start the round in flight is about to
           * finish, but #roundFinishedPromise is not set yet: the previous
           * round's model goes out (S13a) */
          gboolean stale = p->base.state == DISCO_PEER_LINKING || p->base.state == DISCO_PEER_WAIT_DECISION;
          _disco_peer_observe (p, out, PROTO_OBS_SYNC_SERVED, n, -1, stale ? 1 : 0,
                   stale ? "the previous round's model: a round is in its connect phase" : NULL);
        }
    }
}

/* s waits to be served (`serves` is made at the first) */
static void
serves_add (DiscoPeer *p, const Serve *s)
{
  if (p->serves == NULL)
    p->serves = g_array_new (FALSE, FALSE, sizeof (Serve));
  g_array_append_vals (p->serves, s, 1);
}

/* SignalNewPeer for a newcomer other than this peer: a link to it (a sync
 * getPeers, which does not disturb the round's pending links), then
 * SharedModel once the link is up and the round in flight, if any, ended. */
void
_disco_peer_serve (DiscoPeer *p, ProtoNodeId newcomer, ProtoOutbox *out)
{
  Serve s = { .newcomer = newcomer, .wait_round = p->round_finished_pending };
  if (disco_config (&p->cfg)->robust_serve_after_round
      && (p->base.state == DISCO_PEER_LINKING || p->base.state == DISCO_PEER_WAIT_DECISION))
    s.wait_round = TRUE;   /* S13: the round in its connect phase ends first */
  if (newcomer == PROTO_SERVER && disco_config (&p->cfg)->robust_checkpoint)
    {
      s.link_ready = TRUE;
      serves_add (p, &s);
      _disco_peer_try_serve (p, out);
      return;
    }
  if (disco_config (&p->cfg)->robust_sync_retry)
    for (guint i = 0; i < _disco_peer_n_serves (p); i++)
      if (g_array_index (p->serves, Serve, i).newcomer == newcomer)
        {
          if (_disco_peer_find_link (p, newcomer))
            return;   /* a repeated request: one SharedModel is enough */
          /* S14a: a Retry's pool shutdown destroyed the link: start over */
          g_array_remove_index (p->serves, i);
          break;
        }
  gboolean known = _disco_peer_find_link (p, newcomer) != NULL;
  _disco_peer_get_peer_aside (p, out, newcomer);
  s.link_ready = known;
  serves_add (p, &s);
  _disco_peer_try_serve (p, out);
}

/* The link to `other` is up: a newcomer waiting for it may be served. */
void
_disco_peer_serves_link_up (DiscoPeer *p, ProtoNodeId other, ProtoOutbox *out)
{
  for (guint i = 0; i < _disco_peer_n_serves (p); i++)
    if (g_array_index (p->serves, Serve, i).newcomer == other)
      g_array_index (p->serves, Serve, i).link_ready = TRUE;
  _disco_peer_try_serve (p, out);
}

/* SharedModel reached the newcomer: TRUE if it became the model (FALSE:
 * rejected, of the wrong size). */
gboolean
_disco_peer_sync_take_model (DiscoPeer *p, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (msg->weights == NULL || learn_weights_len (msg->weights) != learn_weights_len (p->model))
    {
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1, "model of the wrong size");
      return FALSE;
    }
  learn_weights_unref (p->model);
  p->model = learn_weights_ref (msg->weights);
  learn_weights_unref (p->latest_model);
  p->latest_model = learn_weights_ref (msg->weights);
  p->sync_needed = FALSE;
  p->synced = TRUE;
  p->sync_deadline = DL_TIME_NEVER;
  _disco_peer_observe (p, out, PROTO_OBS_SYNC_DONE, from, -1, -1, NULL);
  return TRUE;
}
