/* test-frame.c — testbed/testbed-frame.c: every message type round-trips through a
 * frame split at every byte; malformed frames are refused with an error;
 * and a seeded fuzz run (bench/fuzz-frames.c) of 30 000 inputs neither
 * crashes nor leaks (ASan in CI), judges every HELLO's proof right and
 * feeds hostile messages into every family's machines.  `dlsim bench fuzz-frames` runs 1M+. */
#include "config.h"

#include "testbed/testbed-frame.h"
#include "bench/fuzz-frames.h"
#include "protocol/proto-msg-class.h"
#include "protocol/session/session-msgs.h"
#include "tests/msg-fill.h"

#include <check.h>
#include <string.h>

START_TEST (test_roundtrip_split_everywhere)
{
  ProtoMsg m;
  proto_msg_init (&m, proto_msg_type_at ((guint) _i));
  m.node = 7;
  m.round = 3;
  m.nb_participants = 1;   /* a pipeline step carries at least one token (through blocks [0, 7)) */
  if (msg_carries_weights (m.type))
    {
      g_autoptr (LearnWeights) w = learn_weights_new (5);
      proto_msg_set_weights (&m, w);
    }
  if (m.type == PROTO_MSG_ROUND_PEERS)
    {
      const ProtoNodeId ids[] = { 4, 9 };
      proto_msg_set_peers (&m, ids, 2);
    }
  g_autoptr (GBytes) f = testbed_frame_encode_msg (&m);
  gsize len;
  const guint8 *d = g_bytes_get_data (f, &len);
  for (gsize cut = 0; cut <= len; cut++)
    {
      g_autoptr (TestbedFrameReader) r = testbed_frame_reader_new ();
      TestbedFrameKind kind;
      ProtoMsg out;
      TestbedFrameAuth hello;
      testbed_frame_reader_push (r, d, cut);
      if (cut < len)
        ck_assert_int_eq (testbed_frame_reader_next (r, &kind, &out, &hello, NULL), TESTBED_FRAME_NEED_MORE);
      testbed_frame_reader_push (r, d + cut, len - cut);
      ck_assert_int_eq (testbed_frame_reader_next (r, &kind, &out, &hello, NULL), TESTBED_FRAME_OK);
      ck_assert_int_eq (kind, TESTBED_FRAME_MSG);
      ck_assert_int_eq (out.type, m.type);
      g_autoptr (GBytes) a = proto_msg_encode (&m);
      g_autoptr (GBytes) b = proto_msg_encode (&out);
      ck_assert (g_bytes_equal (a, b));
      proto_msg_clear (&out);
      ck_assert_int_eq (testbed_frame_reader_next (r, &kind, &out, &hello, NULL), TESTBED_FRAME_NEED_MORE);
    }
  proto_msg_clear (&m);
}
END_TEST

static TestbedFrameResult
read_one (const guint8 *b, gsize n, GError **error)
{
  g_autoptr (TestbedFrameReader) r = testbed_frame_reader_new ();
  testbed_frame_reader_push (r, b, n);
  TestbedFrameKind kind;
  ProtoMsg out;
  TestbedFrameAuth hello;
  TestbedFrameResult res = testbed_frame_reader_next (r, &kind, &out, &hello, error);
  if (res == TESTBED_FRAME_OK && kind == TESTBED_FRAME_MSG)
    proto_msg_clear (&out);
  return res;
}

START_TEST (test_malformed_refused)
{
  const guint8 empty[] = { 0, 0, 0, 0 };
  const guint8 huge[] = { 0xff, 0xff, 0xff, 0xff, 1 };
  const guint8 kind[] = { 0, 0, 0, 9, 7, 1, 2, 3 };           /* unknown kind, incomplete */
  const guint8 hello[] = { 0, 0, 0, 5, 2, 0, 0, 2, 1 };       /* HELLO with an id and no proof */
  const guint8 chal[] = { 0, 0, 0, 3, 3, 1, 2 };              /* CHALLENGE with 2 bytes */
  const guint8 junk[] = { 0, 0, 0, 4, 1, 0xde, 0xad, 0xbe };   /* MSG, not a message */
  const struct { const guint8 *b; gsize n; const char *err; } cases[] = {
    { empty, sizeof empty, "empty frame" },
    { huge, sizeof huge, "over the size limit" },
    { kind, sizeof kind, "unknown frame kind" },
    { hello, sizeof hello, "HELLO" },
    { chal, sizeof chal, "CHALLENGE" },
    { junk, sizeof junk, "" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) e = NULL;
      ck_assert_int_eq (read_one (cases[i].b, cases[i].n, &e), TESTBED_FRAME_BAD);
      ck_assert_msg (e && strstr (e->message, cases[i].err), "case %zu: %s", i, e ? e->message : "(none)");
    }
  /* a HELLO answers a CHALLENGE: its HMAC binds the secret, the nonce, the
   * sender's id and the listener's; change any of them and it fails */
  static const char key[] = "a secret of the deployment";
  const gsize klen = sizeof key - 1;
  guint8 nonce[TESTBED_FRAME_NONCE_BYTES];
  for (gsize i = 0; i < sizeof nonce; i++)
    nonce[i] = (guint8) (i * 7 + 1);
  g_autoptr (GBytes) c = testbed_frame_encode_challenge (nonce);
  g_autoptr (GBytes) h = testbed_frame_encode_hello ((const guint8 *) key, klen, nonce, 513, 0);
  g_autoptr (TestbedFrameReader) r = testbed_frame_reader_new ();
  gsize n;
  const guint8 *d = g_bytes_get_data (c, &n);
  testbed_frame_reader_push (r, d, n);
  d = g_bytes_get_data (h, &n);
  testbed_frame_reader_push (r, d, n);
  TestbedFrameKind k;
  ProtoMsg m;
  TestbedFrameAuth got;
  ck_assert_int_eq (testbed_frame_reader_next (r, &k, &m, &got, NULL), TESTBED_FRAME_OK);
  ck_assert_int_eq (k, TESTBED_FRAME_CHALLENGE);
  ck_assert (memcmp (got.nonce, nonce, sizeof nonce) == 0);
  ck_assert_int_eq (testbed_frame_reader_next (r, &k, &m, &got, NULL), TESTBED_FRAME_OK);
  ck_assert_int_eq (k, TESTBED_FRAME_HELLO);
  ck_assert_uint_eq (got.id, 513);
  ck_assert (testbed_frame_hello_verify (&got, (const guint8 *) key, klen, nonce, 0));
  ck_assert (!testbed_frame_hello_verify (&got, (const guint8 *) key, klen - 1, nonce, 0));   /* another secret */
  ck_assert (!testbed_frame_hello_verify (&got, (const guint8 *) key, klen, nonce, 2));       /* another listener */
  TestbedFrameAuth other = got;
  other.id = 3;                                                                        /* another id */
  ck_assert (!testbed_frame_hello_verify (&other, (const guint8 *) key, klen, nonce, 0));
  nonce[5] ^= 1;                                                                       /* another challenge */
  ck_assert (!testbed_frame_hello_verify (&got, (const guint8 *) key, klen, nonce, 0));
}
END_TEST

START_TEST (test_unauthenticated_limit)
{
  /* before its HELLO a stream may send a HELLO and nothing larger: a 1 GiB
   * frame is refused at its length, before any of its body is buffered */
  const guint8 big[] = { 0x40, 0, 0, 0, 1 };
  g_autoptr (TestbedFrameReader) r = testbed_frame_reader_new ();
  testbed_frame_reader_set_max_body (r, TESTBED_FRAME_HELLO_BODY);
  testbed_frame_reader_push (r, big, sizeof big);
  TestbedFrameKind k;
  ProtoMsg m;
  TestbedFrameAuth a;
  g_autoptr (GError) e = NULL;
  ck_assert_int_eq (testbed_frame_reader_next (r, &k, &m, &a, &e), TESTBED_FRAME_BAD);
  ck_assert_msg (strstr (e->message, "before an authenticated HELLO"), "%s", e->message);
  /* a message of a HELLO's size or less still passes the limit */
  ProtoMsg small;
  proto_msg_init (&small, PROTO_MSG_HELLO);
  g_autoptr (GBytes) f = testbed_frame_encode_msg (&small);
  ck_assert_uint_le (g_bytes_get_size (f) - 4, TESTBED_FRAME_HELLO_BODY);
  g_autoptr (TestbedFrameReader) r2 = testbed_frame_reader_new ();
  testbed_frame_reader_set_max_body (r2, TESTBED_FRAME_HELLO_BODY);
  gsize n;
  const guint8 *d = g_bytes_get_data (f, &n);
  testbed_frame_reader_push (r2, d, n);
  ck_assert_int_eq (testbed_frame_reader_next (r2, &k, &m, &a, NULL), TESTBED_FRAME_OK);
  proto_msg_clear (&m);
  proto_msg_clear (&small);
}
END_TEST

START_TEST (test_signal_data_relayed)
{
  /* SignalForPeer may carry data (the testbed: the sender's link address);
   * it round-trips on the wire and the coordinator relays it verbatim.
   * Without data the wire form is unchanged (the simulator's). */
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SIGNAL);
  m.node = 2;
  gsize plain = proto_msg_wire_size (&m);
  m.signal_data = g_strdup ("127.0.0.1:40001");
  ck_assert_uint_gt (proto_msg_wire_size (&m), plain);
  g_autoptr (GBytes) b = proto_msg_encode (&m);
  ProtoMsg d;
  ck_assert (proto_msg_decode (b, &d, NULL));
  ck_assert_str_eq (d.signal_data, "127.0.0.1:40001");
  proto_msg_clear (&d);
  /* the session layer's relay (every coordinator's): back to p2 as from
   * p1, the data verbatim (DISCO's coordinator relaying it:
   * protocol/disco/tests/test-disco-machine) */
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_session_relay_observed (&out, "listening", 0, 1, &m, TRUE);
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

START_TEST (test_fuzz_short)
{
  BenchFuzzStats st;
  /* a machine's g_return_if_fail on hostile input (or on a config no
   * scenario can load: a pipeline of 0 blocks) ends the test */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_ERROR);
  ck_assert (bench_fuzz_frames_with (30000, 1, NULL, &st));
  ck_assert_uint_eq (st.inputs, 30000);
  /* every branch was exercised */
  ck_assert_uint_gt (st.roundtrips, 1000);
  ck_assert_uint_gt (st.frames_bad, 1000);
  ck_assert_uint_gt (st.frames_ok, st.roundtrips);
  /* HELLO proofs judged both ways, hostile messages into every machine */
  ck_assert_uint_gt (st.hellos_verified, 500);
  ck_assert_uint_gt (st.hellos_refused, 500);
  ck_assert_uint_gt (st.hostile_fed, 10000);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("frame");
  TCase *tc = tcase_create ("frame");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_roundtrip_split_everywhere, 0, (int) proto_msg_n_types ());
  tcase_add_test (tc, test_malformed_refused);
  tcase_add_test (tc, test_unauthenticated_limit);
  tcase_add_test (tc, test_signal_data_relayed);
  tcase_add_test (tc, test_fuzz_short);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
