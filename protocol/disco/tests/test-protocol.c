/* test-protocol.c — DISCO's machines (protocol/disco/): the drop rule,
 * the coordinator (DISCO's controller cases), the collect condition,
 * aggregation, stream closes, payload checks, and DISCO's failure S5
 * (model sync and S10 are test-sync.c; S4, S7, S8, S9 and S17 are
 * test-disco-failures.c).  Time is
 * hand-held (proto-harness.c); there is no simulator here.  The messages
 * and their wire form are tests/test-message.c. */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "protocol/proto-machine.h"
#include "tests/msg-fill.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-msgs.h"
#include "bench/bench-run.h"

#include <check.h>
#include <string.h>

/* ---------------------------------------------------------------- drop rule */

/* The listening sets, written out independently of disco-peer.c's table. */
static guint32
expected_listens (DiscoPeerState s, gboolean pause_pending)
{
  guint64 b = 0;
#define L(t) (G_GUINT64_CONSTANT (1) << (t))
  switch (s)
    {
    case DISCO_PEER_IDLE:
    case DISCO_PEER_FAILED:   /* tested only after a disconnecting failure */
    case DISCO_PEER_LEFT:
      return 0;
    case DISCO_PEER_CONNECTING:
      b = L (PROTO_MSG_WELCOME) | L (DISCO_MSG_ENOUGH_PARTICIPANTS);
      break;
    case DISCO_PEER_SYNC_WAIT_PROVIDER:
      b = L (PROTO_MSG_SYNC_PROVIDER);
      break;
    case DISCO_PEER_SYNC_WAIT_MODEL:
      /* SharedModel only on the provider's link: from the server it is dropped */
      break;
    case DISCO_PEER_WAIT_PEERS:
      b = L (PROTO_MSG_ROUND_PEERS);
      break;
    case DISCO_PEER_WAIT_DECISION:
      b = L (DISCO_MSG_START_WEIGHT_SHARING) | L (DISCO_MSG_RETRY_PEER_CONNECTIONS)
          | L (DISCO_MSG_CONNECTION_FAIL);
      break;
    case DISCO_PEER_SYNC_LINKING:
    case DISCO_PEER_PAUSED_BEGIN:
    case DISCO_PEER_TRAINING:
    case DISCO_PEER_PAUSED_END:
    case DISCO_PEER_LINKING:
    case DISCO_PEER_EXCHANGING:
    case DISCO_PEER_POOL_SHUTDOWN:
    case DISCO_PEER_DONE:
      break;
    }
  b |= L (PROTO_MSG_SIGNAL) | L (DISCO_MSG_SIGNAL_NEW_PEER) | L (DISCO_MSG_WAITING_FOR_MORE);
  if (pause_pending)
    b |= L (DISCO_MSG_ENOUGH_PARTICIPANTS);
#undef L
  return b;
}

/* Checks the peer's listens against the table for every type, then feeds
 * every non-listened type and checks it is dropped without effect. */
static void
check_drop_rule (Harness *h, guint i)
{
  DiscoPeer *p = h->peers[i];
  DiscoPeerState s = proto_machine_state (h->m[i]);
  guint64 want = expected_listens (s, disco_peer_paused (p));
  for (guint k = 0; k < proto_msg_n_types (); k++)
    {
      ProtoMsgType t = proto_msg_type_at (k);
      if (t == DISCO_MSG_PAYLOAD)
        continue;  /* conditional on receive loops: tested in S4 */
      gboolean listens = proto_machine_listens (h->m[i], t, PROTO_SERVER);
      /* DISCO's types are below 64: `want` holds them all */
      ck_assert_msg ((guint64) listens == (t < 64 ? (want >> t) & 1 : 0), "state %s, %s: listens=%d",
                     disco_peer_state_name (s), proto_msg_type_name ((ProtoMsgType) t), listens);
      if (listens)
        continue;
      guint before_drops = h_count_log (h, "dropped");
      guint queued = h->queue->len;
      ProtoMsg m;
      fill_msg (&m, (ProtoMsgType) t);
      h_to_peer (h, i, PROTO_SERVER, &m);
      proto_msg_clear (&m);
      ck_assert_int_eq (proto_machine_state (h->m[i]), s);
      ck_assert_uint_eq (h->queue->len, queued);   /* no reaction */
      if (proto_machine_connected (h->m[i]))
        ck_assert_uint_eq (h_count_log (h, "dropped"), before_drops + 1);
    }
}

START_TEST (test_links_up_any_order)
{
  /* issue 44: a link coming up leaves the links the peer waits for in
   * constant time (a flag in its record and a count).  Peer 1 waits in
   * linking until its last link is up, in whatever order they come up */
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 6, 1);
  Harness *h = h_new (&c, 6, 4);
  h->auto_links = FALSE;
  for (ProtoNodeId i = 1; i <= 6; i++)
    h_start (h, i);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_LINKING);
  g_autoptr (GArray) mine = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint k = 0; k < h->links_pending->len; k++)
    {
      guint64 p = g_array_index (h->links_pending, guint64, k);
      if ((p >> 32) == 1 || (p & 0xffffffffu) == 1)
        g_array_append_val (mine, p);
    }
  ck_assert_uint_eq (mine->len, 5);
  const guint order[] = { 1, 3, 0, 4, 2 };   /* a middle one first, the last early */
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    {
      assert_state (h, 1, DISCO_PEER_LINKING);
      g_array_set_size (h->links_pending, 0);
      g_array_append_val (h->links_pending, g_array_index (mine, guint64, order[k]));
      h_links_up (h);
    }
  ck_assert_int_ne (proto_machine_state (h->m[1]), DISCO_PEER_LINKING);
  ck_assert_uint_eq (h_count_log (h, "ConnectionsReady"), 1);
  h_free (h);
}
END_TEST

/* test_drop_rule_every_state's walk, a step per stretch of peer 1's and
 * then peer 3's states; each step checks the drop rule in every state it
 * passes and ends in the state the next one starts from. */

/* idle, connecting, paused before training (alone, min 2), training */
static void
walk_to_training (Harness *h)
{
  check_drop_rule (h, 1);                          /* idle */
  h_start (h, 1);
  check_drop_rule (h, 1);                          /* connecting */
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_PAUSED_BEGIN);    /* alone, min 2: told to wait */
  ck_assert (disco_peer_paused (h->peers[1]));
  check_drop_rule (h, 1);                          /* paused-before-training */
  h_start (h, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_TRAINING);
  check_drop_rule (h, 1);                          /* training */
}

/* WaitingForMoreParticipants while training: paused at the end of the round;
 * a second one before the pause point is rejected (S21) */
static void
walk_paused_at_end (Harness *h)
{
  ProtoMsg w;
  fill_msg (&w, DISCO_MSG_WAITING_FOR_MORE);
  h_to_peer (h, 1, PROTO_SERVER, &w);
  ck_assert (disco_peer_paused (h->peers[1]));
  h_to_peer (h, 1, PROTO_SERVER, &w);
  ck_assert_uint_eq (h_count_log (h, "multiple WaitingForMoreParticipants"), 1);
  h_finish_training (h, 1);
  assert_state (h, 1, DISCO_PEER_PAUSED_END);
  check_drop_rule (h, 1);                          /* paused-before-ready */
  fill_msg (&w, DISCO_MSG_ENOUGH_PARTICIPANTS);
  h_to_peer (h, 1, PROTO_SERVER, &w);
  ck_assert (!disco_peer_paused (h->peers[1]));
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
}

/* the round's barrier and exchange: waiting for peers, linking, waiting
 * for the decision, exchanging, and training the next round */
static void
walk_round (Harness *h)
{
  h->auto_links = FALSE;
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_WAIT_PEERS);
  check_drop_rule (h, 1);                          /* wait-peers-for-round */
  h_finish_training (h, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_LINKING);
  check_drop_rule (h, 1);                          /* linking */
  h_links_up (h);
  h->auto_links = TRUE;
  h_hold (h, DISCO_MSG_CONNECTIONS_READY, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_WAIT_DECISION);
  check_drop_rule (h, 1);                          /* wait-start-retry-fail */
  h_unhold (h);
  h_hold (h, DISCO_MSG_PAYLOAD, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  check_drop_rule (h, 1);                          /* exchanging */
  h_unhold (h);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_TRAINING);
}

/* a late joiner: syncing states */
static void
walk_late_joiner (Harness *h)
{
  h_hold (h, PROTO_MSG_SYNC_PROVIDER, PROTO_SERVER);
  h_start (h, 3);
  h_settle (h);
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_PROVIDER);
  check_drop_rule (h, 3);
  h_unhold (h);
  h->auto_links = FALSE;
  h_settle (h);
  assert_state (h, 3, DISCO_PEER_SYNC_LINKING);
  check_drop_rule (h, 3);                          /* sync-linking */
  h->auto_links = TRUE;
  h_hold (h, PROTO_MSG_SYNC_MODEL, PROTO_NO_NODE);
  h_settle (h);
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_MODEL);
  check_drop_rule (h, 3);
  ProtoNodeId prov = disco_coord_provider (h->coord);
  ck_assert (proto_machine_listens (h->m[3], PROTO_MSG_SYNC_MODEL, prov));
  ck_assert (!proto_machine_listens (h->m[3], PROTO_MSG_SYNC_MODEL, prov == 1 ? 2 : 1));
  h_unhold (h);
  h_settle (h);
  ck_assert (disco_peer_synced (h->peers[3]));
}

/* finish: done, then left */
static void
walk_to_left (Harness *h)
{
  for (int k = 0; k < 6; k++)
    {
      for (guint i = 1; i <= 3; i++)
        if (h->training[i])
          h_finish_training (h, i);
      h_settle (h);
    }
  assert_state (h, 1, DISCO_PEER_DONE);
  check_drop_rule (h, 1);
  h_leave (h, 1);
  assert_state (h, 1, DISCO_PEER_LEFT);
  check_drop_rule (h, 1);
}

START_TEST (test_drop_rule_every_state)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 2);
  Harness *h = h_new (&c, 3, 4);
  h->auto_train = FALSE;
  walk_to_training (h);
  walk_paused_at_end (h);
  walk_round (h);
  walk_late_joiner (h);
  walk_to_left (h);
  h_free (h);
}
END_TEST

/* ------------------------------------------------- coordinator: controller */

/* Two peers joined and ready: PeersForRound went out, the timer runs. */
static Harness *
two_ready (DiscoVersion v, guint M)
{
  ProtoConfig c = h_cfg (v, 2, 1);
  disco_config_mut (&c)->max_connection_retry = M;
  Harness *h = h_new (&c, 2, 4);
  h_members (h, 2, 2);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, 1), 1);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, 2), 1);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "connect");
  return h;
}

/* The coordinator's phase, deadline and received counts are its base's
 * (proto-machine.h), as every other family's coordinator's are. */
START_TEST (test_coordinator_base)
{
  Harness *h = two_ready (DISCO_VERSION_1110, 3);
  const ProtoMachineBase *b = proto_machine_base (h->m[0]);
  ck_assert_ptr_nonnull (b);
  ck_assert_str_eq (b->state_names[b->state], "connect");
  ck_assert_uint_eq (proto_machine_received_count (h->m[0], PROTO_MSG_HELLO), 2);
  ck_assert_uint_eq (proto_machine_received_count (h->m[0], PROTO_MSG_READY), 2);
  ck_assert_uint_eq (proto_machine_received_count (h->m[0], DISCO_MSG_CONNECTIONS_READY), 0);
  ck_assert (b->deadline != DL_TIME_NEVER);
  ck_assert_uint_eq (proto_machine_next_deadline (h->m[0]), b->deadline);
  for (ProtoNodeId id = 1; id <= 2; id++)
    h_to_coord (h, id, DISCO_MSG_CONNECTIONS_READY);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "collect");
  ck_assert_uint_eq (proto_machine_received_count (h->m[0], DISCO_MSG_CONNECTIONS_READY), 2);
  ck_assert_uint_eq (b->deadline, DL_TIME_NEVER);
  h_free (h);
}
END_TEST

START_TEST (test_controller_one_retry)
{
  /* DISCO: only ws1 sends ConnectionsReady; after T both get exactly one
   * Retry and no Fail. */
  Harness *h = two_ready (DISCO_VERSION_1110, 3);
  h_to_coord (h, 1, DISCO_MSG_CONNECTIONS_READY);
  h_advance (h, T60 - 1);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, PROTO_NO_NODE), 0);
  h_advance (h, 1);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, 1), 1);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, 2), 1);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_CONNECTION_FAIL, PROTO_NO_NODE), 0);
  ck_assert_uint_eq (disco_coord_retry_counter (h->coord), 1);
  h_free (h);
}
END_TEST

/* DISCO: M = 3: three Retry cycles, then at the 4th timeout B gets one Fail,
 * A none, and A has received 4 Retries.  disco-1110-draft: B's Fail comes at
 * the 3rd timeout (S5). */
static void
exclusion_script (DiscoVersion v, guint fail_at)
{
  Harness *h = two_ready (v, 3);
  guint retries_a = 0;
  for (guint timeout = 1; timeout <= fail_at; timeout++)
    {
      h_to_coord (h, 1, DISCO_MSG_CONNECTIONS_READY);
      h_advance (h, T60);
      retries_a += h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, 1);
      guint fails_b = h_queued (h, DISCO_MSG_CONNECTION_FAIL, 2);
      ck_assert_uint_eq (h_queued (h, DISCO_MSG_CONNECTION_FAIL, 1), 0);
      if (timeout < fail_at)
        {
          ck_assert_msg (fails_b == 0, "Fail at timeout %u", timeout);
          ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, 2), 1);
          ck_assert_uint_eq (retries_a, timeout);
          h_drop (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, PROTO_NO_NODE);
          for (ProtoNodeId id = 1; id <= 2; id++)
            h_to_coord (h, id, PROTO_MSG_READY);
          h_drop (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE);
        }
      else
        {
          ck_assert_uint_eq (fails_b, 1);
          ck_assert_uint_eq (h_queued (h, DISCO_MSG_RETRY_PEER_CONNECTIONS, 2), 0);
          ck_assert_uint_eq (retries_a, fail_at);
          ck_assert (!disco_coord_in_round (h->coord, 2));
          ck_assert (disco_coord_in_round (h->coord, 1));
          ck_assert_uint_eq (disco_coord_retry_counter (h->coord), 0);
          ck_assert_uint_eq (h_count_log (h, "excluded node=2"), 1);
        }
    }
  h_free (h);
}

START_TEST (test_controller_exclusion_after_m_retries)
{
  exclusion_script (DISCO_VERSION_1110, 4);
}
END_TEST

START_TEST (test_s05_draft_excludes_at_third_timeout)
{
  exclusion_script (DISCO_VERSION_1110_DRAFT, 3);
}
END_TEST

/* ------------------------------------------------------- collect condition */

START_TEST (test_collect_condition)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
  Harness *h = h_new (&c, 4, 4);
  h_to_coord (h, 1, PROTO_MSG_HELLO);
  h_to_coord (h, 2, PROTO_MSG_HELLO);
  h_to_coord (h, 3, PROTO_MSG_HELLO);
  for (ProtoNodeId id = 1; id <= 3; id++)
    h_to_coord (h, id, DISCO_MSG_JOIN_ROUND);
  h_to_coord (h, 1, PROTO_MSG_READY);
  h_to_coord (h, 2, PROTO_MSG_READY);
  /* 3 joined before the list: it is in the round, the list waits for it */
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 0);
  h_to_coord (h, 3, PROTO_MSG_READY);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 3);
  /* 4 connects and joins after the list: lands in the map of the round in
   * flight (S19), is wiped at Start, so it is in the next round */
  h_to_coord (h, 4, PROTO_MSG_HELLO);
  h_to_coord (h, 4, DISCO_MSG_JOIN_ROUND);
  for (ProtoNodeId id = 1; id <= 3; id++)
    h_to_coord (h, id, DISCO_MSG_CONNECTIONS_READY);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_START_WEIGHT_SHARING, PROTO_NO_NODE), 4);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  ck_assert (!disco_coord_in_round (h->coord, 4));
  h_drop (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE);
  for (ProtoNodeId id = 1; id <= 4; id++)
    {
      h_to_coord (h, id, DISCO_MSG_JOIN_ROUND);
      h_to_coord (h, id, PROTO_MSG_READY);
    }
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 4);
  /* a syncing newcomer (round > 0) does not block the next list */
  for (ProtoNodeId id = 1; id <= 4; id++)
    h_to_coord (h, id, DISCO_MSG_CONNECTIONS_READY);
  h_drop (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE);
  ProtoConfig c5 = c;
  (void) c5;
  h_to_coord (h, 5, PROTO_MSG_HELLO);
  ck_assert (disco_coord_is_syncing (h->coord, 5));
  for (ProtoNodeId id = 1; id <= 4; id++)
    {
      h_to_coord (h, id, DISCO_MSG_JOIN_ROUND);
      h_to_coord (h, id, PROTO_MSG_READY);
    }
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 4);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, 5), 0);
  h_free (h);
}
END_TEST

START_TEST (test_collect_condition_775_over_joined)
{
  /* disco-775: ready == |joined|: a connected peer that has not joined does
   * not block (with disco-1110 it would). */
  for (int v = 0; v < 2; v++)
    {
      ProtoConfig c = h_cfg (v ? DISCO_VERSION_775 : DISCO_VERSION_1110, 2, 1);
      Harness *h = h_new (&c, 3, 4);
      h_members (h, 3, 2);
      ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), v ? 2 : 0);
      if (v)
        ck_assert_uint_eq (disco_coord_round (h->coord), 1);  /* 775: round advances with the list */
      h_free (h);
    }
}
END_TEST

/* ------------------------------------------------------------ stream close */

START_TEST (test_close_in_each_phase)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 1);
  Harness *h = h_new (&c, 3, 4);
  for (ProtoNodeId id = 1; id <= 3; id++)
    {
      h_to_coord (h, id, PROTO_MSG_HELLO);
      h_to_coord (h, id, DISCO_MSG_JOIN_ROUND);
    }
  /* collect: 3 leaves while 1 and 2 are ready -> the list goes out without it */
  h_to_coord (h, 1, PROTO_MSG_READY);
  h_to_coord (h, 2, PROTO_MSG_READY);
  ck_assert_uint_eq (h_queued (h, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 0);
  ProtoInput close = { .kind = PROTO_IN_STREAM_CLOSED, .from = 3 };
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_machine_handle (h->m[0], h->now, &close, &out);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_ROUND_PEERS, PROTO_NO_NODE), 2);
  proto_outbox_reset (&out);
  /* connect: 1 is ready, 2 leaves -> no Start (S18), connections < min ->
   * WaitingForMoreParticipants */
  ProtoInput cr = { .kind = PROTO_IN_MESSAGE, .from = 1 };
  ProtoMsg m;
  proto_msg_init (&m, DISCO_MSG_CONNECTIONS_READY);
  cr.msg = &m;
  proto_machine_handle (h->m[0], h->now, &cr, &out);
  proto_outbox_reset (&out);
  close.from = 2;
  proto_machine_handle (h->m[0], h->now, &close, &out);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, DISCO_MSG_START_WEIGHT_SHARING, PROTO_NO_NODE), 0);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, DISCO_MSG_WAITING_FOR_MORE, 1), 1);
  ck_assert (disco_coord_waiting_for_more (h->coord));
  ck_assert_uint_eq (disco_coord_pending_timers (h->coord), 1);  /* the timer keeps running */
  proto_outbox_reset (&out);
  /* the last one leaves: reset */
  close.from = 1;
  proto_machine_handle (h->m[0], h->now, &close, &out);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_RESET), 1);
  ck_assert_uint_eq (disco_coord_round (h->coord), 0);
  ck_assert_uint_eq (disco_coord_provider (h->coord), PROTO_NO_NODE);
  ck_assert_uint_eq (disco_coord_connections (h->coord), 0);
  ck_assert_uint_eq (disco_coord_pending_timers (h->coord), 0);
  proto_outbox_clear (&out);
  h_free (h);
}
END_TEST

START_TEST (test_unexpected_messages_to_coordinator)
{
  Harness *h = two_ready (DISCO_VERSION_1110, 3);
  guint round = disco_coord_round (h->coord), q = h->queue->len;
  const ProtoMsgType bad[] = { PROTO_MSG_WELCOME, PROTO_MSG_ROUND_PEERS, DISCO_MSG_PAYLOAD,
                               PROTO_MSG_SYNC_MODEL, DISCO_MSG_START_WEIGHT_SHARING };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ProtoMsg m;
      fill_msg (&m, bad[i]);
      ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 1, .msg = &m };
      ProtoOutbox out;
      proto_outbox_init (&out);
      proto_machine_handle (h->m[0], h->now, &in, &out);
      ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_DROPPED), 1);
      /* and sends nothing back (of any type) */
      guint sends = 0;
      for (guint k = 0; k < proto_outbox_len (&out); k++)
        sends += proto_outbox_get (&out, k)->kind == PROTO_ACT_SEND;
      ck_assert_uint_eq (sends, 0);
      proto_outbox_clear (&out);
      proto_msg_clear (&m);
    }
  ck_assert_uint_eq (disco_coord_round (h->coord), round);
  ck_assert_uint_eq (h->queue->len, q);
  ck_assert_str_eq (proto_machine_state_name (h->m[0]), "connect");
  /* a signal to an unknown peer is silently dropped (S26) */
  ProtoMsg s;
  fill_msg (&s, PROTO_MSG_SIGNAL);
  s.node = 42;
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 1, .msg = &s };
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_machine_handle (h->m[0], h->now, &in, &out);
  ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_SIGNAL, PROTO_NO_NODE), 0);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_REJECTED), 1);
  proto_outbox_clear (&out);
  h_free (h);
}
END_TEST

/* ------------------------------------------------------------- aggregation */

/* Runs n peers for `rounds` rounds with no faults and checks that after the
 * last round every peer holds the same weights, equal to the expected mean. */
static void
consensus (DiscoAggregation agg, guint n, guint rounds)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, n, rounds);
  disco_config_mut (&c)->aggregation = agg;
  const gsize len = 6;
  Harness *h = h_new (&c, n, len);
  for (guint i = 1; i <= n; i++)
    h_start (h, i);
  h_settle (h);
  /* expected: each round adds mean(i) * (k + 1) to every peer's weights */
  double mean_id = (n + 1) / 2.0;
  for (guint i = 1; i <= n; i++)
    {
      assert_state (h, i, DISCO_PEER_DONE);
      ck_assert_uint_eq (proto_machine_rounds_done (h->m[i]), rounds);
      LearnWeights *w = proto_machine_model (h->m[i]);
      ck_assert (learn_weights_equal (w, proto_machine_model (h->m[1])));  /* bit-identical */
      for (gsize k = 0; k < len; k++)
        {
          double want = rounds * mean_id * (double) (k + 1);
          double tol = agg == DISCO_AGG_SECURE ? 1e-3 : 1e-5;
          ck_assert_msg (fabs (learn_weights_data (w)[k] - want) <= tol * MAX (1.0, want),
                         "peer %u weight %zu = %g, want %g", i, k, learn_weights_data (w)[k], want);
        }
    }
  ck_assert_uint_eq (disco_coord_round (h->coord), rounds);
  h_free (h);
}

START_TEST (test_consensus_mean_3) { consensus (DISCO_AGG_MEAN, 3, 1); consensus (DISCO_AGG_MEAN, 3, 3); }
END_TEST
START_TEST (test_consensus_secure_3) { consensus (DISCO_AGG_SECURE, 3, 1); consensus (DISCO_AGG_SECURE, 3, 3); }
END_TEST
START_TEST (test_consensus_10) { consensus (DISCO_AGG_MEAN, 10, 3); consensus (DISCO_AGG_SECURE, 10, 3); }
END_TEST

START_TEST (test_secure_shares_hide_inputs)
{
  /* With secure aggregation no Payload of communication round 0 carries a
   * peer's own weights. */
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 3, 1);
  disco_config_mut (&c)->aggregation = DISCO_AGG_SECURE;
  Harness *h = h_new (&c, 3, 4);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h->auto_train = FALSE;
  h_settle (h);
  for (guint i = 1; i <= 3; i++)
    h_finish_training (h, i);
  h_hold (h, DISCO_MSG_PAYLOAD, PROTO_NO_NODE);
  h_settle (h);
  guint seen = 0;
  for (guint k = 0; k < h->queue->len; k++)
    {
      HMsg *m = &g_array_index (h->queue, HMsg, k);
      if (m->msg.type != DISCO_MSG_PAYLOAD)
        continue;
      seen++;
      ck_assert (!learn_weights_equal (m->msg.weights, proto_machine_model (h->m[m->from])));
      ck_assert_uint_eq (m->msg.comm_round, 0);
    }
  ck_assert_uint_eq (seen, 6);
  h_unhold (h);
  h_settle (h);
  for (guint i = 1; i <= 3; i++)
    assert_state (h, i, DISCO_PEER_DONE);
  h_free (h);
}
END_TEST

/* ------------------------------------------------------- payload checks */

/* Two peers (min 2) with p1 exchanging round 0 and p2's Payload held. */
static Harness *
exchanging_pair (void)
{
  ProtoConfig c = h_cfg (DISCO_VERSION_1110, 2, 2);
  Harness *h = h_pair_training (&c, 3);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_hold (h, DISCO_MSG_PAYLOAD, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_EXCHANGING);
  return h;
}

START_TEST (test_payload_validation)
{
  /* A Payload of the wrong size, of an older round, or from a non-member is
   * rejected, and like any reception it uses up the receive loop's one wait
   * (mean: one communication round), so a correct Payload after it is dropped.
   * A future round passes validation (S27). */
  for (int variant = 0; variant < 4; variant++)
    {
      Harness *h = exchanging_pair ();
      g_autoptr (LearnWeights) w = learn_weights_new (variant == 0 ? 5 : 4);
      ProtoMsg m;
      proto_msg_init (&m, DISCO_MSG_PAYLOAD);
      m.node = 1;
      m.round = variant == 3 ? 7 : 0;
      proto_msg_set_weights (&m, w);
      ProtoNodeId from = variant == 2 ? 3 : 2;
      if (variant == 1)
        {
          /* an older round: raise p1's round first with a later list */
          m.round = 0;
          h_to_peer (h, 1, from, &m);   /* valid: completes round 0 */
          ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
          proto_msg_clear (&m);
          h_free (h);
          continue;
        }
      guint rej = h_count_log (h, "p1 rejected Payload");
      guint drop = h_count_log (h, "p1 dropped Payload");
      h_to_peer (h, 1, from, &m);
      if (variant == 3)
        ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);   /* future round accepted */
      else if (variant == 0)
        {
          ck_assert_uint_eq (h_count_log (h, "p1 rejected Payload"), rej + 1);
          assert_state (h, 1, DISCO_PEER_EXCHANGING);
          h_unhold (h);
          h_settle (h);   /* the real Payload comes after the loop is used up */
          ck_assert_uint_eq (h_count_log (h, "p1 dropped Payload"), drop + 1);
          assert_state (h, 1, DISCO_PEER_EXCHANGING);
        }
      else
        {
          /* from p3: no link, no loop: dropped by the drop rule */
          ck_assert_uint_eq (h_count_log (h, "p1 dropped Payload"), drop + 1);
          assert_state (h, 1, DISCO_PEER_EXCHANGING);
        }
      proto_msg_clear (&m);
      h_free (h);
    }
}
END_TEST

/* DISCO's versions as named fixes: each version's set, as proto-config.h's
 * table says, and the machines' fields follow the bitset. */
START_TEST (test_version_fixes)
{
  static const struct {
    const char *version;
    const char *fixes;
  } want[] = {
    { "disco-1110", "connect_barrier model_sync pause_before_training reset_when_empty participant_counts" },
    { "disco-1110-draft", "connect_barrier exclude_when_retry_ge provider_first_entry model_sync "
                          "pause_before_training timer_fixed_60s reset_when_empty participant_counts" },
    { "disco-775", "collect_over_joined" },
    { "disco-pre775", "collect_over_joined ready_at_round_start list_first_min" },
    { "robust", "connect_barrier model_sync pause_before_training reset_when_empty participant_counts "
                "robust_retry_per_round robust_single_timer robust_members_only robust_close_restarts "
                "straggler_timeout robust_count_synced robust_checkpoint robust_listen robust_links "
                "robust_exchange_deadline robust_sync_retry robust_serve_after_round robust_exact_round "
                "robust_single_add robust_wait_timeout" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      DiscoVersion v;
      ck_assert (disco_version_from_name (want[i].version, &v, NULL));
      ck_assert_str_eq (disco_version_name (v), want[i].version);
      ProtoConfig c;
      disco_config_init (&c, v);
      g_auto (GStrv) names = g_strsplit (want[i].fixes, " ", -1);
      for (guint f = 0; f < DISCO_FIX_N; f++)
        ck_assert_msg (disco_has (&c, f) == g_strv_contains ((const char *const *) names, disco_fix_name (f)),
                       "%s: %s", want[i].version, disco_fix_name (f));
      ck_assert_int_eq (disco_config (&c)->connect_barrier, disco_has (&c, DISCO_FIX_CONNECT_BARRIER));
      ck_assert_int_eq (disco_config (&c)->timer_fixed_60s, disco_has (&c, DISCO_FIX_TIMER_FIXED_60S));
      ck_assert_int_eq (disco_config (&c)->robust_wait_timeout, disco_has (&c, DISCO_FIX_ROBUST_WAIT_TIMEOUT));
      ck_assert_int_eq (disco_config (&c)->list_first_min, disco_has (&c, DISCO_FIX_LIST_FIRST_MIN));
      ck_assert_int_eq (disco_config (&c)->straggler_timeout, v == DISCO_VERSION_ROBUST ? 60 * DL_S : DL_TIME_NEVER);
      /* a version set later replaces the first one's fixes */
      disco_set_version (&c, DISCO_VERSION_775);
      ck_assert (!disco_config (&c)->connect_barrier && disco_config (&c)->collect_over_joined && !disco_config (&c)->robust_listen);
      ck_assert_int_eq (disco_config (&c)->straggler_timeout, DL_TIME_NEVER);
    }
  g_autoptr (GError) e = NULL;
  DiscoVersion v;
  ck_assert (!disco_version_from_name ("disco-9", &v, &e));
  ck_assert_str_eq (e->message, "unknown protocol version 'disco-9' (expected disco-1110, disco-1110-draft, "
                    "disco-775, disco-pre775 or robust)");
}
END_TEST

/* dlsim bench scale and bench record run DISCO, the default family: its
 * version and aggregation come from the key settings the bench gives its
 * configure (bench/bench-run.c), as a scenario's [protocol] would. */
START_TEST (test_bench_configures_disco)
{
  g_autoptr (GError) error = NULL;
  BenchScaleParams p = { .peers = 100, .rounds = 3, .model_size = 100000, .seed = 1 };
  SimWorldConfig cfg;
  ck_assert (bench_scale_config (&p, &cfg, &error));
  ck_assert_int_eq (disco_config (&cfg.proto)->version, DISCO_VERSION_DEFAULT);
  ck_assert_str_eq (bench_version_name (p.version), "disco-1110");
  ck_assert_int_eq (disco_config (&cfg.proto)->aggregation, DISCO_AGG_MEAN);
  sim_world_config_clear (&cfg);

  p = (BenchScaleParams) { .version = "disco-pre775", .peers = 50, .min_participants = 5, .rounds = 2,
                           .model_size = 10, .seed = 9, .secure = TRUE, .fifo = TRUE };
  ck_assert (bench_scale_config (&p, &cfg, &error));
  ck_assert_int_eq (disco_config (&cfg.proto)->version, DISCO_VERSION_PRE775);
  ck_assert_str_eq (bench_version_name (p.version), "disco-pre775");
  ck_assert_uint_eq (cfg.proto.min_participants, 5);
  ck_assert_int_eq (disco_config (&cfg.proto)->aggregation, DISCO_AGG_SECURE);
  sim_world_config_clear (&cfg);

  p.version = "disco-9";
  ck_assert (!bench_scale_config (&p, &cfg, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_ptr_nonnull (strstr (error->message, "disco-9"));
  sim_world_config_clear (&cfg);
  g_clear_error (&error);

  ck_assert (bench_record_config (&cfg, 3, 20, 4, 1000, &error));
  ck_assert_int_eq (disco_config (&cfg.proto)->aggregation, DISCO_AGG_MEAN);
  ck_assert_str_eq (bench_version_name (NULL), "disco-1110");
  sim_world_config_clear (&cfg);
}
END_TEST

static Suite *
protocol_suite (void)
{
  Suite *s = suite_create ("protocol");
  TCase *tc;
  tc = tcase_create ("coordinator");
  tcase_add_test (tc, test_controller_one_retry);
  tcase_add_test (tc, test_coordinator_base);
  tcase_add_test (tc, test_links_up_any_order);
  tcase_add_test (tc, test_version_fixes);
  tcase_add_test (tc, test_bench_configures_disco);
  tcase_add_test (tc, test_controller_exclusion_after_m_retries);
  tcase_add_test (tc, test_s05_draft_excludes_at_third_timeout);
  tcase_add_test (tc, test_collect_condition);
  tcase_add_test (tc, test_collect_condition_775_over_joined);
  tcase_add_test (tc, test_close_in_each_phase);
  tcase_add_test (tc, test_unexpected_messages_to_coordinator);
  suite_add_tcase (s, tc);

  tc = tcase_create ("peers");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_drop_rule_every_state);
  tcase_add_test (tc, test_consensus_mean_3);
  tcase_add_test (tc, test_consensus_secure_3);
  tcase_add_test (tc, test_consensus_10);
  tcase_add_test (tc, test_secure_shares_hide_inputs);
  tcase_add_test (tc, test_payload_validation);
  suite_add_tcase (s, tc);

  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (protocol_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
