/* tb-run.h — private to `dlsim testbed` (cmd-testbed.c, tb-procs.c): one
 * testbed run, its peers' processes and what it has tallied so far. */
#pragma once

#include "cli/tb-netns.h"
#include "results/res-db.h"
#include "sim/sim-host.h"
#include "sim/sim-scenario.h"
#include "sim/sim-testbed.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum { TB_ABSENT, TB_ONLINE, TB_LEFT, TB_CRASHED } TbStatus;

typedef struct Tb Tb;

typedef struct {
  Tb *tb;
  ProtoNodeId id;
  TbStatus status;
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
} TbPeer;

struct Tb {
  const SimScenario *scenario;
  const SimPoint *point;
  guint64 seed;
  char **sets;
  const SimWorldConfig *cfg;
  char *self_exe;
  SimRecorder db_rec;
  SimRecorder rec;          /* tracks, then forwards to db_rec */
  SimTally tally;
  SimTbNode *coord;
  TbNetns *net;             /* --netem: the namespaces, or NULL (loopback) */
  gboolean emulate_latency; /* the peers add the scenario's latency (not with --no-latency) */
  gint64 t0_us;
  char *secret;             /* the run's shared secret: the children get it in their environment */
  GPtrArray *peers;         /* TbPeer*, index = id */
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
  gboolean replaying;       /* dlsim merge: time is replay_now, not the clock */
  DlTime replay_now;
};

/* Nanoseconds of wall time since the run's start. */
DlTime tb_now (Tb *tb);
TbPeer *tb_peer_at (Tb *tb, ProtoNodeId id, gboolean create);
/* Records a fact of the orchestrator (the run's DB and the tally). */
void tb_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail);

/* Initialises a run's state: records go to run (through the tally). */
void tb_setup (Tb *tb, const SimScenario *s, const SimPoint *pt, guint64 seed, char **sets,
               const SimWorldConfig *cfg, ResRun *run);
void tb_teardown (Tb *tb);
/* One record line written by process `from` (cli/tb-records.h). */
void tb_ingest (Tb *tb, ProtoNodeId from, const char *line);
/* The peer has finished, failed, left or exited. */
gboolean tb_settled (const TbPeer *p, const ProtoFamily *f);
/* The run's result and each peer's ([1..]), from what was tallied. */
void tb_finish (Tb *tb, SimResult *r, GArray *results);

/* tb-procs.c: the peers' processes and the timeline that drives them */
void tb_spawn (Tb *tb, ProtoNodeId id);
void tb_depart (Tb *tb, ProtoNodeId id, gboolean crash);
void tb_send_control (TbPeer *p, const char *line);
void tb_schedule (Tb *tb, const SimAction *a, DlTime in_ns);
void tb_schedule_round_actions (Tb *tb, guint round);
/* Asks every live child to leave, kills it after grace_us, reaps them all. */
void tb_stop_children (Tb *tb, gint64 grace_us);
/* Refuses what the testbed cannot express, naming the key. */
gboolean tb_supported (const SimBuilt *b, const char *path, gboolean netem, GError **error);

G_END_DECLS
