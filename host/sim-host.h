/* sim-host.h — the host layer: the one place that calls a protocol machine.
 *
 * sim_host_feed hands a machine (of any family, through the machine
 * interface of protocol/proto-machine.h) one input at `now`, carries out its
 * outbox through a transport, and re-arms its deadline.  A transport is a
 * table of callbacks over a world: the simulated network (sim/sim-world.c) and
 * the testbed's GIO sockets (testbed/testbed-host.c) are the two implementations.
 * SimTally turns the observations a host reports into the counters every
 * run records (retries, exclusions, syncs, rounds completed, ...), and the
 * counters the families declare (ProtoCounter), the same way for both.
 *
 * Shape: SimTransport is a const table; SimTally is sim_tally_init /
 * sim_tally_clear on caller memory. */
#pragma once

#include "protocol/proto-machine.h"
#include "host/sim-types.h"

G_BEGIN_DECLS

typedef struct {
  /* msg's contents move to the transport (it is left empty) */
  void (*send) (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg);
  void (*open_link) (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator);
  void (*connect_link) (gpointer ud, ProtoNodeId self, ProtoNodeId other);
  void (*close_link) (gpointer ud, ProtoNodeId self, ProtoNodeId other);
  /* weights: borrowed for the call */
  void (*start_training) (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round);
  void (*disconnect) (gpointer ud, ProtoNodeId self);
  void (*observed) (gpointer ud, ProtoNodeId self, const ProtoObservation *obs);
  /* the machine's next deadline after the input (DL_TIME_NEVER: none) */
  void (*arm) (gpointer ud, ProtoNodeId self, DlTime deadline);
  /* a replicated coordinator (protocol/replica/); NULL where there is none:
   * a peer opens a new stream to the coordinator service's leader; a
   * replica closes `peer`'s stream */
  void (*reconnect) (gpointer ud, ProtoNodeId self);
  void (*close_stream) (gpointer ud, ProtoNodeId self, ProtoNodeId peer);
  /* optional, a hint that changes nothing: the host is about to carry out
   * a send to `to`, in two steps (stage 0 some actions ahead, stage 1
   * fewer), so the transport may start loading what it will read (the
   * simulated network: its link table's slot, then the link) */
  void (*prepare_send) (gpointer ud, ProtoNodeId self, ProtoNodeId to, ProtoVia via, int stage);
  /* the machine cannot go on (proto_machine_broken): end the run with
   * outcome `error` and `why` (NULL: the transport has no such end) */
  void (*broken) (gpointer ud, ProtoNodeId self, const char *why);
} SimTransport;

/* A hint that changes nothing: machine m will be fed a message of
 * `type` from `from` naming `node` soon (proto_machine_prefetch), in
 * SIM_HOST_PREFETCH_STAGES stages, 0 first, each one delivery after the
 * one before. */
#define SIM_HOST_PREFETCH_STAGES PROTO_MACHINE_PREFETCH_STAGES

static inline void
sim_host_prefetch (const ProtoMachine *m, ProtoMsgType type, ProtoNodeId from, ProtoNodeId node, guint stage)
{
  proto_machine_prefetch (m, type, from, node, stage);
}

/* self: PROTO_SERVER for the coordinator, the peer's id otherwise */
void sim_host_feed (ProtoMachine *m, ProtoNodeId self, DlTime now, const ProtoInput *in,
                    const SimTransport *tr, gpointer ud);

typedef struct {
  guint retries, exclusions, model_syncs, messages_dropped;
  guint counters[PROTO_MAX_COUNTERS];   /* the families' counters, by proto_counter_at's index */
  guint32 counted_kinds;  /* the observation kinds some counter reads, a bit each */
  GArray *round_done;     /* gboolean per aggregation round some peer completed */
  GHashTable *metrics;    /* METRIC name -> GArray of double (recorded units) */
  GArray *metric_stats;   /* SimMetricStat, filled by sim_tally_fill */
} SimTally;

void sim_tally_init (SimTally *t);
void sim_tally_clear (SimTally *t);
void sim_tally_observe (SimTally *t, ProtoNodeId node, const ProtoObservation *obs);
guint sim_tally_rounds_completed (const SimTally *t);
/* A metric the run reports even if nothing observes it (count 0). */
void sim_tally_declare_metric (SimTally *t, const char *name);
/* Copies the counters and rounds completed into a run's result. */
void sim_tally_fill (const SimTally *t, SimResult *r);

G_END_DECLS
