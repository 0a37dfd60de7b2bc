/* disco-peer-effects.c — what DISCO's peer (disco-peer.c) does to the
 * outside, through disco-peer-private.h: its states' names, observations
 * named by the state it is in, and sends (observed).  A leaf: it decides
 * no transition and calls nothing of disco-peer.c. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-peer-private.h"
#include "protocol/disco/disco-msgs.h"

const char *const _disco_peer_state_names[DISCO_PEER_N_STATES] = {
  [DISCO_PEER_IDLE] = "idle",
  [DISCO_PEER_CONNECTING] = "connecting",
  [DISCO_PEER_SYNC_WAIT_PROVIDER] = "sync-wait-provider",
  [DISCO_PEER_SYNC_LINKING] = "sync-linking",
  [DISCO_PEER_SYNC_WAIT_MODEL] = "sync-wait-model",
  [DISCO_PEER_PAUSED_BEGIN] = "paused-before-training",
  [DISCO_PEER_TRAINING] = "training",
  [DISCO_PEER_PAUSED_END] = "paused-before-ready",
  [DISCO_PEER_WAIT_PEERS] = "wait-peers-for-round",
  [DISCO_PEER_LINKING] = "linking",
  [DISCO_PEER_WAIT_DECISION] = "wait-start-retry-fail",
  [DISCO_PEER_POOL_SHUTDOWN] = "pool-shutdown",
  [DISCO_PEER_EXCHANGING] = "exchanging",
  [DISCO_PEER_DONE] = "done",
  [DISCO_PEER_FAILED] = "failed",
  [DISCO_PEER_LEFT] = "left",
};

const char *
disco_peer_state_name (DiscoPeerState s)
{
  return (unsigned) s < DISCO_PEER_N_STATES ? _disco_peer_state_names[s] : "?";
}

void
_disco_peer_observe (DiscoPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
         int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, _disco_peer_state_names[p->base.state], (int32_t) disco_aggregator_round (p->agg), other, type,
                        value, "%s", detail ? detail : "");
}

void
_disco_peer_send_msg (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _disco_peer_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

/* A message of `type` with no fields, to the coordinator. */
void
_disco_peer_send_server (DiscoPeer *p, ProtoOutbox *out, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  _disco_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}
