/* test-machine.c — the machine interface (protocol/proto-machine.h): the
 * shared scaffolding a family need not write, on a toy machine; every
 * family's waits saturate at DL_TIME_NEVER.  DISCO's machines behind the
 * interface: protocol/disco/tests/test-disco-machine.c. */
#include "config.h"

#include "protocol/proto-machine.h"
#include "protocol/session/session-links.h"
#include "protocol/session/session-msgs.h"

#include <check.h>
#include <string.h>

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
  /* the registry counts a family's names (DISCO's, filled from its
   * function: test-disco-machine.c) */
  const ProtoFamily *fedavg = proto_family_lookup ("fedavg");
  ck_assert_uint_eq (fedavg->n_peer_states, g_strv_length ((char **) fedavg->peer_state_names));
  ck_assert_uint_gt (fedavg->n_peer_states, 0);
}
END_TEST

/* A timeout waited several times saturates at DL_TIME_NEVER: robust's
 * wait of 2 x peer_connection_timeout (1281024h livelocked a run: the
 * product wrapped into the past) and DISCO's stall window, for any
 * ProtoConfig, not only the scenario's bounded ones.  Every registered
 * family's stall window, with the common waits at their largest, stays
 * in the future; each family's own test saturates it with its own
 * knobs at their largest (test-gossip.c, test-hier.c, ...). */
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
    }
}
END_TEST

/* ---- the session layer's links (protocol/session/session-links.c):
 * each link's phase, by id, near and far ---- */

static void
links_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  (void) out, (void) to, (void) via;
  (*(guint *) ud)++;
  proto_msg_clear (m);
}

static void
links_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  (void) ud, (void) out, (void) kind, (void) other, (void) type, (void) detail;
}

/* Phases kept for small ids and for ids far above the others (the map
 * keeps the two apart: base/dl-idmap.h), a lost link forgotten, and
 * close_all closing the rest in id order. */
START_TEST (test_links_phases)
{
  guint sent = 0;
  ProtoLinksHost host = { .ud = &sent, .send = links_send, .observe = links_observe };
  ProtoLinks l = { 0 };   /* as a family embeds it: in a zeroed record */
  proto_links_init (&l, &host);
  l.self = 50;
  l.opener_offers = FALSE;
  ProtoOutbox out;
  proto_outbox_init (&out);
  const ProtoNodeId ids[] = { 3000000000u, 7, 100000, 60 };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    proto_links_open (&l, &out, ids[i]);
  ck_assert_uint_eq (sent, 1);   /* an offer to 7 only: the larger id offers */
  ProtoLinkPhase ph;
  ck_assert (proto_links_get (&l, 7, &ph) && ph == PROTO_LINKS_WAIT_ANSWER);
  ck_assert (proto_links_get (&l, 60, &ph) && ph == PROTO_LINKS_WAIT_OFFER);
  ck_assert (proto_links_get (&l, 100000, &ph) && ph == PROTO_LINKS_WAIT_OFFER);
  ck_assert (proto_links_get (&l, 3000000000u, &ph) && ph == PROTO_LINKS_WAIT_OFFER);
  ck_assert (!proto_links_get (&l, 8, NULL) && !proto_links_get (&l, 100001, NULL));
  ck_assert (proto_links_up (&l, &out, 100000) && proto_links_is_up (&l, 100000));
  ck_assert (!proto_links_is_up (&l, 60));
  proto_outbox_clear (&out);
  proto_outbox_init (&out);
  ck_assert_uint_eq (proto_links_lost (&l, &out, 7), 0);
  ck_assert (!proto_links_get (&l, 7, NULL));
  ck_assert_uint_eq (proto_outbox_len (&out), 1);
  ck_assert_int_eq (proto_outbox_get (&out, 0)->kind, PROTO_ACT_CLOSE_LINK);
  proto_outbox_clear (&out);
  proto_outbox_init (&out);
  proto_links_close_all (&l, &out);
  const ProtoNodeId left[] = { 60, 100000, 3000000000u };
  ck_assert_uint_eq (proto_outbox_len (&out), G_N_ELEMENTS (left));
  for (guint i = 0; i < G_N_ELEMENTS (left); i++)
    {
      ck_assert_int_eq (proto_outbox_get (&out, i)->kind, PROTO_ACT_CLOSE_LINK);
      ck_assert_uint_eq (proto_outbox_get (&out, i)->to, left[i]);
      ck_assert (!proto_links_get (&l, left[i], NULL));
    }
  proto_links_open (&l, &out, 60);   /* the map works after close_all */
  ck_assert (proto_links_get (&l, 60, NULL));
  proto_outbox_clear (&out);
  proto_links_clear (&l);
  proto_links_clear (&l);            /* twice is harmless */
}
END_TEST

/* More links than ProtoLinks keeps in its record (PROTO_LINKS_NEAR):
 * each id in one place, the record's or the map's, whichever it went to;
 * a link lost from either forgotten and its room taken again; close_all
 * closing both kinds together in id order. */
START_TEST (test_links_past_near)
{
  guint sent = 0;
  ProtoLinksHost host = { .ud = &sent, .send = links_send, .observe = links_observe };
  ProtoLinks l = { 0 };
  proto_links_init (&l, &host);
  l.self = 1000000;   /* above every id below: it offers to each */
  ProtoOutbox out;
  proto_outbox_init (&out);
  const guint n = 3 * PROTO_LINKS_NEAR;
  for (guint i = 0; i < n; i++)
    proto_links_open (&l, &out, 500 - 7 * i);   /* descending ids */
  ck_assert_uint_eq (sent, n);
  ck_assert_uint_eq (l.n_near, PROTO_LINKS_NEAR);
  for (guint i = 0; i < n; i += 3)
    ck_assert (proto_links_up (&l, &out, 500 - 7 * i));
  ProtoLinkPhase ph;
  for (guint i = 0; i < n; i++)
    {
      ck_assert (proto_links_get (&l, 500 - 7 * i, &ph));
      ck_assert_int_eq (ph, i % 3 == 0 ? PROTO_LINKS_UP : PROTO_LINKS_WAIT_ANSWER);
      ck_assert (!proto_links_get (&l, 501 - 7 * i, NULL));
    }
  /* one lost from the record (the first opened), one from the map (the last) */
  ck_assert_uint_eq (proto_links_lost (&l, &out, 500), 0);
  ck_assert_uint_eq (proto_links_lost (&l, &out, 500 - 7 * (n - 1)), 0);
  ck_assert (!proto_links_get (&l, 500, NULL));
  ck_assert (!proto_links_get (&l, 500 - 7 * (n - 1), NULL));
  ck_assert_uint_eq (l.n_near, PROTO_LINKS_NEAR - 1);
  proto_links_open (&l, &out, 9);       /* takes the record's free room */
  ck_assert_uint_eq (l.n_near, PROTO_LINKS_NEAR);
  ck_assert (proto_links_get (&l, 9, &ph) && ph == PROTO_LINKS_WAIT_ANSWER);
  for (guint i = 1; i + 1 < n; i++)
    ck_assert (proto_links_get (&l, 500 - 7 * i, NULL));
  proto_outbox_clear (&out);
  proto_outbox_init (&out);
  proto_links_close_all (&l, &out);
  ck_assert_uint_eq (proto_outbox_len (&out), n - 1);
  ck_assert_uint_eq (proto_outbox_get (&out, 0)->to, 9);
  for (guint k = 1; k < n - 1; k++)
    {
      ck_assert_int_eq (proto_outbox_get (&out, k)->kind, PROTO_ACT_CLOSE_LINK);
      ck_assert_uint_eq (proto_outbox_get (&out, k)->to, 500 - 7 * (n - 1 - k));
    }
  for (guint i = 0; i < n; i++)
    ck_assert (!proto_links_get (&l, 500 - 7 * i, NULL));
  ck_assert (!proto_links_get (&l, 9, NULL));
  proto_outbox_clear (&out);
  proto_links_clear (&l);
}
END_TEST

/* The outbox's own array: past its first room (16) every action keeps
 * what was appended, in order; reset empties it and keeps the room; a move
 * onto the outbox it comes from (replica-raft.c's shape) takes the action
 * whole and leaves the source empty. */
START_TEST (test_outbox_grows_and_moves)
{
  ProtoOutbox out;
  proto_outbox_init (&out);
  for (guint round = 0; round < 2; round++)
    {
      for (guint i = 0; i < 100; i++)
        {
          ProtoMsg m;
          proto_msg_init (&m, PROTO_MSG_READY);
          m.round = i;
          if (i % 3 == 0)
            proto_outbox_observe (&out, PROTO_OBS_NOTE, "s", (int32_t) i, i, -1, -1, "%s", "n");
          else
            proto_outbox_send (&out, i, PROTO_VIA_SERVER, &m);
        }
      ck_assert_uint_eq (proto_outbox_len (&out), 100);
      for (guint i = 0; i < 100; i++)
        {
          const ProtoAction *a = proto_outbox_get (&out, i);
          ck_assert_int_eq (a->kind, i % 3 == 0 ? PROTO_ACT_OBSERVE : PROTO_ACT_SEND);
          if (i % 3 == 0)
            {
              ck_assert_int_eq (a->obs.round, (int32_t) i);
              ck_assert_str_eq (a->obs.detail, "n");
            }
          else
            {
              ck_assert_uint_eq (a->to, i);
              ck_assert_uint_eq (a->msg.round, i);
            }
        }
      ck_assert_uint_eq (proto_outbox_count_sends (&out, PROTO_MSG_READY, PROTO_NO_NODE), 66);
      ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_NOTE), 34);
      proto_outbox_reset (&out);
      ck_assert_uint_eq (proto_outbox_len (&out), 0);
    }
  /* 16 actions fill the first room exactly: the move onto itself grows it */
  ProtoOutbox src;
  proto_outbox_init (&src);
  for (guint i = 0; i < 16; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_READY);
      m.round = i + 7;
      proto_outbox_send (&src, i + 1, PROTO_VIA_SERVER, &m);
    }
  proto_outbox_move (&src, &src, 3);
  ck_assert_uint_eq (proto_outbox_len (&src), 17);
  ck_assert_uint_eq (proto_outbox_get (&src, 16)->to, 4);
  ck_assert_uint_eq (proto_outbox_get (&src, 16)->msg.round, 10);
  ck_assert_uint_eq (proto_outbox_get (&src, 3)->msg.round, 0);   /* left empty */
  proto_outbox_move (&out, &src, 16);
  ck_assert_uint_eq (proto_outbox_len (&out), 1);
  ck_assert_uint_eq (proto_outbox_get (&out, 0)->msg.round, 10);
  proto_outbox_clear (&src);
  proto_outbox_clear (&out);
  proto_outbox_clear (&out);   /* twice is harmless */
}
END_TEST

static Suite *
machine_suite (void)
{
  Suite *s = suite_create ("machine");
  TCase *tc = tcase_create ("interface");
  tcase_add_test (tc, test_waits_saturate);
  tcase_add_test (tc, test_shared_scaffolding);
  tcase_add_test (tc, test_links_phases);
  tcase_add_test (tc, test_links_past_near);
  tcase_add_test (tc, test_outbox_grows_and_moves);
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
