/* test-message.c — protocol/proto-message.c and the families' message
 * tables: the registry is complete (every type has a name, both codec arms
 * and a size function, no byte or name twice), each type round-trips
 * through its wire form with every field, its wire size is its encoded
 * length and its size key never joins two sizes, a model costs its real
 * size, and untrusted bytes are refused with an error, never a crash. */
#include "config.h"

#include "tests/msg-fill.h"
#include "protocol/proto-msg-class.h"
#include "protocol/proto-machine.h"
#include "protocol/replica/replica-msgs.h"
#include "learn/learn-weights.h"
#include "base/dl-random.h"
#include "protocol/session/session-msgs.h"
#include "protocol/proto-wire-normal.h"

#include <check.h>
#include <string.h>

/* A type's example (ProtoMsgClass.example) sets what it carries: it
 * encodes to other bytes than the type's bare default, and fill_msg
 * gives it where msg-fill.c does not know the type (fedavg's four). */
START_TEST (test_message_examples)
{
  guint n = 0;
  for (guint i = 0; i < proto_msg_n_types (); i++)
    {
      const ProtoMsgClass *k = proto_msg_class_of (proto_msg_type_at (i));
      if (!k->example)
        continue;
      n++;
      ProtoMsg plain, ex, filled;
      proto_msg_init (&plain, k->type);
      proto_msg_init (&ex, k->type);
      k->example (&ex);
      fill_msg (&filled, k->type);
      g_autoptr (GBytes) a = proto_msg_encode (&plain);
      g_autoptr (GBytes) b = proto_msg_encode (&ex);
      g_autoptr (GBytes) c = proto_msg_encode (&filled);
      ck_assert_msg (!g_bytes_equal (a, b), "%s's example sets nothing", k->name);
      ck_assert_msg (g_bytes_equal (b, c), "fill_msg does not give %s's example", k->name);
      proto_msg_clear (&plain);
      proto_msg_clear (&ex);
      proto_msg_clear (&filled);
    }
  ck_assert_uint_ge (n, 4);   /* fedavg's FedHello, FedModel, FedUpdate, FedDone */
}
END_TEST

START_TEST (test_message_roundtrip)
{
  ProtoMsgType t = proto_msg_type_at ((guint) _i);
  ProtoMsg m, back;
  fill_msg (&m, t);
  g_autoptr (GBytes) b = proto_msg_encode (&m);
  ck_assert_uint_eq (g_bytes_get_size (b), proto_msg_wire_size (&m));
  g_autoptr (GError) error = NULL;
  ck_assert_msg (proto_msg_decode (b, &back, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (back.type, t);
  ck_assert_uint_eq (back.node, m.node);
  ck_assert_int_eq (back.wait_for_more, m.wait_for_more);
  ck_assert_int_eq (back.joined_mid_training, m.joined_mid_training);
  ck_assert_uint_eq (back.nb_participants, m.nb_participants);
  ck_assert_uint_eq (back.round, m.round);
  ck_assert_uint_eq (back.comm_round, m.comm_round);
  ck_assert_int_eq (back.signal, m.signal);
  ck_assert_uint_eq (back.n_peers, m.n_peers);
  if (m.n_peers)
    ck_assert_mem_eq (back.peers, m.peers, m.n_peers * sizeof (ProtoNodeId));
  ck_assert_uint_eq (back.degree, m.degree);
  ck_assert (back.key == m.key);
  ck_assert_uint_eq (back.n_indices, m.n_indices);
  if (m.n_indices)
    ck_assert_mem_eq (back.indices, m.indices, m.n_indices * sizeof *m.indices);
  ck_assert_int_eq (back.weights != NULL, m.weights != NULL);
  if (m.weights)
    ck_assert (learn_weights_equal (back.weights, m.weights));
  ck_assert_int_eq (back.helper, m.helper);
  ck_assert_uint_eq (back.sess_seq, m.sess_seq);
  ck_assert_uint_eq (back.sess_ack, m.sess_ack);
  ck_assert_int_eq (back.inner != NULL, m.inner != NULL);
  if (m.inner)
    {
      /* a RaftAppend's entry: its numbers and its weights */
      ck_assert_int_eq (back.inner->type, m.inner->type);
      ck_assert_uint_eq (back.inner->sess_seq, m.inner->sess_seq);
      ck_assert_uint_eq (back.inner->sess_ack, m.inner->sess_ack);
      ck_assert_uint_eq (back.inner->round, m.inner->round);
      ck_assert (learn_weights_equal (back.inner->weights, m.inner->weights));
    }
  ck_assert_str_ne (proto_msg_type_name (t), "?");
  ProtoMsgType again;
  ck_assert (proto_msg_type_from_name (proto_msg_type_name (t), &again) && again == t);
  proto_msg_clear (&m);
  proto_msg_clear (&back);
}
END_TEST

/* Every type byte: a declared type has a class that the lookups find; any
 * other byte has no name and decodes to an error. */
START_TEST (test_type_bytes)
{
  ProtoMsgType t = (ProtoMsgType) _i;
  const ProtoMsgClass *c = proto_msg_class_of (t);
  if (c)
    {
      ck_assert_uint_eq (c->type, t);
      ck_assert_str_eq (proto_msg_type_name (t), c->name);
      ck_assert (proto_msg_type_known (t));
      return;
    }
  ck_assert (!proto_msg_type_known (t));
  ck_assert_str_eq (proto_msg_type_name (t), "?");
  g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_variant (g_variant_new ("(y)", (guchar) t)));
  g_autoptr (GBytes) b = g_variant_get_data_as_bytes (v);
  ProtoMsg m;
  g_autoptr (GError) error = NULL;
  ck_assert (!proto_msg_decode (b, &m, &error));
  g_autofree char *want = g_strdup_printf ("unknown message type %u", t);
  ck_assert_str_eq (error->message, want);
}
END_TEST

/* The registry: every family's table is complete, every type in it is the
 * one the lookups find, the types counted once; and the check refuses a
 * table whose type lacks a size function or claims a byte twice. */
START_TEST (test_registry_complete)
{
  guint total = 0;
  const ProtoMsgFamily *const *fams = proto_msg_families ();
  for (guint k = 0; fams[k]; k++)
    {
      g_autoptr (GError) error = NULL;
      ck_assert_msg (proto_msg_family_check (fams[k], &error), "%s", error ? error->message : "");
      ck_assert_uint_gt (fams[k]->n_types, 0);
      for (guint i = 0; i < fams[k]->n_types; i++)
        {
          const ProtoMsgClass *c = &fams[k]->types[i];
          ck_assert_ptr_eq (proto_msg_class_of (c->type), c);
          ck_assert_ptr_nonnull (c->name);
          ck_assert_ptr_nonnull (c->encode);
          ck_assert_ptr_nonnull (c->decode);
          ck_assert_ptr_nonnull (c->size_key);
          ck_assert_int_eq (c->wire_type[0], '(');
          ck_assert_int_eq (c->wire_type[1], 'y');
          total++;
        }
    }
  ck_assert_uint_eq (total, proto_msg_n_types ());

  /* a family that adds a variable-length type (weights, as SharedModel)
   * and forgets its size */
  const ProtoMsgClass *payload = proto_msg_class_of (PROTO_MSG_SYNC_MODEL);
  ProtoMsgClass broken[2] = { *payload, *payload };
  broken[1].type = 200;
  broken[1].name = "NewModel";
  broken[1].size_key = NULL;
  ProtoMsgFamily fam = { "new", broken, 2 };
  g_autoptr (GError) error = NULL;
  ck_assert (!proto_msg_family_check (&fam, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "NewModel"));
  ck_assert_ptr_nonnull (strstr (error->message, "size function"));
  g_clear_error (&error);
  /* ... or claims a byte twice */
  broken[1] = *payload;
  broken[1].name = "NewModel";
  ck_assert (!proto_msg_family_check (&fam, &error));
  g_clear_error (&error);
  broken[1].type = 200;
  ck_assert (proto_msg_family_check (&fam, &error));
}
END_TEST

/* A message of type t with every field drawn from r: lists of 0 to 5
 * entries, weights of 0 to 6 values or none, a signal string or none, the
 * flags either way; a RaftAppend sometimes holds an entry, and a message
 * sometimes carries session numbers. */
static void
random_msg (DlRandom *r, ProtoMsgType t, ProtoMsg *m)
{
  proto_msg_init (m, t);
  m->node = (ProtoNodeId) dl_random_below (r, 1u << 20);
  m->round = (uint32_t) dl_random_below (r, 1000);
  m->comm_round = (uint32_t) dl_random_below (r, 3);
  m->degree = (uint32_t) dl_random_below (r, 1000);
  m->nb_participants = (uint32_t) dl_random_below (r, 50);
  m->key = dl_random_below (r, 1u << 30);
  m->signal = (ProtoSignal) dl_random_below (r, 2);
  m->helper = (guint8) dl_random_below (r, 2);
  m->wait_for_more = (guint8) dl_random_below (r, 2);
  m->joined_mid_training = (guint8) dl_random_below (r, 2);
  ProtoNodeId ids[5];
  guint n = (guint) dl_random_below (r, 6);
  for (guint i = 0; i < n; i++)
    ids[i] = (ProtoNodeId) dl_random_below (r, 1000);
  proto_msg_set_peers (m, ids, n);
  /* indices: as many as the peers (times 1, 2 or 4), as the values, or any */
  guint shape = (guint) dl_random_below (r, 5);
  guint nw = (guint) dl_random_below (r, 8);   /* 7: no weights */
  guint ni = shape < 3 ? n * (1u << shape) : shape == 3 ? (nw < 7 ? nw : 0) : (guint) dl_random_below (r, 9);
  if (ni)
    {
      uint32_t *ix = g_new (uint32_t, ni);
      for (guint i = 0; i < ni; i++)
        ix[i] = 3 * i + (uint32_t) dl_random_below (r, 3);
      proto_msg_take_indices (m, ix, ni);
    }
  if (nw < 7)
    {
      g_autoptr (LearnWeights) w = learn_weights_new (nw);
      proto_msg_set_weights (m, w);
    }
  guint ns = (guint) dl_random_below (r, 8);   /* 7: none */
  if (ns < 7)
    m->signal_data = g_strnfill (ns, 'a' + (char) ns);
  if (t == PROTO_MSG_RAFT_APPEND && dl_random_below (r, 2))
    {
      m->inner = g_new (ProtoMsg, 1);
      fill_msg (m->inner, PROTO_MSG_SYNC_MODEL);
    }
  if (dl_random_below (r, 8) == 0)
    m->sess_seq = (uint32_t) dl_random_below (r, 100) + 1;
}

/* For each type: the wire size is the encoded length, and two messages
 * with one size key have one size (a family whose size function leaves
 * out a variable part fails here), over the filled message and 400 random
 * ones. */
/* A message in flight is the world's largest record at all-to-all (a
 * million at 1 000 peers): ProtoMsg packs its type in 16 bits and its
 * flags in bits, 88 bytes, with nothing lost: each flag is its own bit, a
 * non-zero value reads TRUE, a type beyond one byte is kept, and a copy
 * keeps them all. */
START_TEST (test_message_packed)
{
  ck_assert_uint_le (sizeof (ProtoMsg), 88);
  volatile guint8 two = 2;   /* a non-zero that is not 1 */
  for (guint bit = 0; bit < 3; bit++)
    {
      ProtoMsg m, c;
      proto_msg_init (&m, PROTO_MSG_TYPE_LIMIT + 44);
      m.signal = 0xfe;
      if (bit == 0)
        m.wait_for_more = two;
      if (bit == 1)
        m.joined_mid_training = two;
      if (bit == 2)
        m.helper = two;
      proto_msg_copy (&c, &m);
      const ProtoMsg *ms[] = { &m, &c };
      for (guint i = 0; i < 2; i++)
        {
          ck_assert_uint_eq (ms[i]->type, PROTO_MSG_TYPE_LIMIT + 44);
          ck_assert_uint_eq (ms[i]->signal, 0xfe);
          ck_assert_uint_eq (ms[i]->node, PROTO_NO_NODE);
          ck_assert_int_eq (ms[i]->wait_for_more, bit == 0);
          ck_assert_int_eq (ms[i]->joined_mid_training, bit == 1);
          ck_assert_int_eq (ms[i]->helper, bit == 2);
        }
      proto_msg_clear (&m);
      proto_msg_clear (&c);
    }
}
END_TEST

START_TEST (test_wire_size_key)
{
  ProtoMsgType t = proto_msg_type_at ((guint) _i);
  g_autoptr (GHashTable) sizes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (DlRandom) r = dl_random_new (7, "wire-key", t);
  guint keyed = 0;
  for (guint i = 0; i <= 400; i++)
    {
      ProtoMsg m;
      if (i == 0)
        fill_msg (&m, t);
      else
        random_msg (r, t, &m);
      g_autoptr (GBytes) b = proto_msg_encode (&m);
      gsize size = proto_msg_wire_size (&m);
      ck_assert_uint_eq (g_bytes_get_size (b), size);
      if (!proto_msg_class_of (t)->charged_size)
        ck_assert_uint_eq (proto_msg_charged_size (&m), size);
      guint64 key = proto_msg_wire_key (&m);
      if (key != PROTO_MSG_WIRE_KEY_NONE)
        {
          keyed++;
          ck_assert_uint_eq (key >> 56, t);
          gpointer seen = g_hash_table_lookup (sizes, &key);
          if (seen)
            ck_assert_msg ((gsize) GPOINTER_TO_SIZE (seen) == size, "%s: key %" G_GINT64_MODIFIER "x sized %zu and %zu",
                           proto_msg_type_name (t), key, (gsize) GPOINTER_TO_SIZE (seen), size);
          else
            g_hash_table_insert (sizes, g_memdup2 (&key, sizeof key), GSIZE_TO_POINTER (size));
        }
      else
        ck_assert (m.sess_seq || m.sess_ack || m.inner || proto_msg_class_of (t)->size_key (&m) == PROTO_MSG_WIRE_KEY_NONE);
      proto_msg_clear (&m);
    }
  /* a type whose size is cached at all is cached for a good share of them */
  if (proto_msg_class_of (t)->size_key != proto_msg_size_unkeyed)
    ck_assert_uint_gt (keyed, 40);
}
END_TEST

/* The session envelope (protocol/replica/): any message may carry its
 * numbers; without them the wire form is the plain one, byte for byte. */
START_TEST (test_session_envelope)
{
  ProtoMsg m, back;
  fill_msg (&m, PROTO_MSG_ROUND_PEERS);
  gsize plain = proto_msg_wire_size (&m);
  m.sess_seq = 12;
  m.sess_ack = 7;
  gsize enveloped = proto_msg_wire_size (&m);
  ck_assert_uint_gt (enveloped, plain);
  ck_assert_uint_le (enveloped, plain + 16);
  g_autoptr (GBytes) b = proto_msg_encode (&m);
  ck_assert (proto_msg_decode (b, &back, NULL));
  ck_assert_uint_eq (back.sess_seq, 12);
  ck_assert_uint_eq (back.sess_ack, 7);
  ck_assert_uint_eq (back.n_peers, m.n_peers);
  ck_assert_uint_eq (back.round, m.round);
  proto_msg_clear (&back);
  m.sess_seq = m.sess_ack = 0;
  ck_assert_uint_eq (proto_msg_wire_size (&m), plain);
  proto_msg_clear (&m);
  /* an envelope in an envelope is not a message */
  GVariant *in = g_variant_new ("(uuv)", 1u, 2u, g_variant_new ("(uuv)", 3u, 4u, g_variant_new ("(y)", 0)));
  g_autoptr (GVariant) outer = g_variant_ref_sink (g_variant_new_variant (in));
  g_autoptr (GBytes) nb = g_variant_get_data_as_bytes (outer);
  g_autoptr (GError) error = NULL;
  ck_assert (!proto_msg_decode (nb, &back, &error));
}
END_TEST

START_TEST (test_payload_charges_real_size)
{
  g_autoptr (LearnWeights) w = learn_weights_new (100000);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
  proto_msg_set_weights (&m, w);
  gsize size = proto_msg_wire_size (&m);
  ck_assert_uint_ge (size, 400000);
  ck_assert_uint_lt (size, 400000 + 64);
  proto_msg_clear (&m);
}
END_TEST

static gboolean
decode_fails (const void *data, gsize len)
{
  g_autoptr (GBytes) b = g_bytes_new (data, len);
  ProtoMsg m;
  g_autoptr (GError) error = NULL;
  if (proto_msg_decode (b, &m, &error))
    {
      proto_msg_clear (&m);
      return FALSE;
    }
  ck_assert (error != NULL && error->domain == PROTO_ERROR);
  return TRUE;
}

START_TEST (test_decode_untrusted)
{
  ck_assert (decode_fails ("", 0));
  /* every truncation of a valid SharedModel and PeersForRound is rejected or
   * decodes to something sane, never a crash */
  for (int t = 0; t < 2; t++)
    {
      ProtoMsg m;
      fill_msg (&m, t ? PROTO_MSG_SYNC_MODEL : PROTO_MSG_ROUND_PEERS);
      g_autoptr (GBytes) b = proto_msg_encode (&m);
      gsize n;
      const guchar *d = g_bytes_get_data (b, &n);
      for (gsize len = 0; len < n; len++)
        {
          g_autoptr (GBytes) part = g_bytes_new (d, len);
          ProtoMsg back;
          if (proto_msg_decode (part, &back, NULL))
            proto_msg_clear (&back);
        }
      proto_msg_clear (&m);
    }
  /* random garbage */
  g_autoptr (DlRandom) r = dl_random_new (1, "garbage", 0);
  guchar buf[256];
  for (int i = 0; i < 5000; i++)
    {
      gsize len = dl_random_below (r, sizeof buf) + 1;
      for (gsize k = 0; k < len; k++)
        buf[k] = (guchar) dl_random_below (r, 256);
      g_autoptr (GBytes) b = g_bytes_new (buf, len);
      ProtoMsg back;
      if (proto_msg_decode (b, &back, NULL))
        proto_msg_clear (&back);
    }
  /* a well-formed variant with the wrong fields for its type byte */
  {
    g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_variant (g_variant_new ("(yu)", (guchar) PROTO_MSG_SYNC_MODEL, 5u)));
    ck_assert (decode_fails (g_variant_get_data (v), g_variant_get_size (v)));
  }
  /* an unknown type byte */
  {
    g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_variant (g_variant_new ("(y)", (guchar) 200)));
    ck_assert (decode_fails (g_variant_get_data (v), g_variant_get_size (v)));
  }
  /* weights that are not whole float32s */
  {
    guchar three[3] = { 1, 2, 3 };
    g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_variant (g_variant_new (
        "(y@ay)", (guchar) PROTO_MSG_SYNC_MODEL,
        g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, three, 3, 1))));
    ck_assert (decode_fails (g_variant_get_data (v), g_variant_get_size (v)));
  }
  /* not a variant at all: a bare tuple */
  {
    g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new ("(y)", (guchar) 1));
    ck_assert (decode_fails (g_variant_get_data (v), g_variant_get_size (v)));
  }
}
END_TEST

/* The roles the world and the testbed ask instead of naming types
 * (proto_msg_type_role): the session's admission and signalling types
 * answer theirs; a type of no role, and a byte no family declares, answer
 * none; no role is two types'; the check refuses a role that is none of
 * them; and a machine's count by role sums its types' counts (the
 * families' own types of a role: their tests, as DISCO's
 * protocol/disco/tests/test-disco-machine). */
static guint
fake_received_count (const void *impl, ProtoMsgType type)
{
  (void) impl;
  return 100 + type;   /* a count of its own for each type */
}

START_TEST (test_roles)
{
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_HELLO), PROTO_MSG_ROLE_HELLO);
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_WELCOME), PROTO_MSG_ROLE_WELCOME);
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_SIGNAL), PROTO_MSG_ROLE_SIGNAL);
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_SYNC_MODEL), PROTO_MSG_ROLE_NONE);
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_ROUND_PEERS), PROTO_MSG_ROLE_NONE);
  ck_assert_int_eq (proto_msg_type_role (PROTO_MSG_TYPE_LIMIT), PROTO_MSG_ROLE_NONE);
  ck_assert_int_eq (proto_msg_type_role ((ProtoMsgType) -1), PROTO_MSG_ROLE_NONE);
  guint undeclared = 0, per_role[PROTO_MSG_N_ROLES] = { 0 };
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    if (!proto_msg_type_known (t))
      {
        ck_assert_int_eq (proto_msg_type_role (t), PROTO_MSG_ROLE_NONE);
        undeclared++;
      }
    else
      per_role[proto_msg_type_role (t)]++;
  ck_assert_uint_gt (undeclared, 0);
  for (guint k = PROTO_MSG_ROLE_NONE + 1; k < PROTO_MSG_N_ROLES; k++)
    ck_assert_uint_le (per_role[k], 1);   /* one type at most */
  ck_assert_uint_eq (per_role[PROTO_MSG_ROLE_HELLO], 1);
  ck_assert_uint_eq (per_role[PROTO_MSG_ROLE_WELCOME], 1);
  ck_assert_uint_eq (per_role[PROTO_MSG_ROLE_SIGNAL], 1);

  /* a role beyond the known ones */
  ProtoMsgClass odd = *proto_msg_class_of (PROTO_MSG_HELLO);
  odd.type = 200;
  odd.name = "Odd";
  odd.role = PROTO_MSG_N_ROLES;
  ProtoMsgFamily fam = { "new", &odd, 1 };
  g_autoptr (GError) error = NULL;
  ck_assert (!proto_msg_family_check (&fam, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "Odd"));
  odd.role = PROTO_MSG_ROLE_HELLO;
  ck_assert (proto_msg_family_check (&fam, NULL));

  /* a machine's received messages by role: the sum over the role's types */
  static const ProtoMachineClass fake = { .received_count = fake_received_count };
  ProtoMachine m = { &fake, NULL };
  for (guint k = PROTO_MSG_ROLE_NONE; k < PROTO_MSG_N_ROLES; k++)
    {
      guint sum = 0;
      for (guint i = 0; i < proto_msg_n_types (); i++)
        if (proto_msg_type_role (proto_msg_type_at (i)) == k)
          sum += 100 + proto_msg_type_at (i);
      ck_assert_uint_eq (proto_machine_received_role_count (&m, k), sum);
    }
}
END_TEST

/* A coordinator's observed relay: RECEIVED (when asked), then SENT to
 * the named peer, then the relay over the coordinator's stream, stamped
 * with the coordinator's state and round. */
static void
relay_observed_is (gboolean observe_received)
{
  ProtoMsg in;
  proto_msg_init (&in, PROTO_MSG_SIGNAL);
  in.node = 7;
  in.signal = PROTO_SIGNAL_OFFER;
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_session_relay_observed (&out, "collect", 4, 3, &in, observe_received);
  guint k = 0;
  ck_assert_uint_eq (proto_outbox_len (&out), observe_received ? 3 : 2);
  if (observe_received)
    {
      const ProtoObservation *o = &proto_outbox_get (&out, k++)->obs;
      ck_assert_int_eq (o->kind, PROTO_OBS_RECEIVED);
      ck_assert_uint_eq (o->other, 3);
      ck_assert_str_eq (o->state, "collect");
    }
  const ProtoAction *a = proto_outbox_get (&out, k++);
  ck_assert_int_eq (a->kind, PROTO_ACT_OBSERVE);
  ck_assert_int_eq (a->obs.kind, PROTO_OBS_SENT);
  ck_assert_uint_eq (a->obs.other, 7);
  ck_assert_int_eq (a->obs.round, 4);
  ck_assert_int_eq (a->obs.msg_type, PROTO_MSG_SIGNAL);
  ck_assert_str_eq (a->obs.detail, "");
  a = proto_outbox_get (&out, k++);
  ck_assert_int_eq (a->kind, PROTO_ACT_SEND);
  ck_assert_uint_eq (a->to, 7);
  ck_assert_int_eq (a->via, PROTO_VIA_SERVER);
  ck_assert_uint_eq (a->msg.node, 3);
  ck_assert_int_eq (a->msg.signal, PROTO_SIGNAL_OFFER);
  proto_outbox_clear (&out);
  proto_msg_clear (&in);
}

START_TEST (test_session_relay_observed)
{
  relay_observed_is (TRUE);
  relay_observed_is (FALSE);
}
END_TEST

/* The session layer's relay: the signal goes on with its sender as its
 * node and its data copied, whoever's coordinator relays it. */
START_TEST (test_session_relay)
{
  ProtoMsg in, out;
  proto_msg_init (&in, PROTO_MSG_SIGNAL);
  in.node = 7;   /* the destination */
  in.signal = PROTO_SIGNAL_ANSWER;
  in.signal_data = g_strdup ("sdp");
  proto_session_relay (&out, 3, &in);
  ck_assert_uint_eq (out.type, PROTO_MSG_SIGNAL);
  ck_assert_uint_eq (out.node, 3);
  ck_assert_int_eq (out.signal, PROTO_SIGNAL_ANSWER);
  ck_assert_str_eq (out.signal_data, "sdp");
  ck_assert_ptr_ne (out.signal_data, in.signal_data);
  proto_msg_clear (&in);
  proto_msg_clear (&out);
  /* the session's table is there whatever family runs: signal is its,
   * no family's (DISCO's, which spoke it first) */
  const ProtoMsgFamily *session = proto_msg_family_named ("session");
  ck_assert_ptr_nonnull (session);
  guint tables = 0;
  for (const ProtoMsgFamily *const *f = proto_msg_families (); *f; f++)
    for (guint i = 0; i < (*f)->n_types; i++)
      if ((*f)->types[i].type == PROTO_MSG_SIGNAL)
        {
          ck_assert_ptr_eq (*f, session);
          tables++;
        }
  ck_assert_uint_eq (tables, 1);
}
END_TEST

/* proto_wire_is_normal against g_variant_is_normal_form on mutated wire
 * bytes: byte flips (half of them in the last 16 bytes, where the
 * framing offsets live; a flip sets 0, 1, 2 or a random byte, so a
 * boolean goes bad), truncations and extensions. Each is checked with the
 * shipped threshold and with 0, so every container takes the rebuild
 * path; *n_bad counts the non-normal ones GLib saw. */
static void
wire_mutations_agree (GBytes *good, guint n, guint64 seed, guint *n_bad)
{
  g_autoptr (DlRandom) r = dl_random_new (seed, "wire-normal", 0);
  gsize len = g_bytes_get_size (good);
  guint8 *buf = g_malloc (len + 8);
  for (guint k = 0; k < n; k++)
    {
      memcpy (buf, g_bytes_get_data (good, NULL), len);
      gsize blen = len;
      guint kind = (guint) dl_random_below (r, 8);
      guint flips = kind < 6 ? 1 + (guint) dl_random_below (r, 2) : 0;
      for (guint f = 0; f < flips; f++)
        {
          gsize at = kind < 3 && len > 16 ? len - 1 - dl_random_below (r, 16) : dl_random_below (r, len);
          guint v = (guint) dl_random_below (r, 4);
          buf[at] = v < 3 ? (guint8) v : (guint8) dl_random_below (r, 256);
        }
      if (kind == 6)
        blen = 1 + dl_random_below (r, len - 1);
      if (kind == 7)
        for (guint e = (guint) dl_random_below (r, 8) + 1; e > 0; e--)
          buf[blen++] = (guint8) dl_random_below (r, 256);
      g_autoptr (GBytes) b = g_bytes_new (buf, blen);
      GVariant *v[3];
      for (guint i = 0; i < 3; i++)
        v[i] = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_VARIANT, b, FALSE));
      gboolean want = g_variant_is_normal_form (v[0]);
      ck_assert_msg (proto_wire_is_normal (v[1]) == want, "mutation %u of seed %" G_GUINT64_FORMAT, k, seed);
      ck_assert_msg (proto_wire_is_normal_at (v[2], 0, 0) == want, "mutation %u of seed %" G_GUINT64_FORMAT " (rebuild all)", k, seed);
      *n_bad += !want;
      for (guint i = 0; i < 3; i++)
        g_variant_unref (v[i]);
    }
  g_free (buf);
}

/* 17 000 weights: a Payload of 68 000 bytes, over the 64 KiB from which
 * proto_wire_is_normal rebuilds containers */
#define BIG_WEIGHTS 17000

static GBytes *
wire_of (ProtoMsgType t, gboolean big, gboolean envelope)
{
  ProtoMsg m;
  fill_msg (&m, t);
  gsize n_was = m.weights ? learn_weights_len (m.weights) : 0;
  if (big && n_was != 0)   /* a type that carries weights, with them */
    {
      g_autoptr (LearnWeights) w = learn_weights_new (BIG_WEIGHTS);
      float *x = learn_weights_data_mut (w);
      for (guint i = 0; i < BIG_WEIGHTS; i++)
        x[i] = (float) i * 0.25f;
      proto_msg_set_weights (&m, w);
      if (strcmp (proto_msg_type_name (t), "GossipPayload") == 0)   /* an index a value */
        {
          uint32_t *ix = g_new (uint32_t, BIG_WEIGHTS);
          for (guint i = 0; i < BIG_WEIGHTS; i++)
            ix[i] = 2 * i;
          proto_msg_take_indices (&m, ix, BIG_WEIGHTS);
        }
    }
  if (envelope)
    m.sess_seq = 9, m.sess_ack = 4;
  GBytes *b = proto_msg_encode (&m);
  proto_msg_clear (&m);
  return b;
}

/* Every type, small and with a big Payload, plain and in the session
 * envelope "(uuv)": the fast check agrees with GLib on every mutation,
 * and the unmutated bytes are normal. */
START_TEST (test_wire_normal_differential)
{
  ProtoMsgType t = proto_msg_type_at ((guint) _i);
  guint n_bad = 0;
  for (guint big = 0; big < 2; big++)
    for (guint env = 0; env < 2; env++)
      {
        g_autoptr (GBytes) b = wire_of (t, big, env);
        g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_VARIANT, b, FALSE));
        ck_assert (proto_wire_is_normal (v));
        wire_mutations_agree (b, big ? 40 : 150, 1000u * (guint) _i + 2 * big + env, &n_bad);
      }
  ck_assert_uint_gt (n_bad, 20);
}
END_TEST

/* Shapes no message has: a variant in a variant around a big array of
 * booleans, a maybe, a dict entry, doubles and a byte array; each
 * compared on its mutations, big and small. */
START_TEST (test_wire_normal_shapes)
{
  guint n_bad = 0;
  for (guint big = 0; big < 2; big++)
    {
      gsize n = big ? 70000 : 40;
      guint8 *bytes = g_malloc (n);
      gboolean *bools = g_new (gboolean, n);
      for (gsize i = 0; i < n; i++)
        bytes[i] = (guint8) i, bools[i] = i % 3 == 0;
      double d[] = { 1.5, -2.0, 1e300 };
      GVariant *kids[] = {
        g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, bytes, n, 1),
        g_variant_new_maybe (NULL, g_variant_new_string ("m")),
        g_variant_new_dict_entry (g_variant_new_string ("k"), g_variant_new_variant (g_variant_new_uint16 (7))),
        g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, d, 3, sizeof (double)),
        g_variant_new_array (G_VARIANT_TYPE_BOOLEAN, NULL, 0),
      };
      GVariantBuilder ab;
      g_variant_builder_init (&ab, G_VARIANT_TYPE ("ab"));
      for (gsize i = 0; i < n; i++)
        g_variant_builder_add (&ab, "b", bools[i]);
      g_variant_unref (g_variant_ref_sink (kids[4]));
      kids[4] = g_variant_builder_end (&ab);
      GVariant *tuple = g_variant_new_tuple (kids, G_N_ELEMENTS (kids));
      g_autoptr (GVariant) outer = g_variant_ref_sink (g_variant_new_variant (g_variant_new_variant (tuple)));
      g_autoptr (GBytes) b = g_variant_get_data_as_bytes (outer);
      wire_mutations_agree (b, big ? 60 : 300, 77 + big, &n_bad);
      g_free (bytes);
      g_free (bools);
    }
  ck_assert_uint_gt (n_bad, 20);
}
END_TEST

/* A big SharedModel through the new check still decodes to its fields. */
START_TEST (test_wire_normal_big_decodes)
{
  ProtoMsgType t = proto_msg_type_at ((guint) _i);
  g_autoptr (GBytes) b = wire_of (t, TRUE, TRUE);
  ProtoMsg m, back;
  fill_msg (&m, t);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (proto_msg_decode (b, &back, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (back.type, t);
  ck_assert_uint_eq (back.node, m.node);
  ck_assert_uint_eq (back.round, m.round);
  ck_assert_uint_eq (back.sess_seq, 9);
  ck_assert_uint_eq (back.sess_ack, 4);
  if (g_bytes_get_size (b) > 4 * BIG_WEIGHTS)   /* the type carries weights */
    {
      ck_assert (back.weights != NULL && learn_weights_len (back.weights) == BIG_WEIGHTS);
      const float *x = learn_weights_data (back.weights);
      for (guint i = 0; i < BIG_WEIGHTS; i++)
        ck_assert (x[i] == (float) i * 0.25f);
    }
  proto_msg_clear (&m);
  proto_msg_clear (&back);
}
END_TEST

static Suite *
message_suite (void)
{
  Suite *s = suite_create ("message");
  TCase *tc = tcase_create ("messages");
  tcase_add_test (tc, test_registry_complete);
  tcase_add_test (tc, test_roles);
  tcase_add_test (tc, test_session_relay);
  tcase_add_test (tc, test_session_relay_observed);
  tcase_add_loop_test (tc, test_type_bytes, 0, PROTO_MSG_TYPE_LIMIT);
  tcase_add_loop_test (tc, test_message_roundtrip, 0, (int) proto_msg_n_types ());
  tcase_add_test (tc, test_message_examples);
  tcase_add_loop_test (tc, test_wire_size_key, 0, (int) proto_msg_n_types ());
  tcase_add_test (tc, test_session_envelope);
  tcase_add_test (tc, test_message_packed);
  tcase_add_test (tc, test_payload_charges_real_size);
  tcase_add_test (tc, test_decode_untrusted);
  tcase_add_loop_test (tc, test_wire_normal_differential, 0, (int) proto_msg_n_types ());
  tcase_add_test (tc, test_wire_normal_shapes);
  tcase_add_loop_test (tc, test_wire_normal_big_decodes, 0, (int) proto_msg_n_types ());
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (message_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
