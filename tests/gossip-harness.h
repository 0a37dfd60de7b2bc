/* gossip-harness.h — the other families' tests on the hand-held world
 * (harness.h; gossip's first, hence the name; hierarchical's and the
 * pipeline's too): the coordinator and n peers behind the machine
 * interface, messages the test delivers, links that come up one by one as
 * soon as they are connected, training that adds the peer's id to every
 * weight, and time that moves only by hand.  A thin layer over harness.c. */
#pragma once

#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"
#include "tests/harness.h"

/* g->m[0] is the coordinator, g->m[1..n] the peers; g->alive[i] FALSE
 * crashes one */
typedef Harness GW;

/* gossip's config with DISCO-1110 defaults elsewhere, payload_timeout 10 s */
ProtoConfig gossip_cfg (guint min, guint rounds, guint fanout);
GW *gw_new (const ProtoConfig *cfg, guint n, gsize model_len);
/* envs[0..n): each peer's host (initial and rng are the harness's) */
GW *gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs);
void gw_free (GW *g);
void gw_feed (GW *g, ProtoNodeId id, const ProtoInput *in);
void gw_start_all (GW *g);
void gw_train (GW *g, ProtoNodeId id);
/* Delivers, brings links up and ends training until nothing moves. */
void gw_settle (GW *g);
/* Messages of `type` stay queued until gw_unhold. */
void gw_hold (GW *g, ProtoMsgType type);
void gw_unhold (GW *g);
/* Log lines (observations) that contain needle. */
guint gw_count (GW *g, const char *needle);
GossipPeer *gw_peer (GW *g, guint i);
