/* proto-harness.h — DISCO's tests on the hand-held world (harness.h): one
 * coordinator, peers 1..n, messages delivered by the test, links that come
 * up when the test says (a pair at a time, some never), training that ends
 * when the test says (or at once), time moved by hand.  A thin layer: the
 * world, and the host layer under it, are harness.c's. */
#pragma once

#include "protocol/disco/disco-coord.h"
#include "protocol/disco/disco-peer.h"
#include "tests/harness.h"

/* h->coord is the DiscoCoord, h->peers[i] the DiscoPeers */
typedef HarnessMsg HMsg;

Harness *h_new (const ProtoConfig *cfg, guint n_peers, gsize model_len);
/* Peer i connects (PROTO_IN_START). */
void h_start (Harness *h, guint i);
void h_advance (Harness *h, DlTime dt);
/* Time moves on by dt, and what that brought is delivered (h_advance,
 * then h_settle). */
void h_wait (Harness *h, DlTime dt);
/* Peer i leaves gracefully: the coordinator sees the close at once. */
void h_leave (Harness *h, guint i);
/* A message of `type` (no fields) from a node into the coordinator. */
void h_to_coord (Harness *h, ProtoNodeId from, ProtoMsgType type);
/* Into the coordinator: peers 1..n say hello; then 1..ready, each in
 * turn, join the round and are ready. */
void h_members (Harness *h, guint n, guint ready);
/* Feeds a message to peer i directly (from: server or a peer). */
void h_to_peer (Harness *h, guint i, ProtoNodeId from, const ProtoMsg *msg);
/* Keeps messages of `type` from `from` (h_hold) or to `to` (h_hold_to;
 * PROTO_NO_NODE: anyone) in transit until h_unhold. */
void h_hold (Harness *h, ProtoMsgType type, ProtoNodeId from);
void h_hold_to (Harness *h, ProtoMsgType type, ProtoNodeId to);

/* The rest are harness.h's, by their old names. */
#define h_free harness_free
#define h_settle harness_settle
#define h_deliver_one harness_deliver_one
#define h_drop harness_drop
#define h_queued harness_queued
#define h_advance_to harness_advance_to
#define h_finish_training harness_finish_training
#define h_links_up harness_links_up
#define h_fail_link harness_fail_link
#define h_unhold harness_unhold
#define h_count_log harness_count_log
#define h_dump harness_dump

/* DISCO's defaults for the version, with min_participants and rounds. */
ProtoConfig h_cfg (DiscoVersion v, guint min, guint rounds);
/* Two peers (min 2) connected and training their first round, with
 * training ended by hand (h_finish_training). */
Harness *h_two_training (DiscoVersion v, guint rounds);
/* The same with a configuration and n_peers peers, of which only p1 and p2
 * are started. */
Harness *h_pair_training (const ProtoConfig *c, guint n_peers);
#define T60 (60 * DL_S)
/* S7's and S9's script (test-disco-failures, test-robust): three peers
 * (min 2, one round) under v, the 1-3 link never comes up; all start, p2
 * waits for the decision, and a timeout passes (h_wait T60). */
Harness *h_s09_opening (DiscoVersion v);
/* Is peer i in state s?  Dumps the log when it is not. */
gboolean h_state_is (Harness *h, guint i, DiscoPeerState s);
/* For Check tests (check.h): peer i must be in state s. */
#define assert_state(h, i, s) \
  ck_assert_msg (h_state_is ((h), (i), (s)), "p%u is %s, expected %s", (guint) (i), \
                 proto_machine_state_name ((h)->m[(i)]), disco_peer_state_name (s))
