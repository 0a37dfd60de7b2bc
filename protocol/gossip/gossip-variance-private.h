/* gossip-variance-private.h — push-pull's variance factor as the gossip
 * coordinator (gossip-coord.c) observes it, the paper's simulations'
 * way, a leaf: it never calls the coordinator back.
 *
 * Each listed peer reports its value as a step begins (a GossipPayload
 * of kind report); once all have, the variance's reduction over the step
 * before is recorded as the metric variance_factor_ppm.  It only
 * records: no decision of the coordinator reads it.
 *
 * Shape: _gossip_variance_init / _gossip_variance_clear on caller
 * memory. */
#pragma once

#include "protocol/proto-message.h"
#include "protocol/proto-outbox.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  /* the values reported for step `step` (of `listed` listed) */
  uint32_t step;
  guint listed;
  GArray *values;       /* double */
  double last_var;      /* the variance at the last step's start (NAN: none yet) */
} GossipVariance;

void _gossip_variance_init (GossipVariance *v);
void _gossip_variance_clear (GossipVariance *v);
/* step `step` begins with `listed` listed peers: their reports are awaited */
void _gossip_variance_begin (GossipVariance *v, uint32_t step, guint listed);
/* a listed peer's report msg: the metric, observed in `state` (the
 * coordinator's phase), once every listed peer has reported */
void _gossip_variance_report (GossipVariance *v, const ProtoMsg *msg, const char *state, ProtoOutbox *out);

G_END_DECLS
