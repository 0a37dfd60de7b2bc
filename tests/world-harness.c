/* world-harness.c — the tests' recorder and setups of whole runs
 * (world-harness.h). */
#include "config.h"

#include "tests/world-harness.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static void
rec_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  WorldRec *r = ud;
  r->observations++;
  if (g_getenv ("WORLD_VERBOSE"))
    {
      g_autofree char *line = proto_observation_to_string (o);
      char b[DL_TIME_STR_LEN];
      fprintf (stderr, "%s %s%u %s\n", dl_time_format (t, b), node ? "p" : "S", node, line);
    }
  g_checksum_update (r->sum, (const guchar *) &t, sizeof t);
  g_checksum_update (r->sum, (const guchar *) &node, sizeof node);
  g_autofree char *s = proto_observation_to_string (o);
  g_checksum_update (r->sum, (const guchar *) s, -1);
  if (o->kind == PROTO_OBS_DROPPED)
    r->dropped++;
  if (r->watch && node == r->watch && !r->watch_model && r->world)
    {
      r->watch_model = learn_weights_ref (sim_world_peer_model (r->world, r->watch));
      r->origin_model = learn_weights_ref (sim_world_peer_model (r->world, r->watch_origin));
    }
  if (node == PROTO_SERVER && o->kind == PROTO_OBS_NOTE && strstr (o->detail, "stream closed")
      && r->first_close == 0)
    r->first_close = t;
  if (o->kind == PROTO_OBS_ROUND_END && node != PROTO_SERVER && r->world)
    {
      guint round = (guint) o->round;
      while (r->round_models->len <= round)
        g_ptr_array_add (r->round_models, g_ptr_array_new_with_free_func ((GDestroyNotify) learn_weights_unref));
      g_ptr_array_add (g_ptr_array_index (r->round_models, round),
                       learn_weights_ref (sim_world_peer_model (r->world, node)));
    }
}

static void
rec_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  WorldRec *r = ud;
  r->facts++;
  if (g_getenv ("WORLD_VERBOSE"))
    {
      char b[DL_TIME_STR_LEN];
      fprintf (stderr, "%s fact node=%u other=%u %s %s\n", dl_time_format (t, b), node, other, kind, detail);
    }
  g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT " %u %u %s %s", t, node, other, kind, detail);
  g_checksum_update (r->sum, (const guchar *) s, -1);
}

static void
rec_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double v)
{
  WorldRec *r = ud;
  if (round < 0)
    return;
  if (strcmp (name, "loss") == 0)
    {
      if ((guint) round >= r->round_loss->len)
        g_array_set_size (r->round_loss, round + 1);
      g_array_index (r->round_loss, double, round) += v;
      return;
    }
  if (strcmp (name, "accuracy") != 0)
    return;
  if ((guint) round >= r->round_acc->len)
    {
      g_array_set_size (r->round_acc, round + 1);
      g_array_set_size (r->round_acc_n, round + 1);
    }
  g_array_index (r->round_acc, double, round) += v;
  g_array_index (r->round_acc_n, guint, round) += 1;
}

void
world_rec_init (WorldRec *r)
{
  memset (r, 0, sizeof *r);
  r->sum = g_checksum_new (G_CHECKSUM_SHA256);
  r->round_models = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  r->round_acc = g_array_new (FALSE, TRUE, sizeof (double));
  r->round_acc_n = g_array_new (FALSE, TRUE, sizeof (guint));
  r->round_loss = g_array_new (FALSE, TRUE, sizeof (double));
}

void
world_rec_clear (WorldRec *r)
{
  g_checksum_free (r->sum);
  g_clear_pointer (&r->watch_model, learn_weights_unref);
  g_clear_pointer (&r->origin_model, learn_weights_unref);
  g_ptr_array_unref (r->round_models);
  g_array_unref (r->round_acc);
  g_array_unref (r->round_acc_n);
  g_array_unref (r->round_loss);
}

SimRecorder
world_recorder (WorldRec *r)
{
  return (SimRecorder) { rec_obs, rec_fact, rec_metric, NULL, r };
}


void
world_setup_softmax (WorldSetup *s, guint peers, guint rounds, uint64_t seed)
{
  sim_world_config_init (&s->cfg);
  s->cfg.seed = seed;
  s->cfg.n_peers = peers;
  s->cfg.max_peers = peers;
  s->cfg.proto.min_participants = peers;
  s->cfg.proto.rounds = rounds;
  g_autoptr (DlRandom) r = dl_random_new (seed, "data", DL_RANDOM_NO_NODE);
  s->all = learn_dataset_synthetic (1200, 8, 4, 3.0, r);
  learn_dataset_split (s->all, 0.25, r, &s->train, &s->test);
  s->cfg.train = s->train;
  s->cfg.test = s->test;
  s->cfg.model = (LearnModel) { .kind = LEARN_MODEL_SOFTMAX, .features = 8, .classes = 4,
                                .learning_rate = 0.01f, .batch_size = 16 };
}

void
world_setup_none (WorldSetup *s, guint peers, guint rounds, gsize size)
{
  memset (s, 0, sizeof *s);
  sim_world_config_init (&s->cfg);
  s->cfg.n_peers = peers;
  s->cfg.max_peers = MAX (peers, 10);
  s->cfg.proto.min_participants = peers;
  s->cfg.proto.rounds = rounds;
  s->cfg.model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = size };
}

void
world_setup_clear (WorldSetup *s)
{
  sim_world_config_clear (&s->cfg);
  learn_dataset_free (s->all);
  learn_dataset_free (s->train);
  learn_dataset_free (s->test);
}

void
world_assert_peer (SimWorld *w, guint i, const char *outcome)
{
  const char *got = sim_peer_outcome_name (sim_world_peer (w, i)->outcome);
  ck_assert_msg (strcmp (got, outcome) == 0, "p%u is %s, expected %s", i, got, outcome);
}

void
world_teardown (SimWorld *w, WorldRec *rec, WorldSetup *s)
{
  sim_world_free (w);
  world_rec_clear (rec);
  world_setup_clear (s);
}

SimWorld *
world_build (WorldSetup *s, WorldRec *rec)
{
  SimRecorder sr = world_recorder (rec);
  g_autoptr (GError) error = NULL;
  SimWorld *w = sim_world_new (&s->cfg, &sr, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  rec->world = w;
  return w;
}

const SimResult *
world_run (WorldSetup *s, WorldRec *rec, SimWorld **out_world)
{
  SimWorld *w = world_build (s, rec);
  const SimResult *res = sim_world_run (w);
  *out_world = w;
  return res;
}
