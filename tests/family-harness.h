/* family-harness.h — the other families' tests on the hand-held world
 * (harness.h; gossip's, hierarchical's and the
 * pipeline's): the coordinator and n peers behind the machine
 * interface, messages the test delivers, links that come up one by one as
 * soon as they are connected, training that adds the peer's id to every
 * weight, and time that moves only by hand.  A thin layer over harness.c. */
#pragma once

#include "tests/harness.h"

/* g->m[0] is the coordinator, g->m[1..n] the peers; g->alive[i] FALSE
 * crashes one */
typedef Harness GW;

GW *gw_new (const ProtoConfig *cfg, guint n, gsize model_len);
/* envs[0..n): each peer's host (initial and rng are the harness's) */
GW *gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs);
void gw_start_all (GW *g);
/* Messages of `type` stay queued until gw_unhold. */
void gw_hold (GW *g, ProtoMsgType type);
/* Starts every peer with the messages of `type` to `to` held, settles, and
 * drops those (lost): how many. */
guint gw_start_losing (GW *g, ProtoMsgType type, ProtoNodeId to);
ProtoMachine *gw_peer (GW *g, guint i);

/* The rest are harness.h's, by their old names (gw_train: training adds
 * the peer's id to every weight). */
#define gw_free harness_free
#define gw_feed harness_feed
#define gw_train harness_finish_training
#define gw_settle harness_settle
#define gw_unhold harness_unhold
#define gw_count harness_count_log
