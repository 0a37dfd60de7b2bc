/* test-fedavg.c — the fedavg family (protocol/fedavg/): the sample-weighted
 * average and the draw of a round's clients (fedavg-agg.c), the server
 * behind the machine interface averaging what the drawn clients upload,
 * and the asynchronous modes: FedBuff's staleness weight and buffer flush,
 * FedAsync's mixing (fedavg-async.c), the client's update and offset
 * (fedavg-client.c), and the keys that choose them (fedavg-keys.c); the
 * fault search's plans and runs on fedavg, and the testbed's refusal. */
#include "config.h"

#include "learn/learn-weights.h"
#include "protocol/fedavg/fedavg-agg.h"
#include "protocol/fedavg/fedavg-config.h"
#include "protocol/fedavg/fedavg-msgs.h"
#include "protocol/proto-machine.h"
#include "explore/explore.h"
#include "results/res-query.h"
#include "testbed/testbed.h"
#include "tests/plan-check.h"
#include "sim/sim-world.h"
#include "scenario/sim-scenario.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- the average */

START_TEST (test_weighted_mean_two)
{
  const float a[] = { 1.0f, 2.0f }, b[] = { 4.0f, 8.0f };
  g_autoptr (LearnWeights) wa = learn_weights_new_from (a, 2);
  g_autoptr (LearnWeights) wb = learn_weights_new_from (b, 2);
  LearnWeights *ws[] = { wa, wb };
  const guint64 n[] = { 1, 3 };
  g_autoptr (LearnWeights) m = fedavg_agg_weighted_mean (ws, n, 2);
  /* 1/4 a + 3/4 b; the plain mean would be 2.5, 5 */
  ck_assert_float_eq_tol (learn_weights_data (m)[0], 3.25f, 1e-6f);
  ck_assert_float_eq_tol (learn_weights_data (m)[1], 6.5f, 1e-6f);
}
END_TEST

START_TEST (test_weighted_mean_equal_counts_is_mean)
{
  const float a[] = { 1.0f, -1.0f, 0.5f }, b[] = { 3.0f, 1.0f, 0.5f }, c[] = { 5.0f, 3.0f, 2.0f };
  g_autoptr (LearnWeights) wa = learn_weights_new_from (a, 3);
  g_autoptr (LearnWeights) wb = learn_weights_new_from (b, 3);
  g_autoptr (LearnWeights) wc = learn_weights_new_from (c, 3);
  LearnWeights *ws[] = { wa, wb, wc };
  const guint64 n[] = { 40, 40, 40 };
  g_autoptr (LearnWeights) m = fedavg_agg_weighted_mean (ws, n, 3);
  g_autoptr (LearnWeights) plain = learn_weights_mean (ws, 3);
  ck_assert (learn_weights_max_abs_diff (m, plain) < 1e-6);
  /* a heavy client pulls the average to itself */
  const guint64 heavy[] = { 1, 1, 998 };
  g_autoptr (LearnWeights) h = fedavg_agg_weighted_mean (ws, heavy, 3);
  ck_assert_float_eq_tol (learn_weights_data (h)[0], (1.0f + 3.0f + 998 * 5.0f) / 1000, 1e-5f);
  ck_assert_float_eq_tol (learn_weights_data (h)[2], (0.5f + 0.5f + 998 * 2.0f) / 1000, 1e-5f);
}
END_TEST

/* ---------------------------------------------------------------- the draw */

START_TEST (test_sample_size)
{
  ck_assert_uint_eq (fedavg_agg_sample_size (10, 0.1, 1), 1);
  ck_assert_uint_eq (fedavg_agg_sample_size (10, 0.3, 2), 3);
  ck_assert_uint_eq (fedavg_agg_sample_size (7, 0.5, 1), 4);    /* ceil */
  ck_assert_uint_eq (fedavg_agg_sample_size (10, 0.1, 3), 3);   /* min_participants is the floor */
  ck_assert_uint_eq (fedavg_agg_sample_size (2, 0.5, 5), 2);    /* never more than there are */
  ck_assert_uint_eq (fedavg_agg_sample_size (100, 1.0, 1), 100);
}
END_TEST

START_TEST (test_sample_distinct_and_deterministic)
{
  guint32 ids[20];
  for (guint i = 0; i < 20; i++)
    ids[i] = 100 + 3 * i;
  guint32 x[6], y[6], z[6];
  g_autoptr (DlRandom) a = dl_random_new (11, "fedavg-server", DL_RANDOM_NO_NODE);
  g_autoptr (DlRandom) b = dl_random_new (11, "fedavg-server", DL_RANDOM_NO_NODE);
  fedavg_agg_sample (a, ids, 20, 6, x);
  fedavg_agg_sample (b, ids, 20, 6, y);
  ck_assert (memcmp (x, y, sizeof x) == 0);   /* the same seed draws the same clients */
  for (guint i = 0; i < 6; i++)
    {
      ck_assert_uint_ge (x[i], 100);
      ck_assert_uint_eq ((x[i] - 100) % 3, 0);   /* one of the ids */
      for (guint j = 0; j < i; j++)
        ck_assert_uint_ne (x[i], x[j]);           /* without replacement */
    }
  /* other seeds draw other sets (of 38 760 six-sets, some seed of ten differs) */
  gboolean differs = FALSE;
  for (guint64 seed = 12; seed < 22 && !differs; seed++)
    {
      g_autoptr (DlRandom) c = dl_random_new (seed, "fedavg-server", DL_RANDOM_NO_NODE);
      fedavg_agg_sample (c, ids, 20, 6, z);
      differs = memcmp (x, z, sizeof x) != 0;
    }
  ck_assert (differs);
  /* m = n draws everyone */
  guint32 all[20];
  fedavg_agg_sample (a, ids, 20, 20, all);
  guint64 sum = 0;
  for (guint i = 0; i < 20; i++)
    sum += all[i];
  ck_assert_uint_eq (sum, 20 * 100 + 3 * 190);
}
END_TEST

/* ---------------------------------------------------------------- the server */

static ProtoOutbox out;

static void
feed_at (ProtoMachine *m, DlTime now, ProtoNodeId from, ProtoInputKind kind, const ProtoMsg *msg)
{
  ProtoInput in = { .kind = kind, .from = from, .via = PROTO_VIA_SERVER, .msg = msg };
  proto_outbox_reset (&out);
  proto_machine_handle (m, now, &in, &out);
}

static void
feed (ProtoMachine *m, ProtoNodeId from, ProtoInputKind kind, const ProtoMsg *msg)
{
  feed_at (m, 0, from, kind, msg);
}

static void
update (ProtoMachine *m, ProtoNodeId from, guint32 round, guint64 samples, float value)
{
  ProtoMsg u;
  proto_msg_init (&u, PROTO_MSG_FED_UPDATE);
  u.round = round;
  u.key = samples;
  g_autoptr (LearnWeights) w = learn_weights_new_from (&value, 1);
  proto_msg_set_weights (&u, w);
  feed (m, from, PROTO_IN_MESSAGE, &u);
  proto_msg_clear (&u);
}

static void
hello (ProtoMachine *m, ProtoNodeId from, guint64 samples)
{
  ProtoMsg h;
  proto_msg_init (&h, PROTO_MSG_FED_HELLO);
  h.key = samples;
  feed (m, from, PROTO_IN_MESSAGE, &h);
  proto_msg_clear (&h);
}

/* the FedModel or FedDone recipients of the last step */
static guint
sent_to (ProtoMsgType type, ProtoNodeId *to, LearnWeights **w)
{
  guint n = 0;
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    {
      ProtoAction *a = proto_outbox_get (&out, i);
      if (a->kind == PROTO_ACT_SEND && a->msg.type == type)
        {
          if (to)
            to[n] = a->to;
          if (w)
            *w = a->msg.weights;
          n++;
        }
    }
  return n;
}

static ProtoConfig
config (guint rounds, double fraction, guint min, guint64 seed)
{
  ProtoConfig c;
  proto_config_init (&c, "fedavg");
  c.rounds = rounds;
  *fedavg_config_mut (&c) = (FedavgConfig) { .fraction = fraction, .overcommit = 1.0, .round_timeout = 60 * DL_S };
  c.min_participants = min;
  c.seed = seed;
  return c;
}

START_TEST (test_server_round)
{
  const ProtoFamily *f = proto_family_lookup ("fedavg");
  ck_assert_ptr_nonnull (f);
  ProtoConfig cfg = config (1, 0.5, 2, 3);
  g_autoptr (ProtoMachine) s = f->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 10);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);   /* fewer than min */
  hello (s, 2, 30);
  ProtoNodeId drawn[8];
  /* 2 connected, C = 0.5: ceil(1) = 1, floor min_participants = 2 */
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, drawn, NULL), 2);
  hello (s, 3, 50);   /* joins mid-round: not drawn now */
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);
  const float a[] = { 2.0f }, b[] = { 6.0f };
  for (guint i = 0; i < 2; i++)
    {
      ProtoMsg u;
      proto_msg_init (&u, PROTO_MSG_FED_UPDATE);
      u.round = 0;
      u.key = drawn[i] == 1 ? 10 : 30;
      g_autoptr (LearnWeights) w = learn_weights_new_from (drawn[i] == 1 ? a : b, 1);
      proto_msg_set_weights (&u, w);
      feed (s, drawn[i], PROTO_IN_MESSAGE, &u);
      proto_msg_clear (&u);
    }
  /* one round: FedDone to all three with 10/40 x 2 + 30/40 x 6 = 5 */
  ProtoNodeId done[8];
  LearnWeights *g = NULL;
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, done, &g), 3);
  ck_assert_ptr_nonnull (g);
  ck_assert_float_eq_tol (learn_weights_data (g)[0], 5.0f, 1e-6f);
  ck_assert_str_eq (proto_machine_state_name (s), "done");
  proto_outbox_clear (&out);
}
END_TEST

START_TEST (test_server_leaver_not_waited)
{
  ProtoConfig cfg = config (2, 1.0, 2, 9);
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 5);
  hello (s, 2, 5);
  ProtoNodeId drawn[4];
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, drawn, NULL), 2);
  const float a[] = { 1.0f };
  ProtoMsg u;
  proto_msg_init (&u, PROTO_MSG_FED_UPDATE);
  u.key = 5;
  g_autoptr (LearnWeights) w = learn_weights_new_from (a, 1);
  proto_msg_set_weights (&u, w);
  feed (s, 1, PROTO_IN_MESSAGE, &u);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);   /* still waits for 2 */
  feed (s, 2, PROTO_IN_STREAM_CLOSED, NULL);
  /* round 0 ends with 1's update; round 1 waits for min_participants = 2 */
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 1);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);
  hello (s, 3, 5);
  LearnWeights *g = NULL;
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, drawn, &g), 2);
  ck_assert_float_eq_tol (learn_weights_data (g)[0], 1.0f, 1e-6f);   /* the global model: 1's */
  /* an update of another round is refused */
  u.round = 0;
  feed (s, 1, PROTO_IN_MESSAGE, &u);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_REJECTED), 1);
  proto_msg_clear (&u);
  proto_outbox_clear (&out);
}
END_TEST

/* overcommit 2: K = 1 of 4, two drawn, the first update alone is averaged
 * and the second refused */
START_TEST (test_server_overcommit_keeps_first)
{
  ProtoConfig cfg = config (1, 0.25, 1, 4);
  fedavg_config_mut (&cfg)->overcommit = 2.0;
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 5);   /* starts a round of 1 at once (min 1) */
  ProtoNodeId drawn[4];
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, drawn, NULL), 1);
  update (s, drawn[0], 0, 5, 0.0f);
  ck_assert_str_eq (proto_machine_state_name (s), "done");
  cfg.rounds = 2;
  g_autoptr (ProtoMachine) t = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  for (ProtoNodeId i = 1; i <= 4; i++)
    hello (t, i, 5);
  update (t, 1, 0, 5, 1.0f);   /* round 0: 1 alone (drawn: only client 1 was there) */
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, drawn, NULL), 2);   /* K = 1, 2 drawn */
  update (t, drawn[1], 1, 7, 9.0f);
  LearnWeights *g = NULL;
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, NULL, &g), 4);
  ck_assert_float_eq_tol (learn_weights_data (g)[0], 9.0f, 1e-6f);    /* the first K = 1 */
  update (t, drawn[0], 1, 5, 3.0f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_REJECTED), 1);
  proto_outbox_clear (&out);
}
END_TEST

/* a drawn client that never answers: the round ends at round_timeout */
START_TEST (test_server_round_timeout)
{
  ProtoConfig cfg = config (1, 1.0, 2, 5);
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 2);
  hello (s, 2, 2);
  ck_assert_int_eq (proto_machine_next_deadline (s), 60 * DL_S);
  update (s, 1, 0, 2, 4.0f);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, NULL, NULL), 0);
  feed_at (s, 60 * DL_S, PROTO_SERVER, PROTO_IN_DEADLINE, NULL);
  LearnWeights *g = NULL;
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, NULL, &g), 2);
  ck_assert_float_eq_tol (learn_weights_data (g)[0], 4.0f, 1e-6f);
  ck_assert_int_eq (proto_machine_next_deadline (s), DL_TIME_NEVER);
  proto_outbox_clear (&out);
}
END_TEST

/* ---------------------------------------------------------------- fedbuff, fedasync */

START_TEST (test_staleness_weight)
{
  ck_assert_double_eq_tol (fedavg_agg_staleness_weight (0, 0.5), 1.0, 1e-12);
  ck_assert_double_eq_tol (fedavg_agg_staleness_weight (3, 0.5), 0.5, 1e-12);        /* 1/sqrt(4) */
  ck_assert_double_eq_tol (fedavg_agg_staleness_weight (8, 0.5), 1.0 / 3, 1e-12);    /* 1/sqrt(9) */
  ck_assert_double_eq_tol (fedavg_agg_staleness_weight (1, 1.0), 0.5, 1e-12);
  ck_assert_double_eq_tol (fedavg_agg_staleness_weight (7, 0.0), 1.0, 1e-12);        /* no discount */
}
END_TEST

static ProtoConfig
async_config (FedavgMode mode, guint rounds, guint k, double lr, double mixing, guint min)
{
  ProtoConfig c = config (rounds, 1.0, min, 1);
  FedavgConfig *fc = fedavg_config_mut (&c);
  fc->mode = mode;
  fc->buffer_size = k;
  fc->server_lr = lr;
  fc->mixing = mixing;
  fc->staleness_power = 0.5;
  return c;
}

/* the version and first weight of the FedModel (or FedDone) of the last step to `to` */
static gboolean
model_to (ProtoNodeId to, ProtoMsgType type, guint32 *version, float *w0)
{
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    {
      ProtoAction *a = proto_outbox_get (&out, i);
      if (a->kind == PROTO_ACT_SEND && a->msg.type == type && a->to == to)
        {
          *version = a->msg.round;
          *w0 = a->msg.weights ? learn_weights_data (a->msg.weights)[0] : NAN;
          return TRUE;
        }
    }
  return FALSE;
}

/* K = 2, server_lr 1: nothing moves at the first update; at the second the
 * model moves by the mean delta; a delta one version old weighs
 * 1/sqrt(2) in the next buffer */
START_TEST (test_fedbuff_flush_and_staleness)
{
  ProtoConfig cfg = async_config (FEDAVG_MODE_FEDBUFF, 3, 2, 1.0, 0.6, 2);
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 5);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);   /* fewer than min 2 */
  hello (s, 2, 5);
  hello (s, 3, 5);
  guint32 v;
  float w;
  ck_assert (model_to (3, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 0);
  ck_assert (isnan (w));                                   /* version 0: w0, no weights */
  update (s, 1, 0, 5, 2.0f);                               /* delta 2, fresh */
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 0);   /* 1 of K = 2 */
  ck_assert (model_to (1, PROTO_MSG_FED_MODEL, &v, &w));   /* asked again: still version 0 */
  ck_assert_uint_eq (v, 0);
  update (s, 2, 0, 5, 4.0f);                               /* delta 4: the buffer flushes */
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 1);
  ck_assert (model_to (2, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 1);
  ck_assert_float_eq_tol (w, 3.0f, 1e-6f);                 /* 0 + 1/2 (2 + 4) */
  /* version 1: 3 uploads a delta of 8 from version 0 (tau 1), 1 one of 2
   * from version 1 (tau 0): 3 + 1/2 (8/sqrt(2) + 2) */
  update (s, 3, 0, 5, 8.0f);
  update (s, 1, 1, 5, 2.0f);
  ck_assert (model_to (1, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 2);
  ck_assert_float_eq_tol (w, 3.0f + 0.5f * (8.0f / sqrtf (2.0f) + 2.0f), 1e-5f);
  /* an update of a version the server has not made is refused */
  update (s, 2, 7, 5, 1.0f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_REJECTED), 1);
  /* the third version ends the run: FedDone to the three, the uploader once */
  update (s, 2, 2, 5, 0.0f);
  update (s, 3, 2, 5, 0.0f);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, NULL, NULL), 3);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_MODEL, NULL, NULL), 0);
  ck_assert_str_eq (proto_machine_state_name (s), "done");
  /* an update in flight from a client told is refused without an answer */
  update (s, 1, 2, 5, 0.0f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_REJECTED), 1);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_DONE, NULL, NULL), 0);
  proto_outbox_clear (&out);
}
END_TEST

/* server_lr scales the step */
START_TEST (test_fedbuff_server_lr)
{
  ProtoConfig cfg = async_config (FEDAVG_MODE_FEDBUFF, 5, 1, 0.25, 0.6, 1);
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 5);
  update (s, 1, 0, 5, 8.0f);
  guint32 v;
  float w;
  ck_assert (model_to (1, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 1);
  ck_assert_float_eq_tol (w, 2.0f, 1e-6f);   /* 0.25 x 8 */
  proto_outbox_clear (&out);
}
END_TEST

/* FedAsync: every update a version, mixed in with alpha x s(tau) */
START_TEST (test_fedasync_mixing)
{
  ProtoConfig cfg = async_config (FEDAVG_MODE_FEDASYNC, 4, 10, 1.0, 0.5, 2);
  g_autoptr (ProtoMachine) s = proto_family_lookup ("fedavg")->new_coordinator (&cfg);
  proto_outbox_init (&out);
  hello (s, 1, 5);
  hello (s, 2, 5);
  update (s, 1, 0, 5, 4.0f);            /* buffer_size does not apply: a version at once */
  guint32 v;
  float w;
  ck_assert (model_to (1, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 1);
  ck_assert_float_eq_tol (w, 2.0f, 1e-6f);   /* (1 - 0.5) 0 + 0.5 x 4 */
  update (s, 2, 0, 5, 10.0f);           /* tau 1: a = 0.5 / sqrt(2) */
  ck_assert (model_to (2, PROTO_MSG_FED_MODEL, &v, &w));
  ck_assert_uint_eq (v, 2);
  float a = 0.5f / sqrtf (2.0f);
  ck_assert_float_eq_tol (w, (1 - a) * 2.0f + a * 10.0f, 1e-5f);
  proto_outbox_clear (&out);
}
END_TEST

/* ---------------------------------------------------------------- the client */

/* a client (id 4, 7 samples, w0 = 1) that said FedHello */
static ProtoMachine *
started_client (const ProtoConfig *cfg)
{
  const float w0v = 1.0f;
  g_autoptr (LearnWeights) w0 = learn_weights_new_from (&w0v, 1);
  g_autoptr (DlRandom) rng = dl_random_new (1, "test", DL_RANDOM_NO_NODE);
  ProtoPeerEnv env = { .id = 4, .initial = w0, .rng = rng, .region = "", .speed = 1, .samples = 7 };
  ProtoMachine *c = proto_family_lookup ("fedavg")->new_peer (cfg, &env);
  proto_outbox_init (&out);
  feed (c, PROTO_SERVER, PROTO_IN_START, NULL);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_HELLO, NULL, NULL), 1);
  return c;
}

/* the model the one START_TRAINING of the last input starts from */
static LearnWeights *
started_from (void)
{
  LearnWeights *start = NULL;
  guint n = 0;
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    if (proto_outbox_get (&out, i)->kind == PROTO_ACT_START_TRAINING)
      {
        start = proto_outbox_get (&out, i)->weights;
        n++;
      }
  ck_assert_uint_eq (n, 1);
  ck_assert_ptr_nonnull (start);
  return start;
}

/* FedModel(round, one weight of `value`; NULL: no weights) to the client */
static void
client_model_msg (ProtoMachine *c, guint32 round, const float *value)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_FED_MODEL);
  m.round = round;
  g_autoptr (LearnWeights) w = value ? learn_weights_new_from (value, 1) : NULL;
  if (w)
    proto_msg_set_weights (&m, w);
  feed (c, PROTO_SERVER, PROTO_IN_MESSAGE, &m);
  proto_msg_clear (&m);
}

/* the client's training ends with one weight of `value`: it uploads */
static void
client_trained (ProtoMachine *c, float value)
{
  g_autoptr (LearnWeights) trained = learn_weights_new_from (&value, 1);
  ProtoInput in = { .kind = PROTO_IN_TRAINING_DONE, .from = PROTO_NO_NODE, .weights = trained };
  proto_outbox_reset (&out);
  proto_machine_handle (c, 0, &in, &out);
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_UPDATE, NULL, NULL), 1);
}

/* the client: trains from w0 + offset; uploads (FedBuff) trained - start,
 * (FedAsync) trained - w0, with the version it started from */
static void
client_round_trip (FedavgMode mode, float expect_up)
{
  ProtoConfig cfg = async_config (mode, 3, 2, 1.0, 0.6, 1);
  g_autoptr (ProtoMachine) c = started_client (&cfg);
  const float off = 2.0f;
  client_model_msg (c, 2, &off);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 3.0f, 1e-6f);   /* w0 + offset */
  ck_assert_float_eq_tol (learn_weights_data (proto_machine_model (c))[0], 3.0f, 1e-6f);
  client_trained (c, 5.0f);
  LearnWeights *up = NULL;
  ck_assert_uint_eq (sent_to (PROTO_MSG_FED_UPDATE, NULL, &up), 1);
  ck_assert_ptr_nonnull (up);
  ck_assert_float_eq_tol (learn_weights_data (up)[0], expect_up, 1e-6f);
  for (guint i = 0; i < proto_outbox_len (&out); i++)
    if (proto_outbox_get (&out, i)->kind == PROTO_ACT_SEND)
      {
        ck_assert_uint_eq (proto_outbox_get (&out, i)->msg.round, 2);   /* the version it started from */
        ck_assert_uint_eq (proto_outbox_get (&out, i)->msg.key, 7);     /* its samples */
      }
  proto_outbox_clear (&out);
}

START_TEST (test_client_fedbuff_sends_delta)
{
  client_round_trip (FEDAVG_MODE_FEDBUFF, 2.0f);    /* 5 - (1 + 2) */
}
END_TEST

START_TEST (test_client_fedasync_sends_offset)
{
  client_round_trip (FEDAVG_MODE_FEDASYNC, 4.0f);   /* 5 - 1 */
}
END_TEST

/* sync: the server draws a client again for a round it has trained in (a
 * round that got no update is drawn again: its update was lost or late).
 * The client trains again from the model the server sent, not from its
 * own trained one, and observes the round's global model once (explore
 * found the second round-end: monotone-rounds, fedavg-churn.ini seed 436;
 * protocol/fedavg/scenarios/fedavg-redrawn-round.ini) */
START_TEST (test_client_redrawn_round)
{
  ProtoConfig cfg = config (5, 1.0, 1, 1);
  const float g = 3.0f;
  g_autoptr (ProtoMachine) c = started_client (&cfg);
  /* round 0 (no weights: w0), drawn twice */
  client_model_msg (c, 0, NULL);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 1.0f, 1e-6f);
  client_trained (c, 5.0f);
  client_model_msg (c, 0, NULL);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 1.0f, 1e-6f);
  client_trained (c, 5.0f);
  /* round 2 (the global model after 2 rounds), drawn twice */
  client_model_msg (c, 2, &g);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 3.0f, 1e-6f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 1);
  client_trained (c, 5.0f);
  client_model_msg (c, 2, &g);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 3.0f, 1e-6f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 0);   /* round 2's model: seen */
  /* drawn again while it trains: the kept FedModel is trained from the server's model too */
  client_model_msg (c, 2, &g);
  ProtoPeerView v;
  proto_machine_view (c, &v);
  ck_assert_uint_eq (v.rounds_done, 2);
  client_trained (c, 5.0f);
  ck_assert_float_eq_tol (learn_weights_data (started_from ())[0], 3.0f, 1e-6f);
  ck_assert_uint_eq (proto_outbox_count_obs (&out, PROTO_OBS_ROUND_END), 0);
  proto_outbox_clear (&out);
}
END_TEST

/* the keys: a fake lookup over the family's rows and the given values */
typedef struct {
  ProtoKeyLookup l;
  const char *const *given;   /* "key=value", NULL-ended ([protocol] keys) */
} FakeKeys;

static const char *
fake_value (const ProtoKeyLookup *l, const char *section, const char *key)
{
  const FakeKeys *f = (const FakeKeys *) l;
  gsize n = strlen (key);
  for (guint i = 0; f->given[i]; i++)
    if (strncmp (f->given[i], key, n) == 0 && f->given[i][n] == '=')
      return f->given[i] + n + 1;
  const ProtoFamilyKeys *k = proto_family_lookup ("fedavg")->keys;
  for (guint i = 0; i < k->n_rows; i++)
    if (strcmp (k->rows[i].section, section) == 0 && strcmp (k->rows[i].key, key) == 0)
      return k->rows[i].def;
  if (strcmp (key, "min_participants") == 0)
    return "3";
  if (strcmp (key, "coordinator_replicas") == 0)
    return "1";
  return NULL;
}

static gboolean
fake_given (const ProtoKeyLookup *l, const char *section, const char *key)
{
  (void) section;
  const FakeKeys *f = (const FakeKeys *) l;
  gsize n = strlen (key);
  for (guint i = 0; f->given[i]; i++)
    if (strncmp (f->given[i], key, n) == 0 && f->given[i][n] == '=')
      return TRUE;
  return FALSE;
}

/* configure with the given [protocol] values: TRUE, or FALSE with the bad key */
static gboolean
configure (ProtoConfig *cfg, const char *const *given, const char **bad)
{
  FakeKeys f = { .l = { .value = fake_value, .given = fake_given }, .given = given };
  proto_config_init (cfg, "fedavg");
  g_autoptr (GError) e = NULL;
  gboolean ok = proto_family_lookup ("fedavg")->keys->configure (cfg, &f.l, &e);
  *bad = ok ? NULL : f.l.bad_key;
  return ok;
}

START_TEST (test_keys_modes)
{
  ProtoConfig cfg;
  const char *bad;
  const char *const sync[] = { NULL };
  ck_assert (configure (&cfg, sync, &bad));
  ck_assert_int_eq (fedavg_config (&cfg)->mode, FEDAVG_MODE_SYNC);
  const char *const buff[] = { "fedavg_mode=fedbuff", "buffer_size=4", "server_lr=0.5", NULL };
  ck_assert (configure (&cfg, buff, &bad));
  ck_assert_int_eq (fedavg_config (&cfg)->mode, FEDAVG_MODE_FEDBUFF);
  ck_assert_uint_eq (fedavg_config (&cfg)->buffer_size, 4);
  ck_assert_double_eq_tol (fedavg_config (&cfg)->server_lr, 0.5, 1e-12);
  ck_assert_double_eq_tol (fedavg_config (&cfg)->staleness_power, 0.5, 1e-12);   /* 1/sqrt(1 + tau) */
  const char *const asyn[] = { "fedavg_mode=fedasync", "mixing=0.9", NULL };
  ck_assert (configure (&cfg, asyn, &bad));
  ck_assert_int_eq (fedavg_config (&cfg)->mode, FEDAVG_MODE_FEDASYNC);
  ck_assert_double_eq_tol (fedavg_config (&cfg)->mixing, 0.9, 1e-12);
  /* a knob of another mode at its default passes (an exported scenario
   * gives every key); at another value it is an error, naming the key */
  const char *const k_def[] = { "buffer_size=10", "mixing=0.6", NULL };
  ck_assert (configure (&cfg, k_def, &bad));
  const char *const f_def[] = { "fedavg_mode=fedbuff", "fraction=10%", "overcommit=1", NULL };
  ck_assert (configure (&cfg, f_def, &bad));
  const char *const k_sync[] = { "buffer_size=4", NULL };
  ck_assert (!configure (&cfg, k_sync, &bad));
  ck_assert_str_eq (bad, "buffer_size");
  const char *const f_buff[] = { "fedavg_mode=fedbuff", "fraction=50%", NULL };
  ck_assert (!configure (&cfg, f_buff, &bad));
  ck_assert_str_eq (bad, "fraction");
  const char *const m_buff[] = { "fedavg_mode=fedbuff", "mixing=0.5", NULL };
  ck_assert (!configure (&cfg, m_buff, &bad));
  ck_assert_str_eq (bad, "mixing");
  const char *const mix0[] = { "fedavg_mode=fedasync", "mixing=0", NULL };
  ck_assert (!configure (&cfg, mix0, &bad));
  ck_assert_str_eq (bad, "mixing");
  const char *const lr0[] = { "fedavg_mode=fedbuff", "server_lr=0", NULL };
  ck_assert (!configure (&cfg, lr0, &bad));
  ck_assert_str_eq (bad, "server_lr");
}
END_TEST

/* fedavg's plans of drops and delays name only its own four types */
START_TEST (test_plans_name_fedavg)
{
  ck_assert_uint_gt (plan_check_family ("protocol/fedavg/scenarios/fedavg-basic.ini", "fedavg", "Fed"), 20);
}
END_TEST

/* A search on fedavg under drops and delays fires drop rules on fedavg's
 * messages (the world's `drop` facts), and every failing run's plan names
 * only them; -j changes nothing. */
START_TEST (test_search_fedavg)
{
  g_autofree char *path = plan_check_path ("protocol/fedavg/scenarios/fedavg-churn.ini");
  ExploreSpace sp = { 0 };
  g_autoptr (GError) error = NULL;
  ck_assert (explore_parse_faults ("drop,delay,crash,leave", &sp, &error));
  guint64 seed = 0;
  ck_assert_msg (explore_space_load (&sp, path, NULL, &seed, &error), "%s", error ? error->message : "?");
  ExploreSearchOptions o = { .path = path, .sp = &sp, .base = seed, .runs = 40, .jobs = 1, .keep_plans = TRUE };
  g_autoptr (ExploreSearch) s = explore_search_run (&o);
  ck_assert_uint_eq (s->done, 40);
  ck_assert_uint_eq (s->invalid, 0);
  ck_assert_uint_gt (g_hash_table_size (s->rules), 0);
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, s->rules);
  while (g_hash_table_iter_next (&it, &k, NULL))
    ck_assert_msg (g_str_has_prefix (k, "Fed"), "a drop rule on %s fired in a fedavg run", (char *) k);
  for (guint i = 0; i < s->failures->len; i++)
    {
      ExploreFailure *f = s->failures->pdata[i];
      ck_assert_uint_eq (f->plans->len, f->seeds->len);
      for (guint p = 0; p < f->plans->len; p++)
        {
          GPtrArray *plan = f->plans->pdata[p];
          for (guint l = 0; l < plan->len; l++)
            {
              g_autofree char *type = NULL, *dir = NULL;
              if (plan_check_msg_of_line (plan->pdata[l], &type, &dir))
                ck_assert_msg (g_str_has_prefix (type, "Fed"), "%s", (char *) plan->pdata[l]);
            }
        }
    }
  ExploreCoverage c;
  explore_coverage (s, &sp, &c);
  ck_assert_uint_eq (c.n_states, sp.family->n_peer_states);
  ck_assert (strstr (c.rules_never, "PeersForRound") == NULL);
  explore_coverage_clear (&c);
  /* two threads: the same failures, seeds and rules */
  o.jobs = 2;
  g_autoptr (ExploreSearch) s2 = explore_search_run (&o);
  ck_assert_uint_eq (s2->failing, s->failing);
  ck_assert_uint_eq (s2->failures->len, s->failures->len);
  ck_assert_uint_eq (g_hash_table_size (s2->rules), g_hash_table_size (s->rules));
  for (guint i = 0; i < s->failures->len; i++)
    ck_assert_str_eq (((ExploreFailure *) s2->failures->pdata[i])->signature,
                      ((ExploreFailure *) s->failures->pdata[i])->signature);
}
END_TEST

/* fedavg's machines do not run on sockets: the testbed refuses the
 * family before a database, a process or a socket is made (db NULL is
 * never touched), with the family's reason */
START_TEST (test_testbed_refuses)
{
  g_autofree char *path = plan_check_path ("protocol/fedavg/scenarios/fedavg-basic.ini");
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "?");
  TestbedReport rep;
  testbed_report_init (&rep);
  TestbedRunStatus st = testbed_run_point (s, s->points->pdata[0], s->seed, NULL, NULL, "/nonexistent/dlsim",
                                           TESTBED_LOOPBACK, &rep, &error);
  ck_assert_int_eq (st, TESTBED_RUN_ERROR);
  ck_assert_msg (g_str_has_prefix (error->message, "[protocol] family = fedavg: "), "%s", error->message);
  testbed_report_clear (&rep);
}
END_TEST

/* FedDone's first send (by the server) and last reception */
typedef struct {
  DlTime first_sent, last_received;
} FanRec;

static void
fan_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  FanRec *r = ud;
  if (strcmp (proto_msg_type_name (o->msg_type), "FedDone") != 0)
    return;
  if (o->kind == PROTO_OBS_SENT && node == PROTO_SERVER && r->first_sent == DL_TIME_NEVER)
    r->first_sent = t;
  if (o->kind == PROTO_OBS_RECEIVED)
    r->last_received = MAX (r->last_received, t);
}

/* [network] server_uplink (moved from tests/test-world.c, which names no
 * family): FedAvg's server sends its final model
 * (FedDone, 4 000 015 B, 4 182 373 B on the wire) to 10 clients at once.
 * Unlimited (0, the default), each copy takes a client's 20 Mbit/s
 * downlink: 1.673 s; at 100 Mbit/s the ten share the server's uplink
 * (10 Mbit/s each): 10 copies x 8 / 100 Mbit/s = 3.346 s; plus the 50 ms
 * latency.  Loop: 0, 100Mbps.  Under fluid, whose bound this is (tcp's
 * slow start adds its ramp: docs/world.md, "ns-3", fan-out). */
START_TEST (test_server_uplink_shared)
{
  static const char *ini = "[protocol]\nfamily = fedavg\nfraction = 100%\nmin_participants = 10\n"
                           "[training]\nrounds = 1\n[model]\nsize = 1000000\n"
                           "[network]\ntransport = fluid\nlatency = 50ms\nserver_latency = 50ms\nuplink = 20Mbps\ndownlink = 20Mbps\n"
                           "[peers]\ncount = 10\n";
  g_autofree char *dir = g_dir_make_tmp ("dlsim-fan-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "fan.ini", NULL);
  ck_assert (g_file_set_contents (path, ini, -1, NULL));
  const char *const sets[] = { _i == 0 ? "network.server_uplink=0" : "network.server_uplink=100Mbps", NULL };
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) sc = sim_scenario_load (path, sets, &e);
  ck_assert_msg (sc != NULL, "%s", e ? e->message : "");
  SimBuilt b;
  ck_assert_msg (sim_scenario_build (sc, sc->points->pdata[0], 1, &b, &e), "%s", e ? e->message : "");
  FanRec r = { DL_TIME_NEVER, 0 };
  SimRecorder sr = { fan_obs, NULL, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&b.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert (r.first_sent != DL_TIME_NEVER);
  double wire = 4182373;
  double want = (_i == 0 ? wire * 8 / 20e6 : 10 * wire * 8 / 100e6) * 1e9 + 50e6;
  DlTime took = r.last_received - r.first_sent;
  ck_assert_msg (fabs ((double) took - want) <= 10, "%" G_GINT64_FORMAT " ns, want %.0f", took, want);
  sim_world_free (w);
  sim_built_clear (&b);
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

static Suite *
suite (void)
{
  Suite *s = suite_create ("fedavg");
  TCase *t = tcase_create ("aggregate");
  tcase_add_test (t, test_weighted_mean_two);
  tcase_add_test (t, test_weighted_mean_equal_counts_is_mean);
  tcase_add_test (t, test_sample_size);
  tcase_add_test (t, test_sample_distinct_and_deterministic);
  suite_add_tcase (s, t);
  t = tcase_create ("server");
  tcase_add_test (t, test_server_round);
  tcase_add_test (t, test_server_leaver_not_waited);
  tcase_add_test (t, test_server_overcommit_keeps_first);
  tcase_add_test (t, test_server_round_timeout);
  tcase_add_test (t, test_client_redrawn_round);
  tcase_add_loop_test (t, test_server_uplink_shared, 0, 2);
  suite_add_tcase (s, t);
  t = tcase_create ("async");
  tcase_add_test (t, test_staleness_weight);
  tcase_add_test (t, test_fedbuff_flush_and_staleness);
  tcase_add_test (t, test_fedbuff_server_lr);
  tcase_add_test (t, test_fedasync_mixing);
  tcase_add_test (t, test_client_fedbuff_sends_delta);
  tcase_add_test (t, test_client_fedasync_sends_offset);
  tcase_add_test (t, test_keys_modes);
  suite_add_tcase (s, t);
  /* the fault search and the testbed, as for the other families */
  t = tcase_create ("explore");
  tcase_set_timeout (t, 300);
  tcase_add_test (t, test_plans_name_fedavg);
  tcase_add_test (t, test_search_fedavg);
  tcase_add_test (t, test_testbed_refuses);
  suite_add_tcase (s, t);
  return s;
}

int
main (void)
{
  res_init ();
  SRunner *r = srunner_create (suite ());
  srunner_run_all (r, CK_NORMAL);
  int failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed ? 1 : 0;
}
