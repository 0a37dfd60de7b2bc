/* test-props.c — the properties of host/sim-props.c, fed by hand: each one
 * fires on the sequence that breaks it and stays quiet on the one that
 * does not. */
#include "config.h"

#include "host/sim-props.h"
#include "protocol/session/session-msgs.h"

#include <check.h>
#include <string.h>

typedef struct {
  guint n;
  char last_property[32];
  ProtoNodeId last_node;
} Seen;

static void
on_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  Seen *s = ud;
  s->n++;
  g_strlcpy (s->last_property, property, sizeof s->last_property);
  s->last_node = node;
  ck_assert (explanation && *explanation);
  (void) t;
}

static SimProps *
props (Seen *s)
{
  memset (s, 0, sizeof *s);
  SimRecorder rec = { 0 };
  rec.violation = on_violation;
  rec.user_data = s;
  return sim_props_new (&rec, 2);
}

static ProtoObservation
obs (ProtoObsKind kind, int round, ProtoNodeId other, int msg_type)
{
  ProtoObservation o = { 0 };
  o.kind = kind;
  o.round = round;
  o.other = other;
  o.msg_type = msg_type;
  o.value = -1;
  g_strlcpy (o.detail, "detail", sizeof o.detail);
  return o;
}

static LearnWeights *
weights (float a, float b)
{
  LearnWeights *w = learn_weights_new (2);
  float *d = learn_weights_data_mut (w);
  d[0] = a;
  d[1] = b;
  return w;
}

START_TEST (agreement)
{
  Seen s;
  SimProps *p = props (&s);
  g_autoptr (LearnWeights) a = weights (1, 2), b = weights (1, 2.00001f), c = weights (1, 2.5f);
  sim_props_round_model (p, 1, 1, 1, a);
  sim_props_round_model (p, 2, 2, 1, b);   /* within tolerance */
  ck_assert_uint_eq (s.n, 0);
  sim_props_round_model (p, 3, 3, 1, c);
  ck_assert_uint_eq (s.n, 1);
  ck_assert_str_eq (s.last_property, "agreement");
  ck_assert_uint_eq (s.last_node, 3);
  sim_props_round_model (p, 4, 3, 2, c);   /* round 2's reference is p3's own */
  ck_assert_uint_eq (sim_props_count (p, "agreement"), 1);
  sim_props_free (p);
}
END_TEST

START_TEST (monotone_rounds)
{
  Seen s;
  SimProps *p = props (&s);
  ProtoObservation o = obs (PROTO_OBS_ROUND_START, 3, PROTO_NO_NODE, -1);
  sim_props_observe (p, 1, PROTO_SERVER, &o);
  o.round = 2;
  sim_props_observe (p, 2, PROTO_SERVER, &o);
  ck_assert_uint_eq (sim_props_count (p, "monotone-rounds"), 1);
  ProtoObservation reset = obs (PROTO_OBS_RESET, 0, PROTO_NO_NODE, -1);
  sim_props_observe (p, 3, PROTO_SERVER, &reset);
  o.round = 0;
  sim_props_observe (p, 4, PROTO_SERVER, &o);   /* after a session reset: allowed */
  ck_assert_uint_eq (sim_props_count (p, "monotone-rounds"), 1);
  /* a peer: round 2 then round 1 breaks it; a new session (ClientConnected) allows it */
  ProtoObservation end = obs (PROTO_OBS_ROUND_END, 2, PROTO_NO_NODE, -1);
  sim_props_observe (p, 5, 1, &end);
  end.round = 1;
  sim_props_observe (p, 6, 1, &end);
  ck_assert_uint_eq (sim_props_count (p, "monotone-rounds"), 2);
  ProtoObservation hello = obs (PROTO_OBS_SENT, 0, PROTO_SERVER, PROTO_MSG_HELLO);
  sim_props_observe (p, 7, 1, &hello);
  end.round = 0;
  sim_props_observe (p, 8, 1, &end);
  ck_assert_uint_eq (sim_props_count (p, "monotone-rounds"), 2);
  sim_props_free (p);
}
END_TEST

START_TEST (own_round_only)
{
  Seen s;
  SimProps *p = props (&s);
  ProtoObservation o = obs (PROTO_OBS_FOREIGN_ROUND, 1, 2, PROTO_MSG_SYNC_MODEL);
  o.value = 2;
  sim_props_observe (p, 1, 1, &o);
  ck_assert_uint_eq (sim_props_count (p, "own-round-only"), 1);
  ck_assert_uint_eq (s.last_node, 1);
  sim_props_free (p);
}
END_TEST

/* a family's kind_role: "Fail" tells a peer it is excluded */
static ProtoMsgRole
fail_role (const ProtoConfig *cfg, const char *kind)
{
  (void) cfg;
  return strcmp (kind, "Fail") == 0 ? PROTO_MSG_ROLE_CONNECTION_FAIL : PROTO_MSG_ROLE_NONE;
}

START_TEST (progress_and_excluded)
{
  Seen s;
  SimProps *p = props (&s);
  ProtoObservation ex = obs (PROTO_OBS_EXCLUDED, 0, 1, -1);
  sim_props_observe (p, 1, PROTO_SERVER, &ex);
  ex.other = 2;
  sim_props_observe (p, 1, PROTO_SERVER, &ex);
  ex.other = 3;
  sim_props_observe (p, 1, PROTO_SERVER, &ex);
  /* a message of the excluding role, by its kind (no family's type: the
   * kind's role as a family's kind_role gives it) */
  sim_props_set_kind_role (p, fail_role, NULL);
  ProtoObservation fail = obs (PROTO_OBS_RECEIVED, 0, PROTO_SERVER, -1);
  g_strlcpy (fail.detail, "Fail", sizeof fail.detail);
  sim_props_observe (p, 2, 2, &fail);   /* p2 processed its Fail */
  SimPeerResult peers[5] = { 0 };
  peers[1].outcome = SIM_PEER_HUNG;     /* excluded, never told, still there */
  peers[2].outcome = SIM_PEER_EXCLUDED;
  peers[3].outcome = SIM_PEER_LEFT;     /* excluded, then left: not a violation */
  peers[4].outcome = SIM_PEER_FINISHED;
  for (guint i = 0; i < 5; i++)
    peers[i].left = DL_TIME_NEVER;
  peers[3].left = 5;
  sim_props_end (p, 10, peers, 4);   /* p1 and p4 connected: 2 >= min_participants */
  ck_assert_uint_eq (sim_props_count (p, "progress"), 1);
  ck_assert_uint_eq (sim_props_count (p, "excluded-was-told"), 1);
  ck_assert_uint_eq (s.n, 2);
  sim_props_free (p);
  /* a finished peer that left does not count as connected */
  p = props (&s);
  peers[4].left = 8;
  sim_props_end (p, 10, peers, 4);   /* p1 alone connected: below min_participants */
  ck_assert_uint_eq (sim_props_count (p, "progress"), 0);
  sim_props_free (p);
  /* one peer left connected, below min_participants: no progress is owed */
  p = props (&s);
  SimPeerResult alone[3] = { 0 };
  alone[1].outcome = SIM_PEER_HUNG;
  alone[2].outcome = SIM_PEER_LEFT;
  sim_props_end (p, 10, alone, 2);
  ck_assert_uint_eq (sim_props_count (p, "progress"), 0);
  sim_props_free (p);
}
END_TEST

/* the strict rule: a peer still running at the end owes a round within the
 * stall window (from its last round's end, or its arrival), however its
 * state changed; not a starved or cut-off peer, nor with the rule off */
START_TEST (progress_livelock)
{
  Seen s;
  SimProps *p = props (&s);
  sim_props_set_stall_window (p, 100);
  ProtoObservation end = obs (PROTO_OBS_ROUND_END, 0, PROTO_NO_NODE, -1);
  sim_props_observe (p, 150, 1, &end);   /* p1 finished a round at 150 */
  ProtoObservation phase = obs (PROTO_OBS_PHASE, 1, PROTO_NO_NODE, -1);
  sim_props_observe (p, 290, 2, &phase); /* p2 changes state, finishes nothing */
  SimPeerResult peers[5] = { 0 };
  for (guint i = 1; i < 5; i++)
    peers[i].outcome = SIM_PEER_RUNNING, peers[i].left = DL_TIME_NEVER, peers[i].joined = 10;
  peers[3].joined = 250;                 /* arrived 50 before the end */
  peers[4].starved = TRUE;               /* waits for what nobody holds */
  sim_props_end (p, 300, peers, 4);
  /* p1: 150 back; p2: 290 back since arrival; p3: 50; p4: starved */
  ck_assert_uint_eq (sim_props_count (p, "progress"), 2);
  ck_assert_uint_eq (s.n, 2);
  sim_props_free (p);
  p = props (&s);
  sim_props_observe (p, 150, 1, &end);
  sim_props_set_stall_window (p, 160);   /* p1's round is within the window */
  peers[2].cut_off = TRUE;
  sim_props_end (p, 300, peers, 4);
  ck_assert_uint_eq (sim_props_count (p, "progress"), 0);
  sim_props_free (p);
  p = props (&s);                        /* no window set: the rule is off */
  peers[2].cut_off = FALSE;
  sim_props_end (p, 300, peers, 4);
  ck_assert_uint_eq (sim_props_count (p, "progress"), 0);
  sim_props_free (p);
}
END_TEST

START_TEST (no_lost_model)
{
  Seen s;
  SimProps *p = props (&s);
  g_autoptr (LearnWeights) initial = weights (0, 0), r1 = weights (1, 2), r2 = weights (3, 4);
  sim_props_training_model (p, 1, 1, initial);   /* no round yet: the initial model is right */
  sim_props_round_model (p, 2, 1, 1, r1);
  sim_props_round_model (p, 3, 1, 2, r2);
  sim_props_training_model (p, 4, 2, r1);        /* a previous round's model (S13): not lost */
  sim_props_synced_model (p, 4, 3, r2);
  ck_assert_uint_eq (sim_props_count (p, "no-lost-model"), 0);
  sim_props_training_model (p, 5, 4, initial);   /* a late joiner from the initial model: S3 */
  ck_assert_uint_eq (sim_props_count (p, "no-lost-model"), 1);
  sim_props_training_model (p, 6, 4, initial);   /* only a session's first training counts */
  ck_assert_uint_eq (sim_props_count (p, "no-lost-model"), 1);
  sim_props_synced_model (p, 7, 5, initial);
  ck_assert_uint_eq (sim_props_count (p, "no-lost-model"), 2);
  sim_props_free (p);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("props");
  TCase *tc = tcase_create ("props");
  tcase_add_test (tc, agreement);
  tcase_add_test (tc, monotone_rounds);
  tcase_add_test (tc, own_round_only);
  tcase_add_test (tc, progress_and_excluded);
  tcase_add_test (tc, progress_livelock);
  tcase_add_test (tc, no_lost_model);
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  srunner_run_all (r, CK_NORMAL);
  int failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed ? 1 : 0;
}
