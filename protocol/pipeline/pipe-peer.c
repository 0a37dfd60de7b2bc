/* pipe-peer.c — the pipeline peer: its hello and role, its links, the
 * dispatch to its client (pipe-client.c) or server (pipe-server.c) half,
 * and what a run records of it.
 *
 * A peer says hello to the registry with what a node knows of its host
 * (its speed, Petals' announced throughput; its region, the family) and
 * is told its role.  Links are DISCO's signalling through the coordinator
 * (protocol/proto-links.h), as for the other families; a Petals node
 * reaches another over libp2p, possibly through a relay, and that setup
 * is what link_setup stands for. */
#include "config.h"

#include "protocol/pipeline/pipe-peer-private.h"
#include "protocol/disco/disco-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <math.h>
#include <string.h>

static const char *const state_names[PIPE_PEER_N_STATES] = {
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
  return (unsigned) s < PIPE_PEER_N_STATES ? state_names[s] : "?";
}

void
pip_observe (PipePeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *detail)
{
  int32_t round = p->is_server ? -1 : (int32_t) p->step;
  proto_outbox_observe (out, kind, state_names[p->state], round, other, type, value, "%s", detail ? detail : "");
}

void
pip_metric (PipePeer *p, ProtoOutbox *out, const char *name, int32_t round, int64_t value)
{
  proto_outbox_observe (out, PROTO_OBS_METRIC, state_names[p->state], round, PROTO_NO_NODE, -1, value, "%s", name);
}

void
pip_set_state (PipePeer *p, ProtoOutbox *out, PipePeerState s)
{
  if (p->state == s)
    return;
  p->state = s;
  pip_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, state_names[s]);
}

/* every send the machine makes, observed and, for a client, counted */
static void
send_msg (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  pip_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  if (!p->is_server && via == PROTO_VIA_LINK)
    {
      p->egress_bytes += proto_msg_wire_size (m);
      if (m->type == PROTO_MSG_PIPE_PING)
        pcl_ping_left (p, to);
    }
  proto_outbox_send (out, to, via, m);
}

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  pip_observe (ud, out, kind, other, type, -1, detail);
}

void
pip_send_link (PipePeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

void
pip_send_server (PipePeer *p, ProtoOutbox *out, ProtoMsg *m)
{
  send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, m);
}

LearnWeights *
pip_hidden (PipePeer *p, guint tokens)
{
  if (tokens == 1)
    return learn_weights_ref (p->hidden);
  return learn_weights_new_symbolic (learn_weights_len (p->hidden) * tokens);
}

/* What a node knows of its host: its speed (Petals' announced throughput)
 * and its region (the family); again after step_timeout without a role (a
 * message lost across a partition). */
static void
hello (PipePeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_PIPE_HELLO);
  double s = p->speed * 1000.0;
  m.degree = s >= (double) G_MAXUINT32 ? G_MAXUINT32 : (guint32) MAX (lround (s), 1);
  m.signal_data = g_strdup (p->region);
  pip_send_server (p, out, &m);
  p->hello_again = dl_time_add (p->now, p->cfg.step_timeout);
}

/* ---- messages ---- */

static void
take_role (PipePeer *p, ProtoOutbox *out, const ProtoMsg *msg)
{
  if (p->role_known || p->state != PIPE_PEER_CONNECTING)
    {
      pip_observe (p, out, PROTO_OBS_REJECTED, PROTO_SERVER, (int32_t) msg->type, -1, "a second role: ignored");
      return;
    }
  p->role_known = TRUE;
  p->id = msg->node;
  p->links.self = msg->node;
  p->is_server = msg->helper;
  pip_observe (p, out, PROTO_OBS_RECEIVED, PROTO_SERVER, (int32_t) msg->type, -1, p->is_server ? "server" : "client");
  if (p->is_server)
    {
      p->start = msg->round;
      p->end = msg->comm_round;
      /* a faulty server is a property of the node, drawn once from its stream */
      p->faulty = p->cfg.faulty_share > 0 && dl_random_bernoulli (p->rng, p->cfg.faulty_share);
      if (p->faulty)
        pip_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, "faulty: its pushes are wrong");
      pip_set_state (p, out, PIPE_PEER_SERVING);
    }
  else
    pcl_begin (p, out);
}

static gboolean
listens (const PipePeer *p, ProtoMsgType type)
{
  if (!p->connected)
    return FALSE;
  switch (type)
    {
    case PROTO_MSG_PIPE_ROLE:
      return p->state == PIPE_PEER_CONNECTING;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      return p->role_known;
    case PROTO_MSG_PIPE_PING:
    case PROTO_MSG_PIPE_STEP:
    case PROTO_MSG_PIPE_PUSH:
    case PROTO_MSG_PIPE_CLOSE:
      return p->role_known && p->is_server;
    case PROTO_MSG_PIPE_SERVERS:
    case PROTO_MSG_PIPE_PONG:
    case PROTO_MSG_PIPE_RESULT:
    case PROTO_MSG_PIPE_NEED:
      return p->role_known && !p->is_server;
    default:
      return FALSE;
    }
}

gboolean
pipe_peer_listens (const PipePeer *p, ProtoMsgType type, ProtoNodeId from)
{
  (void) from;
  return (unsigned) type < PROTO_MSG_N_TYPES && listens (p, type);
}

static void
handle_message (PipePeer *p, const ProtoInput *in, ProtoOutbox *out)
{
  const ProtoMsg *msg = in->msg;
  if ((unsigned) msg->type >= PROTO_MSG_N_TYPES || !listens (p, msg->type))
    {
      pip_observe (p, out, PROTO_OBS_DROPPED, in->from, (int32_t) msg->type, -1, NULL);
      return;
    }
  p->received[msg->type]++;
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_ROLE:
      take_role (p, out, msg);
      return;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      pip_observe (p, out, PROTO_OBS_RECEIVED, in->from, (int32_t) msg->type, -1, NULL);
      proto_links_signal (&p->links, out, msg);
      return;
    default:
      break;
    }
  if (p->is_server)
    psv_message (p, out, in->from, msg);
  else
    {
      if (in->via == PROTO_VIA_LINK)
        p->ingress_bytes += proto_msg_wire_size (msg);
      pcl_message (p, out, in->from, msg);
    }
}

static void
link_lost (PipePeer *p, ProtoOutbox *out, ProtoNodeId other, const char *why)
{
  if (!proto_links_get (&p->links, other, NULL))
    return;
  pip_observe (p, out, PROTO_OBS_LINK, other, -1, -1, why);
  proto_links_lost (&p->links, out, other);
  if (p->is_server)
    psv_link_lost (p, out, other);
  else
    pcl_link_lost (p, out, other, why);
}

void
pipe_peer_handle (PipePeer *p, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  p->now = now;
  DlTime before = pipe_peer_next_deadline (p);
  switch (in->kind)
    {
    case PROTO_IN_START:
      if (p->state != PIPE_PEER_IDLE)
        break;
      p->connected = TRUE;
      hello (p, out);
      pip_set_state (p, out, PIPE_PEER_CONNECTING);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (p, in, out);
      break;
    case PROTO_IN_DEADLINE:
      if (!p->connected)
        break;
      if (!p->role_known && now >= p->hello_again)
        {
          pip_observe (p, out, PROTO_OBS_TIMER_FIRED, PROTO_SERVER, PROTO_MSG_PIPE_ROLE, -1,
                       "no role within step_timeout: hello again");
          hello (p, out);
        }
      else if (p->is_server)
        psv_deadline (p, out);
      else if (p->role_known)
        pcl_deadline (p, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      break;   /* a pipeline peer never trains */
    case PROTO_IN_LINK_UP:
      if (proto_links_get (&p->links, in->from, NULL))
        proto_links_up (&p->links, out, in->from);
      break;
    case PROTO_IN_LINK_FAILED:
      link_lost (p, out, in->from, "failed");
      break;
    case PROTO_IN_LINK_CLOSED:
      link_lost (p, out, in->from, "closed");
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      if (!p->connected)
        break;
      proto_links_close_all (&p->links, out);
      if (in->kind == PROTO_IN_LEAVE)
        proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      p->connected = FALSE;
      psv_clear (p);
      pcl_clear (p);
      pip_observe (p, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1,
                  in->kind == PROTO_IN_LEAVE ? "left" : "coordinator stream closed");
      pip_set_state (p, out, PIPE_PEER_LEFT);
      break;
    }
  DlTime after = pipe_peer_next_deadline (p);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

DlTime
pipe_peer_next_deadline (const PipePeer *p)
{
  if (!p->connected)
    return DL_TIME_NEVER;
  if (!p->role_known)
    return p->hello_again;
  return p->is_server ? psv_next_deadline (p) : pcl_next_deadline (p);
}

PipePeerState
pipe_peer_state (const PipePeer *p)
{
  return p->state;
}

void
pipe_peer_view (const PipePeer *p, ProtoPeerView *v)
{
  v->connected = p->connected;
  /* a server owes no rounds of its own: it serves while it stays */
  v->serves_only = p->role_known && p->is_server;
  v->settled = v->serves_only || p->state == PIPE_PEER_DONE || p->state == PIPE_PEER_LEFT;
  v->failed = FALSE;
  v->error = "";
  /* a client's steps; a server does no rounds (its computations are
   * pipe_peer_computations), as the testbed counts them from round ends */
  v->rounds_done = p->is_server ? 0 : p->rounds_done;
}

guint
pipe_peer_computations (const PipePeer *p)
{
  return p->is_server ? p->rounds_done : 0;
}

guint
pipe_peer_received_count (const PipePeer *p, ProtoMsgType type)
{
  return (unsigned) type < PROTO_MSG_N_TYPES ? p->received[type] : 0;
}

gboolean
pipe_peer_is_server (const PipePeer *p)
{
  return p->role_known && p->is_server;
}

gboolean
pipe_peer_is_faulty (const PipePeer *p)
{
  return p->faulty;
}

void
pipe_peer_range (const PipePeer *p, guint *start, guint *end)
{
  *start = p->start;
  *end = p->end;
}

GArray *
pipe_peer_chain (const PipePeer *p)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; p->hops && i < p->hops->len; i++)
    g_array_append_val (a, g_array_index (p->hops, Hop, i).server);
  return a;
}

PipePeer *
pipe_peer_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  PipePeer *p = g_new0 (PipePeer, 1);
  p->cfg = *cfg;
  p->id = PROTO_NO_NODE;
  p->rng = env->rng;
  p->region = g_strdup (env->region ? env->region : "");
  p->speed = env->speed > 0 ? env->speed : 1e-3;
  p->hidden = learn_weights_new_symbolic ((cfg->hidden_size + 3) / 4);
  p->sessions = g_array_new (FALSE, TRUE, sizeof (Session));
  g_queue_init (&p->jobs);
  p->compute_done = DL_TIME_NEVER;
  p->servers = g_array_new (FALSE, FALSE, sizeof (PipeServerInfo));
  p->rtt = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->banned = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->ping_sent = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->hops = g_array_new (FALSE, TRUE, sizeof (Hop));
  p->ping_deadline = DL_TIME_NEVER;
  p->lookup_at = DL_TIME_NEVER;
  p->backoff = PIPE_BACKOFF_MIN_NS;
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
  p->links.opener_offers = TRUE;   /* a server pushing to the next knows it wants the link; the next does not */
  return p;
}

void
pipe_peer_free (PipePeer *p)
{
  if (!p)
    return;
  psv_clear (p);
  pcl_clear (p);
  proto_links_clear (&p->links);
  g_array_unref (p->sessions);
  g_array_unref (p->servers);
  g_hash_table_unref (p->rtt);
  g_hash_table_unref (p->banned);
  g_hash_table_unref (p->ping_sent);
  g_array_unref (p->hops);
  learn_weights_unref (p->hidden);
  g_free (p->region);
  g_free (p);
}
