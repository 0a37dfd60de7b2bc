/* gossip-config.h — the gossip family's own config: what gossip-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h).  The straggler knobs (straggler_policy,
 * round_deadline, drop_factor, drop_rounds, async_mix, staleness_exponent)
 * stay common fields of ProtoConfig: family_config holds only the running
 * family's struct, and hierarchical and DISCO read them too; so does their
 * enum, ProtoStragglerPolicy, which stays there.  The enums below only
 * gossip reads (issue 34 §2 moved them here from proto-config.h). */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

/* gossip: what a peer sends of its model (protocol/gossip/README.md) */
typedef enum {
  PROTO_SPARSIFY_NONE,      /* the whole model */
  PROTO_SPARSIFY_RANDOM_K,  /* `keep` of the coordinates, drawn from the peer's stream */
  PROTO_SPARSIFY_TOP_K,     /* `keep` of the coordinates that changed most (with error feedback:
                               most since they were last sent) */
} ProtoSparsify;

/* gossip: what a peer gossips (protocol/gossip/README.md) */
typedef enum {
  PROTO_GOSSIP_MODE_SGD,         /* train, then mix models with the step's neighbours */
  PROTO_GOSSIP_MODE_PUSH_PULL,   /* no training: a scalar, averaged with one random peer a cycle
                                    (Jelasity, Montresor, Babaoglu, ACM TOCS 2005) */
} ProtoGossipMode;

/* gossip: where a peer finds partners */
typedef enum {
  PROTO_DISCOVERY_COORDINATOR,   /* the coordinator's member lists */
  PROTO_DISCOVERY_KADEMLIA,      /* a Kademlia routing table, filled by FIND_NODE lookups over links */
} ProtoDiscovery;

/* sparsified gossip learning (README.md beside this file); G_GNUC_MAY_ALIAS:
 * it lives in family_config's bytes (docs/architecture.md, "Config: each
 * family owns its part") */
typedef struct G_GNUC_MAY_ALIAS {
  guint fanout;                      /* peers each peer draws per step (its out-edges) */
  ProtoGossipMode gossip_mode;
  DlTime cycle;                      /* push-pull: a cycle's length; a peer's exchange starts at a
                                        uniform instant within it */
  ProtoSparsify sparsify;
  double keep;                       /* share of the coordinates sent, (0, 1] */
  gboolean error_feedback;           /* top-k ranks by the change accumulated since last sent */
  ProtoDiscovery discovery;
  guint dht_k;                       /* kademlia: bucket size, and contacts per answer */
  guint dht_alpha;                   /* kademlia: calls in flight per lookup */
  DlTime dht_rpc_timeout;            /* kademlia: a call unanswered this long fails (the contact is dropped) */
} GossipConfig;

/* gossip_config (cfg): the family's part, to read; gossip_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (GossipConfig, gossip_config)

G_END_DECLS
