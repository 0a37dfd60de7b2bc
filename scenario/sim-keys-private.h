/* sim-keys-private.h — what sim-keys.c (the key table) and its leaf
 * sim-keys-value.c (a value against its key's kind) share: the kinds and
 * the common table's row.  Nothing else includes it. */
#pragma once

#include <glib.h>

#include "protocol/proto-keys.h"

G_BEGIN_DECLS

/* K_PATH is a file (relative: to the scenario's folder; empty: none) and
 * K_SOURCE's csv:PATH and idx:DIR hold one: sim_scenario_key_path says so,
 * for export-scenario, which makes them absolute. */
typedef enum {
  K_STR, K_UINT, K_SEED, K_NUM, K_PROB, K_DUR, K_DIST_DUR, K_DIST_NUM, K_DETECT, K_RATE, K_PER_TIME,
  K_AFTER, K_MODEL, K_SOURCE, K_PARTITION, K_STRAGGLERS, K_NAT, K_RUNTIME, K_PATH,
  K_REGIONS, K_OPT_DIST_DUR, K_SIZE, K_REPLICATION, K_SHARING, K_TRANSPORT, K_DIST_RATE, K_BOOL,
  K_FAMILY_KEYS,   /* not a key: where the families' keys go in the listing */
} Kind;

typedef struct {
  const char *section;
  const char *key;
  const char *def;
  Kind kind;
  const char *doc;
} KeySpec;

/* sim-keys-value.c: whether common key k's value v parses as its kind
 * (FALSE: error says why; a string or a path always does). */
gboolean _sim_keys_check_value (const KeySpec *k, const char *v, GError **error);

/* sim-keys-value.c: a family's value against its row's kind
 * (protocol/proto-keys.h). */
gboolean _sim_keys_check_family_value (const ProtoKey *k, const char *v, GError **error);

G_END_DECLS
