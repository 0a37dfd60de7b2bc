/* pipe-peer-effects.c — what the pipeline peer's machine (pipe-peer.c) does
 * to the outside, through pipe-peer-private.h: observations and metrics
 * named by the current state, the state's change and its record, sends
 * (observed; a client's link bytes counted and a ping's departure timed),
 * hidden states of a size, the messages it encodes (a hop's PipeStep, its
 * PipeHello), a server's session opened, and its links' host.  A leaf: it
 * decides no transition and calls nothing of pipe-peer.c; it reads its
 * records (pipe-peer-records.c, which calls nothing of it). */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <math.h>

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

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _pipe_peer_send (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  _pipe_peer_observe (ud, out, kind, other, type, -1, detail);
}

/* The input of hop i for this step (hash `in`): the hidden states, or with
 * hash_only the hash alone (client_copy = hash, to a server that gets a
 * push: the chain named it when the hop before it got its input). */
void
_pipe_peer_send_step (PipePeer *p, ProtoOutbox *out, guint i, guint32 in, gboolean hash_only)
{
  Hop *h = _pipe_peer_hop_at (p, i);
  guint tokens = h->stepped ? 1 : p->step + 1;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_STEP);
  m.key = p->id;
  m.round = p->step;
  m.comm_round = in;
  m.nb_participants = tokens;
  m.helper = hash_only;
  if (!hash_only)
    m.weights = _pipe_peer_hidden (p, tokens);
  m.degree = h->start;
  m.node = h->end;
  if (pipe_config (&p->cfg)->next_peer)
    {
      g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
      g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint k = i + 1; k < p->hops->len && _pipe_peer_hop_at (p, k)->stepped; k++)
        {
          Hop *n = _pipe_peer_hop_at (p, k);
          guint32 span[2] = { n->start, n->end };
          g_array_append_val (chain, n->server);
          g_array_append_vals (spans, span, 2);
        }
      proto_msg_set_peers (&m, (const ProtoNodeId *) (const void *) chain->data, chain->len);
      if (spans->len)
        proto_msg_take_indices (&m, g_memdup2 (spans->data, spans->len * sizeof (guint32)), spans->len);
    }
  if (tokens > 1)
    {
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, h->server, PROTO_MSG_PIPE_STEP, tokens,
                          "replays the session's inputs to a new server");
      _pipe_peer_metric (p, out, "replay_bytes", (int32_t) p->step, (int64_t) proto_msg_wire_size (&m));
    }
  h->deadline = dl_time_add (p->now, pipe_config (&p->cfg)->step_timeout);
  _pipe_peer_send_link (p, out, h->server, &m);
}

/* the session a PipeStep is of, opened by its first step */
Session *
_pipe_peer_session_of (PipePeer *p, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  Session *s = _pipe_peer_session_find (p, msg->key, NULL);
  if (!s)
    {
      Session n = { .key = msg->key, .client = from, .steps = g_array_new (FALSE, TRUE, sizeof (StepWork)) };
      g_array_append_val (p->sessions, n);
      s = &g_array_index (p->sessions, Session, p->sessions->len - 1);
      _pipe_peer_observe (p, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, msg->nb_participants,
                         msg->nb_participants > 1 ? "session opened by a replay of the client's inputs" : "session opened");
    }
  return s;
}

/* What a node knows of its host: its speed (Petals' announced throughput)
 * and its region (the family); again after step_timeout without a role (a
 * message lost across a partition). */
void
_pipe_peer_hello (PipePeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_HELLO);
  double s = p->speed * 1000.0;
  m.degree = s >= (double) G_MAXUINT32 ? G_MAXUINT32 : (guint32) MAX (lround (s), 1);
  m.signal_data = g_strdup (p->region);
  _pipe_peer_send_server (p, out, &m);
  p->hello_again = dl_time_add (p->now, pipe_config (&p->cfg)->step_timeout);
}

/* its links' host: sends and observations through the peer (session-links.h) */
void
_pipe_peer_links_init (PipePeer *p)
{
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
  p->links.opener_offers = TRUE;   /* a server pushing to the next knows it wants the link; the next does not */
}
