/* replica-harness.c — the replicated coordinator's group of replicas and
 * its cases, for any family's machines (replica-harness.h): the group is
 * the host layer's transport (host/sim-host.h), a network of its own with
 * a hop of 1 ms between replicas; what a replica sends a peer is kept for
 * the cases to read.  The replicas wrap the subject's coordinator; the
 * session peer its peer.  It names no family. */
#include "config.h"

#include "protocol/replica/tests/replica-harness.h"

#include "learn/learn-weights.h"
#include "protocol/replica/proto-replica.h"
#include "protocol/session/session-msgs.h"
#include "protocol/replica/replica-msgs.h"
#include "host/sim-host.h"

#include <string.h>

#define N 3
#define HOP DL_MS

static const ReplicaSubject *subject;

typedef struct {
  DlTime at;
  ProtoNodeId from, to;
  ProtoMsg msg;
} Wire;

typedef struct {
  ProtoConfig cfg;
  ProtoMachine *r[N];
  DlRandom *rng[N];
  gboolean dead[N];
  GArray *wire;          /* Wire, in flight between replicas */
  GArray *to_peers;      /* ProtoMsg the leader sent to peers (to in .node, the sender in .degree) */
  DlTime now;
  guint close_streams;   /* CLOSE_STREAM actions seen */
} Group;

/* The group as the host layer's transport (host/sim-host.h): what a replica
 * sends goes on the wire or to the peers' list; the rest is not modelled
 * (run_until asks the machines for their deadlines). */
static void
tr_send (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  Group *g = ud;
  if (proto_node_is_replica (to))
    {
      Wire w = { .at = g->now + HOP, .from = from, .to = to, .msg = *msg };
      proto_msg_init (msg, msg->type);
      g_array_append_val (g->wire, w);
    }
  else
    {
      ProtoMsg m = *msg;
      proto_msg_init (msg, msg->type);
      m.node = to;   /* the test reads who it went to here; no message to a peer uses node */
      m.degree = proto_replica_index (from);
      g_array_append_val (g->to_peers, m);
    }
  (void) via;
}

static void
tr_close_stream (gpointer ud, ProtoNodeId self, ProtoNodeId peer)
{
  Group *g = ud;
  g->close_streams++;
  (void) self, (void) peer;
}

static void
tr_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  (void) ud, (void) self, (void) other;
}

static void
tr_open_link (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator)
{
  (void) ud, (void) self, (void) other, (void) initiator;
}

static void
tr_start_training (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round)
{
  (void) ud, (void) self, (void) weights, (void) round;
}

static void
tr_node (gpointer ud, ProtoNodeId self)
{
  (void) ud, (void) self;
}

static void
tr_observed (gpointer ud, ProtoNodeId self, const ProtoObservation *obs)
{
  (void) ud, (void) self, (void) obs;
}

static void
tr_arm (gpointer ud, ProtoNodeId self, DlTime deadline)
{
  (void) ud, (void) self, (void) deadline;
}

static const SimTransport group_net = {
  .send = tr_send,
  .open_link = tr_open_link,
  .connect_link = tr_link,
  .close_link = tr_link,
  .start_training = tr_start_training,
  .disconnect = tr_node,
  .observed = tr_observed,
  .arm = tr_arm,
  .reconnect = tr_node,
  .close_stream = tr_close_stream,
};

static void
feed (Group *g, guint k, const ProtoInput *in)
{
  if (g->dead[k])
    return;
  sim_host_feed (g->r[k], proto_replica_id (k), g->now, in, &group_net, g);
}

/* Runs the group until `until`: messages in time order, deadlines as due. */
static void
run_until (Group *g, DlTime until)
{
  for (;;)
    {
      DlTime next = until;
      int which = -1;
      for (guint i = 0; i < g->wire->len; i++)
        if (g_array_index (g->wire, Wire, i).at < next)
          next = g_array_index (g->wire, Wire, i).at, which = (int) i;
      int timer = -1;
      for (guint k = 0; k < N; k++)
        if (!g->dead[k] && proto_machine_next_deadline (g->r[k]) < next)
          next = proto_machine_next_deadline (g->r[k]), timer = (int) k, which = -1;
      g->now = MAX (g->now, next);
      if (timer >= 0)
        {
          ProtoInput in = { .kind = PROTO_IN_DEADLINE };
          feed (g, (guint) timer, &in);
        }
      else if (which >= 0)
        {
          Wire w = g_array_index (g->wire, Wire, which);
          g_array_remove_index (g->wire, which);
          guint k = proto_replica_index (w.to);
          ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = w.from, .via = PROTO_VIA_SERVER, .msg = &w.msg };
          feed (g, k, &in);
          proto_msg_clear (&w.msg);
        }
      else
        break;
    }
  g->now = until;
}

/* (Re)makes the replicas from g->cfg and starts them. */
static void
group_start (Group *g)
{
  for (guint k = 0; k < N; k++)
    {
      if (g->r[k])
        proto_machine_free (g->r[k]);
      g->r[k] = proto_replica_new (subject->family, &g->cfg, k, g->rng[k]);
      ProtoInput in = { .kind = PROTO_IN_START };
      feed (g, k, &in);
    }
}

static Group *
group_new (ProtoReplication mode)
{
  Group *g = g_new0 (Group, 1);
  subject->config_init (&g->cfg);
  g->cfg.coordinator_replicas = N;
  g->cfg.replication = mode;
  g->cfg.min_participants = 2;
  g->wire = g_array_new (FALSE, FALSE, sizeof (Wire));
  g->to_peers = g_array_new (FALSE, FALSE, sizeof (ProtoMsg));
  g_array_set_clear_func (g->to_peers, (GDestroyNotify) proto_msg_clear);
  for (guint k = 0; k < N; k++)
    g->rng[k] = dl_random_new (7, "replica", k);
  group_start (g);
  return g;
}

static void
group_free (Group *g)
{
  for (guint k = 0; k < N; k++)
    {
      proto_machine_free (g->r[k]);
      dl_random_free (g->rng[k]);
    }
  for (guint i = 0; i < g->wire->len; i++)
    proto_msg_clear (&g_array_index (g->wire, Wire, i).msg);
  g_array_unref (g->wire);
  g_array_unref (g->to_peers);
  g_free (g);
}

/* peer `p` sends message number seq (acknowledging `ack`) to replica k */
static void
peer_says (Group *g, guint k, ProtoNodeId p, ProtoMsgType type, guint32 seq, guint32 ack)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  m.sess_seq = seq;
  m.sess_ack = ack;
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = p, .via = PROTO_VIA_SERVER, .msg = &m };
  feed (g, k, &in);
  proto_msg_clear (&m);
}

/* how many messages of `type` went to peer p (from replica k, or any if k == N) */
static guint
sent_to (const Group *g, ProtoNodeId p, ProtoMsgType type, guint k)
{
  guint n = 0;
  for (guint i = 0; i < g->to_peers->len; i++)
    {
      const ProtoMsg *m = &g_array_index (g->to_peers, ProtoMsg, i);
      n += m->node == p && m->type == type && (k == N || m->degree == k);
    }
  return n;
}

static const ProtoMsg *
last_to (const Group *g, ProtoNodeId p, ProtoMsgType type)
{
  for (guint i = g->to_peers->len; i-- > 0;)
    {
      const ProtoMsg *m = &g_array_index (g->to_peers, ProtoMsg, i);
      if (m->node == p && m->type == type)
        return m;
    }
  return NULL;
}

/* peers connected to replica k's copy of the coordinator */
static guint
connections (const Group *g, guint k)
{
  return subject->connections (proto_replica_inner (g->r[k]));
}

static guint
leader_of (const Group *g)
{
  for (guint k = 0; k < N; k++)
    if (!g->dead[k] && proto_replica_leads (g->r[k]))
      return k;
  return N;
}

/* Raft: the coordinator answers a peer only once a majority has logged its
 * message; then every copy of the coordinator has had it, once. */
START_TEST (test_raft_commit_before_answer)
{
  Group *g = group_new (PROTO_REPLICATION_RAFT);
  run_until (g, 10 * DL_MS);
  ck_assert_uint_eq (leader_of (g), 0);
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 0);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, N), 0);   /* not before the majority */
  run_until (g, 20 * DL_MS);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, N), 1);
  const ProtoMsg *m = last_to (g, 1, PROTO_MSG_WELCOME);
  ck_assert_uint_eq (m->sess_seq, 1);   /* its first message to p1 */
  ck_assert_uint_eq (m->sess_ack, 1);   /* p1's first applied */
  /* a heartbeat later, the followers know the commit and applied it too */
  run_until (g, 200 * DL_MS);
  for (guint k = 0; k < N; k++)
    {
      ck_assert_uint_eq (proto_replica_applied (g->r[k]), proto_replica_log_len (g->r[0]));
      ck_assert_uint_eq (connections (g, k), 1);
    }
  /* the same message again (sent again on a resume): logged, not applied twice */
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 1);
  run_until (g, 400 * DL_MS);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, N), 1);
  for (guint k = 0; k < N; k++)
    ck_assert_uint_eq (connections (g, k), 1);
  /* only the leader speaks to peers */
  for (guint i = 0; i < g->to_peers->len; i++)
    ck_assert_uint_eq (g_array_index (g->to_peers, ProtoMsg, i).degree, 0);
  group_free (g);
}
END_TEST

/* primary-backup: the leader answers at once, before any backup has it. */
START_TEST (test_primary_backup_answers_at_once)
{
  Group *g = group_new (PROTO_REPLICATION_PRIMARY_BACKUP);
  run_until (g, 10 * DL_MS);
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 0);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, N), 1);
  run_until (g, 200 * DL_MS);
  for (guint k = 1; k < N; k++)
    ck_assert_uint_eq (connections (g, k), 1);
  group_free (g);
}
END_TEST

/* The leader crashes: a follower is elected within a few election timeouts
 * (Raft's 150-300 ms), holds the coordinator's state, and a peer that
 * resumes gets what the old leader had sent it and it had not taken. */
START_TEST (test_failover_keeps_state_and_resends)
{
  Group *g = group_new (PROTO_REPLICATION_RAFT);
  run_until (g, 10 * DL_MS);
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 0);
  peer_says (g, 0, 2, PROTO_MSG_HELLO, 1, 0);
  run_until (g, 100 * DL_MS);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, 0), 1);
  g->dead[0] = TRUE;
  run_until (g, 1500 * DL_MS);
  guint k = leader_of (g);
  ck_assert_uint_lt (k, N);
  ck_assert_uint_ne (k, 0);
  ck_assert_uint_ge (proto_replica_term (g->r[k]), 2);
  ck_assert_uint_eq (connections (g, k), 2);
  /* p1 never got its welcome (it says it has nothing): it comes again */
  guint before = sent_to (g, 1, PROTO_MSG_WELCOME, N);
  peer_says (g, k, 1, PROTO_MSG_SESSION_RESUME, 0, 0);
  run_until (g, 1600 * DL_MS);
  const ProtoMsg *r = last_to (g, 1, PROTO_MSG_SESSION_RESUMED);
  ck_assert_ptr_nonnull (r);
  ck_assert (!r->helper);
  ck_assert_uint_eq (r->sess_ack, 1);   /* its hello was applied */
  ck_assert_uint_ge (r->round, 1);      /* and the coordinator had sent it something */
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, k), before);   /* resent by the new leader */
  ck_assert_uint_gt (sent_to (g, 1, PROTO_MSG_WELCOME, k), 0);
  /* p2 says it holds everything: nothing is resent to it */
  peer_says (g, k, 2, PROTO_MSG_SESSION_RESUME, 0, 99);
  run_until (g, 1700 * DL_MS);
  ck_assert_uint_eq (sent_to (g, 2, PROTO_MSG_WELCOME, k), 0);
  group_free (g);
}
END_TEST

/* A peer that does not resume within resume_timeout is closed by the new
 * leader (the coordinator sees its stream close); it is told so when it
 * comes back. */
START_TEST (test_silent_session_closed)
{
  Group *g = group_new (PROTO_REPLICATION_RAFT);
  g->cfg.resume_timeout = DL_S;
  group_start (g);
  run_until (g, 10 * DL_MS);
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 0);
  peer_says (g, 0, 2, PROTO_MSG_HELLO, 1, 0);
  run_until (g, 100 * DL_MS);
  g->dead[0] = TRUE;
  run_until (g, 1000 * DL_MS);
  guint k = leader_of (g);
  ck_assert_uint_lt (k, N);
  peer_says (g, k, 1, PROTO_MSG_SESSION_RESUME, 0, 1);
  run_until (g, 3000 * DL_MS);
  /* p2 stayed away: its session is closed; p1's is not */
  peer_says (g, k, 2, PROTO_MSG_SESSION_RESUME, 0, 1);
  run_until (g, 3100 * DL_MS);
  const ProtoMsg *r2 = last_to (g, 2, PROTO_MSG_SESSION_RESUMED);
  ck_assert_ptr_nonnull (r2);
  ck_assert (r2->helper);
  const ProtoMsg *r1 = last_to (g, 1, PROTO_MSG_SESSION_RESUMED);
  ck_assert (!r1->helper);
  group_free (g);
}
END_TEST

/* Two of three crash: no majority, no leader, nothing acted on (Raft's
 * price; the regression replica-no-majority.ini shows the run stall). */
START_TEST (test_no_majority_no_leader)
{
  Group *g = group_new (PROTO_REPLICATION_RAFT);
  run_until (g, 10 * DL_MS);
  g->dead[0] = g->dead[1] = TRUE;
  run_until (g, 5 * DL_S);
  ck_assert_uint_eq (leader_of (g), N);
  ck_assert_uint_ge (proto_replica_term (g->r[2]), 3);   /* it stood, again and again */
  group_free (g);
}
END_TEST

/* A replica whose log lacks a committed entry cannot be elected (§5.4.1):
 * the one that has it wins. */
START_TEST (test_up_to_date_wins)
{
  Group *g = group_new (PROTO_REPLICATION_RAFT);
  run_until (g, 10 * DL_MS);
  g->dead[2] = TRUE;   /* replica 2 misses the entry */
  peer_says (g, 0, 1, PROTO_MSG_HELLO, 1, 0);
  run_until (g, 100 * DL_MS);
  ck_assert_uint_eq (sent_to (g, 1, PROTO_MSG_WELCOME, N), 1);   /* committed: 0 and 1 have it */
  g->dead[0] = TRUE;
  g->dead[2] = FALSE;
  run_until (g, 3 * DL_S);
  ck_assert_uint_eq (leader_of (g), 1);
  ck_assert_uint_eq (connections (g, 2), 1);
  group_free (g);
}
END_TEST

/* ---- the session peer ---- */

typedef struct {
  ProtoMachine *s;
  ProtoOutbox out;
} Peer;

static guint
count_sends (Peer *p, ProtoMsgType type)
{
  return proto_outbox_count_sends (&p->out, type, PROTO_SERVER);
}

static void
peer_feed (Peer *p, DlTime now, const ProtoInput *in)
{
  proto_outbox_reset (&p->out);
  proto_machine_handle (p->s, now, in, &p->out);
}

/* the coordinator's message to the peer */
static void
peer_hears (Peer *p, DlTime now, ProtoMsg *msg)
{
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = PROTO_SERVER, .via = PROTO_VIA_SERVER, .msg = msg };
  peer_feed (p, now, &in);
}

static ProtoAction *
first_send (Peer *p)
{
  for (guint i = 0; i < proto_outbox_len (&p->out); i++)
    if (proto_outbox_get (&p->out, i)->kind == PROTO_ACT_SEND)
      return proto_outbox_get (&p->out, i);
  ck_abort_msg ("no message sent");
  return NULL;
}

static gboolean
has_action (Peer *p, ProtoActionKind kind)
{
  for (guint i = 0; i < proto_outbox_len (&p->out); i++)
    if (proto_outbox_get (&p->out, i)->kind == kind)
      return TRUE;
  return FALSE;
}

/* The peer's hello goes out numbered 1; the coordinator's welcome, number
 * 1, is answered once, and not again when it comes again (resent on a
 * resume). */
static void
session_hello_welcome (Peer *p)
{
  ProtoInput start = { .kind = PROTO_IN_START };
  peer_feed (p, 0, &start);
  ck_assert_uint_eq (count_sends (p, PROTO_MSG_HELLO), 1);
  ck_assert_uint_eq (first_send (p)->msg.sess_seq, 1);
  ProtoMsg info;
  proto_msg_init (&info, PROTO_MSG_WELCOME);
  info.node = 1;
  info.sess_seq = 1;
  info.sess_ack = 0;
  peer_hears (p, DL_MS, &info);
  ck_assert_uint_gt (proto_outbox_len (&p->out), 0);
  ck_assert_uint_gt (subject->welcome_answers (&p->out), 0);
  peer_hears (p, 2 * DL_MS, &info);
  ck_assert_uint_eq (subject->welcome_answers (&p->out), 0);
  ck_assert_uint_eq (proto_machine_received_count (p->s, PROTO_MSG_WELCOME), 1);
}

/* The stream breaks: the peer machine does not see it; a reconnect is
 * asked at once, then again 100 ms after a refusal; on the new stream
 * SessionResume says it holds message 1, and on SessionResumed saying the
 * coordinator applied nothing of its, its hello goes again, number 1. */
static void
session_resume (Peer *p)
{
  ProtoInput closed = { .kind = PROTO_IN_STREAM_CLOSED, .from = PROTO_SERVER };
  peer_feed (p, DL_S, &closed);
  ck_assert_int_eq (proto_machine_next_deadline (p->s), DL_S);
  ProtoInput dl = { .kind = PROTO_IN_DEADLINE };
  peer_feed (p, DL_S, &dl);
  ck_assert (has_action (p, PROTO_ACT_RECONNECT));
  /* refused (no leader yet): it tries again later, 100 ms, then 200 ms */
  peer_feed (p, DL_S + 40 * DL_MS, &closed);
  ck_assert_int_eq (proto_machine_next_deadline (p->s), DL_S + 140 * DL_MS);
  ProtoInput start = { .kind = PROTO_IN_START };
  peer_feed (p, DL_S + 200 * DL_MS, &start);
  ck_assert_uint_eq (count_sends (p, PROTO_MSG_SESSION_RESUME), 1);
  ck_assert_uint_eq (first_send (p)->msg.sess_ack, 1);
  ProtoMsg res;
  proto_msg_init (&res, PROTO_MSG_SESSION_RESUMED);
  res.sess_ack = 0;
  res.round = 1;
  peer_hears (p, DL_S + 250 * DL_MS, &res);
  ck_assert_uint_eq (count_sends (p, PROTO_MSG_HELLO), 1);
  for (guint i = 0; i < proto_outbox_len (&p->out); i++)
    if (proto_outbox_get (&p->out, i)->kind == PROTO_ACT_SEND
        && proto_outbox_get (&p->out, i)->msg.type == PROTO_MSG_HELLO)
      ck_assert_uint_eq (proto_outbox_get (&p->out, i)->msg.sess_seq, 1);
}

/* A session the coordinator closed: the peer machine gets its stream's
 * close. */
static void
session_closed (Peer *p)
{
  ProtoInput closed = { .kind = PROTO_IN_STREAM_CLOSED, .from = PROTO_SERVER };
  ProtoInput dl = { .kind = PROTO_IN_DEADLINE };
  ProtoInput start = { .kind = PROTO_IN_START };
  ProtoMsg gone;
  proto_msg_init (&gone, PROTO_MSG_SESSION_RESUMED);
  gone.helper = TRUE;
  peer_feed (p, 2 * DL_S, &closed);
  peer_feed (p, 2 * DL_S, &dl);
  peer_feed (p, 2 * DL_S + 50 * DL_MS, &start);
  peer_hears (p, 2 * DL_S + 100 * DL_MS, &gone);
  ProtoPeerView v;
  proto_machine_view (p->s, &v);
  ck_assert (!v.connected);
  ck_assert (v.settled);
}

/* The session numbers the peer's messages, holds them while its stream is
 * down, reconnects, and on SessionResumed sends again what was not applied;
 * a message of the coordinator's it has taken is not taken twice. */
START_TEST (test_session_peer)
{
  ProtoConfig cfg;
  subject->config_init (&cfg);
  cfg.coordinator_replicas = 3;
  g_autoptr (LearnWeights) w0 = learn_weights_new (4);
  g_autoptr (DlRandom) rng = dl_random_new (1, "peer", 1);
  ProtoPeerEnv env = { .initial = w0, .rng = rng, .region = "", .speed = 1, .uplink_bps = 1 };
  Peer p;
  p.s = proto_session_peer_new (subject->family->new_peer (&cfg, &env), &cfg);
  proto_outbox_init (&p.out);
  session_hello_welcome (&p);
  session_resume (&p);
  session_closed (&p);
  proto_outbox_clear (&p.out);
  proto_machine_free (p.s);
}
END_TEST

Suite *
rh_suite (const ReplicaSubject *s)
{
  subject = s;
  Suite *suite = suite_create ("replica");
  TCase *tc = tcase_create ("replica");
  tcase_add_test (tc, test_raft_commit_before_answer);
  tcase_add_test (tc, test_primary_backup_answers_at_once);
  tcase_add_test (tc, test_failover_keeps_state_and_resends);
  tcase_add_test (tc, test_silent_session_closed);
  tcase_add_test (tc, test_no_majority_no_leader);
  tcase_add_test (tc, test_up_to_date_wins);
  tcase_add_test (tc, test_session_peer);
  suite_add_tcase (suite, tc);
  return suite;
}

int
rh_run (const ReplicaSubject *s)
{
  SRunner *sr = srunner_create (rh_suite (s));
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
