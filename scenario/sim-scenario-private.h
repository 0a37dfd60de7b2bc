/* sim-scenario-private.h — shared by the parts of the scenario loader
 * (below: which file calls which). */
#pragma once

#include "scenario/sim-scenario.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

/* The largest values a scenario may give, so that no product of values
 * overflows (a stall window is (max_connection_retry + 2) x
 * peer_connection_timeout, robust's wait 2 x peer_connection_timeout, the
 * pipeline's 3 x step_timeout; an instant is at most time_limit) and no
 * allocation aborts: a duration at most 1000h (time_limit 100000h), at most
 * a million peers, a model or a data set of at most 250 million floats (a
 * message carries at most 1 GiB: PROTO_MAX_WIRE_BYTES). */
#define SIM_DURATION_MAX (1000 * DL_H)
#define SIM_TIME_LIMIT_MAX (100000 * DL_H)
#define SIM_PEERS_MAX 1000000u
#define SIM_FLOATS_MAX 250000000u
/* What one run may hold in model weights: a model's floats x (peers + 1),
 * every peer ever in the run holding its own copy and the world the
 * initial model, at most 500 million floats (2 GB; a run's peak is two to
 * three times that, with the models being trained and in flight). */
#define SIM_RUN_FLOATS_MAX 500000000u

/* The loader's layers: each file calls only those below it, none calls
 * back up (docs/architecture.md, "Cycles between files of one folder").
 *
 *   sim-scenario.c   reading the file, --set, sweeps into points
 *   sim-build.c      a point and a seed into a world configuration
 *   sim-keys.c       the key table, a point's values against their kinds
 *   sim-timeline.c   [timeline] WHEN and actions
 *   sim-expect.c     [expect] lines
 *   sim-values.c     value parsers
 *   sim-point.c      a point's values, where one comes from, the error
 *
 * (sim-build.c calls sim-keys.c, sim-timeline.c, sim-values.c and
 * sim-point.c; sim-keys.c calls sim-values.c and sim-point.c; sim-timeline.c
 * calls sim-values.c; sim-expect.c calls sim-point.c.) */

/* ---- sim-point.c: the bottom layer, which every other part calls */

/* Sets error to "FILE: [SECTION] KEY: message" (with key NULL,
 * "FILE: [SECTION]: message") and returns FALSE. */
gboolean _sim_scenario_fail_at (GError **error, const char *file, const char *section, const char *key, const char *fmt, ...)
  G_GNUC_PRINTF (5, 6);
/* Where a value of s comes from, for an error about it: "--set ARG" for a
 * key that --set gave, else the file's path. */
const char *_sim_scenario_origin (const SimScenario *s, const char *section, const char *key);
/* A point's resolved value of section.key; NULL if there is no such key. */
const char *_sim_scenario_point_value (const SimPoint *p, const char *section, const char *key);
/* TRUE if the file or a --set gives section.key (not its default). */
gboolean _sim_scenario_point_given (const SimPoint *p, const char *section, const char *key);

/* ---- sim-values.c: value parsers (they call no other part) */

/* s split at sep outside parentheses, each part stripped (char*, transfer full). */
GPtrArray *_sim_scenario_split_top (const char *s, char sep);
gboolean _sim_scenario_parse_uint (const char *v, guint *out);
gboolean _sim_scenario_parse_prob (const char *v, double *out, GError **error);
/* [peers] stragglers: "0", or "SHARE xFACTOR", SHARE in [0, 1] or a
 * percentage, FACTOR >= 1. */
gboolean _sim_scenario_parse_stragglers (const char *v, double *share, double *factor, GError **error);
/* "a:4, b:4": names (NULL-terminated) and counts (transfer full; NULL to only check). */
gboolean _sim_scenario_parse_regions (const char *v, char ***names, guint **counts, guint *n, GError **error);

/* ---- sim-timeline.c: the [timeline] section */

/* WHEN: "5min", "round 2", "round 3 + 10s" (into a->at, or a->round and a->after). */
gboolean _sim_scenario_parse_when (const char *when, SimAction *a, GError **error);
/* One timeline action; peers it names go to peer_refs (guint*). */
gboolean _sim_scenario_parse_action (const char *text, SimAction *a, GPtrArray *peer_refs, GError **error);

/* ---- sim-expect.c: the [expect] section */

/* One [expect] line. */
gboolean _sim_scenario_parse_expect_line (const char *file, const char *key, const char *value, SimExpect *out, GError **error);

/* ---- sim-keys.c: the key table */

typedef struct {
  const char *section, *key, *def;
} SimKeyInfo;
guint sim_keys_n (void);
SimKeyInfo sim_key_at (guint i);
/* section.key's default; NULL if there is no such key */
const char *sim_key_default (const char *section, const char *key);
gboolean sim_section_known (const char *section);
/* A lookup of p's values for a family's configure (proto-keys.h). */
void sim_keys_lookup_init (ProtoKeyLookup *l, const SimPoint *p, const char *dir);
/* Every value of the point checked against its key's kind. */
gboolean _sim_scenario_check_point_values (const SimScenario *s, const SimPoint *p, GError **error);

G_END_DECLS
