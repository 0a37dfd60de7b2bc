/* gossip-harness.h — a hand-held world for the families' tests (gossip's
 * first, hence the name; hierarchical's too): the
 * coordinator and n peers behind the machine interface, a FIFO of messages
 * the test delivers, links that come up as soon as they are connected,
 * training that adds the peer's id to every weight, and time that moves only
 * by hand. */
#pragma once

#include "learn/learn-weights.h"
#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-peer.h"
#include "protocol/proto-machine.h"

typedef struct {
  ProtoNodeId from, to;
  ProtoVia via;
  ProtoMsg msg;
} GMsg;

typedef struct {
  DlTime now;
  ProtoConfig cfg;
  guint n;
  ProtoMachine **m;         /* [0] the coordinator, [1..n] peers */
  DlRandom **rng;
  gboolean *alive;
  GArray *queue;            /* GMsg */
  GArray *ups;              /* guint64 pairs a<<32|b to bring up */
  GArray *train;            /* ProtoNodeId with training outstanding */
  GPtrArray *log;
  gboolean hold_payloads;   /* GossipPayloads stay queued */
  int hold_type;            /* messages of this type stay queued (-1: none) */
} GW;


/* gossip's config with DISCO-1110 defaults elsewhere, payload_timeout 10 s */
ProtoConfig gossip_cfg (guint min, guint rounds, guint fanout);
GW *gw_new (const ProtoConfig *cfg, guint n, gsize model_len);
/* envs[0..n): each peer's host (initial and rng are the harness's) */
GW *gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs);
void gw_free (GW *g);
void gw_feed (GW *g, ProtoNodeId id, const ProtoInput *in);
void gw_carry (GW *g, ProtoNodeId self, ProtoOutbox *out);
void gw_start_all (GW *g);
void gw_train (GW *g, ProtoNodeId id);
/* Delivers, brings links up and ends training until nothing moves. */
void gw_settle (GW *g);
/* Log lines (observations) that contain needle. */
guint gw_count (GW *g, const char *needle);
GossipPeer *gw_peer (GW *g, guint i);
