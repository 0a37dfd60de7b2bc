/* test-guest.c — the guest line protocol's words (protocol/guest/guest-line.c):
 * what dlsim writes for each input, what it accepts from a guest, and what
 * it refuses, with why. */
#include "config.h"

#include "protocol/guest/guest-line.h"
#include "protocol/guest/guest-msgs.h"
#include "protocol/proto-message.h"
#include "scenario/sim-scenario.h"
#include "testbed/testbed.h"
#include "explore/explore.h"
#include "protocol/proto-machine.h"
#include "tests/family-harness.h"

#include <check.h>
#include <string.h>

START_TEST (test_node_names)
{
  ProtoNodeId id;
  ck_assert (proto_guest_node_parse ("S", &id) && id == PROTO_SERVER);
  ck_assert (proto_guest_node_parse ("p12", &id) && id == 12);
  ck_assert (!proto_guest_node_parse ("p0", &id));
  ck_assert (!proto_guest_node_parse ("p01", &id));
  ck_assert (!proto_guest_node_parse ("q1", &id));
  ck_assert (!proto_guest_node_parse ("p", &id));
  ck_assert (!proto_guest_node_parse ("p1x", &id));
  g_autofree char *a = proto_guest_node_name (PROTO_SERVER);
  g_autofree char *b = proto_guest_node_name (7);
  ck_assert_str_eq (a, "S");
  ck_assert_str_eq (b, "p7");
}
END_TEST

START_TEST (test_input_lines)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GUEST);
  m.signal_data = g_strdup ("Push 0.25");
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = 3, .via = PROTO_VIA_LINK, .msg = &m };
  g_autofree char *a = proto_guest_line_input (2, 1500, &in);
  ck_assert_str_eq (a, "msg p2 1500 p3 link Push 0.25");
  in.via = PROTO_VIA_SERVER;
  in.from = PROTO_SERVER;
  g_autofree char *b = proto_guest_line_input (2, 7, &in);
  ck_assert_str_eq (b, "msg p2 7 S stream Push 0.25");
  proto_msg_clear (&m);
  /* a Guest message not as a guest writes it (from a decoder, say) is not told */
  proto_msg_init (&m, PROTO_MSG_GUEST);
  m.signal_data = g_strdup ("Push 1\nnew p9 peer 1");
  ck_assert_ptr_null (proto_guest_line_input (2, 7, &in));
  proto_msg_clear (&m);
  proto_msg_init (&m, PROTO_MSG_GUEST);
  ck_assert_ptr_null (proto_guest_line_input (2, 7, &in));
  proto_msg_clear (&m);
  ck_assert (proto_guest_msg_text_ok ("Push 0.5"));
  ck_assert (!proto_guest_msg_text_ok ("Push"));
  ck_assert (!proto_guest_msg_text_ok ("Push "));
  ck_assert (!proto_guest_msg_text_ok (" 0.5"));
  ck_assert (!proto_guest_msg_text_ok ("Push 0.5 more"));
  ck_assert (!proto_guest_msg_text_ok ("P/sh 0.5"));
  /* another family's message (any registered type but the guest's, with
   * a text a guest would take) never reaches a guest */
  guint others = 0;
  for (guint i = 0; i < proto_msg_n_types (); i++)
    {
      if (proto_msg_type_at (i) == PROTO_MSG_GUEST)
        continue;
      proto_msg_init (&m, proto_msg_type_at (i));
      m.signal_data = g_strdup ("Push 0.5");
      in.msg = &m;
      ck_assert_ptr_null (proto_guest_line_input (2, 7, &in));
      proto_msg_clear (&m);
      others++;
    }
  ck_assert_uint_gt (others, 0);
  ProtoInput up = { .kind = PROTO_IN_LINK_UP, .from = 4 };
  g_autofree char *c = proto_guest_line_input (1, 0, &up);
  ck_assert_str_eq (c, "link-up p1 0 p4");
  ProtoInput sc = { .kind = PROTO_IN_STREAM_CLOSED, .from = 5 };
  g_autofree char *d = proto_guest_line_input (PROTO_SERVER, 9, &sc);
  ck_assert_str_eq (d, "stream-closed S 9 p5");
  ProtoInput dl = { .kind = PROTO_IN_DEADLINE };
  g_autofree char *e = proto_guest_line_input (1, 42, &dl);
  ck_assert_str_eq (e, "deadline p1 42");
}
END_TEST

static ProtoGuestAct
parse_ok (const char *line)
{
  ProtoGuestAct a;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (proto_guest_line_parse (line, &a, &e), "%s: %s", line, e ? e->message : "");
  return a;
}

START_TEST (test_actions)
{
  ProtoGuestAct a = parse_ok ("model 1,-2.5,3e-3");
  ck_assert_int_eq (a.kind, PROTO_GUEST_MODEL);
  ck_assert_uint_eq (a.n_values, 3);
  ck_assert (a.values[0] == 1.0f && a.values[1] == -2.5f && a.values[2] == 3e-3f);
  proto_guest_act_clear (&a);
  ck_assert (a.values == NULL && a.n_values == 0);
  a = parse_ok ("send p3 link Push 8 0.5");
  ck_assert_int_eq (a.kind, PROTO_GUEST_SEND);
  ck_assert_uint_eq (a.to, 3);
  ck_assert_int_eq (a.via, PROTO_VIA_LINK);
  ck_assert_uint_eq (a.size, 8);
  ck_assert_str_eq (a.text, "Push 0.5");
  proto_guest_act_clear (&a);
  a = parse_ok ("send S stream Hello 0 -");
  ck_assert_uint_eq (a.to, PROTO_SERVER);
  ck_assert_int_eq (a.via, PROTO_VIA_SERVER);
  proto_guest_act_clear (&a);
  a = parse_ok ("open p2 initiator");
  ck_assert (a.kind == PROTO_GUEST_OPEN && a.initiator && a.to == 2);
  a = parse_ok ("open p2");
  ck_assert (a.kind == PROTO_GUEST_OPEN && !a.initiator);
  a = parse_ok ("connect p2");
  ck_assert_int_eq (a.kind, PROTO_GUEST_CONNECT);
  a = parse_ok ("close p2");
  ck_assert_int_eq (a.kind, PROTO_GUEST_CLOSE);
  a = parse_ok ("deadline 123456789");
  ck_assert (a.kind == PROTO_GUEST_DEADLINE && a.t == 123456789);
  a = parse_ok ("deadline never");
  ck_assert (a.t == DL_TIME_NEVER);
  a = parse_ok ("train 3");
  ck_assert (a.kind == PROTO_GUEST_TRAIN && a.n == 3);
  a = parse_ok ("round 3");
  ck_assert (a.kind == PROTO_GUEST_ROUND && a.n == 3 && a.count == 0);
  a = parse_ok ("round 5 2");
  ck_assert (a.kind == PROTO_GUEST_ROUND && a.n == 5 && a.count == 2);
  a = parse_ok ("list 2 5");
  ck_assert (a.kind == PROTO_GUEST_LIST && a.n == 2 && a.count == 5);
  a = parse_ok ("metric value_ppm -12 4");
  ck_assert (a.kind == PROTO_GUEST_METRIC && a.value == -12 && a.round == 4);
  proto_guest_act_clear (&a);
  a = parse_ok ("failed the coordinator is gone");
  ck_assert (a.kind == PROTO_GUEST_FAILED);
  ck_assert_str_eq (a.text, "the coordinator is gone");
  proto_guest_act_clear (&a);
  a = parse_ok ("state linking");
  ck_assert_str_eq (a.text, "linking");
  proto_guest_act_clear (&a);
}
END_TEST

/* the facts dlsim counts for its own machines (docs/guest.md, "Facts") */
START_TEST (test_facts)
{
  ProtoGuestAct a = parse_ok ("start 2 3");
  ck_assert (a.kind == PROTO_GUEST_START && a.n == 2 && a.count == 3);
  a = parse_ok ("retry");
  ck_assert (a.kind == PROTO_GUEST_RETRY && a.value == -1);
  /* the coordinator's retry counter, recorded as the retry event's value */
  a = parse_ok ("retry 4");
  ck_assert (a.kind == PROTO_GUEST_RETRY && a.value == 4);
  a = parse_ok ("reset");
  ck_assert_int_eq (a.kind, PROTO_GUEST_RESET);
  a = parse_ok ("excluded p4");
  ck_assert (a.kind == PROTO_GUEST_EXCLUDED && a.to == 4);
  a = parse_ok ("excluded");
  ck_assert (a.kind == PROTO_GUEST_EXCLUDED && a.to == PROTO_NO_NODE);
  a = parse_ok ("synced p1");
  ck_assert (a.kind == PROTO_GUEST_SYNCED && a.to == 1);
  /* a model sent to a late joiner, stale or not (the summary's stale_model_syncs) */
  a = parse_ok ("served p3");
  ck_assert (a.kind == PROTO_GUEST_SERVED && a.to == 3 && a.value == 0);
  a = parse_ok ("served p3 stale");
  ck_assert (a.kind == PROTO_GUEST_SERVED && a.to == 3 && a.value == 1);
  a = parse_ok ("foreign p3 2");
  ck_assert (a.kind == PROTO_GUEST_FOREIGN && a.to == 3 && a.n == 2);
}
END_TEST

/* each refused, with the reason the error gives */
static const struct {
  const char *line, *why;
} bad[] = {
  { "", "single spaces" },
  { "send  p3 link Push 8 x", "single spaces" },
  { "send p3 link Push 8 x ", "single spaces" },
  { "send p3 link Push 8", "send TO" },
  { "send p3 wire Push 8 x", "stream or link" },
  { "send p3 link P/sh 8 x", "TYPE is" },
  { "send p3 link Push 1099511627777 x", "SIZE" },
  { "send q3 link Push 8 x", "TO is" },
  { "send p3 link Push 8 a\x01b", "one word" },
  { "open S", "two peers" },
  { "open p2 first", "open PEER" },
  { "train 0", "from 1" },
  { "train x", "round number" },
  { "train 2 1", "train N" },
  { "round 2 0", "round N K" },
  { "round 2 1 1", "round N [K]" },
  { "deadline soon", "nanoseconds" },
  { "metric v 1.5", "integer" },
  { "list 1", "list N K" },
  { "finished now", "no words" },
  { "hello world", "unknown action" },
  { "model", "model V1,V2" },
  { "model 1 2", "model V1,V2" },
  { "model 1,x", "finite number" },
  { "model nan", "finite number" },
  { "model 1,,2", "finite number" },
  { "model 1e39", "finite number" },
  { "start 1", "start N K" },
  { "start 0 2", "start N K" },
  { "retry 0", "retry [N]" },
  { "retry x", "retry [N]" },
  { "retry 1 2", "retry [N]" },
  { "served", "served PEER" },
  { "served S", "served PEER" },
  { "served p2 old", "served PEER" },
  { "served p2 stale now", "served PEER" },
  { "reset now", "no words" },
  { "excluded S", "excluded [PEER]" },
  { "excluded p1 p2", "excluded [PEER]" },
  { "synced", "synced PEER" },
  { "synced S", "synced PEER" },
  { "foreign p2", "foreign PEER N" },
  { "foreign S 1", "foreign PEER N" },
  { "foreign p2 0", "foreign PEER N" },
};

START_TEST (test_refused)
{
  ProtoGuestAct a;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (!proto_guest_line_parse (bad[_i].line, &a, &e), "accepted `%s`", bad[_i].line);
  ck_assert_msg (strstr (e->message, bad[_i].why), "`%s`: %s", bad[_i].line, e->message);
}
END_TEST

/* guest_dir is a folder whose empty value is the scenario's own
 * (export-scenario makes it absolute); guest_command is no path (moved
 * from tests/test-export.c, which names no family) */
START_TEST (test_key_paths)
{
  ck_assert_int_eq (sim_scenario_key_path ("protocol.guest_dir"), PROTO_KEY_PATH_OR_HERE);
  ck_assert_int_eq (sim_scenario_key_path ("protocol.guest_command"), PROTO_KEY_NOT_PATH);
}
END_TEST

/* The guest's machines do not run on sockets (its no_testbed): the
 * testbed refuses it before a database, a process or a socket is made
 * (db NULL is never touched; moved from tests/test-testbed.c). */
START_TEST (test_testbed_refuses)
{
  const char *src = g_getenv ("DLSIM_SRCDIR");
  g_autofree char *path = g_build_filename (src ? src : ".", "protocol/guest/scenarios/pushpull.ini", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &error);
  ck_assert_msg (s != NULL, "%s: %s", path, error ? error->message : "?");
  TestbedReport rep;
  testbed_report_init (&rep);
  TestbedRunStatus st = testbed_run_point (s, s->points->pdata[0], s->seed, NULL, NULL, "/nonexistent/dlsim",
                                           TESTBED_LOOPBACK, &rep, &error);
  ck_assert_int_eq (st, TESTBED_RUN_ERROR);
  ck_assert_msg (g_str_has_prefix (error->message, "[protocol] family = guest: "), "%s", error->message);
  testbed_report_clear (&rep);
}
END_TEST

/* explore's coverage of a guest (moved from tests/test-explore.c, which
 * names no family), on tests/family-harness.h's FhCov */
START_TEST (test_coverage_guest)
{
  /* a guest's drops are named TYPE:KIND (Guest:Token): the rule on Guest
   * fired; its peers name their states as they run: no "5 of 0" */
  FhCov v;
  fh_cov_init (&v, "guest");
  fh_cov_add (v.s.rules, "Guest:Token");
  fh_cov_add (v.s.states, "training");
  fh_cov_add (v.s.states, "linking");
  explore_coverage (&v.s, &v.sp, &v.c);
  ck_assert_str_eq (v.c.rules_never, "-");
  ck_assert_uint_eq (v.c.n_states, 0);
  ck_assert_uint_eq (v.c.states_reached, 2);
  ck_assert_str_eq (v.c.states_seen, "linking, training");
  /* the guest's own type only, not the 57 of every family */
  ck_assert_str_eq (v.c.dropped_never, "Guest");
  fh_cov_clear (&v);
  /* a rule on one kind fires on that kind only */
  fh_cov_init (&v, "guest");
  fh_cov_add (v.s.rules, "Guest:Token");
  g_auto (GStrv) kinds = g_strsplit ("Guest:Token,Guest:Push", ",", -1);
  v.sp.messages = kinds;
  explore_coverage (&v.s, &v.sp, &v.c);
  ck_assert_str_eq (v.c.rules_never, "Guest:Push");
  fh_cov_clear (&v);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("guest");
  TCase *t = tcase_create ("lines");
  tcase_add_test (t, test_node_names);
  tcase_add_test (t, test_input_lines);
  tcase_add_test (t, test_actions);
  tcase_add_test (t, test_facts);
  tcase_add_loop_test (t, test_refused, 0, G_N_ELEMENTS (bad));
  tcase_add_test (t, test_key_paths);
  tcase_add_test (t, test_testbed_refuses);
  tcase_add_test (t, test_coverage_guest);
  suite_add_tcase (s, t);
  SRunner *r = srunner_create (s);
  srunner_run_all (r, CK_NORMAL);
  int failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed ? 1 : 0;
}
