/* test-machine.c — the machine interface (protocol/proto-machine.h): the
 * family registry, and DISCO's machines behind the interface doing exactly
 * what the bare machines do; every family's waits saturate at
 * DL_TIME_NEVER. */
#include "config.h"

#include "learn/learn-weights.h"
#include "protocol/disco/disco-coord.h"
#include "protocol/disco/disco-peer.h"
#include "protocol/proto-machine.h"
#include "protocol/disco/disco-msgs.h"

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

/* A timeout waited several times saturates at DL_TIME_NEVER: robust's
 * wait of 2 x peer_connection_timeout (1281024h livelocked a run: the
 * product wrapped into the past) and DISCO's stall window, for any
 * ProtoConfig, not only the scenario's bounded ones.  Every registered
 * family's stall window, with the common waits at their largest, stays
 * in the future; each family's own test saturates it with its own
 * knobs at their largest (test-gossip.c, test-hier.c, ...). */
/* ---- the shared scaffolding (proto-machine.h): a toy machine that
 * names only handle, listens and free ---- */

typedef struct {
  ProtoMachineBase base;
  guint handled;
} Toy;

static const char *const toy_states[] = { "idle", "busy", "done", "failed", NULL };

static void
toy_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  Toy *t = impl;
  (void) in;
  t->handled++;
  proto_machine_base_enter (&t->base, out, 1, now + 5);
}

static gboolean
toy_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  (void) impl, (void) from;
  return type == PROTO_MSG_HELLO;
}

static void
toy_free (void *impl)
{
  Toy *t = impl;
  g_clear_pointer (&t->base.model, learn_weights_unref);
  g_free (t);
}

static const ProtoMachineClass toy_class = {
  .handle = toy_handle, .listens = toy_listens, .free = toy_free, .observes_messages = TRUE,
};

static ProtoMachine *
toy_new (Toy **out_toy)
{
  Toy *t = g_new0 (Toy, 1);
  proto_machine_base_init (&t->base, toy_states, 0);
  t->base.round = 3;
  t->base.settled_states = PROTO_STATE_BIT (2) | PROTO_STATE_BIT (3);
  t->base.failed_states = PROTO_STATE_BIT (3);
  t->base.model = learn_weights_new (2);
  *out_toy = t;
  return proto_machine_new (&toy_class, &t->base);
}

/* What a family need not write: the books of a message it takes or
 * drops, a send with its SENT, a state change with its PHASE and
 * deadline, a peer's view and model from its base, and its states'
 * count from their names. */
START_TEST (test_shared_scaffolding)
{
  Toy *t;
  g_autoptr (ProtoMachine) m = toy_new (&t);
  ProtoOutbox out;
  proto_outbox_init (&out);
  ProtoMsg hello, other;
  proto_msg_init (&hello, PROTO_MSG_HELLO);
  proto_msg_init (&other, PROTO_MSG_READY);
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 4, .msg = &other };
  proto_machine_handle (m, 10, &in, &out);   /* not listened for: dropped, not handled */
  ck_assert_uint_eq (t->handled, 0);
  ck_assert_uint_eq (proto_machine_received_count (m, PROTO_MSG_READY), 0);
  in.msg = &hello;
  proto_machine_handle (m, 10, &in, &out);
  ck_assert_uint_eq (t->handled, 1);
  ck_assert_uint_eq (proto_machine_received_count (m, PROTO_MSG_HELLO), 1);
  ck_assert_str_eq (proto_machine_state_name (m), "busy");
  ck_assert_int_eq (proto_machine_next_deadline (m), 15);
  ProtoMsg w;
  proto_msg_init (&w, PROTO_MSG_WELCOME);
  proto_machine_send (&t->base, &out, 4, PROTO_VIA_SERVER, &w);
  /* dropped Ready, received ClientConnected, the phase, the SENT, the send */
  ck_assert_uint_eq (proto_outbox_len (&out), 5);
  const ProtoObsKind kinds[] = { PROTO_OBS_DROPPED, PROTO_OBS_RECEIVED, PROTO_OBS_PHASE, PROTO_OBS_SENT };
  const char *states[] = { "idle", "idle", "busy", "busy" };
  const int32_t types[] = { PROTO_MSG_READY, PROTO_MSG_HELLO, -1, PROTO_MSG_WELCOME };
  for (guint i = 0; i < 4; i++)
    {
      const ProtoAction *a = proto_outbox_get (&out, i);
      ck_assert_int_eq (a->kind, PROTO_ACT_OBSERVE);
      ck_assert_int_eq (a->obs.kind, kinds[i]);
      ck_assert_str_eq (a->obs.state, states[i]);
      ck_assert_int_eq (a->obs.round, 3);
      ck_assert_int_eq (a->obs.msg_type, types[i]);
      ck_assert_uint_eq (a->obs.other, i == 2 ? PROTO_NO_NODE : 4);
      ck_assert_str_eq (a->obs.detail, i == 2 ? "busy" : "");
    }
  ck_assert_int_eq (proto_outbox_get (&out, 4)->kind, PROTO_ACT_SEND);
  ck_assert_uint_eq (proto_outbox_get (&out, 4)->to, 4);
  ProtoPeerView v;
  proto_machine_view (m, &v);
  ck_assert (!v.settled && !v.failed);
  t->base.state = 3;
  proto_machine_view (m, &v);
  ck_assert (v.settled && v.failed);
  ck_assert_ptr_eq (proto_machine_model (m), t->base.model);
  proto_outbox_clear (&out);
  proto_msg_clear (&hello);
  proto_msg_clear (&other);
  /* the registry counts a family's names, and fills them from a family's
   * function */
  const ProtoFamily *fedavg = proto_family_lookup ("fedavg");
  ck_assert_uint_eq (fedavg->n_peer_states, g_strv_length ((char **) fedavg->peer_state_names));
  ck_assert_uint_gt (fedavg->n_peer_states, 0);
  const ProtoFamily *disco = proto_family_lookup ("disco");
  ck_assert_uint_eq (disco->n_peer_states, DISCO_PEER_N_STATES);
  for (guint i = 0; i < disco->n_peer_states; i++)
    ck_assert_str_eq (disco->peer_state_names[i], disco_peer_state_name ((DiscoPeerState) i));
  ck_assert_ptr_null (disco->peer_state_names[DISCO_PEER_N_STATES]);
}
END_TEST

START_TEST (test_waits_saturate)
{
  for (guint i = 0; proto_family_at (i); i++)
    {
      const ProtoFamily *f = proto_family_at (i);
      ProtoConfig c;
      proto_config_init (&c, f->name);
      c.peer_connection_timeout = 1281024 * DL_H;
      c.model_sync_timeout = c.payload_timeout = DL_TIME_NEVER / 2;
      ck_assert_msg (f->stall_window (&c) >= 0, "%s's stall window wrapped", f->name);
      if (strcmp (f->name, "disco") != 0)
        continue;
      /* the family's own part (family_config) means the running family's struct alone */
      disco_set_version (&c, DISCO_VERSION_ROBUST);
      disco_config_mut (&c)->max_connection_retry = G_MAXUINT32;
      ck_assert (disco_config (&c)->robust_wait_timeout);
      ck_assert_int_eq (disco_wait_timeout (&c), DL_TIME_NEVER);
      ck_assert_int_eq (f->stall_window (&c), DL_TIME_NEVER);
    }
}
END_TEST

static Suite *
machine_suite (void)
{
  Suite *s = suite_create ("machine");
  TCase *tc = tcase_create ("interface");
  tcase_add_test (tc, test_family_lookup);
  tcase_add_test (tc, test_machine_interface_is_the_machine);
  tcase_add_test (tc, test_waits_saturate);
  tcase_add_test (tc, test_shared_scaffolding);
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
