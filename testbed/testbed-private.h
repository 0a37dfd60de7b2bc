/* testbed-private.h — private to testbed/: one testbed run (live, or the
 * replay of `dlsim merge`), its peers' processes and what it has tallied so
 * far, and the names the folder's files share (prefix `_testbed_`).
 *
 * Who calls whom inside the folder (no cycle): testbed.c (the orchestrator:
 * a run from set-up to result, the timeline, the watch) calls
 * testbed-procs.c (the peers' processes), testbed-tally.c (the run's state
 * and tally) and testbed-netns.c; testbed-procs.c calls testbed-tally.c and
 * testbed-netns.c; testbed-merge.c calls testbed-tally.c; testbed-tally.c
 * calls testbed-records.c; testbed-node.c (a `dlsim node` process) calls
 * testbed-records.c; testbed-records.c and testbed-netns.c call none of
 * them.  The sockets: testbed.c, testbed-procs.c and testbed-node.c call
 * testbed-host.c (a node on sockets), which calls testbed-conn.c (a
 * stream), which calls testbed-frame.c (the frames, a leaf);
 * testbed-host.c's own leaves are testbed-host-private.h's. */
#pragma once

#include "testbed/testbed-netns.h"
#include "results/res-db.h"
#include "host/sim-host.h"
#include "scenario/sim-scenario.h"
#include "testbed/testbed-host.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  TESTBED_PEER_ABSENT,
  TESTBED_PEER_ONLINE,
  TESTBED_PEER_LEFT,
  TESTBED_PEER_CRASHED,
} TestbedPeerStatus;

typedef struct TestbedRun TestbedRun;

typedef struct {
  TestbedRun *tb;
  ProtoNodeId id;
  TestbedPeerStatus status;
  GSubprocess *proc;
  GOutputStream *control;
  GDataInputStream *records;
  gboolean exited, eof, leave_asked;
  DlTime joined, left, progress;
  guint rounds, retries_received, fails_received;
  gboolean synced, excluded, failed_err;
  const char *state;
  double accuracy, loss;
  LearnWeights *model;      /* after its last round (W records) */
  int last_round_end;       /* the round of its last round-end observation */
} TestbedPeer;

struct TestbedRun {
  const SimScenario *scenario;
  const SimPoint *point;
  guint64 seed;
  char **sets;
  const SimWorldConfig *cfg;
  const char *self_exe;     /* the dlsim binary the peers run */
  SimRecorder db_rec;
  SimRecorder track;        /* the tally's: tracks, then forwards to db_rec */
  SimRecorder rec;          /* what the processes' records go through: track,
                             * or the orchestrator's in front of it */
  SimTally tally;
  TestbedHost *coord;
  TestbedNetns *net;        /* --netem: the namespaces, or NULL (loopback) */
  gboolean emulate_latency; /* the peers add the scenario's latency (not with --no-latency) */
  gint64 t0_us;
  char *secret;             /* the run's shared secret: the children get it in their environment */
  GPtrArray *peers;         /* TestbedPeer*, index = id */
  GArray *rules;            /* SimAction: drop/delay rules installed so far */
  guint pending_actions;
  GPtrArray *timers;        /* GSource* of scheduled actions (refs) */
  guint round_started;
  DlTime progress;
  guint64 messages, bytes;
  guint bad_lines;
  gboolean done, interrupted;
  SimOutcome outcome;
  GMainLoop *loop;
  struct SimProps *props;   /* the same properties as the simulator's (sim-props.h) */
  gconstpointer say;        /* testbed.c's TestbedSay (testbed.h), or NULL */
  guint watch_ticks;        /* the watch's ticks (10 a second) */
  gboolean replaying;       /* dlsim merge: time is replay_now, not the clock */
  DlTime replay_now;
};

/* ---------------------------------------------------------------- testbed-tally.c */

/* Initialises a run's state: records go to run (through the tally); run
 * NULL: to the tally only. */
void _testbed_run_init (TestbedRun *tb, const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets,
                        const SimWorldConfig *cfg, ResRun *run);
void _testbed_run_clear (TestbedRun *tb);
/* Nanoseconds of wall time since the run's start (replaying: replay_now). */
DlTime _testbed_run_now (TestbedRun *tb);
TestbedPeer *_testbed_run_peer (TestbedRun *tb, ProtoNodeId id, gboolean create);
/* Records a fact of the orchestrator (the run's DB and the tally). */
void _testbed_run_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind,
                        const char *detail);
/* One record line written by process `from` (testbed-records.h), through
 * tb->rec; a line that does not parse is counted in tb->bad_lines. */
void _testbed_run_ingest (TestbedRun *tb, ProtoNodeId from, const char *line);
/* The peer has finished, failed, left or exited. */
gboolean _testbed_peer_settled (const TestbedPeer *p, const ProtoFamily *f);
/* The run's result and each peer's ([1..]), from what was tallied. */
void _testbed_run_finish (TestbedRun *tb, SimResult *r, GArray *results);

/* ---------------------------------------------------------------- testbed-procs.c */

/* (transfer full) the command line of peer id's `dlsim node peer` process,
 * NULL-terminated: inside its namespace with --netem, the coordinator at
 * coordinator_port. */
GStrv _testbed_procs_argv (const TestbedRun *tb, ProtoNodeId id, guint16 coordinator_port);
void _testbed_procs_spawn (TestbedRun *tb, ProtoNodeId id);
void _testbed_procs_depart (TestbedRun *tb, ProtoNodeId id, gboolean crash);
void _testbed_procs_send_control (TestbedPeer *p, const char *line);
/* Asks every live child to leave, kills it after grace_us, reaps them all. */
void _testbed_procs_stop_children (TestbedRun *tb, gint64 grace_us);

G_END_DECLS
