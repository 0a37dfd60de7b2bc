/* family-harness.h — the other families' tests on the hand-held world
 * (harness.h; gossip's, hierarchical's and the
 * pipeline's): the coordinator and n peers behind the machine
 * interface, messages the test delivers, links that come up one by one as
 * soon as they are connected, training that adds the peer's id to every
 * weight, and time that moves only by hand.  A thin layer over harness.c.
 * Below it, fh_*: the checks that tests/'s programs and a family's own
 * share (explore's coverage, a refused scenario), written once. */
#pragma once

#include "explore/explore.h"
#include "scenario/sim-scenario.h"
#include "tests/harness.h"

/* g->m[0] is the coordinator, g->m[1..n] the peers; g->alive[i] FALSE
 * crashes one */
typedef Harness GW;

GW *gw_new (const ProtoConfig *cfg, guint n, gsize model_len);
/* envs[0..n): each peer's host (initial and rng are the harness's) */
GW *gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs);
void gw_start_all (GW *g);
/* Messages of `type` stay queued until gw_unhold. */
void gw_hold (GW *g, ProtoMsgType type);
/* Starts every peer with the messages of `type` to `to` held, settles, and
 * drops those (lost): how many. */
guint gw_start_losing (GW *g, ProtoMsgType type, ProtoNodeId to);
ProtoMachine *gw_peer (GW *g, guint i);

/* The rest are harness.h's, by their old names (gw_train: training adds
 * the peer's id to every weight). */
#define gw_free harness_free
#define gw_feed harness_feed
#define gw_train harness_finish_training
#define gw_settle harness_settle
#define gw_unhold harness_unhold
#define gw_count harness_count_log

/* explore's coverage over a search's reached sets, as explore-search.c
 * fills them: interned names (fh_cov_add) */
typedef struct {
  ExploreSearch s;
  ExploreSpace sp;
  ExploreCoverage c;
} FhCov;

/* empty sets and the space of `family` (its machines and its messages) */
void fh_cov_init (FhCov *v, const char *family);
void fh_cov_add (GHashTable *set, const char *name);
void fh_cov_clear (FhCov *v);

/* Asserts that a scenario file of `text` (s.ini in a temporary folder)
 * does not load, and that the error names the file, `where` (the section
 * and key: "[protocol] step_timeout") and `range` (what it takes). */
void fh_assert_refused (const char *text, const char *where, const char *range);

/* Builds (seed 1) f's scenario with every wait at its largest (extra:
 * more [protocol] lines, or NULL) into b, asserting that it loads and
 * that f's stall window does not overflow (UBSan traps a signed
 * overflow); the caller clears b. */
void fh_build_largest (const ProtoFamily *f, const char *extra, SimBuilt *b);
