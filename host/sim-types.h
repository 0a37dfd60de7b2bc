/* sim-types.h — what a run is made of and gives, shared by the simulated
 * world, the testbed, the recorder and the runner: the world's
 * configuration (SimWorldConfig, its timeline actions and traces' rows),
 * the recorder's callbacks (SimRecorder), the run's and each peer's result
 * and outcome, a peer's drawn attributes, and the rules the simulator and
 * the testbed share (the stall window, a peer's outcome, the final means,
 * the training time).  The world itself is sim/sim-world.h. */
#pragma once

#include "base/dl-dist.h"
#include "learn/learn-data.h"
#include "learn/learn-model.h"
#include "protocol/proto-config.h"
#include "protocol/proto-machine.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

/* [network] transport: fluid flows (a flow has its share from its first
 * byte), or slow start as TCP does on every channel, or as WebRTC does
 * (SCTP on peer links, TCP on the coordinator's WebSocket). */
typedef enum {
  SIM_TRANSPORT_FLUID,
  SIM_TRANSPORT_TCP,
  SIM_TRANSPORT_SCTP,
} SimWireTransport;

typedef enum {
  SIM_ACT_JOIN,       /* a = peer; value = speed (0: from [peers] speed) */
  SIM_ACT_LEAVE,      /* a = peer: graceful, the coordinator sees it at once */
  SIM_ACT_CRASH,      /* a = peer: silent, seen after crash_detection */
  SIM_ACT_LINK_FAIL,  /* a, b: a link between them that is not up never comes up */
  SIM_ACT_LINK_DOWN,  /* a, b: an open link dies silently */
  SIM_ACT_PARTITION,  /* groups: node -> group (node 0 = server); across groups nothing passes */
  SIM_ACT_HEAL,
  SIM_ACT_DROP,       /* drop the next `count` messages of msg_type to a (value 1: from a) */
  SIM_ACT_DELAY,      /* delay the next `count` messages of msg_type from a (value 1: to a) by `delay` */
  SIM_ACT_SLOW,       /* a's speed divided by value from now on */
  SIM_ACT_LINK_SLOW,  /* a, b: their links take `delay` longer to come up */
  SIM_ACT_CRASH_COORD,/* the coordinator (with replicas: the leader) crashes */
  SIM_ACT_HEAL_ALL,   /* the liveness phase: every fault lifted, none after (sim-churn.c) */
  SIM_ACT_RESEED,     /* every random stream re-seeded from salt (sim_world_reseed): not a fault */
} SimActionKind;

typedef struct {
  SimActionKind kind;
  DlTime at;            /* absolute time, when round == 0 */
  guint round;          /* > 0: at the coordinator's start of weight sharing for round N (from 1) */
  DlTime after;         /* ... plus this */
  guint a, b;
  double value;
  int msg_type;         /* a ProtoMsgType */
  char msg_label[33];   /* DROP, DELAY: "" or the kind within msg_type (`Guest:Payload`) */
  guint count;
  DlTime delay;
  GArray *groups;       /* PARTITION: guint group per node index; owned by the config */
  guint64 salt;         /* RESEED */
} SimAction;

/* A peer's device from a capacity trace (sim-fedscale.h): its time per
 * training sample is 3 × ms_per_sample, its uplink and downlink bps. */
typedef struct {
  double ms_per_sample;   /* 0: not in the trace (speed and rates as drawn) */
  uint64_t bps;
} SimCapacity;

/* One online interval of a peer in an availability trace; a peer may have
 * several (it leaves and comes back: sim-churn.c, docs/world.md). */
typedef struct {
  guint peer;
  DlTime join;
  DlTime leave;         /* DL_TIME_NEVER: stays */
  guint line;           /* its line in the trace file (for errors) */
} SimTraceEntry;

/* A row of a bandwidth trace ([network] bandwidth_trace, sim-bwtrace.h):
 * from `at` on, the device of peer `peer` (its returns included) has these
 * rates. */
typedef struct {
  guint peer;
  DlTime at;
  uint64_t up_bps, down_bps;
  guint line;           /* its line in the file (for errors and the timeline) */
} SimRateChange;

typedef struct {
  uint64_t seed;
  DlTime time_limit;
  gboolean safety_only;         /* [scenario] properties = safety: no liveness property checked */
  ProtoConfig proto;

  guint n_peers;                /* p1..pN connect at time 0, after the actions at time 0 */
  DlDist speed;                 /* relative speed */
  double straggler_share;
  double straggler_slowdown;
  double nat_symmetric_share;

  DlTime sample_cost;           /* per sample per epoch at speed 1 */
  guint epochs_per_round;

  DlDist latency;               /* peer <-> peer, one way (between regions, with regions) */
  char **region_names;          /* [network] regions: p1.. fill the regions in order, count by count,
                                   then cycle (NULL: no regions); owned */
  guint *region_counts;
  guint n_regions;
  DlDist local_latency;         /* between two peers of one region */
  gboolean local_latency_set;   /* else `latency` */
  DlDist server_latency;        /* peer <-> coordinator, one way */
  uint64_t uplink_bps;           /* every peer's, unless rates_drawn (then the means) */
  uint64_t downlink_bps;
  DlDist uplink, downlink;      /* with rates_drawn: each peer draws its own rates once, from its
                                   "bandwidth" stream (at least 1 kbit/s) */
  gboolean rates_drawn;
  SimWireTransport transport;       /* [network] transport: the flows' slow start (sim-net.c) */
  gboolean slow_start_after_idle; /* [network] slow_start_after_idle: under tcp or sctp, a connection
                                     idle past its timeout starts from its initial window again */
  gboolean hystart;             /* [network] hystart: a TCP connection's slow start ends where CUBIC's
                                   HyStart would end it (sim_flows_add_window's hystart_seg) */
  DlTime min_rto;               /* [network] min_rto, queue_bdp: under tcp or sctp, the timeout where flows */
  double queue_bdp;             /* converge with little pipe each (sim_flows_set_timeouts; 0: none) */
  uint64_t server_uplink_bps;   /* [network] server_uplink, server_downlink: the coordinator's (every */
  uint64_t server_downlink_bps; /* server role's) links under sharing = fair (0: not rate-limited) */
  gboolean sharing_fifo;        /* [network] sharing = fifo: whole messages in turn, uplink then downlink;
                                   else fair: flows share both max-min (sim-flows.h) */
  guint64 mss_bytes;             /* a message is cut into segments of this many bytes on the wire, */
  guint64 header_bytes;          /* each adding these (0: none): what it occupies links for */
  DlTime link_setup;
  double connect_failure;
  double loss;                  /* probability that a message on a peer link is lost ([network] loss) */
  DlDist crash_detection;       /* sampled per crash from the node's "crash-detection" stream */
  gboolean crash_never_detected; /* crash_detection = never: the stream never closes */
  DlDist replica_latency;       /* between two coordinator replicas (protocol/replica/) */
  uint64_t replica_uplink_bps;  /* a replica's uplink to the others (0: no limit) */
  DlDist replica_crash_detection; /* with replicas: a peer notices its replica's crash after this */

  double arrival_rate_per_s;    /* churn: Poisson arrivals */
  DlDist session;
  double crash_fraction;
  guint max_peers;              /* total peers ever (initial, timeline, churn, trace) */
  GArray *trace;                /* SimTraceEntry, or NULL */
  gboolean return_initial;      /* [churn] return_model = initial: a peer that comes back
                                   starts from the initial model, not from its own */
  GArray *capacity;             /* SimCapacity by peer id ([peers] capacity), or NULL */
  GArray *rates;                /* SimRateChange in file order ([network] bandwidth_trace), or NULL */
  GArray *session_origin;       /* set by the world (sim-churn.c): guint, [k] = the trace peer
                                   whose return is peer max_peers + 1 + k (a new session) */

  LearnModel model;             /* kind none: weights are only a size */
  LearnDataset *train;          /* borrowed; NULL with model none */
  LearnDataset *test;           /* borrowed */
  LearnPartitionSpec partition;
  gsize none_samples;           /* samples per peer for compute time with model none */

  GArray *actions;              /* SimAction */
} SimWorldConfig;

/* Sensible defaults (DISCO's protocol defaults, 3 peers, 20 Mbit/s up). */
void sim_world_config_init (SimWorldConfig *cfg);
/* Frees what the config owns (actions' groups, the arrays). */
void sim_world_config_clear (SimWorldConfig *cfg);

/* Where observations and facts go.  Every callback may be NULL. */
typedef struct {
  void (*observation) (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *obs);
  void (*fact) (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind,
                const char *detail);
  void (*metric) (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double value);
  void (*traffic) (gpointer ud, ProtoMsgType type, gsize bytes);
  gpointer user_data;
  /* a property broke (sim-props.h); last, so that older initialisers leave it NULL */
  void (*violation) (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation);
} SimRecorder;

#define SIM_N_PROPS 8   /* the properties of sim-props.h */

typedef enum {
  SIM_OUTCOME_COMPLETED,   /* no live peer is stuck: everyone finished, failed or left */
  SIM_OUTCOME_STALLED,     /* some live peer made no progress for the rest of the run */
  SIM_OUTCOME_TIME_LIMIT,
  SIM_OUTCOME_INTERRUPTED, /* the interrupt flag was raised (Ctrl-C) */
  SIM_OUTCOME_ERROR,       /* a machine could not go on (a broken guest): SimResult.error says why */
} SimOutcome;
const char *sim_outcome_name (SimOutcome o);

typedef enum {
  SIM_PEER_FINISHED,
  SIM_PEER_FAILED,
  SIM_PEER_EXCLUDED,
  SIM_PEER_HUNG,
  SIM_PEER_LEFT,
  SIM_PEER_CRASHED,
  SIM_PEER_RUNNING,        /* time limit reached while it still made progress */
  SIM_PEER_ABSENT,         /* never joined */
} SimPeerOutcome;
const char *sim_peer_outcome_name (SimPeerOutcome o);

typedef struct {
  SimPeerOutcome outcome;
  DlTime joined;
  DlTime left;             /* DL_TIME_NEVER if still there */
  guint rounds;
  double speed;
  gboolean synced;
  guint retries_received;
  guint fails_received;
  const char *state;       /* the machine's last state (static), "" if it never joined */
  double accuracy;         /* last evaluation, NAN if none */
  double loss;
  gboolean cut_off;        /* partitioned from the coordinator when the run ended */
  gboolean starved;        /* waits for what no peer it knows of holds (ProtoPeerView.starved) */
  uint64_t uplink_bps, downlink_bps;   /* its rates (0: not known) */
} SimPeerResult;

/* What a run's METRIC observations (proto-outbox.h) add up to, per name:
 * the summary's metric.NAME.count|sum|mean|median|p90|max. */
typedef struct {
  char name[PROTO_OBS_DETAIL_LEN];
  guint count;
  double sum, mean, median, p90, max;
} SimMetricStat;

typedef struct {
  SimOutcome outcome;
  char error[512];                 /* outcome error: why ("" otherwise) */
  DlTime end;
  guint rounds_completed;
  guint peers_finished, peers_failed, peers_hung;
  guint retries, exclusions, model_syncs, messages_dropped;
  guint counters[PROTO_MAX_COUNTERS]; /* the families' counters, by proto_counter_at's index
                                         (protocol/proto-machine.h) */
  guint timeline_unfired;     /* timeline actions at a round the run never reached */
  guint64 messages, bytes;
  guint64 busiest_uplink_bytes;   /* the most wire bytes one peer sent (its uplink), 0 if unmeasured */
  double final_accuracy, final_loss, consensus_distance;
  guint violations[SIM_N_PROPS];   /* per property, in the order of SIM_PROP_NAMES (sim-props.h) */
  gboolean props_checked;          /* the run checked properties (the simulator does; the testbed not yet) */
  uint64_t events;
  const GArray *metrics;           /* SimMetricStat by name (borrowed from the run's tally; NULL: none) */
} SimResult;

/* A peer's drawn attributes, from its own "peer-attributes" stream: the
 * same in the simulator and the testbed. */
typedef struct {
  double speed;
  gboolean straggler;
  gboolean nat_symmetric;
  const char *region;   /* its region's name (the config's), "" if none */
  uint64_t uplink_bps, downlink_bps;
} SimPeerAttrs;
/* The floors of a drawn speed and a drawn rate (docs/world.md: a rate
 * is at least 1 kbit/s). */
#define SIM_PEER_MIN_SPEED 1e-9
#define SIM_PEER_MIN_BPS 1e3
void sim_peer_attributes (const SimWorldConfig *cfg, ProtoNodeId id, SimPeerAttrs *out);
/* Peer id's region index in cfg->region_names, -1 without regions. */
int sim_peer_region (const SimWorldConfig *cfg, ProtoNodeId id);
/* What peer id's machine is told of itself (ProtoPeerEnv), for the world
 * and the testbed alike. */
ProtoPeerEnv sim_peer_env (const SimWorldConfig *cfg, const SimPeerAttrs *a, LearnWeights *initial, DlRandom *rng);
/* The peer a node id stands for: itself, or for a trace's return (a new
 * session, an id above max_peers) the trace's peer that came back. */
ProtoNodeId sim_peer_origin (const SimWorldConfig *cfg, ProtoNodeId id);
/* The hang detector's window: (M + 2) x T + model_sync_timeout +
 * payload_timeout, long enough for every retry and exclusion cycle. */
DlTime sim_stall_window (const SimWorldConfig *cfg);

/* How a peer ended, from what is known of it at the end of a run (the
 * simulator and the testbed apply the same rule). */
typedef struct {
  guint rounds;
  gboolean serves_only;        /* it owes no rounds (ProtoPeerView.serves_only) */
  gboolean failed, excluded;   /* its machine failed; ConnectionFail did it */
  gboolean crashed, left;
  gboolean stalled;            /* the run stalled, or it made no progress for the window */
} SimPeerEnd;
SimPeerOutcome sim_peer_outcome_of (const SimWorldConfig *cfg, const SimPeerEnd *end);

/* The run's final accuracy and loss from its peers (peers[1..n]), the one
 * definition the summary and `dlsim plot convergence --x time` share: the
 * mean of the last evaluation of every peer that finished its rounds or is
 * still in the run at the end (joined, neither left nor crashed: a failed
 * peer still counts); when no such peer has one (every session left), the
 * mean of every peer's last evaluation before it left.  NAN if no peer
 * was ever evaluated. */
void sim_final_means (const SimPeerResult *peers, guint n, double *out_accuracy, double *out_loss);

/* The modelled duration of one round of local training on `samples`
 * samples at relative `speed` (slow and straggler factors applied). */
DlTime sim_training_time (const SimWorldConfig *cfg, gsize samples, double speed);

#define SIM_ERROR (sim_error_quark ())
GQuark sim_error_quark (void);
typedef enum { SIM_ERROR_CONFIG } SimErrorCode;

G_END_DECLS
