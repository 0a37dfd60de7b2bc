/* sim-world.h — the simulated world that drives the protocol machines:
 * hosts for the coordinator and each peer, a network (uplink/downlink FIFO
 * serialization, latency, reliable ordered delivery per link), peer links
 * that come up after signalling or never, compute time for local training
 * (the arithmetic runs for real; its wall time never leaks), timeline
 * actions, churn, and the run's outcome with a hang detector.
 *
 * Worlds are built from a SimWorldConfig (the scenario loader fills one).
 * Shape: sim_world_new / sim_world_free (g_autoptr). */
#pragma once

#include "base/dl-dist.h"
#include "learn/learn-data.h"
#include "learn/learn-model.h"
#include "protocol/proto-config.h"
#include "protocol/proto-machine.h"
#include "protocol/proto-outbox.h"
#include "sim/sim-engine.h"
#include "host/sim-types.h"

G_BEGIN_DECLS

typedef struct SimWorld SimWorld;

SimWorld *sim_world_new (const SimWorldConfig *cfg, const SimRecorder *recorder, GError **error);
void sim_world_free (SimWorld *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimWorld, sim_world_free)

/* A flag (set by a signal handler) that stops the run, with outcome
 * `interrupted`.  It is read on the wall clock's terms, every few thousand
 * events (SIM_WORLD_POLL_EVENTS), so a run whose simulated time hardly
 * moves hears it too. */
void sim_world_set_interrupt (SimWorld *w, const volatile int *flag);
/* A wall-clock watchdog: the run stops, with outcome `interrupted` and
 * SimResult.error saying so, once it has taken limit_us of wall time
 * (0: no limit).  Read as the interrupt is. */
void sim_world_set_wall_limit (SimWorld *w, gint64 limit_us);
#define SIM_WORLD_POLL_EVENTS 4096u
/* Called once a simulated second (from the watchdog) with the simulated
 * time and the engine events run so far, for a progress line.  It reads
 * nothing of the world and changes nothing in it. */
typedef void (*SimProgressFn) (gpointer ud, DlTime now, guint64 events);
void sim_world_set_progress (SimWorld *w, SimProgressFn fn, gpointer ud);
/* Runs to the end (completed, stalled or the time limit). */
const SimResult *sim_world_run (SimWorld *w);
guint sim_world_n_nodes (const SimWorld *w);            /* peers are 1..n */
const SimPeerResult *sim_world_peer (const SimWorld *w, guint i);
/* (transfer none) peer i's current model weights, NULL if it never joined */
LearnWeights *sim_world_peer_model (const SimWorld *w, guint i);

G_END_DECLS
