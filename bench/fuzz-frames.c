/* fuzz-frames.c — see fuzz-frames.h. */
#include "config.h"

#include "bench/fuzz-frames.h"
#include "sim/sim-frame.h"
#include "base/dl-random.h"

#include <string.h>

/* A valid message of a type drawn from r, with random fields. */
static void
random_msg (DlRandom *r, ProtoMsg *m)
{
  proto_msg_init (m, (ProtoMsgType) dl_random_below (r, PROTO_MSG_N_TYPES));
  m->node = (ProtoNodeId) dl_random_below (r, 1000);
  m->wait_for_more = dl_random_below (r, 2);
  m->joined_mid_training = dl_random_below (r, 2);
  m->nb_participants = (uint32_t) dl_random_below (r, 100);
  if (m->type == PROTO_MSG_PIPE_STEP || m->type == PROTO_MSG_PIPE_PUSH || m->type == PROTO_MSG_PIPE_RESULT)
    {
      m->nb_participants++;   /* a pipeline step carries at least one token */
      m->degree = 0;          /* through blocks [0, node) */
      m->node = MAX (m->node, 1);
    }
  m->round = (uint32_t) dl_random_below (r, 100);
  m->comm_round = (uint32_t) dl_random_below (r, 2);
  m->signal = (ProtoSignal) dl_random_below (r, 2);
  if (m->type == PROTO_MSG_PEERS_FOR_ROUND)
    {
      ProtoNodeId ids[8];
      guint n = (guint) dl_random_below (r, 8);
      for (guint i = 0; i < n; i++)
        ids[i] = (ProtoNodeId) dl_random_below (r, 1000);
      proto_msg_set_peers (m, ids, n);
    }
  if (m->type == PROTO_MSG_PAYLOAD || m->type == PROTO_MSG_SHARED_MODEL)
    {
      gsize n = (gsize) dl_random_below (r, 64);
      g_autoptr (LearnWeights) w = learn_weights_new (n);
      float *d = learn_weights_data_mut (w);
      for (gsize k = 0; k < n; k++)
        d[k] = (float) dl_random_uniform (r);
      proto_msg_set_weights (m, w);
    }
}

static gboolean
same_msg (const ProtoMsg *a, const ProtoMsg *b)
{
  g_autoptr (GBytes) x = proto_msg_encode (a);
  g_autoptr (GBytes) y = proto_msg_encode (b);
  return g_bytes_equal (x, y);
}

/* Feeds bytes in random chunks and drains the reader after each chunk. */
static gboolean
feed (DlRandom *r, const guint8 *data, gsize len, const ProtoMsg *expect, BenchFuzzStats *st)
{
  g_autoptr (SimFrameReader) rd = sim_frame_reader_new ();
  gsize at = 0;
  gboolean matched = expect == NULL;
  while (at < len)
    {
      gsize want = 1 + (gsize) dl_random_below (r, 64);   /* drawn once: MIN evaluates twice */
      gsize chunk = MIN (len - at, want);
      sim_frame_reader_push (rd, data + at, chunk);
      at += chunk;
      for (;;)
        {
          SimFrameKind kind;
          ProtoMsg m;
          SimFrameAuth auth;
          g_autoptr (GError) e = NULL;
          SimFrameResult res = sim_frame_reader_next (rd, &kind, &m, &auth, &e);
          if (res == SIM_FRAME_NEED_MORE)
            {
              st->need_more++;
              break;
            }
          if (res == SIM_FRAME_BAD)
            {
              g_assert (e != NULL);
              st->frames_bad++;
              return matched;   /* the owner closes the stream */
            }
          st->frames_ok++;
          if (kind == SIM_FRAME_MSG)
            {
              if (expect && !matched)
                matched = same_msg (&m, expect);
              proto_msg_clear (&m);
            }
        }
    }
  return matched;
}

gboolean
bench_fuzz_frames (guint64 inputs, uint64_t seed, BenchFuzzStats *st)
{
  memset (st, 0, sizeof *st);
  g_autoptr (DlRandom) r = dl_random_new (seed, "fuzz-frames", DL_RANDOM_NO_NODE);
  gboolean ok = TRUE;
  for (guint64 i = 0; i < inputs; i++)
    {
      st->inputs++;
      guint mode = (guint) dl_random_below (r, 4);
      if (mode == 0)
        {
          /* random bytes, sometimes behind a plausible length */
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
          continue;
        }
      ProtoMsg m;
      random_msg (r, &m);
      static const char key[] = "fuzz-frames secret";
      guint8 nonce[SIM_FRAME_NONCE_BYTES];
      for (gsize k = 0; k < sizeof nonce; k++)
        nonce[k] = (guint8) dl_random_below (r, 256);
      guint which = (guint) dl_random_below (r, 16);
      g_autoptr (GBytes) f = which == 0   ? sim_frame_encode_hello ((const guint8 *) key, sizeof key - 1, nonce, m.node, 0)
                             : which == 1 ? sim_frame_encode_challenge (nonce)
                                          : sim_frame_encode_msg (&m);
      gsize len;
      const guint8 *fd = g_bytes_get_data (f, &len);
      if (mode == 1)
        {
          /* valid: must come back as the same message */
          gboolean hello = fd[4] != SIM_FRAME_MSG;
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
      feed (r, b->data, b->len, NULL, st);
      proto_msg_clear (&m);
    }
  return ok;
}
