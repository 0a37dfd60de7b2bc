/* pipe-peer-effects.c — what the pipeline peer's machine (pipe-peer.c) does
 * to the outside, through pipe-peer-private.h: observations and metrics
 * named by the current state, the state's change and its record, sends
 * (observed; a client's link bytes counted and a ping's departure timed),
 * and hidden states of a size.  A leaf: it decides no transition and
 * calls nothing of pipe-peer.c. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/pipeline/pipe-msgs.h"

const char *const _pipe_peer_state_names[PIPE_PEER_N_STATES] = {
  [PIPE_PEER_IDLE] = "idle",
  [PIPE_PEER_CONNECTING] = "connecting",
  [PIPE_PEER_SERVING] = "serving",
  [PIPE_PEER_COMPUTING] = "computing",
  [PIPE_PEER_LOOKUP] = "lookup",
  [PIPE_PEER_PINGING] = "pinging",
  [PIPE_PEER_STEPPING] = "stepping",
  [PIPE_PEER_WAIT_SERVERS] = "wait-servers",
  [PIPE_PEER_DONE] = "done",
  [PIPE_PEER_LEFT] = "left",
};

const char *
pipe_peer_state_name (PipePeerState s)
{
  return (unsigned) s < PIPE_PEER_N_STATES ? _pipe_peer_state_names[s] : "?";
}

void
_pipe_peer_observe (PipePeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
                   const char *detail)
{
  int32_t round = p->is_server ? -1 : (int32_t) p->step;
  proto_outbox_observe (out, kind, _pipe_peer_state_names[p->base.state], round, other, type, value, "%s", detail ? detail : "");
}

void
_pipe_peer_metric (PipePeer *p, ProtoOutbox *out, const char *name, int32_t round, int64_t value)
{
  proto_outbox_observe (out, PROTO_OBS_METRIC, _pipe_peer_state_names[p->base.state], round, PROTO_NO_NODE, -1, value, "%s", name);
}

void
_pipe_peer_set_state (PipePeer *p, ProtoOutbox *out, PipePeerState s)
{
  if (p->base.state == s)
    return;
  p->base.state = s;
  _pipe_peer_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, _pipe_peer_state_names[s]);
}

/* every send the machine makes, observed and, for a client, counted (and a
 * ping's round trip timed from when it leaves: it may wait for its link) */
void
_pipe_peer_send (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _pipe_peer_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  if (!p->is_server && via == PROTO_VIA_LINK)
    {
      p->egress_bytes += proto_msg_wire_size (m);
      if (m->type == PROTO_MSG_PIPE_PING && g_hash_table_contains (p->ping_sent, GUINT_TO_POINTER (to + 1)))
        g_hash_table_insert (p->ping_sent, GUINT_TO_POINTER (to + 1), GSIZE_TO_POINTER (p->now + 1));
    }
  proto_outbox_send (out, to, via, m);
}

void
_pipe_peer_send_link (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

void
_pipe_peer_send_server (PipePeer *p, ProtoOutbox *out, ProtoMsg *m)
{
  _pipe_peer_send (p, out, PROTO_SERVER, PROTO_VIA_SERVER, m);
}

LearnWeights *
_pipe_peer_hidden (PipePeer *p, guint tokens)
{
  if (tokens == 1)
    return learn_weights_ref (p->hidden);
  return learn_weights_new_symbolic (learn_weights_len (p->hidden) * tokens);
}
