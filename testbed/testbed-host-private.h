/* testbed-host-private.h — private to a testbed node (testbed-host.c):
 * the leaves it calls, each owning one part of the node's state, and
 * none calling the node back (prefix `_testbed_host_`).
 *
 * - testbed-host-limits.c: what the other ends may cost: the listening
 *   socket and its backlog, the scenario's largest frame, the rate limit
 *   of the protocol-error facts, the source an accepted stream counts
 *   against and the one to close when every slot before a HELLO is
 *   taken.
 * - testbed-host-rules.c: the timeline's rules on what this process
 *   sends (drop, delay), and a peer's slow and link-fail rules.
 * - testbed-host-learn.c: a peer's training: its shard, its seeds, its
 *   attributes, a training and the modelled compute time left after it.
 *
 * testbed-host.c keeps every transition (what a frame, a stream's end, a
 * dial or a timer does to the node and its machine) and the transport. */
#pragma once

#include "host/sim-types.h"
#include "protocol/proto-machine.h"
#include "testbed/testbed-conn.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* ---------------------------------------------------------------- testbed-host-limits.c */

/* (transfer full) a socket service listening on host:port (port 0: one
 * the kernel picks, set in *out_port), not started; NULL and error if
 * host is not an IP address or the address cannot be bound. */
GSocketService *_testbed_host_listen (const char *host, guint16 port, guint16 *out_port, GError **error);
/* The most floats a message of the scenario carries: the model's, or more
 * if its family says so (ProtoFamily.largest_floats). */
gsize _testbed_host_largest_floats (const SimWorldConfig *cfg);
/* (transfer full) what testbed_host_max_frame is made of, for the error
 * of a stream that sends more. */
char *_testbed_host_max_frame_why (const SimWorldConfig *cfg);

/* The protocol-error facts' token bucket and total (testbed-host.h,
 * TESTBED_HOST_ERRORS_*).  Shape: _init on the node's memory, nothing to
 * clear. */
typedef struct {
  double tokens;
  gint64 refilled_us;
  guint suppressed, recorded;
} TestbedHostErrors;

void _testbed_host_errors_init (TestbedHostErrors *e, gint64 now_us);
/* (transfer full) the detail to record for a protocol error at now_us
 * (detail, or detail and how many were not recorded), or NULL if the
 * limit says it is not recorded (then it is counted). */
char *_testbed_host_errors_admit (TestbedHostErrors *e, gint64 now_us, const char *detail);

/* (transfer full) the source an accepted stream counts against: its
 * address, an IPv6 address's /64; "?" if the socket cannot say. */
char *_testbed_host_source_of (GSocketConnection *sc);
/* The stream of `unauth` (TestbedConn*, oldest first, not empty) to close
 * when every slot before a HELLO is taken, for a newcomer from source
 * `newcomer`. */
TestbedConn *_testbed_host_unauth_victim (const GQueue *unauth, const char *newcomer);

/* ---------------------------------------------------------------- testbed-host-rules.c */

/* The rules installed in this process.  Shape: _init / _clear on the
 * node's memory. */
typedef struct {
  GArray *rules;        /* drop and delay rules (testbed-host-rules.c's Rule) */
  GHashTable *never;    /* ids a link-fail rule says this peer never links with */
  double slow;          /* divisor of the speed from slow rules */
} TestbedHostRules;

void _testbed_host_rules_init (TestbedHostRules *r);
void _testbed_host_rules_clear (TestbedHostRules *r);
/* Installs a timeline action (SIM_ACT_DROP, _DELAY, _SLOW or _LINK_FAIL)
 * for node `self` (is_peer: a peer, else the coordinator). */
void _testbed_host_rules_add (TestbedHostRules *r, ProtoNodeId self, gboolean is_peer, const SimAction *a);
/* Takes one use of the first drop (drop) or delay rule that matches msg
 * from `from` to `to`: TRUE if there was one; a delay rule's delay goes
 * to *delay (if not NULL). */
gboolean _testbed_host_rules_take (TestbedHostRules *r, ProtoNodeId from, ProtoNodeId to, const ProtoMsg *msg,
                                   gboolean drop, DlTime *delay);
/* A link-fail rule says this peer never links with `other`. */
gboolean _testbed_host_rules_never (const TestbedHostRules *r, ProtoNodeId other);

/* ---------------------------------------------------------------- testbed-host-learn.c */

/* A peer's training: the same shards, seeds and attributes as the
 * simulator's.  Shape: _init / _clear on the node's memory. */
typedef struct {
  LearnPartition *partition;
  LearnDataset *shard;
  LearnWeights *initial;
  DlRandom *rng_train, *rng_shares;
  SimPeerAttrs attrs;
} TestbedHostLearn;

void _testbed_host_learn_init (TestbedHostLearn *l, const SimWorldConfig *cfg, ProtoNodeId id);
void _testbed_host_learn_clear (TestbedHostLearn *l);
/* The environment of peer id's machine (it borrows l's weights and
 * shares stream). */
ProtoPeerEnv _testbed_host_learn_env (const TestbedHostLearn *l, const SimWorldConfig *cfg, ProtoNodeId id);
/* (transfer full) trains on weights now, and sets *left_us to the
 * scenario's modelled compute time (the peer's speed divided by slow)
 * less what the training took: negative if it took longer. */
LearnWeights *_testbed_host_learn_train (TestbedHostLearn *l, const SimWorldConfig *cfg, LearnWeights *weights,
                                         double slow, gint64 *left_us);

G_END_DECLS
