/* sim-keys-value.c — a common key's value against its kind: whole
 * numbers in their ranges, durations, distributions, rates, the few-word
 * kinds and the learning keys' forms (_sim_keys_check_value); and a
 * family's value against its row's kind (_sim_keys_check_family_value).
 * A leaf of sim-keys.c: it calls the value parsers (sim-values.c,
 * base/dl-units.h) and nothing of the key table. */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "scenario/sim-scenario-private.h"
#include "scenario/sim-keys-private.h"
#include "protocol/proto-machine.h"
#include "base/dl-error.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

/* The whole numbers of the common table with a bound below 2^32 - 1
 * (sim-scenario-private.h says why; a family's row carries its own);
 * `min` is only said in the message (sim-build.c checks it, with its
 * reason). */
static const struct {
  const char *section, *key;
  guint min, max;
  const char *what;
} uint_ranges[] = {
  { "scenario", "repeat", 1, 1000000, NULL },
  { "training", "rounds", 1, 1000000, NULL },
  { "training", "epochs_per_round", 1, 1000000, NULL },
  { "model", "size", 1, SIM_FLOATS_MAX, "a message carries at most 1 GiB of floats" },
  { "model", "hidden", 1, 1000000, NULL },
  { "model", "batch_size", 1, 1000000, NULL },
  { "data", "features", 1, 1000000, NULL },
  { "data", "classes", 2, 1000000, NULL },
  { "data", "samples", 1, SIM_FLOATS_MAX, NULL },
  { "peers", "count", 0, SIM_PEERS_MAX, NULL },
  { "churn", "max_peers", 0, SIM_PEERS_MAX, NULL },
};

G_STATIC_ASSERT (SIM_PEERS_MAX == PROTO_KEY_PEERS_MAX);

/* A whole number from min to max; a number out of it (4294967296, 1e12)
 * is said to be out of range, with the range. */
static gboolean
check_uint (guint min, guint max, const char *what, const char *v, GError **error)
{
  guint n;
  double x;
  gboolean whole = _sim_scenario_parse_uint (v, &n);
  if (whole && n <= max)
    return TRUE;
  if (whole || (dl_parse_number (v, &x, NULL) && x > max && x == floor (x)))
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (a whole number from %u to %u%s%s)", v,
                 min, max, what ? ": " : "", what ? what : "");
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not a whole number >= 0", v);
  return FALSE;
}

static gboolean
check_common_uint (const KeySpec *k, const char *v, GError **error)
{
  guint min = 0, max = G_MAXUINT32;
  const char *what = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (uint_ranges); i++)
    if (strcmp (uint_ranges[i].section, k->section) == 0 && strcmp (uint_ranges[i].key, k->key) == 0)
      min = uint_ranges[i].min, max = uint_ranges[i].max, what = uint_ranges[i].what;
  return check_uint (min, max, what, v, error);
}

/* A duration up to max. */
static gboolean
check_duration (DlTime max, const char *v, GError **error)
{
  DlTime t;
  g_autoptr (GError) e = NULL;
  if (dl_parse_duration (v, &t, &e) && t <= max)
    return TRUE;
  if (e && !g_error_matches (e, DL_ERROR, DL_ERROR_RANGE))
    {
      g_propagate_error (error, g_steal_pointer (&e));
      return FALSE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (a duration from 0 to %" G_GINT64_FORMAT "h)",
               v, max / DL_H);
  return FALSE;
}

/* A distribution of durations whose every duration argument is at most
 * SIM_DURATION_MAX (a sample from a heavy tail may still be longer: the
 * world adds them saturating). */
static gboolean
check_dist_duration (const char *v, DlDist *d, GError **error)
{
  if (!dl_dist_parse (v, DL_UNIT_DURATION, d, error))
    return FALSE;
  gboolean a = d->kind != DL_DIST_GAMMA, b = d->kind == DL_DIST_UNIFORM || d->kind == DL_DIST_NORMAL
                                             || d->kind == DL_DIST_GAMMA;
  if ((!a || d->a <= (double) SIM_DURATION_MAX) && (!b || d->b <= (double) SIM_DURATION_MAX))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (durations from 0 to %" G_GINT64_FORMAT "h)",
               v, SIM_DURATION_MAX / DL_H);
  return FALSE;
}

/* [network] nat: none, or symmetric(SHARE) with SHARE in [0, 1]. */
static gboolean
check_nat (const char *v, GError **error)
{
  if (strcmp (v, "none") == 0)
    return TRUE;
  double share;
  if (g_str_has_prefix (v, "symmetric(") && g_str_has_suffix (v, ")"))
    {
      g_autofree char *num = g_strndup (v + 10, strlen (v) - 11);
      if (dl_parse_number (num, &share, NULL) && share >= 0 && share <= 1)
        return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected none or symmetric(SHARE in [0, 1])", v);
  return FALSE;
}

/* The kinds whose value is one of a few words. */
static const struct {
  Kind kind;
  const char *words[4];   /* NULL-terminated */
} word_kinds[] = {
  { K_SHARING, { "fair", "fifo", NULL } },
  { K_TRANSPORT, { "fluid", "tcp", "sctp", NULL } },
  { K_BOOL, { "true", "false", NULL } },
  { K_REPLICATION, { "raft", "primary-backup", NULL } },
  { K_AFTER, { "leave", "stay", NULL } },
  { K_RUNTIME, { "browser", "node", "webapp", NULL } },
};

/* V is one of KIND's words, or an error naming them: "expected A, B or C" */
static gboolean
check_word (Kind kind, const char *v, GError **error)
{
  gsize row = 0;
  while (word_kinds[row].kind != kind)
    row++;
  const char *const *words = word_kinds[row].words;
  for (gsize i = 0; words[i]; i++)
    if (strcmp (v, words[i]) == 0)
      return TRUE;
  g_autoptr (GString) expected = g_string_new (words[0]);
  for (gsize i = 1; words[i]; i++)
    g_string_append_printf (expected, "%s%s", words[i + 1] ? ", " : " or ", words[i]);
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected %s", v, expected->str);
  return FALSE;
}

static gboolean
check_seed (const char *v, GError **error)
{
  guint64 s;
  if (g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT64, &s, NULL))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not a whole number >= 0", v);
  return FALSE;
}

/* A failure detection delay: never, a duration or a distribution of them. */
static gboolean
check_detect (const char *v, GError **error)
{
  DlDist d;
  if (strcmp (v, "never") == 0)
    return TRUE;
  if (dl_dist_parse (v, DL_UNIT_DURATION, &d, NULL))
    return check_dist_duration (v, &d, error);
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
               "'%s' is neither a duration, a distribution of durations, nor never", v);
  return FALSE;
}

/* A rate, or a distribution of rates. */
static gboolean
check_dist_rate (const char *v, GError **error)
{
  DlDist d;
  uint64_t u;
  if (strchr (v, '('))
    return dl_dist_parse (v, DL_UNIT_RATE, &d, error);
  return dl_parse_rate (v, &u, error);
}

/* The learning kinds, by learn/'s parsers (and the stragglers' share and
 * factor). */
static gboolean
check_learning (Kind kind, const char *v, GError **error)
{
  LearnModelKind mk;
  LearnSourceKind sk;
  LearnPartitionSpec ps;
  double share, factor;
  if (kind == K_MODEL)
    return learn_model_kind_from_name (v, &mk, error);
  if (kind == K_SOURCE)
    return learn_source_parse (v, &sk, NULL, error);
  if (kind == K_PARTITION)
    return learn_partition_spec_parse (v, &ps, error);
  g_assert (kind == K_STRAGGLERS);
  return _sim_scenario_parse_stragglers (v, &share, &factor, error);
}

gboolean
_sim_keys_check_value (const KeySpec *k, const char *v, GError **error)
{
  DlDist d;
  double x;
  uint64_t u;
  switch (k->kind)
    {
    case K_STR:
    case K_PATH:
    case K_FAMILY_KEYS:
      return TRUE;
    case K_UINT:
      return check_common_uint (k, v, error);
    case K_SEED:
      return check_seed (v, error);
    case K_NUM:
      return dl_parse_number (v, &x, error);
    case K_PROB:
      return _sim_scenario_parse_prob (v, &x, error);
    case K_DUR:
      return check_duration (strcmp (k->key, "time_limit") == 0 ? SIM_TIME_LIMIT_MAX : SIM_DURATION_MAX, v, error);
    case K_REGIONS:
      return *v == '\0' || _sim_scenario_parse_regions (v, NULL, NULL, NULL, error);
    case K_OPT_DIST_DUR:
      return *v == '\0' || check_dist_duration (v, &d, error);
    case K_DIST_DUR:
      return check_dist_duration (v, &d, error);
    case K_SIZE:
      return dl_parse_size (v, &u, error);
    case K_DIST_RATE:
      return check_dist_rate (v, error);
    case K_SHARING:
    case K_TRANSPORT:
    case K_BOOL:
    case K_REPLICATION:
    case K_AFTER:
    case K_RUNTIME:
      return check_word (k->kind, v, error);
    case K_DIST_NUM:
      return dl_dist_parse (v, DL_UNIT_NUMBER, &d, error);
    case K_DETECT:
      return check_detect (v, error);
    case K_RATE:
      return dl_parse_rate (v, &u, error);
    case K_PER_TIME:
      return dl_parse_per_time (v, &x, error);
    case K_MODEL:
    case K_SOURCE:
    case K_PARTITION:
    case K_STRAGGLERS:
      return check_learning (k->kind, v, error);
    case K_NAT:
      return check_nat (v, error);
    }
  return TRUE;
}

/* A family's value against its row's kind. */
gboolean
_sim_keys_check_family_value (const ProtoKey *k, const char *v, GError **error)
{
  DlDist d;
  double x;
  uint64_t u;
  gboolean b;
  switch (k->kind)
    {
    case PROTO_KEY_STR:
      return TRUE;
    case PROTO_KEY_UINT:
      return check_uint (k->min, k->max ? k->max : G_MAXUINT32, NULL, v, error);
    case PROTO_KEY_NUM:
      return dl_parse_number (v, &x, error);
    case PROTO_KEY_PROB:
      return _sim_scenario_parse_prob (v, &x, error);
    case PROTO_KEY_DUR:
      return check_duration (SIM_DURATION_MAX, v, error);
    case PROTO_KEY_OPT_DUR:
      return *v == '\0' || check_duration (SIM_DURATION_MAX, v, error);
    case PROTO_KEY_DIST_DUR:
      return check_dist_duration (v, &d, error);
    case PROTO_KEY_SIZE:
      return dl_parse_size (v, &u, error);
    case PROTO_KEY_ON_OFF:
      return proto_key_parse_on_off (v, &b, error);
    case PROTO_KEY_SHARE:
      return proto_key_parse_share (v, &x, error);
    case PROTO_KEY_OWN:
      return k->check (v, error);
    }
  return TRUE;
}
