/* test-disco-machine.c — DISCO behind the machine interface
 * (protocol/proto-machine.h): the registry's disco family and its hooks,
 * its machines doing exactly what the bare machines do, its state names
 * filled from its function, and robust's waits saturating at
 * DL_TIME_NEVER, its coordinator relaying a signal's data and its
 * types' roles (moved from tests/test-machine.c, tests/test-frame.c and
 * tests/test-message.c, which keep what every
 * family shares); the peer's pool record of a link, and its receive loops
 * past the one it holds in place; the pool's table by id and the records
 * kept apart past it. */
#include "config.h"

#include "learn/learn-weights.h"
#include "protocol/disco/disco-coord.h"
#include "protocol/disco/disco-peer.h"
#include "protocol/proto-machine.h"
#include "protocol/disco/disco-msgs.h"
#include "protocol/disco/disco-peer-private.h"

#include <check.h>
#include <string.h>

/* An outbox as text: what the host layer would carry out. */
static char *
outbox_text (const ProtoOutbox *out)
{
  GString *g = g_string_new (NULL);
  for (guint i = 0; i < proto_outbox_len (out); i++)
    {
      const ProtoAction *a = proto_outbox_get (out, i);
      g_string_append_printf (g, "%d to=%u via=%d", (int) a->kind, a->to, (int) a->via);
      if (a->kind == PROTO_ACT_SEND)
        g_string_append_printf (g, " %s", proto_msg_type_name (a->msg.type));
      if (a->kind == PROTO_ACT_SET_DEADLINE)
        g_string_append_printf (g, " at=%" G_GINT64_FORMAT, a->deadline);
      if (a->kind == PROTO_ACT_OBSERVE)
        {
          g_autofree char *o = proto_observation_to_string (&a->obs);
          g_string_append_printf (g, " %s", o);
        }
      g_string_append_c (g, '\n');
    }
  return g_string_free (g, FALSE);
}

START_TEST (test_family_lookup)
{
  const ProtoFamily *f = proto_family_lookup ("disco");
  ck_assert_ptr_nonnull (f);
  ck_assert_str_eq (f->name, "disco");
  ck_assert_ptr_null (proto_family_lookup ("gossip-not-yet"));
  ProtoConfig cfg;
  disco_config_init (&cfg, DISCO_VERSION_775);
  ck_assert_ptr_eq (proto_family_of (&cfg), f);
  ck_assert_uint_eq (f->n_peer_states, DISCO_PEER_N_STATES);
  ck_assert_str_eq (f->peer_state_name_at (DISCO_PEER_WAIT_PEERS), disco_peer_state_name (DISCO_PEER_WAIT_PEERS));
  /* the round begins at StartWeightSharing behind the barrier, at the list without it */
  ck_assert_int_eq (f->round_begins_with (&cfg), PROTO_OBS_ROUND_LIST);
  guint m = 99;
  ck_assert (!f->excludes_after_retries (&cfg, &m));
  disco_config_init (&cfg, DISCO_VERSION_1110);
  ck_assert_int_eq (f->round_begins_with (&cfg), PROTO_OBS_ROUND_START);
  ck_assert (f->excludes_after_retries (&cfg, &m));
  ck_assert_uint_eq (m, disco_config (&cfg)->max_connection_retry);
  /* DISCO promises agreement (gossip's own test says gossip does not) */
  ck_assert (f->promises_agreement (&cfg));
}
END_TEST

/* A peer and a coordinator the family makes do exactly what the machines
 * made by their own constructors do, input for input, and the views and
 * the base's defaults say what the machines' own names say. */
START_TEST (test_machine_interface_is_the_machine)
{
  ProtoConfig cfg;
  disco_config_init (&cfg, DISCO_VERSION_1110);
  const ProtoFamily *f = proto_family_of (&cfg);
  g_autoptr (LearnWeights) w0 = learn_weights_new (4);
  g_autoptr (DlRandom) r1 = dl_random_new (1, "shares", 1);
  g_autoptr (DlRandom) r2 = dl_random_new (1, "shares", 1);
  ProtoMachine *bare = disco_peer_new (&cfg, w0, r1);
  ProtoPeerEnv env = { .initial = w0, .rng = r2, .region = "", .speed = 1 };
  ProtoMachine *m = f->new_peer (&cfg, &env);
  ProtoMachine *bare_c = disco_coord_new (&cfg);
  ProtoMachine *mc = f->new_coordinator (&cfg);
  ProtoOutbox a, b;
  proto_outbox_init (&a);
  proto_outbox_init (&b);

  ProtoPeerView v;
  proto_machine_view (m, &v);
  ck_assert (!v.connected && !v.settled && !v.failed && !v.waiting_on_peer);
  ck_assert_uint_eq (v.rounds_done, 0);
  ck_assert_str_eq (v.error, "");
  ck_assert_str_eq (proto_machine_state_name (m), disco_peer_state_name (proto_machine_state (bare)));

  ProtoInput start = { .kind = PROTO_IN_START };
  proto_machine_handle (bare, 0, &start, &a);
  proto_machine_handle (m, 0, &start, &b);
  g_autofree char *ta = outbox_text (&a), *tb = outbox_text (&b);
  ck_assert_str_eq (ta, tb);
  ck_assert_uint_gt (proto_outbox_len (&b), 0);
  ck_assert_int_eq (proto_machine_next_deadline (m), proto_machine_next_deadline (bare));
  proto_machine_view (m, &v);
  ck_assert_int_eq (v.connected, proto_machine_connected (bare));
  ck_assert (v.connected);
  ck_assert_str_eq (proto_machine_state_name (m), "connecting");
  ck_assert_int_eq (proto_machine_state (m), DISCO_PEER_CONNECTING);
  for (int t = 0; t < PROTO_MSG_N_TYPES; t++)
    ck_assert_int_eq (proto_machine_listens (m, (ProtoMsgType) t, PROTO_SERVER),
                      proto_machine_listens (bare, (ProtoMsgType) t, PROTO_SERVER));
  ck_assert_ptr_nonnull (proto_machine_model (m));
  ck_assert_ptr_nonnull (proto_machine_model (bare));

  /* the coordinator: a ClientConnected from p1 */
  proto_outbox_reset (&a);
  proto_outbox_reset (&b);
  ProtoMsg msg;
  proto_msg_init (&msg, PROTO_MSG_HELLO);
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 1, .via = PROTO_VIA_SERVER, .msg = &msg };
  proto_machine_handle (bare_c, 5, &in, &a);
  proto_machine_handle (mc, 5, &in, &b);
  g_autofree char *ca = outbox_text (&a), *cb = outbox_text (&b);
  ck_assert_str_eq (ca, cb);
  ck_assert_str_eq (proto_machine_state_name (mc), proto_machine_state_name (bare_c));
  ck_assert_int_eq (proto_machine_next_deadline (mc), proto_machine_next_deadline (bare_c));
  ck_assert_ptr_null (proto_machine_model (mc));
  proto_machine_view (mc, &v);
  ck_assert (!v.connected && v.rounds_done == 0);

  proto_msg_clear (&msg);
  proto_outbox_clear (&a);
  proto_outbox_clear (&b);
  proto_machine_free (bare);
  proto_machine_free (bare_c);
  proto_machine_free (m);
  proto_machine_free (mc);
}
END_TEST

/* robust's wait of 2 x peer_connection_timeout saturates (the shared
 * part of this case, every family's stall window: tests/test-machine.c) */
START_TEST (test_robust_waits_saturate)
{
  const ProtoFamily *f = proto_family_lookup ("disco");
  ProtoConfig c;
  proto_config_init (&c, f->name);
  c.peer_connection_timeout = 1281024 * DL_H;
  c.model_sync_timeout = c.payload_timeout = DL_TIME_NEVER / 2;
  /* the family's own part (family_config) means the running family's struct alone */
  disco_set_version (&c, DISCO_VERSION_ROBUST);
  disco_config_mut (&c)->max_connection_retry = G_MAXUINT32;
  ck_assert (disco_config (&c)->robust_wait_timeout);
  ck_assert_int_eq (disco_wait_timeout (&c), DL_TIME_NEVER);
  ck_assert_int_eq (f->stall_window (&c), DL_TIME_NEVER);
}
END_TEST

/* the registry fills DISCO's state names from its function */
START_TEST (test_disco_state_names)
{
  const ProtoFamily *disco = proto_family_lookup ("disco");
  ck_assert_uint_eq (disco->n_peer_states, DISCO_PEER_N_STATES);
  for (guint i = 0; i < disco->n_peer_states; i++)
    ck_assert_str_eq (disco->peer_state_names[i], disco_peer_state_name ((DiscoPeerState) i));
  ck_assert_ptr_null (disco->peer_state_names[DISCO_PEER_N_STATES]);
}
END_TEST

/* DISCO's barrier and exclusion types answer their roles, its Payload
 * none; with its types every role is some type's (moved from
 * tests/test-message.c, which keeps the session's roles and the rules) */
START_TEST (test_disco_roles)
{
  ck_assert_int_eq (proto_msg_type_role (DISCO_MSG_RETRY_PEER_CONNECTIONS), PROTO_MSG_ROLE_BARRIER_RETRY);
  ck_assert_int_eq (proto_msg_type_role (DISCO_MSG_CONNECTION_FAIL), PROTO_MSG_ROLE_CONNECTION_FAIL);
  ck_assert_int_eq (proto_msg_type_role (DISCO_MSG_PAYLOAD), PROTO_MSG_ROLE_NONE);
  guint per_role[PROTO_MSG_N_ROLES] = { 0 };
  for (guint i = 0; i < proto_msg_n_types (); i++)
    per_role[proto_msg_type_role (proto_msg_type_at (i))]++;
  for (guint k = PROTO_MSG_ROLE_NONE + 1; k < PROTO_MSG_N_ROLES; k++)
    ck_assert_uint_eq (per_role[k], 1);   /* today one type each */
}
END_TEST

/* DISCO's coordinator relays SignalForPeer's data verbatim (the testbed's
 * link address; moved from tests/test-frame.c, which keeps the wire form
 * and the session layer's relay) */
START_TEST (test_coord_relays_signal_data)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SIGNAL);
  m.node = 2;
  m.signal_data = g_strdup ("127.0.0.1:40001");
  ProtoConfig c;
  disco_config_init (&c, DISCO_VERSION_1110);
  g_autoptr (ProtoMachine) co = disco_coord_new (&c);
  ProtoOutbox out;
  proto_outbox_init (&out);
  ProtoMsg cc;
  proto_msg_init (&cc, PROTO_MSG_HELLO);
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 1, .msg = &cc };
  proto_machine_handle (co, 0, &in, &out);
  in.from = 2;
  proto_machine_handle (co, 0, &in, &out);
  proto_outbox_reset (&out);
  in.from = 1;
  in.msg = &m;
  proto_machine_handle (co, 0, &in, &out);
  guint relayed = 0;
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    {
      ProtoAction *a = proto_outbox_get (&out, i);
      if (a->kind == PROTO_ACT_SEND && a->msg.type == PROTO_MSG_SIGNAL)
        {
          relayed++;
          ck_assert_uint_eq (a->to, 2);
          ck_assert_uint_eq (a->msg.node, 1);
          ck_assert_str_eq (a->msg.signal_data, "127.0.0.1:40001");
        }
    }
  ck_assert_uint_eq (relayed, 1);
  proto_outbox_clear (&out);
  proto_msg_clear (&m);
}
END_TEST

/* A bare peer machine of `version`, its id 5, for the pool's tests. */
static ProtoMachine *
peer_five (DiscoVersion version)
{
  ProtoConfig cfg;
  disco_config_init (&cfg, version);
  g_autoptr (LearnWeights) w0 = learn_weights_new (4);
  ProtoMachine *m = disco_peer_new (&cfg, w0, NULL);
  ((DiscoPeer *) m->impl)->id = 5;
  return m;
}

/* The pool's record of a link is 32 bytes (a million of them at 1 000
 * peers all-to-all: issue 44), and the receive loops it holds past the
 * one in the record move to the heap whole, in order: five getPeers on
 * the same two peers, no Payload, make five loops on each link, each
 * with its own deadline and all its receptions; a Payload takes one
 * reception from each. */
START_TEST (test_pool_link_record)
{
  ck_assert_uint_eq (sizeof (Link), 32);
  ProtoMachine *m = peer_five (DISCO_VERSION_1110);
  DiscoPeer *p = m->impl;
  ProtoOutbox out;
  proto_outbox_init (&out);
  const ProtoNodeId ids[] = { 3, 7 };
  guint comm = disco_aggregator_n_comm_rounds (p->agg);
  ck_assert_uint_gt (comm, 0);
  for (guint k = 0; k < 5; k++)
    _disco_peer_get_peers (p, (DlTime) k * DL_S, &out, ids, 2, TRUE);
  ck_assert_uint_eq (disco_peer_pool_size (p), 2);
  for (guint i = 0; i < 2; i++)
    {
      Link *l = _disco_peer_find_link (p, ids[i]);
      ck_assert_ptr_nonnull (l);
      ck_assert_uint_eq (l->peer, ids[i]);
      ck_assert_int_eq (l->initiator, ids[i] < p->id);
      ck_assert_int_eq (l->state, ids[i] < p->id ? DISCO_LINK_WAIT_ANSWER : DISCO_LINK_WAIT_OFFER);
      ck_assert_uint_eq (l->n_loops, 5);
      ck_assert_uint_eq (l->active, 5);
      const RecvLoop *rl = _disco_peer_link_loops (l);
      for (guint k = 0; k < 5; k++)
        {
          ck_assert_uint_eq (rl[k].remaining, comm);
          ck_assert_int_eq (rl[k].deadline, dl_time_add ((DlTime) k * DL_S, p->cfg.payload_timeout));
        }
    }
  Link *l = _disco_peer_find_link (p, 3);
  _disco_peer_loops_received (p, l, 10 * DL_S);
  const RecvLoop *rl = _disco_peer_link_loops (l);
  for (guint k = 0; k < 5; k++)
    ck_assert_uint_eq (rl[k].remaining, comm - 1);
  ck_assert_uint_eq (l->active, comm > 1 ? 5 : 0);
  proto_outbox_clear (&out);
  proto_machine_free (m);
}
END_TEST

/* The pool's ids in order, as text ("3 7 100"): pool_at's order, each
 * found by its id with the same record. */
static char *
pool_text (const DiscoPeer *p)
{
  GString *g = g_string_new (NULL);
  for (guint i = 0; i < disco_peer_pool_size (p); i++)
    {
      Link *l = _disco_peer_pool_at (p, i);
      ck_assert_ptr_eq (_disco_peer_find_link (p, l->peer), l);
      g_string_append_printf (g, "%s%u", i ? " " : "", l->peer);
    }
  return g_string_free (g, FALSE);
}

/* The pool keeps a link's record at its id in a table, and those of ids
 * past the table's bound apart: both are found, in creation order, with
 * their state through the table's growth, a drop from either and a
 * shutdown.  (A lookup that read only the table, an order that followed
 * the ids, or a record lost as the table moves fails here.) */
START_TEST (test_pool_table_and_far)
{
  ProtoMachine *m = peer_five (DISCO_VERSION_ROBUST);
  DiscoPeer *p = m->impl;
  ProtoOutbox out;
  proto_outbox_init (&out);
  const ProtoNodeId first[] = { 7, 3 };
  _disco_peer_get_peers (p, 0, &out, first, 2, TRUE);
  _disco_peer_get_peer_aside (p, &out, 100);     /* past the table: apart */
  _disco_peer_get_peer_aside (p, &out, 100000);
  ck_assert_uint_le (p->pool_span, 100);
  g_autofree char *t1 = pool_text (p);
  ck_assert_str_eq (t1, "7 3 100 100000");
  ck_assert_uint_eq (p->far_len, 2);
  _disco_peer_find_link (p, 3)->state = DISCO_LINK_UP;
  _disco_peer_find_link (p, 100)->state = DISCO_LINK_UP;
  ck_assert_ptr_null (_disco_peer_find_link (p, 4));
  ck_assert_ptr_null (_disco_peer_find_link (p, 99));
  /* a list of 60 more: the table grows past 100, whose record stays apart */
  ProtoNodeId more[60];
  for (guint i = 0; i < 60; i++)
    more[i] = 160 - i;
  _disco_peer_get_peers (p, DL_S, &out, more, 60, TRUE);
  ck_assert_uint_gt (p->pool_span, 100);
  ck_assert_uint_eq (disco_peer_pool_size (p), 4 + 60);
  ck_assert_int_eq (disco_peer_link_state (p, 3), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 100), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 7), DISCO_LINK_WAIT_OFFER);
  ck_assert_uint_eq (_disco_peer_find_link (p, 7)->n_loops, 2);   /* both lists' */
  ck_assert_uint_eq (_disco_peer_find_link (p, 100)->n_loops, 1);
  ck_assert_uint_eq (_disco_peer_find_link (p, 160)->n_loops, 1);
  /* drops: from the table (7) and from apart (100): the others keep
   * their order and records */
  _disco_peer_drop_link (p, &out, 7);
  _disco_peer_drop_link (p, &out, 100);
  ck_assert_ptr_null (_disco_peer_find_link (p, 7));
  ck_assert_ptr_null (_disco_peer_find_link (p, 100));
  g_autofree char *t2 = pool_text (p);
  ck_assert (g_str_has_prefix (t2, "3 100000 160 159 "));
  ck_assert (g_str_has_suffix (t2, " 102 101"));
  ck_assert_uint_eq (disco_peer_pool_size (p), 62);
  ck_assert_int_eq (disco_peer_link_state (p, 3), DISCO_LINK_UP);
  ck_assert_int_eq (disco_peer_link_state (p, 100000), DISCO_LINK_WAIT_OFFER);
  /* shutdown: an empty pool, which takes links again */
  _disco_peer_shutdown_pool (p, &out);
  ck_assert_uint_eq (disco_peer_pool_size (p), 0);
  ck_assert_ptr_null (_disco_peer_find_link (p, 3));
  ck_assert_ptr_null (_disco_peer_find_link (p, 100000));
  _disco_peer_get_peers (p, 2 * DL_S, &out, first, 2, FALSE);
  g_autofree char *t3 = pool_text (p);
  ck_assert_str_eq (t3, "7 3");
  ck_assert_uint_eq (_disco_peer_find_link (p, 3)->n_loops, 0);
  proto_outbox_clear (&out);
  proto_machine_free (m);
}
END_TEST

/* The machine interface's hint (ProtoMachineClass.prefetch, which the
 * world calls for the deliveries ahead of the one it feeds): DISCO's peer
 * has one, and at every stage, for a Payload, a signal, other types and
 * ids in the pool's table, apart from it, past it or none, it changes
 * nothing of the peer, its pool or its aggregator's view.  What this
 * can catch: a write, and (under the CI's AddressSanitizer) a real load
 * of memory that is not the peer's, e.g. of the aggregator's records
 * for an id out of range.  It cannot catch a prefetch hint of a wrong
 * address (no sanitizer checks __builtin_prefetch): with the pool_span
 * check of disco-peer-pool.c's _disco_peer_prefetch taken out, it still
 * passes. */
START_TEST (test_prefetch_changes_nothing)
{
  ProtoMachine *m = peer_five (DISCO_VERSION_ROBUST);
  DiscoPeer *p = m->impl;
  ck_assert_ptr_nonnull (m->klass->prefetch);
  ProtoOutbox out;
  proto_outbox_init (&out);
  const ProtoNodeId first[] = { 7, 3 };
  _disco_peer_get_peers (p, 0, &out, first, 2, TRUE);
  _disco_peer_get_peer_aside (p, &out, 100000);
  ck_assert_uint_gt (p->pool_span, 0);   /* (memcmp below on a table, not NULL) */
  g_autofree DiscoPeer *before = g_memdup2 (p, sizeof *p);
  g_autofree Link *pool_before = g_memdup2 (p->pool, p->pool_span * sizeof *p->pool);
  g_autofree char *text_before = pool_text (p);
  guint agg_nodes = disco_aggregator_n_nodes (p->agg);
  const ProtoMsgType types[] = { DISCO_MSG_PAYLOAD, PROTO_MSG_SIGNAL, PROTO_MSG_WELCOME, PROTO_MSG_N_TYPES - 1 };
  const ProtoNodeId ids[] = { 3, 7, 4, 100000, p->pool_span, PROTO_NO_NODE, PROTO_SERVER };
  for (guint stage = 0; stage < PROTO_MACHINE_PREFETCH_STAGES; stage++)
    for (guint t = 0; t < G_N_ELEMENTS (types); t++)
      for (guint a = 0; a < G_N_ELEMENTS (ids); a++)
        for (guint b = 0; b < G_N_ELEMENTS (ids); b++)
          proto_machine_prefetch (m, types[t], ids[a], ids[b], stage);
  ck_assert (memcmp (before, p, sizeof *p) == 0);
  ck_assert (memcmp (pool_before, p->pool, p->pool_span * sizeof *p->pool) == 0);
  g_autofree char *text_after = pool_text (p);
  ck_assert_str_eq (text_after, text_before);
  ck_assert_uint_eq (disco_aggregator_n_nodes (p->agg), agg_nodes);
  proto_outbox_clear (&out);
  proto_machine_free (m);
}
END_TEST

static Suite *
machine_suite (void)
{
  Suite *s = suite_create ("disco-machine");
  TCase *tc = tcase_create ("interface");
  tcase_add_test (tc, test_family_lookup);
  tcase_add_test (tc, test_machine_interface_is_the_machine);
  tcase_add_test (tc, test_robust_waits_saturate);
  tcase_add_test (tc, test_disco_state_names);
  tcase_add_test (tc, test_coord_relays_signal_data);
  tcase_add_test (tc, test_disco_roles);
  tcase_add_test (tc, test_pool_link_record);
  tcase_add_test (tc, test_pool_table_and_far);
  tcase_add_test (tc, test_prefetch_changes_nothing);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (machine_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
