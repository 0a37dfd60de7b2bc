/* msg-fill.c — a message of every type with its fields set (msg-fill.h). */
#include "config.h"

#include "tests/msg-fill.h"
#include "protocol/proto-msg-class.h"
#include "protocol/disco/disco-msgs.h"
#include "protocol/gossip/gossip-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"
#include "protocol/replica/replica-msgs.h"
#include "protocol/guest/guest-msgs.h"

static void
fill_from_class (ProtoMsg *m, ProtoMsgType t)
{
  const ProtoMsgClass *k = proto_msg_class_of (t);
  if (k && k->example)
    k->example (m);
}

void
fill_msg (ProtoMsg *m, ProtoMsgType t)
{
  proto_msg_init (m, t);
  static const ProtoNodeId peers[] = { 4, 9, 2 };
  static const float w[] = { 1.5f, -2.25f, 3.0f, 0.0f, 1e-3f };
  switch (t)
    {
    case PROTO_MSG_WELCOME:
      m->node = 7; m->wait_for_more = TRUE; m->nb_participants = 3; m->joined_mid_training = TRUE;
      break;
    case PROTO_MSG_ROUND_PEERS:
    case PROTO_MSG_GOSSIP_TARGETS:
    case PROTO_MSG_NEIGHBORS:
    case PROTO_MSG_GOSSIP_SAMPLE:
      proto_msg_set_peers (m, peers, 3); m->round = 12;
      break;
    case PROTO_MSG_DHT_FIND_NODE:
      m->round = 9; m->key = G_GUINT64_CONSTANT (0xfedcba9876543210);
      break;
    case PROTO_MSG_DHT_NODES:
      proto_msg_set_peers (m, peers, 3); m->round = 9;
      break;
    case PROTO_MSG_HIER_CLUSTER:
      proto_msg_set_peers (m, peers, 3); m->round = 2; m->node = 9;
      break;
    case PROTO_MSG_HIER_HEADS:
      {
        proto_msg_set_peers (m, peers, 3); m->round = 5; m->degree = 4; m->node = 8; m->key = 3;
        guint32 *kids = g_new (guint32, 2);
        kids[0] = 11, kids[1] = 12;
        proto_msg_take_indices (m, kids, 2);
      }
      break;
    case PROTO_MSG_HIER_CANDIDACY:
      m->round = 3; m->degree = 7000; m->helper = TRUE;
      break;
    case PROTO_MSG_HIER_HELLO:
      m->degree = 12; m->helper = TRUE;
      break;
    case PROTO_MSG_HIER_UPDATE:
    case PROTO_MSG_HIER_AGG:
    case PROTO_MSG_HIER_RESULT:
      {
        m->round = 6; m->degree = 4;
        g_autoptr (LearnWeights) lw = learn_weights_new_from (w, 3);
        proto_msg_set_weights (m, lw);
        break;
      }
    case PROTO_MSG_PIPE_HELLO:
      m->degree = 1500; m->signal_data = g_strdup ("dc-a");
      break;
    case PROTO_MSG_PIPE_ROLE:
      m->node = 6; m->helper = TRUE; m->round = 8; m->comm_round = 16;
      break;
    case PROTO_MSG_PIPE_SERVERS:
      {
        proto_msg_set_peers (m, peers, 3); m->round = 2;
        guint32 *info = g_new (guint32, 12);
        for (guint i = 0; i < 3; i++)
          info[4 * i] = 8 * i, info[4 * i + 1] = 8 * i + 8, info[4 * i + 2] = 1000 + i, info[4 * i + 3] = i % 2;
        proto_msg_take_indices (m, info, 12);
        break;
      }
    case PROTO_MSG_PIPE_PING:
    case PROTO_MSG_PIPE_PONG:
    case PROTO_MSG_HIER_PING:
    case PROTO_MSG_HIER_PONG:
      m->round = 77;
      break;
    case PROTO_MSG_HIER_PROBE:
      {
        m->round = 3;
        proto_msg_set_peers (m, peers, 2);
        guint32 *q = g_new (guint32, 3);
        q[0] = 4, q[1] = 9, q[2] = 11;
        proto_msg_take_indices (m, q, 3);
        break;
      }
    case PROTO_MSG_HIER_RTT:
      m->round = 2; m->node = 7; m->key = G_MAXUINT64;
      break;
    case PROTO_MSG_GUEST:
      m->signal_data = g_strdup ("Push 0.25");
      m->key = 4096;
      break;
    case DISCO_MSG_ROUND_STALENESS:
      {
        m->round = 6;
        proto_msg_set_peers (m, peers, 2);
        guint32 *q = g_new (guint32, 2);
        q[0] = 0, q[1] = 3;
        proto_msg_take_indices (m, q, 2);
        break;
      }
    case PROTO_MSG_PIPE_STEP:
    case PROTO_MSG_PIPE_PUSH:
    case PROTO_MSG_PIPE_RESULT:
      {
        m->key = G_GUINT64_CONSTANT (0x1234567890); m->round = 5; m->comm_round = 0xdeadbeef;
        m->nb_participants = 2;
        if (t == PROTO_MSG_PIPE_RESULT)
          m->degree = 0xabcdef;
        else
          {
            m->degree = 8;
            m->node = 16;
            m->helper = t == PROTO_MSG_PIPE_STEP;   /* a hash-only copy */
            proto_msg_set_peers (m, peers, 2);
            guint32 *spans = g_new (guint32, 4);
            spans[0] = 16, spans[1] = 24, spans[2] = 24, spans[3] = 32;
            proto_msg_take_indices (m, spans, 4);
          }
        g_autoptr (LearnWeights) lw = learn_weights_new_from (w, 4);
        proto_msg_set_weights (m, lw);
        break;
      }
    case PROTO_MSG_PIPE_CLOSE:
      m->key = 99;
      break;
    case PROTO_MSG_PIPE_NEED:
      m->key = 98; m->round = 4;
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      {
        m->round = 4; m->degree = 3; m->comm_round = PROTO_GOSSIP_REPLY;
        g_autoptr (LearnWeights) lw = learn_weights_new_from (w, 2);
        proto_msg_set_weights (m, lw);
        guint32 *idx = g_new (guint32, 2);
        idx[0] = 1, idx[1] = 40;
        proto_msg_take_indices (m, idx, 2);
        break;
      }
    case DISCO_MSG_WAITING_FOR_MORE:
    case DISCO_MSG_ENOUGH_PARTICIPANTS:
      m->nb_participants = 5;
      break;
    case PROTO_MSG_SESSION_RESUME:
      m->sess_ack = 41;
      break;
    case PROTO_MSG_SESSION_RESUMED:
      m->helper = TRUE; m->round = 17; m->sess_ack = 5;
      break;
    case PROTO_MSG_RAFT_VOTE:
      m->round = 3; m->key = 12; m->comm_round = 2;
      break;
    case PROTO_MSG_RAFT_VOTE_REPLY:
      m->round = 3; m->helper = TRUE;
      break;
    case PROTO_MSG_RAFT_APPEND_REPLY:
      m->round = 4; m->helper = TRUE; m->key = 33;
      break;
    case PROTO_MSG_RAFT_APPEND:
      {
        m->round = 4; m->key = 32; m->comm_round = 3; m->degree = 30;
        guint32 *f = g_new (guint32, 5);
        f[0] = 4, f[1] = 1, f[2] = 7, f[3] = 0, f[4] = 123456789;
        proto_msg_take_indices (m, f, 5);
        /* the entry: a peer's numbered Payload */
        m->inner = g_new (ProtoMsg, 1);
        fill_msg (m->inner, DISCO_MSG_PAYLOAD);
        m->inner->sess_seq = 9; m->inner->sess_ack = 2;
        break;
      }
    case PROTO_MSG_SIGNAL:
      m->node = 3; m->signal = PROTO_SIGNAL_ANSWER;
      break;
    case PROTO_MSG_SYNC_PROVIDER:
    case DISCO_MSG_SIGNAL_NEW_PEER:
      m->node = 11;
      break;
    case DISCO_MSG_PAYLOAD:
      m->node = 2; m->round = 4; m->comm_round = 1;
      /* fall through */
    case PROTO_MSG_SYNC_MODEL:
      {
        g_autoptr (LearnWeights) lw = learn_weights_new_from (w, G_N_ELEMENTS (w));
        proto_msg_set_weights (m, lw);
        break;
      }
    default:
      fill_from_class (m, t);   /* a type whose class gives its own example (msg-fill.h) */
      break;
    }
}
