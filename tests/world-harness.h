/* world-harness.h — for the tests of whole simulated runs
 * (tests/test-world.c, and a family's own, as DISCO's
 * protocol/disco/tests/test-disco-world.c): a recorder that keeps a
 * checksum of every observation and fact, each round's models and mean
 * accuracy and loss, and the world's setups (a softmax on synthetic data,
 * or no model).  The world runs the family its config names (none: the
 * default, the registry's first). */
#pragma once

#include "sim/sim-world.h"

typedef struct {
  SimWorld *world;
  GChecksum *sum;             /* of every observation and fact, with time */
  guint observations, facts;
  GPtrArray *round_models;    /* per round: GPtrArray of LearnWeights refs */
  GArray *round_acc;          /* mean accuracy per round (sum) */
  GArray *round_acc_n;
  GArray *round_loss;         /* summed loss per round */
  guint dropped;
  DlTime first_close;         /* the coordinator's first "stream closed" */
  ProtoNodeId watch, watch_origin;   /* at watch's first observation: its model and watch_origin's */
  LearnWeights *watch_model, *origin_model;
} WorldRec;

void world_rec_init (WorldRec *r);
void world_rec_clear (WorldRec *r);
/* the recorder that fills r (r->world: set by world_run) */
SimRecorder world_recorder (WorldRec *r);

typedef struct {
  SimWorldConfig cfg;
  LearnDataset *all, *train, *test;
} WorldSetup;

/* peers peers for rounds rounds, min_participants all of them: a softmax
 * of 8 features and 4 classes on 1 200 synthetic samples (seeded) */
void world_setup_softmax (WorldSetup *s, guint peers, guint rounds, uint64_t seed);
/* the same with no model, its weights `size` floats */
void world_setup_none (WorldSetup *s, guint peers, guint rounds, gsize size);
void world_setup_clear (WorldSetup *s);
/* Peer i's outcome, by name ("finished", "hung", ...). */
void world_assert_peer (SimWorld *w, guint i, const char *outcome);
void world_teardown (SimWorld *w, WorldRec *rec, WorldSetup *s);
/* A world of s recorded by rec (world_rec_init'ed), not run (to free). */
SimWorld *world_build (WorldSetup *s, WorldRec *rec);
/* A world of s recorded by rec, run to its end (*out_world: to free). */
const SimResult *world_run (WorldSetup *s, WorldRec *rec, SimWorld **out_world);
