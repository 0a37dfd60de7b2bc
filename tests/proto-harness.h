/* proto-harness.h — DISCO's tests on the hand-held world (harness.h): one
 * coordinator, peers 1..n, messages delivered by the test, links that come
 * up when the test says (a pair at a time, some never), training that ends
 * when the test says (or at once), time moved by hand.  A thin layer: the
 * world, and the host layer under it, are harness.c's. */
#pragma once

#include "protocol/disco/proto-coord.h"
#include "protocol/disco/proto-peer.h"
#include "tests/harness.h"

/* h->coord is the ProtoCoord, h->peers[i] the ProtoPeers */
typedef HarnessMsg HMsg;

Harness *h_new (const ProtoConfig *cfg, guint n_peers, gsize model_len);
void h_free (Harness *h);
/* Peer i connects (PROTO_IN_START). */
void h_start (Harness *h, guint i);
/* Delivers queued messages (and auto links/training) until nothing moves. */
void h_settle (Harness *h);
/* Delivers only the first queued message matching (type, to); FALSE if none. */
gboolean h_deliver_one (Harness *h, ProtoMsgType type, ProtoNodeId to);
/* Removes queued messages matching (type, to; PROTO_NO_NODE = any). */
guint h_drop (Harness *h, ProtoMsgType type, ProtoNodeId to);
guint h_queued (Harness *h, ProtoMsgType type, ProtoNodeId to);
/* Moves time to t, feeding deadlines in time order (coordinator first at ties). */
void h_advance_to (Harness *h, DlTime t);
void h_advance (Harness *h, DlTime dt);
/* Ends peer i's training with its model + step. */
void h_finish_training (Harness *h, guint i);
/* Brings all signalled links up (except failing pairs). */
void h_links_up (Harness *h);
void h_fail_link (Harness *h, ProtoNodeId a, ProtoNodeId b);
/* Peer i leaves gracefully: the coordinator sees the close at once. */
void h_leave (Harness *h, guint i);
/* Sends a message from a node into the coordinator directly. */
void h_to_coord (Harness *h, ProtoNodeId from, ProtoMsgType type);
/* Feeds a message to peer i directly (from: server or a peer). */
void h_to_peer (Harness *h, guint i, ProtoNodeId from, const ProtoMsg *msg);
/* How many log lines (observations, lost link messages) contain needle. */
guint h_count_log (Harness *h, const char *needle);
void h_dump (Harness *h);

/* DISCO's defaults for the version, with min_participants and rounds. */
ProtoConfig h_cfg (ProtoVersion v, guint min, guint rounds);
/* Two peers (min 2) connected and training their first round, with
 * training ended by hand (h_finish_training). */
Harness *h_two_training (ProtoVersion v, guint rounds);
/* The same with a configuration and n_peers peers, of which only p1 and p2
 * are started. */
Harness *h_pair_training (const ProtoConfig *c, guint n_peers);
#define T60 (60 * DL_S)
/* Is peer i in state s?  Dumps the log when it is not. */
gboolean h_state_is (Harness *h, guint i, ProtoPeerState s);
/* For Check tests (check.h): peer i must be in state s. */
#define assert_state(h, i, s) \
  ck_assert_msg (h_state_is ((h), (i), (s)), "p%u is %s, expected %s", (guint) (i), \
                 proto_peer_state_name (proto_peer_state ((h)->peers[(i)])), proto_peer_state_name (s))
/* Keeps messages of `type` from `from` (PROTO_NO_NODE: anyone) in transit:
 * h_settle passes them over until h_unhold (which releases every rule).
 * Up to four rules at once. */
void h_hold (Harness *h, ProtoMsgType type, ProtoNodeId from);
/* The same, for messages of `type` to `to`. */
void h_hold_to (Harness *h, ProtoMsgType type, ProtoNodeId to);
void h_unhold (Harness *h);
