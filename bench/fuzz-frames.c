/* fuzz-frames.c — see fuzz-frames.h. */
#include "config.h"

#include "bench/fuzz-frames.h"
#include "testbed/testbed-frame.h"
#include "base/dl-random.h"
#include "protocol/proto-machine.h"
#include "scenario/sim-scenario.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include <string.h>

/* A node id below 1000. */
static ProtoNodeId
any_id (DlRandom *r)
{
  return (ProtoNodeId) dl_random_below (r, 1000);
}

/* A valid message of a type drawn from r, with random fields: the common
 * ones here, the rest as its family's class draws them (its `fuzz`: a
 * peer list, whose ids come from id, weights, what its decoder requires). */
static void
random_msg (DlRandom *r, ProtoMsg *m, ProtoNodeId (*id) (DlRandom *r))
{
  proto_msg_init (m, proto_msg_type_at ((guint) dl_random_below (r, proto_msg_n_types ())));
  m->node = any_id (r);
  m->wait_for_more = dl_random_below (r, 2);
  m->joined_mid_training = dl_random_below (r, 2);
  m->nb_participants = (uint32_t) dl_random_below (r, 100);
  m->round = (uint32_t) dl_random_below (r, 100);
  m->comm_round = (uint32_t) dl_random_below (r, 2);
  m->signal = (ProtoSignal) dl_random_below (r, 2);
  const ProtoMsgClass *c = proto_msg_class_of (m->type);
  if (c->fuzz)
    c->fuzz (m, r, id);
}

static gboolean
same_msg (const ProtoMsg *a, const ProtoMsg *b)
{
  g_autoptr (GBytes) x = proto_msg_encode (a);
  g_autoptr (GBytes) y = proto_msg_encode (b);
  return g_bytes_equal (x, y);
}

/* Feeds bytes in random chunks and drains the reader after each chunk;
 * half the time with an unauthenticated stream's limit. */
static gboolean
feed (DlRandom *r, const guint8 *data, gsize len, const ProtoMsg *expect, BenchFuzzStats *st)
{
  g_autoptr (TestbedFrameReader) rd = testbed_frame_reader_new ();
  if (!expect && dl_random_below (r, 2))
    testbed_frame_reader_set_max_body (rd, TESTBED_FRAME_HELLO_BODY);
  gsize at = 0;
  gboolean matched = expect == NULL;
  while (at < len)
    {
      gsize want = 1 + (gsize) dl_random_below (r, 64);   /* drawn once: MIN evaluates twice */
      gsize chunk = MIN (len - at, want);
      testbed_frame_reader_push (rd, data + at, chunk);
      at += chunk;
      for (;;)
        {
          TestbedFrameKind kind;
          ProtoMsg m;
          TestbedFrameAuth auth;
          g_autoptr (GError) e = NULL;
          TestbedFrameResult res = testbed_frame_reader_next (rd, &kind, &m, &auth, &e);
          if (res == TESTBED_FRAME_NEED_MORE)
            {
              st->need_more++;
              break;
            }
          if (res == TESTBED_FRAME_BAD)
            {
              g_assert (e != NULL);
              st->frames_bad++;
              return matched;   /* the owner closes the stream */
            }
          st->frames_ok++;
          if (kind == TESTBED_FRAME_MSG)
            {
              if (expect && !matched)
                matched = same_msg (&m, expect);
              proto_msg_clear (&m);
            }
        }
    }
  return matched;
}

static const char fuzz_key[] = "fuzz-frames secret";

/* A HELLO answering a CHALLENGE, intact or with one byte changed, read as
 * an unauthenticated stream reads it: its proof holds iff it is intact and
 * judged against the key, nonce and listener it was made for. */
static gboolean
fuzz_hello (DlRandom *r, BenchFuzzStats *st)
{
  guint8 nonce[TESTBED_FRAME_NONCE_BYTES];
  for (gsize k = 0; k < sizeof nonce; k++)
    nonce[k] = (guint8) dl_random_below (r, 256);
  ProtoNodeId id = dl_random_below (r, 4) == 0 ? (ProtoNodeId) dl_random_below (r, G_MAXUINT32)
                                               : (ProtoNodeId) dl_random_below (r, 8);
  ProtoNodeId to = (ProtoNodeId) dl_random_below (r, 4);
  const gsize klen = sizeof fuzz_key - 1;
  g_autoptr (GBytes) f = testbed_frame_encode_hello ((const guint8 *) fuzz_key, klen, nonce, id, to);
  g_autoptr (GByteArray) b = g_byte_array_new ();
  gsize len;
  const guint8 *fd = g_bytes_get_data (f, &len);
  g_byte_array_append (b, fd, (guint) len);
  gboolean intact = dl_random_below (r, 3) == 0;
  if (!intact)
    b->data[dl_random_below (r, b->len)] ^= (guint8) (1 + dl_random_below (r, 255));
  g_autoptr (TestbedFrameReader) rd = testbed_frame_reader_new ();
  testbed_frame_reader_set_max_body (rd, TESTBED_FRAME_HELLO_BODY);
  testbed_frame_reader_push (rd, b->data, b->len);
  TestbedFrameKind kind;
  ProtoMsg m;
  TestbedFrameAuth auth;
  TestbedFrameResult res = testbed_frame_reader_next (rd, &kind, &m, &auth, NULL);
  if (res != TESTBED_FRAME_OK)
    {
      st->frames_bad += res == TESTBED_FRAME_BAD;
      return !intact;   /* an intact HELLO must be read */
    }
  st->frames_ok++;
  if (kind == TESTBED_FRAME_MSG)
    {
      proto_msg_clear (&m);   /* a changed kind byte: 36 bytes that decode as a message */
      return !intact;
    }
  if (kind != TESTBED_FRAME_HELLO)
    return !intact;
  gboolean ok = testbed_frame_hello_verify (&auth, (const guint8 *) fuzz_key, klen, nonce, to);
  if (ok)
    st->hellos_verified++;
  else
    st->hellos_refused++;
  if (ok != intact)
    return FALSE;
  /* the same proof for another listener, nonce or secret fails */
  if (ok)
    {
      guint8 other[TESTBED_FRAME_NONCE_BYTES];
      memcpy (other, nonce, sizeof other);
      other[dl_random_below (r, sizeof other)] ^= 0x80;
      if (testbed_frame_hello_verify (&auth, (const guint8 *) fuzz_key, klen, nonce, to + 1)
          || testbed_frame_hello_verify (&auth, (const guint8 *) fuzz_key, klen, other, to)
          || testbed_frame_hello_verify (&auth, (const guint8 *) fuzz_key, klen - 1, nonce, to))
        return FALSE;
    }
  return TRUE;
}

/* A coordinator and a peer (p1) of every family that runs on the
 * testbed's sockets (the registry's, in its order), and of one more
 * scenario's config (extra, if not NULL), fed what an authenticated
 * stream may carry. */
#define MAX_MACHINES 16
typedef struct {
  ProtoConfig cfg[MAX_MACHINES];
  ProtoMachine *coord[MAX_MACHINES], *peer[MAX_MACHINES];
  DlRandom *rng[MAX_MACHINES];
  guint n;
  DlTime now;
  LearnWeights *w0;
  gboolean loaded[MAX_MACHINES];   /* cfg[i] read from its scenario (once: it does not change) */
  const char *extra;               /* the text of one more scenario, or NULL */
} Machines;

/* The config a scenario file that says only `text` loads to (its first
 * point, seed 1): every other key at its default, checked as a user's file
 * is, so the machines are ones a run can have (a pipeline of 0 blocks, say,
 * is refused there and must not be fuzzed here). */
static void
scenario_config (ProtoConfig *c, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("dlsim-fuzz-XXXXXX.ini", &path, &error);
  if (fd >= 0)
    close (fd);
  g_autoptr (SimScenario) sc = NULL;
  if (fd >= 0 && g_file_set_contents (path, text, -1, &error))
    sc = sim_scenario_load (path, NULL, &error);
  if (path)
    g_unlink (path);
  SimBuilt b;
  if (!sc || !sim_scenario_build (sc, sc->points->pdata[0], 1, &b, &error))
    g_error ("fuzz-frames: the config of \"%s\": %s", text, error ? error->message : "?");
  *c = b.cfg.proto;
  sim_built_clear (&b);
}

/* A coordinator and a started peer of family (NULL: of the scenario
 * ms->extra). */
static void
machines_add (Machines *ms, const char *family)
{
  g_assert (ms->n < MAX_MACHINES);
  ProtoConfig *c = &ms->cfg[ms->n];
  if (!ms->loaded[ms->n])
    {
      g_autofree char *text = family ? g_strdup_printf ("[protocol]\nfamily = %s\n", family)
                                     : g_strdup (ms->extra);
      scenario_config (c, text);
      ms->loaded[ms->n] = TRUE;
    }
  const ProtoFamily *f = proto_family_of (c);
  ms->rng[ms->n] = dl_random_new (1, "fuzz-machines", ms->n);
  ProtoPeerEnv env = { .initial = ms->w0, .rng = ms->rng[ms->n], .region = "", .speed = 1 };
  ms->coord[ms->n] = f->new_coordinator (c);
  ms->peer[ms->n] = f->new_peer (c, &env);
  ProtoOutbox out;
  proto_outbox_init (&out);
  ProtoInput start = { .kind = PROTO_IN_START };
  proto_machine_handle (ms->peer[ms->n], 0, &start, &out);
  proto_outbox_clear (&out);
  ms->n++;
}

static void
machines_start (Machines *ms)
{
  ms->w0 = learn_weights_new (4);
  ms->now = 0;
  ms->n = 0;
  for (guint i = 0; proto_family_at (i); i++)
    if (!proto_family_at (i)->no_testbed)
      machines_add (ms, proto_family_at (i)->name);
  if (ms->extra)
    machines_add (ms, NULL);
}

static void
machines_stop (Machines *ms)
{
  for (guint i = 0; i < ms->n; i++)
    {
      proto_machine_free (ms->coord[i]);
      proto_machine_free (ms->peer[i]);
      dl_random_free (ms->rng[i]);
    }
  learn_weights_unref (ms->w0);
  ms->n = 0;
}

/* An id a hostile stream might name: nobody, the server, the receiver
 * (p1), its sender, or one of a few peers. */
static ProtoNodeId
hostile_id (DlRandom *r)
{
  switch (dl_random_below (r, 6))
    {
    case 0: return PROTO_SERVER;
    case 1: return 1;
    case 2: return PROTO_NO_NODE;
    case 3: return (ProtoNodeId) dl_random_below (r, G_MAXUINT32);
    default: return (ProtoNodeId) dl_random_below (r, 6);
    }
}

static guint32
hostile_count (DlRandom *r)
{
  switch (dl_random_below (r, 4))
    {
    case 0: return 0;
    case 1: return G_MAXUINT32;
    case 2: return (guint32) dl_random_below (r, G_MAXUINT32);
    default: return (guint32) dl_random_below (r, 8);
    }
}

/* A well-formed message with hostile fields: if its frame decodes, every
 * machine takes it, from a hostile sender, then time jumps to a deadline. */
static void
fuzz_hostile (DlRandom *r, Machines *ms, BenchFuzzStats *st)
{
  ProtoMsg m;
  random_msg (r, &m, hostile_id);   /* the peers it lists: hostile ids */
  m.node = hostile_id (r);
  m.round = hostile_count (r);
  if (dl_random_below (r, 2))
    m.nb_participants = hostile_count (r);
  g_autoptr (GBytes) f = testbed_frame_encode_msg (&m);
  proto_msg_clear (&m);
  g_autoptr (TestbedFrameReader) rd = testbed_frame_reader_new ();
  gsize len;
  const guint8 *fd = g_bytes_get_data (f, &len);
  testbed_frame_reader_push (rd, fd, len);
  TestbedFrameKind kind;
  ProtoMsg d;
  TestbedFrameAuth auth;
  if (testbed_frame_reader_next (rd, &kind, &d, &auth, NULL) != TESTBED_FRAME_OK)
    {
      st->frames_bad++;   /* the decoder refuses it: it never reaches a machine */
      return;
    }
  st->frames_ok++;
  ProtoOutbox out;
  proto_outbox_init (&out);
  ms->now += (DlTime) dl_random_below (r, 1000) * DL_MS;
  for (guint i = 0; i < ms->n; i++)
    {
      ProtoInput to_coord = { .kind = PROTO_IN_MESSAGE, .from = (ProtoNodeId) (1 + dl_random_below (r, 5)),
                              .via = PROTO_VIA_SERVER, .msg = &d };
      proto_machine_handle (ms->coord[i], ms->now, &to_coord, &out);
      proto_outbox_reset (&out);
      gboolean link = dl_random_below (r, 2);
      ProtoInput to_peer = { .kind = PROTO_IN_MESSAGE, .from = link ? hostile_id (r) : PROTO_SERVER,
                             .via = link ? PROTO_VIA_LINK : PROTO_VIA_SERVER, .msg = &d };
      proto_machine_handle (ms->peer[i], ms->now, &to_peer, &out);
      proto_outbox_reset (&out);
      st->hostile_fed += 2;
      if (dl_random_below (r, 4) == 0)
        {
          ProtoMachine *mm = dl_random_below (r, 2) ? ms->coord[i] : ms->peer[i];
          DlTime at = proto_machine_next_deadline (mm);
          if (at != DL_TIME_NEVER && at >= ms->now)
            {
              ProtoInput due = { .kind = PROTO_IN_DEADLINE };
              proto_machine_handle (mm, at, &due, &out);
              proto_outbox_reset (&out);
            }
        }
    }
  proto_outbox_clear (&out);
  proto_msg_clear (&d);
}

/* random bytes, sometimes behind a plausible length */
static void
fuzz_random_bytes (DlRandom *r, BenchFuzzStats *st)
{
  gsize n = (gsize) dl_random_below (r, 300);
  g_autofree guint8 *b = g_malloc (n + 5);
  for (gsize k = 0; k < n + 5; k++)
    b[k] = (guint8) dl_random_below (r, 256);
  if (dl_random_below (r, 2))
    {
      b[0] = b[1] = 0;
      b[2] = (guint8) (n >> 8);
      b[3] = (guint8) n;
    }
  feed (r, b, n + 5, NULL, st);
}

/* 1 to 4 edits of a frame: a bit flipped, the rest cut, a byte put in,
 * the length field damaged */
static void
mutate (DlRandom *r, GByteArray *b)
{
  guint edits = 1 + (guint) dl_random_below (r, 4);
  for (guint k = 0; k < edits && b->len > 0; k++)
    {
      guint at = (guint) dl_random_below (r, b->len);
      switch (dl_random_below (r, 4))
        {
        case 0:
          b->data[at] ^= (guint8) (1u << dl_random_below (r, 8));
          break;
        case 1:
          g_byte_array_set_size (b, at);
          break;
        case 2:
          {
            guint8 junk = (guint8) dl_random_below (r, 256);
            g_byte_array_append (b, &junk, 1);
            memmove (b->data + at + 1, b->data + at, b->len - at - 1);
            b->data[at] = junk;
            break;
          }
        default:
          if (b->len >= 4)
            b->data[dl_random_below (r, 4)] = (guint8) dl_random_below (r, 256);
          break;
        }
    }
}

gboolean
bench_fuzz_frames (guint64 inputs, uint64_t seed, BenchFuzzStats *st)
{
  /* the default family at its robust version, when it has versions */
  gboolean versions = sim_scenario_key_applies ("protocol.version", proto_family_at (0)->name);
  return bench_fuzz_frames_with (inputs, seed, versions ? "[protocol]\nversion = robust\n" : NULL, st);
}

gboolean
bench_fuzz_frames_with (guint64 inputs, uint64_t seed, const char *extra, BenchFuzzStats *st)
{
  memset (st, 0, sizeof *st);
  g_autoptr (DlRandom) r = dl_random_new (seed, "fuzz-frames", DL_RANDOM_NO_NODE);
  gboolean ok = TRUE;
  Machines ms = { .extra = extra };
  for (guint64 i = 0; i < inputs; i++)
    {
      st->inputs++;
      if (i % 2000 == 0)
        {
          /* fresh machines now and then: hostile input meets every state */
          machines_stop (&ms);
          machines_start (&ms);
        }
      guint mode = (guint) dl_random_below (r, 6);
      if (mode == 4)
        {
          if (!fuzz_hello (r, st))
            ok = FALSE;
          continue;
        }
      if (mode == 5)
        {
          fuzz_hostile (r, &ms, st);
          continue;
        }
      if (mode == 0)
        {
          fuzz_random_bytes (r, st);
          continue;
        }
      ProtoMsg m;
      random_msg (r, &m, any_id);
      static const char key[] = "fuzz-frames secret";
      guint8 nonce[TESTBED_FRAME_NONCE_BYTES];
      for (gsize k = 0; k < sizeof nonce; k++)
        nonce[k] = (guint8) dl_random_below (r, 256);
      guint which = (guint) dl_random_below (r, 16);
      g_autoptr (GBytes) f = which == 0   ? testbed_frame_encode_hello ((const guint8 *) key, sizeof key - 1, nonce, m.node, 0)
                             : which == 1 ? testbed_frame_encode_challenge (nonce)
                                          : testbed_frame_encode_msg (&m);
      gsize len;
      const guint8 *fd = g_bytes_get_data (f, &len);
      if (mode == 1)
        {
          /* valid: must come back as the same message */
          gboolean hello = fd[4] != TESTBED_FRAME_MSG;
          if (!feed (r, fd, len, hello ? NULL : &m, st))
            ok = FALSE;
          else if (!hello)
            st->roundtrips++;
          proto_msg_clear (&m);
          continue;
        }
      /* mutated */
      g_autoptr (GByteArray) b = g_byte_array_new ();
      g_byte_array_append (b, fd, (guint) len);
      mutate (r, b);
      feed (r, b->data, b->len, NULL, st);
      proto_msg_clear (&m);
    }
  machines_stop (&ms);
  return ok;
}
