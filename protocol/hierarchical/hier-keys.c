/* hier-keys.c — the hierarchical family's scenario keys (README.md beside
 * it) and how it configures itself from them: clusters, their heads and
 * the heads' tree.  Exported through proto_family_hierarchical's `keys`
 * (hier-family.c). */
#include "config.h"

#include "protocol/hierarchical/hier-config.h"
#include "protocol/proto-keys.h"

static gboolean
check_cluster_by (const char *v, GError **error)
{
  return proto_key_check_words (v, "region", "latency", error);
}

static const ProtoKey rows[] = {
  { "protocol", "cluster_size", "10", PROTO_KEY_UINT, "hierarchical only: peers per cluster (without regions; a larger region is split)", 1, PROTO_KEY_PEERS_MAX },
  { "protocol", "cluster_by", "region", PROTO_KEY_OWN, "hierarchical only: region | latency: clusters follow [network] regions labels (without labels: id blocks), or measured round trips (landmarks chosen farthest first, each peer in the first landmark's group within cluster_radius)", .check = check_cluster_by },
  { "protocol", "cluster_radius", "20ms", PROTO_KEY_DUR, "hierarchical, cluster_by = latency: a peer whose round trip to a landmark is at most this joins its group; one farther from every landmark becomes the next landmark" },
  { "protocol", "fanin", "32", PROTO_KEY_UINT, "hierarchical only: heads exchange all-to-all up to this many; above, groups of fanin report to a head of heads, recursively", 2, PROTO_KEY_PEERS_MAX },
  { "protocol", "election_timeout", "5s", PROTO_KEY_DUR, "hierarchical only: the coordinator tallies a cluster's candidacies this long at most" },
  { "protocol", "head_timeout", "60s", PROTO_KEY_DUR, "hierarchical only: a member waits this long for its head's result, a head for the other heads" },
};

/* the straggler policies and the quorum (proto-keys.c's groups) */
static const ProtoKeyGroup *const groups[] = { &proto_keys_stragglers, &proto_keys_quorum, NULL };

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

static gboolean
configure (ProtoConfig *h, ProtoKeyLookup *l, GError **error)
{
  if (!proto_keys_configure_stragglers (h, l, error))
    return FALSE;
  HierConfig *hc = hier_config_mut (h);
  hc->cluster_size = proto_keys_uint (l, "protocol", "cluster_size");
  if (hc->cluster_size == 0)
    return FAIL ("cluster_size", "must be at least 1");
  hc->cluster_by_latency = proto_keys_is (l, "protocol", "cluster_by", "latency");
  hc->cluster_radius = proto_keys_duration (l, "protocol", "cluster_radius");
  if (hc->cluster_radius <= 0)
    return FAIL ("cluster_radius", "must be more than 0");
  hc->fanin = proto_keys_uint (l, "protocol", "fanin");
  if (hc->fanin < 2)
    return FAIL ("fanin", "must be at least 2");
  if (!proto_keys_wait (l, error, "protocol", "election_timeout", &hc->election_timeout)
      || !proto_keys_wait (l, error, "protocol", "head_timeout", &hc->head_timeout))
    return FALSE;
  h->min_participants = proto_keys_uint (l, "protocol", "min_participants");
  if (h->min_participants == 0)
    return FAIL ("min_participants", "must be at least 1");
  return TRUE;
}

const ProtoFamilyKeys proto_hierarchical_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .groups = groups,
  .configure = configure,
};
