/* sim-scenario-private.h — shared by the scenario loader (sim-scenario.c),
 * the timeline parser (sim-timeline.c) and the expectations (sim-expect.c). */
#pragma once

#include "sim/sim-scenario.h"
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

/* Sets error to "FILE: [SECTION] KEY: message" and returns FALSE. */
/* Where a value of s comes from, for an error about it: "--set ARG" for a
 * key that --set gave, else the file's path. */
const char *_sim_scenario_origin (const SimScenario *s, const char *section, const char *key);

gboolean _sim_scenario_fail_at (GError **error, const char *file, const char *section, const char *key, const char *fmt, ...)
  G_GNUC_PRINTF (5, 6);
gboolean _sim_scenario_parse_uint (const char *v, guint *out);
/* WHEN: "5min", "round 2", "round 3 + 10s" (into a->at, or a->round and a->after). */
gboolean _sim_scenario_parse_when (const char *when, SimAction *a, GError **error);
/* One timeline action; peers it names go to peer_refs (guint*). */
gboolean _sim_scenario_parse_action (const char *text, SimAction *a, GPtrArray *peer_refs, GError **error);
/* One [expect] line. */
gboolean _sim_scenario_parse_expect_line (const char *file, const char *key, const char *value, SimExpect *out, GError **error);

/* The key table (sim-keys.c). */
typedef struct {
  const char *section, *key, *def;
} SimKeyInfo;
guint sim_keys_n (void);
SimKeyInfo sim_key_at (guint i);
/* section.key's default; NULL if there is no such key */
const char *sim_key_default (const char *section, const char *key);
gboolean sim_section_known (const char *section);
/* TRUE if section.key is a key of the common table (not a family's). */
gboolean sim_key_is_common (const char *section, const char *key);
/* Checks the common table merged with `families` (NULL-ended): no key
 * declared twice, every key a family takes from another declared by
 * another family.  FALSE with error naming the first fault. */
/* A lookup of p's values for a family's configure (proto-keys.h). */
void sim_keys_lookup_init (ProtoKeyLookup *l, const SimPoint *p, const char *dir);
gboolean sim_keys_check_families (const ProtoFamily *const *families, GError **error);

/* Every value of the point checked against its key's kind. */
gboolean _sim_scenario_check_point_values (const SimScenario *s, const SimPoint *p, GError **error);
/* TRUE if the file or a --set gives section.key (not its default). */
gboolean _sim_scenario_point_given (const SimPoint *p, const char *section, const char *key);
/* TRUE if section.key's value is its default, word for word. */
gboolean _sim_scenario_point_is_default (const SimPoint *p, const char *section, const char *key);
/* "a:4, b:4": names (NULL-terminated) and counts (transfer full; NULL to only check). */
gboolean _sim_scenario_parse_regions (const char *v, char ***names, guint **counts, guint *n, GError **error);
/* A point's resolved value of section.key. */
const char *_sim_scenario_point_value (const SimPoint *p, const char *section, const char *key);
gboolean _sim_scenario_parse_prob (const char *v, double *out, GError **error);
/* s split at sep outside parentheses and quotes (char*, transfer full). */
GPtrArray *_sim_scenario_split_top (const char *s, char sep);

G_END_DECLS
