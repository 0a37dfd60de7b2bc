/* testbed-host.h — one testbed process's node: the coordinator or one peer,
 * driven through the host layer (sim-host.c) by real sockets and the wall
 * clock.  This is the second SimTransport: GIO streams on the process's
 * GMainContext, length-prefixed frames (testbed-frame.c).
 *
 * - The coordinator listens; a peer's stream opens with a HELLO frame
 *   naming its node id, then carries MSG frames both ways.  The stream's
 *   end (EOF, an error, a malformed frame) is the peer's close.
 * - Identity: every listener (the coordinator, a peer's link port) sends a
 *   CHALLENGE with a fresh nonce from /dev/urandom; the HELLO that answers
 *   it carries an HMAC-SHA256 keyed by the deployment's shared secret
 *   (TestbedHostParams.secret; testbed-frame.h).  A HELLO without the proof, from an
 *   id outside the scenario (1 .. the most peers it ever has), with the
 *   listener's own id, or from an id already connected closes the stream.
 *   The secret proves membership of the deployment, not which peer one is:
 *   a node that has it may claim any id not yet connected.
 * - Limits before the HELLO: a frame over a HELLO's size ends the stream;
 *   at most TESTBED_HOST_MAX_UNAUTHENTICATED streams wait for their HELLO (a new
 *   one closes the oldest of the source address that holds the most, so a
 *   flood from one address cannot keep others out), each at most
 *   TESTBED_HOST_HELLO_TIMEOUT_MS.  The
 *   `protocol-error` facts are rate-limited (TESTBED_HOST_ERRORS_*): a flood
 *   records a bounded number of rows, the next one says how many were not.
 * - A peer listens for links on its own address, which its SignalForPeer
 *   offers and answers carry (ProtoMsg.signal_data).  The initiator (the
 *   larger id) connects to the answerer's address when the machine says
 *   CONNECT_LINK and opens the link with a HELLO; both sides then get
 *   LINK_UP.  A refused connection is LINK_FAILED; a link stream's end is
 *   LINK_CLOSED.
 * - Time is the monotonic clock since the run's t0 (shared by the
 *   processes of one machine); deadlines are GLib timeouts.
 * - Training is real (learn/, the same shards and seeds as the simulator)
 *   and then waits out the scenario's modelled compute time, so a round
 *   takes as long as in the simulator on an idle machine.
 * - Drop and delay rules apply to what this process sends.
 * - With emulate_latency, what this process sends waits the scenario's
 *   one-way latency first (server_latency on a coordinator stream, latency
 *   on a link, sampled per message from the sender's "latency" stream as in
 *   sim-net.c), behind what it sent before (the order of a TCP stream), and
 *   an initiator waits link_setup before it dials.  Bandwidth is not
 *   emulated here: `dlsim testbed --netem` shapes it in the kernel (tbf).
 *
 * Not done here: bandwidth (the kernel's, with --netem), churn and traces,
 * link-fail / link-down / partitions.
 *
 * Shape: testbed_host_new / testbed_host_free. */
#pragma once

#include "host/sim-types.h"
#include "protocol/proto-machine.h"
#include "testbed/testbed-host-limits.h"

G_BEGIN_DECLS

typedef struct TestbedHost TestbedHost;

typedef struct {
  const SimWorldConfig *cfg;   /* borrowed for the node's life */
  ProtoNodeId id;              /* PROTO_SERVER or the peer's id */
  const char *listen_host;     /* coordinator: address to listen on; peer: its link address */
  guint16 listen_port;         /* coordinator: 0 picks one */
  const char *coordinator;     /* peer: HOST:PORT */
  gint64 t0_us;                /* g_get_monotonic_time () at the run's start */
  SimRecorder rec;             /* observations, facts, metrics, traffic */
  gboolean emulate_latency;    /* add [network] latency / server_latency to what this
                                  process sends, and link_setup before a link is dialled */
  const char *secret;          /* the deployment's shared secret (its bytes are the HMAC key;
                                  at least TESTBED_SECRET_MIN_BYTES), borrowed */
} TestbedHostParams;

TestbedHost *testbed_host_new (const TestbedHostParams *p, GError **error);
void testbed_host_free (TestbedHost *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestbedHost, testbed_host_free)

/* The port the coordinator listens on. */
guint16 testbed_host_port (const TestbedHost *n);
/* Peer: connects to the coordinator (within 10 s) and starts the machine. */
gboolean testbed_host_start (TestbedHost *n, GError **error);
/* Peer: leaves gracefully (the machine's LEAVE: links and stream close). */
void testbed_host_leave (TestbedHost *n);
/* Installs a drop or delay rule (SIM_ACT_DROP / SIM_ACT_DELAY) for what
 * this process sends. */
void testbed_host_add_rule (TestbedHost *n, const SimAction *a);
/* Peer: its stream to the coordinator is gone (it left, failed, was
 * excluded, or the coordinator went away): the process may exit. */
gboolean testbed_host_gone (const TestbedHost *n);
/* Peer: why its stream to the coordinator ended before the coordinator
 * sent it anything (a refused HELLO: another secret, a name the
 * coordinator's scenario lacks), or NULL. */
const char *testbed_host_refused (const TestbedHost *n);
/* Milliseconds of wall time since t0, as DlTime. */
DlTime testbed_host_now (const TestbedHost *n);
ProtoMachine *testbed_host_coord (TestbedHost *n);
ProtoMachine *testbed_host_peer (TestbedHost *n);

G_END_DECLS
