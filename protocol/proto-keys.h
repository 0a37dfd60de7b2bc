/* proto-keys.h — a protocol family's scenario keys and how it configures
 * itself from them.
 *
 * A family exports its key table (section, key, default, kind, doc) and a
 * configure function through its ProtoFamily's `keys` member
 * (proto-machine.h).  The scenario loader (scenario/sim-keys.c) merges the
 * common table with every family's, checks each value against its kind,
 * and calls the run's family's configure with a lookup of the point's
 * resolved values.  The family names the key an error is about
 * (proto_keys_fail); the loader adds the file.
 *
 * A key is declared once: by the common table, by one family, or by a
 * group of protocol/ (ProtoKeyGroup: keys several families read, declared
 * beside the code that reads them, so that no family's keys depend on
 * another family's folder).  A family that takes a key another family or
 * a group declares lists it in `shared`, or the whole group in `groups`; a
 * key declared with `every_family` applies under any family; a common key
 * applies under every family that does not list it in `refused`.  Giving a
 * key under a family that does not take it is an error. */
#pragma once

#include "protocol/proto-config.h"

#include <glib.h>

G_BEGIN_DECLS

/* The kinds of value a family's key may have; kinds of its own are
 * PROTO_KEY_OWN with the row's check. */
typedef enum {
  PROTO_KEY_STR,       /* any text */
  PROTO_KEY_UINT,      /* a whole number from min to max */
  PROTO_KEY_NUM,       /* a number */
  PROTO_KEY_PROB,      /* a probability in [0, 1] */
  PROTO_KEY_DUR,       /* a duration */
  PROTO_KEY_OPT_DUR,   /* empty, or a duration */
  PROTO_KEY_DIST_DUR,  /* a duration or a distribution of durations */
  PROTO_KEY_SIZE,      /* a size in bytes */
  PROTO_KEY_ON_OFF,    /* on | off (yes, true; no, false) */
  PROTO_KEY_SHARE,     /* a share in (0, 1] or a percentage */
  PROTO_KEY_OWN,       /* the row's check decides */
} ProtoKeyKind;

/* What a key's value is to a tool that moves the scenario file elsewhere
 * (`dlsim export-scenario`, export/export-scenario.c): a relative path in
 * it is relative to the scenario's folder (the file's, or its [scenario]
 * dir), so the tool makes it absolute.  A key table sets the form of each
 * key that holds a path; the tool names no key. */
typedef enum {
  PROTO_KEY_NOT_PATH,      /* not a path */
  PROTO_KEY_PATH,          /* a file or folder; empty: none */
  PROTO_KEY_PATH_OR_HERE,  /* a folder; empty: the scenario's folder itself */
  PROTO_KEY_PATH_SOURCE,   /* a data source (learn_source_parse): csv:PATH and idx:DIR hold a path,
                              synthetic and sklearn:NAME none */
} ProtoKeyPath;

/* The most peers a scenario may have (the loader's SIM_PEERS_MAX), for a
 * whole number's range. */
#define PROTO_KEY_PEERS_MAX 1000000u

typedef struct ProtoKeyGroup ProtoKeyGroup;

typedef struct {
  const char *section, *key, *def;
  ProtoKeyKind kind;
  const char *doc;
  guint min, max;              /* PROTO_KEY_UINT: the range (max 0: up to 2^32 - 1) */
  gboolean (*check) (const char *value, GError **error);  /* PROTO_KEY_OWN */
  gboolean every_family;       /* applies under every family, not only the ones that take it */
  ProtoKeyPath path;           /* the value is a path (a relative one: to the scenario's folder) */
  /* not a key (section and key NULL): the place among a family's rows
   * where a group it takes (`groups`) is listed (PROTO_KEY_GROUP_HERE) */
  const ProtoKeyGroup *group;
} ProtoKey;

/* A row of a family's table that lists the group g (one it takes whole,
 * in `groups`) in its place, when the family is the first of the registry
 * to take it: `dlsim run --keys` lists the group's keys among the
 * family's own, in the order the family gives. */
#define PROTO_KEY_GROUP_HERE(g) { .group = &(g) }

/* The point's resolved values, as the loader gives them to a family's
 * configure (every value has been checked against its kind). */
typedef struct ProtoKeyLookup ProtoKeyLookup;
struct ProtoKeyLookup {
  const char *(*value) (const ProtoKeyLookup *l, const char *section, const char *key);
  /* TRUE if the file or a --set gives section.key (not its default) */
  gboolean (*given) (const ProtoKeyLookup *l, const char *section, const char *key);
  const void *data;            /* the loader's */
  const char *dir;             /* the scenario file's folder (a relative path in a value is relative
                                  to it); NULL where no file is at hand */
  const char *bad_section;     /* set by proto_keys_fail: the key an error is about */
  const char *bad_key;
};

/* Keys that protocol/ declares for the families that read them (not the
 * common table's: a family that does not take them refuses nothing).  A
 * group is listed (`dlsim run --keys`) among the rows of the first
 * family, in the registry's order, that lists it in `groups`: where its
 * rows place it (PROTO_KEY_GROUP_HERE), else after its own rows; one that
 * no family lists whole, after every family's rows. */
struct ProtoKeyGroup {
  const ProtoKey *rows;
  guint n_rows;
};

typedef struct {
  const ProtoKey *rows;        /* the keys the family declares, in the order `dlsim run --keys` lists them
                                  (with the places of groups it takes: PROTO_KEY_GROUP_HERE) */
  guint n_rows;
  /* "section.key" of keys another family declares that this one takes too, NULL-ended */
  const char *const *shared;
  /* the groups of protocol/ it takes whole, NULL-ended */
  const ProtoKeyGroup *const *groups;
  /* "section.key" of common keys that do not apply under it (the keys of
   * learning a family without a model has no use for), NULL-ended; a
   * family that refuses training.rounds sets rounds in its configure */
  const char *const *refused;
  /* Sets the family's part of cfg from the values; on a bad value, FALSE
   * with error set by proto_keys_fail. */
  gboolean (*configure) (ProtoConfig *cfg, ProtoKeyLookup *keys, GError **error);
  /* peers.count when the scenario does not give it (NULL: the key's
   * default); FALSE if the values it needs do not parse */
  gboolean (*peer_count) (const ProtoKeyLookup *keys, guint *count);
} ProtoFamilyKeys;

const char *proto_keys_value (const ProtoKeyLookup *l, const char *section, const char *key);
gboolean proto_keys_given (const ProtoKeyLookup *l, const char *section, const char *key);
/* A checked value as a whole number, number, duration, size or on/off (0
 * or FALSE if it does not parse). */
guint proto_keys_uint (const ProtoKeyLookup *l, const char *section, const char *key);
double proto_keys_number (const ProtoKeyLookup *l, const char *section, const char *key);
DlTime proto_keys_duration (const ProtoKeyLookup *l, const char *section, const char *key);
guint64 proto_keys_size (const ProtoKeyLookup *l, const char *section, const char *key);
gboolean proto_keys_on (const ProtoKeyLookup *l, const char *section, const char *key);
/* TRUE if the value is `word`. */
gboolean proto_keys_is (const ProtoKeyLookup *l, const char *section, const char *key, const char *word);

/* Sets error to the message, notes section.key as the one it is about, and
 * returns FALSE. */
gboolean proto_keys_fail (ProtoKeyLookup *l, GError **error, const char *section, const char *key,
                          const char *fmt, ...) G_GNUC_PRINTF (5, 6);
/* Sets error with the message of `e` (a parser's), noting section.key;
 * returns FALSE. */
gboolean proto_keys_fail_with (ProtoKeyLookup *l, GError **error, const char *section, const char *key,
                               GError *e);

/* A duration that bounds a wait a protocol repeats (a timeout, a cycle):
 * below PROTO_KEY_WAIT_FLOOR the protocol retries without simulated time
 * going on, and the run spins.  Sets *out, or fails naming the key and
 * the floor. */
#define PROTO_KEY_WAIT_FLOOR DL_MS
#define PROTO_KEY_WAIT_FLOOR_TEXT "1ms"
gboolean proto_keys_wait (ProtoKeyLookup *l, GError **error, const char *section, const char *key, DlTime *out);

/* The straggler policy and its knobs, the group proto_keys_stragglers
 * declares (gossip and hierarchical take it whole; DISCO's robust the
 * policy, drop_factor, drop_rounds and staleness_exponent, in `shared`):
 * straggler_policy, round_deadline, drop_factor, drop_rounds, async_mix,
 * staleness_exponent. */
extern const ProtoKeyGroup proto_keys_stragglers;
/* The keys of a coordinator's quorum and of a peer's waits, which DISCO
 * declared and others read (each a group: they are read by different
 * families): min_participants (DISCO, gossip, hierarchical, guest and
 * fedavg), model_sync_timeout (DISCO and gossip: a late joiner's wait for
 * a model) and payload_timeout (every family: a row with every_family;
 * DISCO and gossip read it). */
extern const ProtoKeyGroup proto_keys_quorum;
extern const ProtoKeyGroup proto_keys_model_sync;
extern const ProtoKeyGroup proto_keys_payload;
/* Every group protocol/ declares, NULL-ended (the loader lists them all). */
extern const ProtoKeyGroup *const proto_key_groups[];
gboolean proto_keys_configure_stragglers (ProtoConfig *cfg, ProtoKeyLookup *keys, GError **error);
/* The knobs alone (a family with a policy check of its own parses the
 * policy first). */
gboolean proto_keys_configure_straggler_knobs (ProtoConfig *cfg, ProtoKeyLookup *keys, GError **error);
/* The knobs of drop-slowest and of staleness alone (staleness_exponent,
 * drop_factor, drop_rounds): for a family that takes only those, and
 * leaves round_deadline and async_mix at their defaults (DISCO's robust). */
gboolean proto_keys_configure_drop_knobs (ProtoConfig *cfg, ProtoKeyLookup *keys, GError **error);

/* The value parsers families and the loader share. */
gboolean proto_key_parse_uint (const char *v, guint *out);
gboolean proto_key_parse_on_off (const char *v, gboolean *out, GError **error);
/* "10%" or "0.1": a share in (0, 1]. */
gboolean proto_key_parse_share (const char *v, double *out, GError **error);
/* "a or b": `word` is one of them, or "none of them"  */
gboolean proto_key_check_words (const char *v, const char *a, const char *b, GError **error);

G_END_DECLS
