/* gossip-variance.c — push-pull's variance factor as the gossip
 * coordinator observes it (gossip-variance-private.h): the values a step
 * begins with, their sample variance, and its ratio to the last step's. */
#include "config.h"

#include "protocol/gossip/gossip-variance-private.h"
#include "learn/learn-weights.h"

#include <math.h>

void
_gossip_variance_init (GossipVariance *v)
{
  v->step = 0;
  v->listed = 0;
  v->values = g_array_new (FALSE, FALSE, sizeof (double));
  v->last_var = NAN;
}

void
_gossip_variance_clear (GossipVariance *v)
{
  g_clear_pointer (&v->values, g_array_unref);
}

void
_gossip_variance_begin (GossipVariance *v, uint32_t step, guint listed)
{
  v->step = step;
  v->listed = listed;
  g_array_set_size (v->values, 0);
}

/* a listed peer's value as step `step` begins; with all of them, the
 * variance (the sample variance about their mean, two passes), and its
 * ratio to the last step's, in parts per million. */
void
_gossip_variance_report (GossipVariance *v, const ProtoMsg *msg, const char *state, ProtoOutbox *out)
{
  if (msg->round != v->step || v->values->len >= v->listed || msg->weights == NULL
      || learn_weights_len (msg->weights) < 1 || learn_weights_is_symbolic (msg->weights))
    return;
  double x0 = learn_weights_data (msg->weights)[0];
  g_array_append_val (v->values, x0);
  guint n = v->values->len;
  if (n < v->listed || n < 2)
    return;
  const double *x = (const double *) (const void *) v->values->data;
  double mean = 0, ss = 0;
  for (guint i = 0; i < n; i++)
    mean += x[i];
  mean /= n;
  for (guint i = 0; i < n; i++)
    ss += (x[i] - mean) * (x[i] - mean);
  double var = ss / (n - 1);
  if (!isnan (v->last_var) && v->last_var > 0 && v->step > 0)
    proto_outbox_observe (out, PROTO_OBS_METRIC, state, (int32_t) v->step - 1, PROTO_NO_NODE, -1,
                          llround (1e6 * var / v->last_var), "variance_factor_ppm");
  v->last_var = var;
}
