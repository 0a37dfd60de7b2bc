/* gossip-cfg.c — gossip's config for its tests (gossip-cfg.h). */
#include "config.h"

#include "protocol/gossip/tests/gossip-cfg.h"
#include "protocol/gossip/gossip-config.h"

ProtoConfig
gossip_cfg (guint min, guint rounds, guint fanout)
{
  ProtoConfig c;
  proto_config_init (&c, "gossip");
  c.min_participants = min;
  c.rounds = rounds;
  GossipConfig *gc = gossip_config_mut (&c);
  gc->fanout = fanout;
  gc->keep = 1.0;   /* the rest as gossip-keys.c's defaults */
  gc->dht_k = 8;
  gc->dht_alpha = 3;
  gc->dht_rpc_timeout = 2 * DL_S;
  c.payload_timeout = 10 * DL_S;
  return c;
}
