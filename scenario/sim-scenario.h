/* sim-scenario.h — scenario files (SCENARIO-FORMAT.md §1): GLib key files
 * with sections [scenario] [protocol] [training] [model] [data] [peers]
 * [compute] [network] [churn] [timeline] [expect].
 *
 * Loading checks everything before anything runs: unknown sections or keys,
 * malformed values, timeline actions on unknown peers, impossible
 * combinations.  Errors name the file, the section, the key (or the timeline
 * time) and what was expected.  Sweep lists `${a, b}` in any value expand to
 * the Cartesian product of all lists; each point runs `repeat` times with
 * seeds seed, seed + 1, ...
 *
 * Shape: sim_scenario_load / sim_scenario_free (g_autoptr). */
#pragma once

#include "host/sim-types.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

typedef enum { SIM_OP_EQ, SIM_OP_NE, SIM_OP_LT, SIM_OP_LE, SIM_OP_GT, SIM_OP_GE } SimOp;

typedef struct {
  char *key;      /* summary key, e.g. "outcome", "peer.p4.synced" */
  SimOp op;
  char *value;    /* as written: a number or a word */
} SimExpect;

typedef struct {
  guint index;          /* 0-based point number */
  char *label;          /* "section.key=value, ..." for the swept keys; "" without sweeps */
  GPtrArray *keys;      /* resolved "section.key" (every known key, in table order) */
  GPtrArray *values;    /* their values as text */
  GArray *expects;      /* SimExpect */
  GHashTable *given;    /* "section.key" of the keys the file (or --set) gives */
} SimPoint;

typedef struct {
  char *path;
  char *name;
  char *description;
  guint64 seed;
  guint repeat;
  char *version;        /* protocol version of the first point */
  GPtrArray *points;    /* SimPoint* */
  char *sha256;         /* of the file's text, as read (provenance) */
  GHashTable *set_by;   /* "section.key" -> "--set ARG" for the keys --set gave */
  GPtrArray *warnings;  /* char*, each once: what loads but is likely a mistake (an empty churn
                           trace), "FILE: [SECTION] KEY: ...", for the caller to print */
} SimScenario;

void sim_scenario_free (SimScenario *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimScenario, sim_scenario_free)

/* overrides: NULL or "section.key=value" strings (--set) */
SimScenario *sim_scenario_load (const char *path, const char *const *overrides, GError **error);

/* Builds the world configuration of a point for one seed.  The datasets it
 * creates are returned to the caller to free after the run. */
typedef struct {
  SimWorldConfig cfg;
  LearnDataset *train, *test;
  char *warning;        /* NULL, or what loads but is likely a mistake (SimScenario's warnings) */
} SimBuilt;

gboolean sim_scenario_build (const SimScenario *s, const SimPoint *p, guint64 seed,
                             SimBuilt *out, GError **error);
void sim_built_clear (SimBuilt *b);

/* The scenario keys, their defaults and documentation, for `dlsim` help and
 * the user guide: NULL-terminated triples (key, default, description). */
const char *const *sim_scenario_key_table (void);
/* The families a key applies to ("gossip or hierarchical", in the
 * registry's order: the family that declares it and those that take it
 * too), NULL if it applies to every family. */
const char *sim_scenario_key_family (const char *full_key);
/* Does the key apply under `family`? */
gboolean sim_scenario_key_applies (const char *full_key, const char *family);
/* TRUE if full_key ("network.latency") is a key of the common table, not
 * one a protocol family declares. */
gboolean sim_scenario_key_is_common (const char *full_key);
/* Whether full_key's value is a path, and of which form (its row's: a
 * family's sets `path`; in the common table the path kinds, and the data
 * source); PROTO_KEY_NOT_PATH for a key that is not in the table. */
ProtoKeyPath sim_scenario_key_path (const char *full_key);
/* Checks the common table merged with `families` (NULL-ended, in the
 * registry's order): no key declared twice, and every key a family takes
 * from another (ProtoFamilyKeys' shared) declared by another family, every
 * key a family refuses a common one.
 * FALSE with error naming the first fault. */
gboolean sim_scenario_keys_check (const ProtoFamily *const *families, GError **error);

const char *sim_op_name (SimOp op);
/* Does `actual` satisfy the expectation?  Numbers compare numerically,
 * words as text (only = and != apply to words). */
gboolean sim_expect_check (const SimExpect *e, const char *actual);
/* A drop or delay rule's message: TYPE, or TYPE:KIND where the type's
 * messages have kinds (a guest's TYPE words, docs/guest.md); kind: "" or
 * the kind (1 to 32 letters, digits, -_.).  FALSE if unknown or malformed. */
gboolean sim_timeline_msg_parse (const char *word, int *msg_type, char kind[33]);

G_END_DECLS
