/* explore.h — randomized fault search and shrinking, for `dlsim explore`
 * and `dlsim shrink` (cli/cmd-explore.c, cli/cmd-shrink.c parse and
 * print): the fault space and the plan a run derives from its seed
 * (explore-plan.c); one run of a plan and its failure signature, ddmin,
 * size and value shrinking, and the scenario file a failure is written as
 * (explore-shrink.c); the search itself (its runs in worker threads,
 * failures grouped by signature, coverage, recording, shrinking each
 * failure) and the shrinking of a recorded run (explore-search.c). */
#pragma once

#include "base/dl-random.h"
#include "protocol/proto-machine.h"
#include "protocol/proto-msg-class.h"
#include "results/res-db.h"
#include "scenario/sim-scenario.h"
#include "host/sim-types.h"

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
  const ProtoFamily *family;     /* the family the scenario runs (its peer states: coverage) */
  /* the running family's message table: a drop or a delay picks one of
   * its fault targets (proto_msg_family_fault_target); NULL: none, and
   * drop and delay draw no action */
  const ProtoMsgFamily *msgs;
  /* --messages: the messages drop and delay pick from instead, each "to"
   * then "from" (borrowed; NULL: the family's fault targets) */
  char **messages;
  /* --heal: each run's plan ends its fault phase with `heal all` at a time
   * drawn from its seed (explore-plan.c); shrinking keeps that line */
  gboolean heal;
} ExploreSpace;

/* the line of a plan that begins the liveness phase (kept by shrinking) */
gboolean explore_plan_is_heal (const char *line);

/* the messages a drop or delay picks from: how many, and the i-th's type
 * name and direction ("to" or "from") */
guint explore_n_msgs (const ExploreSpace *sp);
void explore_msg_at (const ExploreSpace *sp, guint i, const char **type, const char **dir);

/* explore-plan.c */
/* The plan drawn from (seed, index): "section.key=value" overrides
 * (timeline.WHEN=ACTION mostly); the kinds turned on are appended to
 * kinds_out.  The search draws a run's plan from the run's own seed and
 * index 0, so that --seed SEED --runs 1 reproduces it. */
GPtrArray *explore_plan_make (const ExploreSpace *sp, guint64 seed, guint index, GString *kinds_out);
gboolean explore_parse_faults (const char *list, ExploreSpace *sp, GError **error);
/* --guided: run `index`'s plan as a mutation of parent (a plan that
 * reached new coverage): one or two of adding a line of run index's own
 * plan, removing a line, moving a line to another time, drawn from r.
 * Heal lines stay as they are.  (transfer full) */
GPtrArray *explore_plan_mutate (const ExploreSpace *sp, guint64 seed, guint index, GPtrArray *parent, DlRandom *r);
/* --messages TYPE[:KIND],...: checks each as a timeline rule's message
 * (sim_timeline_msg_parse) and makes them the ones drop and delay pick
 * from; `list` stays the caller's. */
gboolean explore_parse_messages (char **list, ExploreSpace *sp, GError **error);

/* explore-shrink.c */
typedef struct {
  char *first_property;
  char *first_explanation;
  DlTime first_t;
  guint counts[SIM_N_PROPS];
  GHashTable *states;     /* peer states reached (interned) */
  GHashTable *dropped;    /* message types dropped by the drop rule (not listened for) */
  GHashTable *rules;      /* drop rules that fired */
  /* --guided's coverage, or NULL: interned "A!M" (M dropped in state A,
   * "S:" before the coordinator's), with last_state (a node's state) to
   * make them */
  GHashTable *features, *last_state;
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
/* What a found file's header says and where its relative paths go. */
typedef struct {
  const char *origin;      /* the command that found it: "dlsim explore FILE" */
  const char *name;        /* its [scenario] name */
  guint found_in;          /* failing runs with the signature */
  guint shrunk_from;       /* the plan's lines before ddmin */
  /* what shrinking did after ddmin, for the header: "then fewer peers and
   * rounds, then rounder times and sizes" */
  const char *then;
  /* TRUE: the base's relative paths (traces, data, a guest's command) are
   * its folder's, and a file written elsewhere gets a [scenario] dir to
   * it; FALSE: the base's paths are absolute (an exported run's) */
  gboolean base_relative;
} ExploreFoundInfo;

/* The found file's text: path's text with plan (the base's overrides, then
 * the shrunk lines: shrunk_to of them, counted in the header) and an
 * [expect] pinning counts. */
char *explore_scenario_text (const char *path, const ExploreFoundInfo *info, GPtrArray *plan, guint shrunk_to,
                             const guint *counts, const char *signature, guint64 seed, const char *explanation);

gboolean explore_write_found (const char *base, char **sets, GPtrArray *min, guint64 seed, const char *sig,
                              const ExploreFoundInfo *info, const char *fname, gboolean *reproduces,
                              GError **error);

/* explore-search.c */
/* Fills sp's peers (at least 2), rounds, family and messages from path's
 * first sweep point with sets (NULL-ended); *seed: the scenario's seed.
 * The kinds are left as they are. */
gboolean explore_space_load (ExploreSpace *sp, const char *path, char **sets, guint64 *seed, GError **error);

typedef struct {
  char *signature, *property, *explanation;
  GArray *seeds;          /* guint64, the failing runs' seeds in run order */
  GPtrArray *plan;        /* the first failing run's */
  GPtrArray *plans;       /* every failing run's (GPtrArray*), with keep_plans */
} ExploreFailure;

typedef struct {
  guint done, failing, invalid;   /* runs made; failing; plans the scenario refused */
  GPtrArray *failures;            /* ExploreFailure*, in the order first met */
  GHashTable *states, *dropped, *rules;   /* reached: interned names */
  GHashTable *by_sig;
  GHashTable *features;           /* --guided: every feature reached (ExploreObs) */
  GPtrArray *corpus;              /* --guided: the plans that reached a new one, in run order */
} ExploreSearch;

typedef struct {
  const char *path;
  char **sets;                    /* the base's overrides, NULL-ended */
  const ExploreSpace *sp;
  guint64 base;                   /* run i's seed is base + i (its plan's too) */
  guint runs, jobs;               /* jobs: threads at once; the result does not change */
  DlTime budget;                  /* wall time after which no run starts (0: none) */
  gboolean keep_plans;            /* keep every failing run's plan (explore_record_failures) */
  /* --guided: a quarter of the runs mutate a plan that reached a new
   * drop in a state (or a new signature) instead of drawing afresh;
   * batches of a fixed size, so that jobs still changes nothing */
  gboolean guided;
  /* after each run is taken, in run order (i: its index) */
  void (*progress) (const ExploreSearch *s, guint i, gpointer data);
  gpointer progress_data;
} ExploreSearchOptions;

/* Makes the runs (until o->budget), in batches taken in run order. */
ExploreSearch *explore_search_run (const ExploreSearchOptions *o);
void explore_search_free (ExploreSearch *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExploreSearch, explore_search_free)

/* What the search never reached ("-": everything reached): the peer states
 * of the family's list, the running family's message types never dropped
 * for want of a listener, the fault targets whose drop rule never fired
 * (a rule on a type with kinds fires on any of them).  n_states 0: the
 * family's peers name their states as they run (a guest), and states_seen
 * names the states_reached ones ("-" otherwise). */
typedef struct {
  guint states_reached, n_states;
  char *states_never, *states_seen, *dropped_never, *rules_never;
} ExploreCoverage;
void explore_coverage (const ExploreSearch *s, const ExploreSpace *sp, ExploreCoverage *c);
void explore_coverage_clear (ExploreCoverage *c);

/* Runs every failing run again into db (needs keep_plans); *recorded: how many. */
gboolean explore_record_failures (const ExploreSearch *s, const char *path, char **sets, ResDb *db, guint *recorded,
                                  GError **error);
/* The failure's first plan shrunk: ddmin over its lines, fewer peers and
 * rounds, rounder values (transfer full); tries counts the runs.  Its
 * file's header says the steps after ddmin in these words. */
#define EXPLORE_SHRINK_FAILURE_THEN "then fewer peers and rounds, then rounder times and sizes"
GPtrArray *explore_shrink_failure (const ExploreFailure *f, const char *path, char **sets, const ExploreSpace *sp,
                                   guint *tries);
/* The found file's scenario name: path's stem and the signature's words,
 * "explore-base-progress-in-linking-dropped-ConnectionFail". */
char *explore_found_name (const char *path, const char *signature);

typedef struct {
  char *signature;        /* NULL: the run breaks no property (nothing written) */
  guint from, to, tries;  /* timeline lines before and after; runs made */
  gboolean reproduces;
} ExploreShrunk;
/* Runs base (a recorded run's scenario without its timeline, its paths
 * absolute) with the timeline's lines, and if it fails shrinks them
 * (ddmin, rounder values: not the peers and rounds) and writes out,
 * checked to reproduce, with no [scenario] dir. */
#define EXPLORE_SHRINK_RECORDED_THEN "then rounder times and sizes; peers and rounds as recorded"
gboolean explore_shrink_recorded (const char *base, GPtrArray *timeline, const char *origin, const char *out,
                                  ExploreShrunk *r, GError **error);
void explore_shrunk_clear (ExploreShrunk *r);

/* explore-localize.c: `dlsim explore --localize FOUND.ini`, when the
 * failure became likely.  The found run (the file with its own seed) is
 * re-run with a `reseed SALT` timeline action at each cut t: the same run
 * up to t, every random stream drawn anew after it; the failure ratio at
 * t is the share of o->runs such runs that fail with the found run's
 * signature.  Cuts: 0, one just after every (n/points)-th of the found
 * run's n recorded events, and its first violation; then a bisection
 * over its events where the ratio becomes certain (>= certain) and stays
 * so. */
typedef struct {
  const char *path;
  char **sets;             /* NULL-ended overrides */
  guint runs, points, jobs;
  double certain;          /* the ratio that counts as (nearly) certain */
  ResDb *db;               /* NULL, or where the found run and the curve go */
} ExploreLocalizeOptions;

typedef struct {
  DlTime t;
  guint runs, failing;
} ExploreCut;

typedef struct {
  DlTime t;
  char *what;              /* "p2 received Payload from p1", "world drop-rule (...)" */
} ExploreEvent;

typedef struct {
  char *signature;         /* the found run's failure */
  guint64 seed;
  DlTime failed_at;        /* its first violation */
  GArray *cuts;            /* ExploreCut, by t */
  GArray *events;          /* ExploreEvent, the found run's, by t */
  gint decisive;           /* the first cut after which every cut is certain; -1: none */
  DlTime decisive_t;       /* the last event before it (DL_TIME_NEVER: none) */
  GPtrArray *decisive_events;   /* char*: the events at decisive_t */
  gint64 run_id;           /* with db: the found run's id */
} ExploreLocalized;

gboolean explore_localize (const ExploreLocalizeOptions *o, ExploreLocalized *out, GError **error);
void explore_localized_clear (ExploreLocalized *l);

G_END_DECLS
