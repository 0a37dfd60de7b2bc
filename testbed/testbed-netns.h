/* testbed-netns.h — the network of `dlsim testbed --netem`: one Linux network
 * namespace per peer, joined to a bridge in the orchestrator's namespace by
 * a veth pair, with the scenario's bandwidth applied by tc tbf (uplink on
 * the peer's side of its veth, downlink on the bridge's side), and one TCP
 * congestion control on every route (cubic unless set).  The
 * coordinator listens on the bridge's address.
 *
 * Names carry the orchestrator's pid, so that what a killed dlsim left
 * behind can be told from what a running one owns:
 *   namespace  dlsim-PID-pN      bridge  dlbPID      veth (bridge side)  dlhPID-N
 * testbed_netns_sweep_stale removes everything whose pid is no longer alive.
 *
 * Latency is not applied here: this machine's kernel has no sch_netem
 * (the qdisc kind is unknown), so the sending process adds it
 * (TestbedHostParams.emulate_latency).  Needs root, iproute2's `ip` and `tc`. */
#pragma once

#include "base/dl-time.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct TestbedNetns TestbedNetns;

/* Removes the namespaces, bridges and veths named for a dlsim process that
 * no longer runs.  Returns how many it removed; names what it removed in
 * *report (transfer full, may be NULL). */
guint testbed_netns_sweep_stale (char **report);

/* A bridge and its subnet.  Fails (not root, no `ip`, no tbf) with a
 * message that says why. */
TestbedNetns *testbed_netns_new (GError **error);
/* A plan of the same network, for tests: named for pid, on
 * 10.subnet.0.0/16 (1..255), with every command that would be run kept,
 * in order, in testbed_netns_plan instead (none is run, none fails; no
 * root needed). */
TestbedNetns *testbed_netns_new_plan (guint pid, guint subnet);
#define TESTBED_NETNS_MIN_QUEUE_BYTES 1514
/* The queue of each tbf added after this call: queue's worth of bytes at
 * the link's rate, at least TESTBED_NETNS_MIN_QUEUE_BYTES (one Ethernet
 * frame; tc refuses 0), at most 1 GiB.  0 (the default): 10 s, at least
 * 1 MiB, so that TCP is never dropped at the shaper. */
void testbed_netns_set_queue (TestbedNetns *t, DlTime queue);
/* The TCP congestion control of every connection of the run, given to the
 * routes as `congctl` (the bridge's, for the coordinator, at once; each
 * peer's as testbed_netns_add_peer makes it): TESTBED_NETNS_CONGESTION
 * unless set, whatever the machine's net.ipv4.tcp_congestion_control,
 * so that a run means the same TCP on every machine.  Fails on a name
 * that testbed_netns_check_congestion refuses (a plan: only one that is
 * not a word). */
#define TESTBED_NETNS_CONGESTION "cubic"
#define TESTBED_NETNS_AVAILABLE_CC "/proc/sys/net/ipv4/tcp_available_congestion_control"
gboolean testbed_netns_set_congestion (TestbedNetns *t, const char *name, GError **error);
/* Whether name is a word of letters, digits and '_' (at most 15) that
 * TESTBED_NETNS_AVAILABLE_CC lists; if not, the message names the file
 * and what it lists.  Needs no root. */
gboolean testbed_netns_check_congestion (const char *name, GError **error);
const char *testbed_netns_congestion (const TestbedNetns *t);
/* A plan's commands so far (one string each, words separated by one
 * space), or NULL for a network that is made. */
GPtrArray *testbed_netns_plan (TestbedNetns *t);
/* Removes every namespace, veth and qdisc of this run, and the bridge. */
void testbed_netns_free (TestbedNetns *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestbedNetns, testbed_netns_free)

/* The address the coordinator listens on (the bridge's). */
const char *testbed_netns_coordinator_host (const TestbedNetns *t);
/* Creates peer id's namespace, veth and qdiscs: its uplink and downlink
 * shaped at these rates in bit/s (0: not shaped). */
gboolean testbed_netns_add_peer (TestbedNetns *t, guint id, guint64 uplink_bps, guint64 downlink_bps, GError **error);
/* A partition (groups: a group per node index, node 0 the coordinator;
 * beyond the array, the coordinator's group): for every pair of nodes in
 * different groups, a blackhole route each way (in the peer's namespace,
 * and in this one for the coordinator), so that nothing passes between
 * them.  Replaces the previous partition.  Unlike the simulator, which
 * loses what is sent across, TCP holds it and delivers it after the heal. */
gboolean testbed_netns_partition (TestbedNetns *t, const GArray *groups, guint n_peers, GError **error);
/* Removes the partition's routes. */
void testbed_netns_heal (TestbedNetns *t);

/* (transfer full) the namespace's name and the peer's address in it. */
char *testbed_netns_peer_ns (const TestbedNetns *t, guint id);
char *testbed_netns_peer_host (const TestbedNetns *t, guint id);

G_END_DECLS
