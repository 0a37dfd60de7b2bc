/* testbed.h — the testbed: a scenario on real sockets and real processes,
 * on this machine (`dlsim testbed`, `dlsim check --testbed`), and the
 * replay of the node databases of a deployment (`dlsim merge`,
 * testbed-merge.h).  The coordinator runs in the calling process
 * (testbed/testbed-host.c on TCP); each peer is a `dlsim node peer` child that
 * reports its records on stdout (testbed-records.h).  The run is recorded
 * in the results schema with runs.mode = 'testbed'.  cli/ parses the
 * command line and prints what these functions return. */
#pragma once

#include "results/res-db.h"
#include "scenario/sim-scenario.h"

#include <glib.h>

G_BEGIN_DECLS

/* What `dlsim testbed --help` says of the testbed: how a run is made,
 * what it supports and refuses (testbed_supported), its networks. */
extern const char testbed_help[];

/* The testbed's network: loopback with the scenario's latency and link
 * setup added by the sender (the default), loopback at its own speed
 * (--no-latency), or a namespace per peer (--netem, root). */
typedef enum { TESTBED_LOOPBACK, TESTBED_LOOPBACK_RAW, TESTBED_NETEM } TestbedNetwork;

/* What --netem's network is made with (testbed-netns.h); all zero: the
 * defaults. */
typedef struct {
  DlTime queue;             /* each tbf's queue (testbed_netns_set_queue); 0: 10 s */
  const char *congestion;   /* TCP's (testbed_netns_set_congestion); NULL: TESTBED_NETNS_CONGESTION */
} TestbedNetemOptions;

typedef enum {
  TESTBED_RUN_DONE,         /* the run ended and is recorded: see the report */
  TESTBED_RUN_REFUSED,      /* the scenario does not build, or asks what the testbed cannot do (bad input) */
  TESTBED_RUN_ERROR,        /* the run could not be set up or recorded (or the family refuses sockets) */
  TESTBED_RUN_INTERRUPTED,  /* SIGINT or SIGTERM: recorded as interrupted */
} TestbedRunStatus;

/* What a run that is done reports.  Shape: testbed_report_init /
 * testbed_report_clear on caller memory. */
typedef struct {
  SimResult result;
  gint64 run_id;            /* the run's id in its database */
  guint checked;            /* expectations checked */
  GPtrArray *failed;        /* char*: the expectations that failed, as lines */
  guint bad_lines;          /* malformed record lines refused */
} TestbedReport;

void testbed_report_init (TestbedReport *r);
void testbed_report_clear (TestbedReport *r);

/* Refuses what the testbed cannot express, naming the key: churn
 * arrivals, NAT, connect_failure, loss, bandwidth_trace, replicated
 * coordinators, link-down, link-slow, crash coordinator; partition and
 * heal without netem.  path names the file in the error. */
gboolean testbed_supported (const SimBuilt *b, const char *path, gboolean netem, GError **error);
/* The same for every point of s. */
gboolean testbed_scenario_supported (const SimScenario *s, gboolean netem, GError **error);

/* The network's name (testbed.network) and what it applies
 * (testbed.network_detail), as the run's params say. */
const char *testbed_network_name (TestbedNetwork network);
const char *testbed_network_detail (TestbedNetwork network);

/* One run of point pt with this seed into db: the peers run self_exe
 * (`dlsim node peer`).  Returns when every peer has finished, failed or
 * left and nothing is pending (completed), when no peer made progress for
 * the stall window (stalled), at the scenario's time_limit of wall time,
 * or on SIGINT or SIGTERM; every child is then asked to leave, killed
 * after 3 s if it has not, and reaped.  DONE fills report; any other
 * status sets error (INTERRUPTED does not). */
TestbedRunStatus testbed_run_point (const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets, ResDb *db,
                                    const char *self_exe, TestbedNetwork network, TestbedReport *report,
                                    GError **error);

/* dlsim check --testbed's files: each of paths (char*) loaded with the
 * overrides sets, in order; those with an [expect] that the testbed can
 * express are appended to out (SimScenario*, transfer full).  One with an
 * [expect] it cannot express (testbed_scenario_supported) is skipped:
 * skipped (why, data) is called with the reason, which names the file and
 * the key that stops it, and *n_skipped counts it.  A file without an
 * [expect] is left out silently.  FALSE (error set) at the first file
 * that does not load; nothing after it is loaded. */
gboolean testbed_select_checked (GPtrArray *paths, char **sets, gboolean netem, GPtrArray *out, guint *n_skipped,
                                 void (*skipped) (const char *why, gpointer data), gpointer data, GError **error);

/* The seed of repeat k of a scenario whose own seed is scenario_seed:
 * seed + k, or scenario_seed + k when seed < 0 (the run's --seed unset). */
guint64 testbed_repeat_seed (gint64 seed, guint64 scenario_seed, guint k);

/* What testbed_run_scenario tells its caller as it goes (a member may be
 * NULL): what `dlsim testbed` and `dlsim check --testbed` print. */
typedef struct {
  /* run k (0 .. points x repeats - 1) of s begins; stall_window: how long
   * it may go without progress before it ends as stalled */
  void (*start) (const SimScenario *s, guint k, guint64 seed, DlTime stall_window, gpointer data);
  /* about once a second of a run: its wall time so far, the time since a
   * peer last made progress, the round the coordinator began last (0:
   * none yet) and the messages so far */
  void (*tick) (DlTime elapsed, DlTime since_progress, guint round, guint64 messages, gpointer data);
  /* a run that is done */
  void (*done) (const SimScenario *s, guint64 seed, const TestbedReport *report, gpointer data);
  gpointer data;
} TestbedSay;

/* Every point of s and every repeat of each, one run after the other
 * (testbed_run_point; repeat k runs with testbed_repeat_seed; with
 * TESTBED_NETEM, the network made as netem says, NULL: the defaults), the peers
 * running this program (/proc/self/exe, else `dlsim` on the PATH), told to
 * say (NULL: nothing).  Stops at the first run that is not done and
 * returns its status (error set as testbed_run_point sets it);
 * TESTBED_RUN_DONE when every run is. */
TestbedRunStatus testbed_run_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network,
                                       const TestbedNetemOptions *netem, ResDb *db, const TestbedSay *say, GError **error);

G_END_DECLS
