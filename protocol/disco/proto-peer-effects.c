/* proto-peer-effects.c — what DISCO's peer (proto-peer.c) does to the
 * outside, through proto-peer-private.h: its states' names, observations
 * named by the state it is in, and sends (observed).  A leaf: it decides
 * no transition and calls nothing of proto-peer.c. */
#include "config.h"

#include "protocol/disco/proto-peer.h"
#include "protocol/disco/proto-aggregator.h"
#include "protocol/disco/proto-peer-private.h"
#include "protocol/disco/disco-msgs.h"

const char *const _proto_peer_state_names[PROTO_PEER_N_STATES] = {
  [PROTO_PEER_IDLE] = "idle",
  [PROTO_PEER_CONNECTING] = "connecting",
  [PROTO_PEER_SYNC_WAIT_PROVIDER] = "sync-wait-provider",
  [PROTO_PEER_SYNC_LINKING] = "sync-linking",
  [PROTO_PEER_SYNC_WAIT_MODEL] = "sync-wait-model",
  [PROTO_PEER_PAUSED_BEGIN] = "paused-before-training",
  [PROTO_PEER_TRAINING] = "training",
  [PROTO_PEER_PAUSED_END] = "paused-before-ready",
  [PROTO_PEER_WAIT_PEERS] = "wait-peers-for-round",
  [PROTO_PEER_LINKING] = "linking",
  [PROTO_PEER_WAIT_DECISION] = "wait-start-retry-fail",
  [PROTO_PEER_POOL_SHUTDOWN] = "pool-shutdown",
  [PROTO_PEER_EXCHANGING] = "exchanging",
  [PROTO_PEER_DONE] = "done",
  [PROTO_PEER_FAILED] = "failed",
  [PROTO_PEER_LEFT] = "left",
};

const char *
proto_peer_state_name (ProtoPeerState s)
{
  return (unsigned) s < PROTO_PEER_N_STATES ? _proto_peer_state_names[s] : "?";
}

void
_proto_peer_observe (ProtoPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
         int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, _proto_peer_state_names[p->base.state], (int32_t) proto_aggregator_round (p->agg), other, type,
                        value, "%s", detail ? detail : "");
}

void
_proto_peer_send_msg (ProtoPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _proto_peer_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

/* A message of `type` with no fields, to the coordinator. */
void
_proto_peer_send_server (ProtoPeer *p, ProtoOutbox *out, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  _proto_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}
