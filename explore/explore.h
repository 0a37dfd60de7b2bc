/* explore.h — randomized fault search and shrinking, for `dlsim explore`
 * and `dlsim shrink` (cli/cmd-explore.c, cli/cmd-shrink.c): the fault
 * space and the plan a run derives from its seed (explore-plan.c); one run
 * of a plan and its failure signature, ddmin, size and value shrinking,
 * and the scenario file a failure is written as (explore-shrink.c). */
#pragma once

#include "protocol/proto-msg-class.h"
#include "sim/sim-scenario.h"
#include "sim/sim-world.h"

G_BEGIN_DECLS

enum {
  EXPLORE_F_DROP, EXPLORE_F_DELAY, EXPLORE_F_CRASH, EXPLORE_F_LEAVE, EXPLORE_F_JOIN, EXPLORE_F_PARTITION,
  EXPLORE_F_LINK_FAIL, EXPLORE_F_LINK_DOWN, EXPLORE_F_LINK_SLOW, EXPLORE_F_SLOW, EXPLORE_F_JITTER,
  EXPLORE_F_REJOIN,   /* drawn from a stream of its own, so the kinds before it draw as before */
  EXPLORE_F_COORD_CRASH,  /* `crash coordinator`: its own stream too; only when --faults names it */
  EXPLORE_F_N
};
#define EXPLORE_F_N_MAIN EXPLORE_F_REJOIN
extern const char *const explore_fault_names[EXPLORE_F_N];

typedef struct {
  guint n_peers, rounds;
  gboolean kinds[EXPLORE_F_N];   /* the fault kinds the search may turn on */
  /* the running family's message table: a drop or a delay picks one of
   * its fault targets (proto_msg_family_fault_target); NULL: none, and
   * drop and delay draw no action */
  const ProtoMsgFamily *msgs;
} ExploreSpace;

/* the messages a drop or delay picks from: how many, and the i-th's type
 * name and direction ("to" or "from") */
guint explore_n_msgs (const ExploreSpace *sp);
void explore_msg_at (const ExploreSpace *sp, guint i, const char **type, const char **dir);

/* explore-plan.c */
/* The plan of run `index`: "section.key=value" overrides (timeline.WHEN=ACTION
 * mostly); the kinds turned on are appended to kinds_out. */
GPtrArray *explore_plan_make (const ExploreSpace *sp, guint64 seed, guint index, GString *kinds_out);
gboolean explore_parse_faults (const char *list, ExploreSpace *sp, GError **error);

/* explore-shrink.c */
typedef struct {
  char *first_property;
  char *first_explanation;
  DlTime first_t;
  guint counts[SIM_N_PROPS];
  GHashTable *states;     /* peer states reached (interned) */
  GHashTable *dropped;    /* message types dropped by the drop rule (not listened for) */
  GHashTable *rules;      /* drop rules that fired */
} ExploreObs;

void explore_obs_init (ExploreObs *o, GHashTable *states, GHashTable *dropped, GHashTable *rules);
void explore_obs_clear (ExploreObs *o);
char *explore_signature (const ExploreObs *o);
/* path loaded with sets and the plan's overrides (its first sweep point
 * is the one run); NULL with error if it fails. */
SimScenario *explore_load (const char *path, char **sets, GPtrArray *plan, GError **error);
/* Runs path with sets and the plan at seed; *sig: the failure's signature or NULL. */
gboolean explore_run_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, ExploreObs *o,
                           char **sig, GError **error);
/* Does the plan still fail with the signature want?  Counts the run in runs. */
gboolean explore_still_fails (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want,
                              guint *runs);
/* ddmin over lines (char*, not taken), given that fails (lines, data)
 * holds: a 1-minimal subset (without any one of its lines fails no longer
 * holds; transfer full, new strings), in lines' order.  Every subset
 * fails is asked about keeps lines' order. */
typedef gboolean (*ExploreFailsFn) (GPtrArray *subset, gpointer data);
GPtrArray *explore_ddmin (GPtrArray *lines, ExploreFailsFn fails, gpointer data);
/* explore_ddmin over the plan's lines with explore_still_fails; runs
 * counts the runs made. */
GPtrArray *explore_ddmin_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want,
                               guint *runs);
void explore_shrink_size (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want,
                          guint n_peers, guint rounds, guint *runs);
void explore_shrink_values (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want,
                            guint *runs);
char *explore_scenario_text (const char *path, const char *origin, const char *name, GPtrArray *plan,
                             const guint *counts, const char *signature, guint64 seed, guint found_in,
                             guint shrunk_from, const char *explanation);

gboolean explore_write_found (const char *base, char **sets, GPtrArray *min, guint64 seed, const char *sig,
                              const char *origin, const char *name, guint found_in, guint shrunk_from,
                              const char *fname, gboolean *reproduces, GError **error);

G_END_DECLS
