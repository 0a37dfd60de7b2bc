/* gossip-keys.c — the gossip family's scenario keys (README.md beside it)
 * and how it configures itself from them: the contact graph, the
 * sparsification, the Kademlia discovery, and the straggler policies
 * (proto-keys.c's group, which the hierarchical family and DISCO's robust
 * take too).  Exported through
 * proto_family_gossip's `keys` (gossip-family.c). */
#include "config.h"

#include "protocol/gossip/gossip-config.h"
#include "protocol/proto-keys.h"
#include "protocol/proto-message.h"

#include <string.h>

static const char *const sparsify_names[] = {
  [PROTO_SPARSIFY_NONE] = "none",
  [PROTO_SPARSIFY_RANDOM_K] = "random-k",
  [PROTO_SPARSIFY_TOP_K] = "top-k",
};

static gboolean
sparsify_from_name (const char *name, ProtoSparsify *out, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (sparsify_names); i++)
    if (g_strcmp0 (name, sparsify_names[i]) == 0)
      {
        *out = (ProtoSparsify) i;
        return TRUE;
      }
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s': expected none, random-k or top-k",
               name ? name : "");
  return FALSE;
}

static gboolean
check_sparsify (const char *v, GError **error)
{
  ProtoSparsify sp;
  return sparsify_from_name (v, &sp, error);
}

static gboolean
check_gossip_mode (const char *v, GError **error)
{
  return proto_key_check_words (v, "sgd", "push-pull", error);
}

static gboolean
check_discovery (const char *v, GError **error)
{
  return proto_key_check_words (v, "coordinator", "kademlia", error);
}

static const ProtoKey rows[] = {
  { "protocol", "fanout", "2", PROTO_KEY_UINT, "gossip only: peers each peer draws per step; the step's contact graph joins the draws as undirected edges", 0, PROTO_KEY_PEERS_MAX },
  { "protocol", "gossip_mode", "sgd", PROTO_KEY_OWN, "gossip only: sgd | push-pull: sgd trains and mixes models (decentralized SGD); push-pull averages a scalar, one exchange per peer a cycle (Jelasity et al. 2005; protocol/gossip/README.md)", .check = check_gossip_mode },
  { "protocol", "cycle", "10s", PROTO_KEY_DUR, "gossip, push-pull: a cycle's length; each peer starts its exchange at a uniform instant within it" },
  { "protocol", "sparsify", "none", PROTO_KEY_OWN, "gossip only: none | random-k | top-k: what a peer sends of its model", .check = check_sparsify },
  { "protocol", "keep", "100%", PROTO_KEY_SHARE, "gossip only: share of the coordinates sent with random-k or top-k, 1%..100% (or 0.01..1)" },
  { "protocol", "error_feedback", "off", PROTO_KEY_ON_OFF, "gossip only, with top-k: on ranks coordinates by the change accumulated since each was last sent" },
  { "protocol", "discovery", "coordinator", PROTO_KEY_OWN, "gossip only: coordinator | kademlia: where peers find partners (kademlia: a routing table filled by FIND_NODE lookups; needs straggler_policy = async)", .check = check_discovery },
  { "protocol", "dht_k", "8", PROTO_KEY_UINT, "gossip, kademlia: bucket size and contacts per answer", 1, PROTO_KEY_PEERS_MAX },
  { "protocol", "dht_alpha", "3", PROTO_KEY_UINT, "gossip, kademlia: calls in flight per lookup", 1, PROTO_KEY_PEERS_MAX },
  { "protocol", "dht_rpc_timeout", "2s", PROTO_KEY_DUR, "gossip, kademlia: a call unanswered this long fails and its contact is dropped" },
};

/* the straggler policy and its knobs, a step's quorum, a late joiner's
 * wait and a payload's (proto-keys.c's groups), listed after gossip's own */
static const ProtoKeyGroup *const groups[] = {
  &proto_keys_stragglers, &proto_keys_quorum, &proto_keys_model_sync, &proto_keys_payload, NULL,
};

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

static gboolean
configure (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  if (!proto_keys_configure_stragglers (g, l, error))
    return FALSE;
  GossipConfig *gc = gossip_config_mut (g);
  gc->fanout = proto_keys_uint (l, "protocol", "fanout");
  gc->gossip_mode = proto_keys_is (l, "protocol", "gossip_mode", "push-pull") ? PROTO_GOSSIP_MODE_PUSH_PULL
                                                                             : PROTO_GOSSIP_MODE_SGD;
  gc->cycle = proto_keys_duration (l, "protocol", "cycle");
  if (gc->gossip_mode == PROTO_GOSSIP_MODE_PUSH_PULL)
    {
      if (!proto_keys_wait (l, error, "protocol", "cycle", &gc->cycle))
        return FALSE;
      if (g->straggler_policy != PROTO_STRAGGLER_WAIT)
        return FAIL ("gossip_mode", "push-pull runs cycle after cycle: it needs straggler_policy = wait (it is %s)",
                     proto_straggler_policy_name (g->straggler_policy));
    }
  if (!sparsify_from_name (proto_keys_value (l, "protocol", "sparsify"), &gc->sparsify, &e))
    return proto_keys_fail_with (l, error, "protocol", "sparsify", e);
  if (!proto_key_parse_share (proto_keys_value (l, "protocol", "keep"), &gc->keep, &e))
    return proto_keys_fail_with (l, error, "protocol", "keep", e);
  if (!proto_key_parse_on_off (proto_keys_value (l, "protocol", "error_feedback"), &gc->error_feedback, &e))
    return proto_keys_fail_with (l, error, "protocol", "error_feedback", e);
  /* a knob of a setting not in use (keep and error_feedback without top-k
   * or random-k, a policy's knobs under another policy) is ignored, not an
   * error: a sweep over the setting, and every run's export-scenario
   * (which writes all keys), give them to every point */
  gc->discovery = proto_keys_is (l, "protocol", "discovery", "kademlia") ? PROTO_DISCOVERY_KADEMLIA
                                                                        : PROTO_DISCOVERY_COORDINATOR;
  if (gc->discovery == PROTO_DISCOVERY_KADEMLIA && g->straggler_policy != PROTO_STRAGGLER_ASYNC)
    return FAIL ("discovery", "kademlia has no coordinator steps to wait in: it needs "
                 "straggler_policy = async (it is %s)", proto_straggler_policy_name (g->straggler_policy));
  gc->dht_k = proto_keys_uint (l, "protocol", "dht_k");
  if (gc->dht_k == 0)
    return FAIL ("dht_k", "must be at least 1");
  gc->dht_alpha = proto_keys_uint (l, "protocol", "dht_alpha");
  if (gc->dht_alpha == 0)
    return FAIL ("dht_alpha", "must be at least 1");
  if (!proto_keys_wait (l, error, "protocol", "dht_rpc_timeout", &gc->dht_rpc_timeout))
    return FALSE;
  g->min_participants = proto_keys_uint (l, "protocol", "min_participants");
  if (g->min_participants == 0)
    return FAIL ("min_participants", "must be at least 1");
  g->model_sync_timeout = proto_keys_duration (l, "protocol", "model_sync_timeout");
  return proto_keys_wait (l, error, "protocol", "payload_timeout", &g->payload_timeout);
}

const ProtoFamilyKeys proto_gossip_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .groups = groups,
  .configure = configure,
};
