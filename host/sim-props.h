/* sim-props.h — properties checked while a run executes.  Each has a
 * stable name; a violation is reported once per (property, node, round)
 * with a one-line explanation, through SimRecorder.violation.
 *
 *   agreement          after a round, every peer that finished it holds the
 *                      same weights (max |difference| <= 1e-4 x (1 + max
 *                      |weight|)); the first peer to finish a round sets
 *                      the reference.  Partial sums left by a secure
 *                      expiry break it, as they should.
 *   own-round-only     no peer aggregates a contribution tagged with another
 *                      aggregation round (PROTO_OBS_FOREIGN_ROUND, S27).
 *   monotone-rounds    the coordinator's round and each peer's finished
 *                      round never go back, except through a session reset
 *                      (the coordinator's reset, a peer's new session).
 * Safety (checked in both phases, and alone with [scenario] properties =
 * safety): agreement, own-round-only, monotone-rounds, no-lost-model,
 * retries-before-exclusion, sync-served.  Liveness (owed only after a
 * `heal all`, if the timeline has one): progress, excluded-was-told.
 *
 *   progress           liveness: while at least min_participants peers stay
 *                      connected (finished peers that stay count), a peer
 *                      still connected at the end that made no progress for
 *                      the stall window W = (M + 2) x T + model_sync_timeout
 *                      + payload_timeout (hung) violates it; so does (the
 *                      strict rule, a livelock) a peer still running at
 *                      the time limit that finished no round for W (from
 *                      its last round's end, or its arrival), however its
 *                      state changed (sim_props_set_stall_window), unless it
 *                      is starved (ProtoPeerView.starved: the family's word
 *                      that no peer it knows of holds what it waits for,
 *                      not that none could; the pipeline's, without
 *                      rebalancing, hides its missing rebalancing:
 *                      protocol/pipeline/README.md, "Review").  Checked at the
 *                      end of the run; a peer that a partition still cuts
 *                      off from the coordinator is neither owed progress nor
 *                      counted.  The explanation names the message the peer
 *                      dropped last in its final state, if any.
 *   no-lost-model      once a round has completed, a peer that syncs gets, and
 *                      a peer's first training of a session starts from, one
 *                      of the trained models: some completed round's weights
 *                      (S3: a late joiner training from the initial model
 *                      breaks it; S13's previous-round model does not).
 *                      With a real model only.
 *   retries-before-exclusion
 *                      a peer is excluded only after the coordinator sent it
 *                      max_connection_retry Retries since the round's last
 *                      StartWeightSharing (DISCO's rule, its controller test;
 *                      S5 excludes after M - 1, S6 at once in a later round).
 *   sync-served        a late joiner's training does not fail on its model
 *                      sync while a peer that held a trained model before
 *                      that failure stays connected to the end (S10: told to
 *                      sync from itself; S12's timeout).  Checked at the end.
 *   excluded-was-told  a peer the coordinator excluded processes a
 *                      ConnectionFail (receives it in a state that listens
 *                      for it) unless it left or crashed.  Checked at the end.
 *
 * The checker sees observations, the models at round ends and the peers'
 * outcomes; it names no protocol family's internals beyond the observation
 * kinds.  Shape: sim_props_new / sim_props_free. */
#pragma once

#include "host/sim-types.h"

G_BEGIN_DECLS

typedef struct SimProps SimProps;

/* SIM_N_PROPS (sim-types.h) names */
#define SIM_PROP_NAMES "agreement", "own-round-only", "monotone-rounds", "progress", "excluded-was-told", \
                       "no-lost-model", "retries-before-exclusion", "sync-served"

SimProps *sim_props_new (const SimRecorder *rec, guint min_participants);
void sim_props_free (SimProps *p);
/* Turns agreement off (a family that does not promise it: ProtoFamily's
 * promises_agreement). */
void sim_props_set_agreement (SimProps *p, gboolean checked);
/* Turns no-lost-model off (a family without model sync: syncs_late_joiners). */
void sim_props_set_model_sync (SimProps *p, gboolean checked);
/* Turns progress's strict rule on (sim-props.c, going_round): a peer still
 * running at the end that finished no round for w breaks it. */
void sim_props_set_stall_window (SimProps *p, DlTime w);
/* Safety only (checked FALSE): the liveness properties, progress and
 * excluded-was-told, are not checked; the others, safety properties, are. */
void sim_props_set_liveness (SimProps *p, gboolean checked);
gboolean sim_props_is_liveness (const char *property);
/* The liveness phase begins at t (a `heal all` action; the first counts):
 * no new faults after it.  Safety properties are checked in both phases;
 * liveness is owed only after it, and only in a run that goes on for the
 * stall window W after it (the bound): progress then counts a peer's
 * stall from t at the earliest, so a peer that recovers within W of the
 * heal is not blamed for what it did under faults. */
void sim_props_heal (SimProps *p, DlTime t);
/* Turns retries-before-exclusion on, with this M. */
void sim_props_set_max_connection_retry (SimProps *p, guint m);
/* A family whose one message type has kinds says which role a kind plays
 * (ProtoFamily's kind_role): a SENT or RECEIVED observation's detail, its
 * kind, then counts as its role's (cfg: the run's, kept). */
void sim_props_set_kind_role (SimProps *p, ProtoMsgRole (*kind_role) (const ProtoConfig *, const char *),
                              const ProtoConfig *cfg);
void sim_props_observe (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o);
/* A peer finished a round with this model (borrowed; NULL or symbolic: not compared). */
void sim_props_round_model (SimProps *p, DlTime t, ProtoNodeId node, guint round, LearnWeights *model);
/* A peer starts training from this model (borrowed). */
void sim_props_training_model (SimProps *p, DlTime t, ProtoNodeId node, LearnWeights *model);
/* A peer finished a model sync with this model (borrowed). */
void sim_props_synced_model (SimProps *p, DlTime t, ProtoNodeId node, LearnWeights *model);
/* The end of the run: progress and excluded-was-told, from the peers'
 * results [1..n] (entries with outcome SIM_PEER_ABSENT are skipped). */
void sim_props_end (SimProps *p, DlTime t, const SimPeerResult *peers, guint n);
/* Violations of one property so far. */
guint sim_props_count (const SimProps *p, const char *property);

G_END_DECLS
