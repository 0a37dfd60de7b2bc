/* explore.h — private to `dlsim explore` and `dlsim shrink`
 * (cmd-explore.c, explore-plan.c, explore-shrink.c). */
#pragma once

#include "sim/sim-scenario.h"
#include "sim/sim-world.h"

G_BEGIN_DECLS

enum {
  F_DROP, F_DELAY, F_CRASH, F_LEAVE, F_JOIN, F_PARTITION, F_LINK_FAIL, F_LINK_DOWN, F_LINK_SLOW, F_SLOW, F_JITTER,
  F_REJOIN,   /* drawn from a stream of its own, so the kinds before it draw as before */
  F_COORD_CRASH,  /* `crash coordinator`: its own stream too; only when --faults names it */
  F_N
};
#define F_N_MAIN F_REJOIN
extern const char *const explore_fault_names[F_N];

/* the messages a drop or delay picks from, and their direction */
typedef struct {
  const char *type, *dir;
} ExploreMsg;
extern const ExploreMsg explore_msgs[];
extern const guint explore_n_msgs;

typedef struct {
  guint n_peers, rounds;
  gboolean kinds[F_N];   /* the fault kinds the search may turn on */
} Space;

/* explore-plan.c */
/* The plan of run `index`: "section.key=value" overrides (timeline.WHEN=ACTION
 * mostly); the kinds turned on are appended to kinds_out. */
GPtrArray *make_plan (const Space *sp, guint64 seed, guint index, GString *kinds_out);
gboolean parse_faults (const char *list, Space *sp, GError **error);

/* explore-shrink.c */
typedef struct {
  char *first_property;
  char *first_explanation;
  DlTime first_t;
  guint counts[SIM_N_PROPS];
  GHashTable *states;     /* peer states reached (interned) */
  GHashTable *dropped;    /* message types dropped by the drop rule (not listened for) */
  GHashTable *rules;      /* drop rules that fired */
} Obs;

void obs_init (Obs *o, GHashTable *states, GHashTable *dropped, GHashTable *rules);
void obs_clear (Obs *o);
char *signature_of (const Obs *o);
/* path loaded with sets and the plan's overrides (its first sweep point
 * is the one run); NULL with error if it fails. */
SimScenario *explore_load (const char *path, char **sets, GPtrArray *plan, GError **error);
/* Runs path with sets and the plan at seed; *sig: the failure's signature or NULL. */
gboolean run_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, Obs *o, char **sig, GError **error);
gboolean still_fails (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs);
GPtrArray *ddmin (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs);
void shrink_size (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint n_peers,
                  guint rounds, guint *runs);
void shrink_values (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs);
char *scenario_text (const char *path, const char *origin, const char *name, GPtrArray *plan, const guint *counts,
                     const char *signature, guint64 seed, guint found_in, guint shrunk_from, const char *explanation);

gboolean explore_write_found (const char *base, char **sets, GPtrArray *min, guint64 seed, const char *sig,
                              const char *origin, const char *name, guint found_in, guint shrunk_from,
                              const char *fname, gboolean *reproduces, GError **error);

G_END_DECLS
