/* testbed-host-learn.c — a testbed peer's training
 * (testbed-host-private.h): its shard of the training set, its seeds and
 * attributes, drawn as the simulator draws them; a training for real
 * (learn/) and the modelled compute time left after it.  A leaf: the
 * timer that waits that time out, and what the machine is fed when it
 * fires, are testbed-host.c's. */
#include "config.h"

#include "testbed/testbed-host-private.h"

void
_testbed_host_learn_init (TestbedHostLearn *l, const SimWorldConfig *cfg, ProtoNodeId id)
{
  *l = (TestbedHostLearn) { 0 };
  g_autoptr (DlRandom) init = dl_random_new (cfg->seed, "initial-model", DL_RANDOM_NO_NODE);
  l->initial = learn_model_initial_weights (&cfg->model, init);
  l->rng_train = dl_random_new (cfg->seed, "minibatch", id);
  l->rng_shares = dl_random_new (cfg->seed, "shares", id);
  sim_peer_attributes (cfg, id, &l->attrs);
  if (cfg->model.kind != LEARN_MODEL_NONE)
    {
      g_autoptr (DlRandom) r = dl_random_new (cfg->seed, "partition", DL_RANDOM_NO_NODE);
      l->partition = learn_partition_new (cfg->train, &cfg->partition, MAX (cfg->max_peers, 1), r);
      GArray *idx = l->partition->idx[(id - 1) % l->partition->parts];
      l->shard = learn_dataset_subset (cfg->train, (const gsize *) (const void *) idx->data, idx->len);
    }
}

void
_testbed_host_learn_clear (TestbedHostLearn *l)
{
  g_clear_pointer (&l->initial, learn_weights_unref);
  g_clear_pointer (&l->shard, learn_dataset_free);
  g_clear_pointer (&l->partition, learn_partition_free);
  g_clear_pointer (&l->rng_train, dl_random_free);
  g_clear_pointer (&l->rng_shares, dl_random_free);
}

ProtoPeerEnv
_testbed_host_learn_env (const TestbedHostLearn *l, const SimWorldConfig *cfg, ProtoNodeId id)
{
  ProtoPeerEnv env = sim_peer_env (cfg, &l->attrs, l->initial, l->rng_shares);
  env.id = id;
  env.samples = l->shard ? l->shard->n : 0;
  return env;
}

LearnWeights *
_testbed_host_learn_train (TestbedHostLearn *l, const SimWorldConfig *cfg, LearnWeights *weights, double slow,
                           gint64 *left_us)
{
  gint64 t0 = g_get_monotonic_time ();
  LearnWeights *w = learn_model_train (&cfg->model, weights, l->shard, cfg->epochs_per_round, l->rng_train);
  gsize samples = cfg->model.kind == LEARN_MODEL_NONE ? cfg->none_samples : (l->shard ? l->shard->n : 0);
  double speed = l->attrs.speed / slow / (l->attrs.straggler ? cfg->straggler_slowdown : 1.0);
  /* the modelled compute time, less what the real training took */
  *left_us = sim_training_time (cfg, samples, speed) / 1000 - (g_get_monotonic_time () - t0);
  return w;
}
