/* hier-config.h — the hierarchical family's own config: what hier-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h).  The straggler knobs it shares with
 * gossip and DISCO (straggler_policy, round_deadline, drop_factor,
 * drop_rounds, async_mix, staleness_exponent) and DISCO's
 * min_participants stay common fields of ProtoConfig: family_config holds
 * only the running family's struct, and those three families read them. */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

/* peers in clusters with elected heads (README.md beside this file);
 * G_GNUC_MAY_ALIAS: it lives in family_config's bytes (docs/architecture.md,
 * "Config: each family owns its part") */
typedef struct G_GNUC_MAY_ALIAS {
  guint cluster_size;                /* peers per cluster: without regions, or to split a large region */
  gboolean cluster_by_latency;       /* cluster_by = latency: by measured round trips to landmarks, not
                                        by region labels (hier-coord.c) */
  DlTime cluster_radius;             /* latency: a peer joins a landmark's group within this round trip */
  guint fanin;                       /* heads exchange all-to-all up to this many; above, they report to
                                        a head of heads, recursively */
  DlTime election_timeout;           /* the coordinator tallies the candidacies this long at most */
  DlTime head_timeout;               /* a member waits this long for its head's result, a head for the
                                        other heads' aggregates */
} HierConfig;

/* hier_config (cfg): the family's part, to read; hier_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (HierConfig, hier_config)

G_END_DECLS
