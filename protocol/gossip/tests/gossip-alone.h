/* gossip-alone.h — gossip's machines alone, fed by hand, for its tests
 * (test-gossip.c, test-gossip-stragglers.c): the coordinator with an
 * outbox that keeps every action it takes (Co, co_*), and a peer started
 * and welcomed (gossip_peer_alone).  Inputs are fed at the time given;
 * nothing is carried out. */
#pragma once

#include "learn/learn-weights.h"
#include "protocol/proto-machine.h"

typedef struct {
  ProtoMachine *c;
  ProtoOutbox out;
} Co;

/* gossip's coordinator for cfg (copied), with hellos from peers 1..n at 0 */
void co_init (Co *k, const ProtoConfig *cfg, guint n);
void co_clear (Co *k);
/* peer p's message of `type` at t: its helper flag as given, the peers
 * ids[0..n) in it (none when n is 0) */
void co_hears (Co *k, DlTime t, ProtoNodeId p, ProtoMsgType type, gboolean helper, const ProtoNodeId *ids, guint n);
/* peer p is ready (PeerIsReady, not a helper) at t */
void co_ready (Co *k, DlTime t, ProtoNodeId p);
/* Every listed peer ids[0..n) answers step `step` with no draws: the
 * graph goes out at t. */
void co_targets (Co *k, DlTime t, const ProtoNodeId *ids, guint n, uint32_t step);
/* the coordinator's messages of `type` to `to` (PROTO_NO_NODE: to anyone) */
guint co_sent (const Co *k, ProtoMsgType type, ProtoNodeId to);

/* gossip's peer for cfg, started and welcomed as `node` at 0 (init and
 * r borrowed: they outlive it); out, initialised here, holds what it
 * did.  Free with proto_machine_free and proto_outbox_clear. */
ProtoMachine *gossip_peer_alone (const ProtoConfig *cfg, LearnWeights *init, DlRandom *r, ProtoNodeId node,
                                 ProtoOutbox *out);
/* the coordinator's message of `type` to peer p at t, the peers ids[0..n) in it */
void gossip_peer_hears (ProtoMachine *p, DlTime t, ProtoMsgType type, const ProtoNodeId *ids, guint n,
                        ProtoOutbox *out);
