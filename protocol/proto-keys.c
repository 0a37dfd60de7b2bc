/* proto-keys.c — looking up a point's values for a family's configure,
 * noting the key an error is about, the small value parsers the families
 * and the scenario loader share, and the keys several families read (the
 * straggler policy and its knobs, the quorum and a peer's waits: each a
 * ProtoKeyGroup) with the straggler keys' parsing (proto-keys.h).  A leaf: it calls no family and no loader. */
#include "config.h"

#include "protocol/proto-keys.h"
#include "protocol/proto-message.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

const char *
proto_keys_value (const ProtoKeyLookup *l, const char *section, const char *key)
{
  const char *v = l->value (l, section, key);
  g_return_val_if_fail (v != NULL, "");
  return v;
}

gboolean
proto_keys_given (const ProtoKeyLookup *l, const char *section, const char *key)
{
  return l->given (l, section, key);
}

guint
proto_keys_uint (const ProtoKeyLookup *l, const char *section, const char *key)
{
  guint n = 0;
  proto_key_parse_uint (proto_keys_value (l, section, key), &n);
  return n;
}

double
proto_keys_number (const ProtoKeyLookup *l, const char *section, const char *key)
{
  double x = 0;
  dl_parse_number (proto_keys_value (l, section, key), &x, NULL);
  return x;
}

DlTime
proto_keys_duration (const ProtoKeyLookup *l, const char *section, const char *key)
{
  DlTime t = 0;
  dl_parse_duration (proto_keys_value (l, section, key), &t, NULL);
  return t;
}

guint64
proto_keys_size (const ProtoKeyLookup *l, const char *section, const char *key)
{
  guint64 u = 0;
  dl_parse_size (proto_keys_value (l, section, key), &u, NULL);
  return u;
}

gboolean
proto_keys_on (const ProtoKeyLookup *l, const char *section, const char *key)
{
  gboolean b = FALSE;
  proto_key_parse_on_off (proto_keys_value (l, section, key), &b, NULL);
  return b;
}

gboolean
proto_keys_is (const ProtoKeyLookup *l, const char *section, const char *key, const char *word)
{
  return strcmp (proto_keys_value (l, section, key), word) == 0;
}

gboolean
proto_keys_fail (ProtoKeyLookup *l, GError **error, const char *section, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  l->bad_section = section;
  l->bad_key = key;
  g_set_error_literal (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, msg);
  return FALSE;
}

gboolean
proto_keys_fail_with (ProtoKeyLookup *l, GError **error, const char *section, const char *key, GError *e)
{
  return proto_keys_fail (l, error, section, key, "%s", e ? e->message : "invalid value");
}

gboolean
proto_keys_wait (ProtoKeyLookup *l, GError **error, const char *section, const char *key, DlTime *out)
{
  DlTime t = proto_keys_duration (l, section, key);
  if (t < PROTO_KEY_WAIT_FLOOR)
    return proto_keys_fail (l, error, section, key,
                            "must be at least " PROTO_KEY_WAIT_FLOOR_TEXT " (it is %s): a shorter wait makes "
                            "the protocol retry without simulated time going on, and the run never ends",
                            proto_keys_value (l, section, key));
  *out = t;
  return TRUE;
}

gboolean
proto_key_parse_uint (const char *v, guint *out)
{
  guint64 x;
  if (!g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT32, &x, NULL))
    return FALSE;
  *out = (guint) x;
  return TRUE;
}

gboolean
proto_key_parse_on_off (const char *v, gboolean *out, GError **error)
{
  if (strcmp (v, "on") == 0 || strcmp (v, "yes") == 0 || strcmp (v, "true") == 0)
    return *out = TRUE, TRUE;
  if (strcmp (v, "off") == 0 || strcmp (v, "no") == 0 || strcmp (v, "false") == 0)
    return *out = FALSE, TRUE;
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s': expected on or off", v);
  return FALSE;
}

gboolean
proto_key_parse_share (const char *v, double *out, GError **error)
{
  g_autofree char *t = g_strstrip (g_strdup (v));
  gsize len = strlen (t);
  gboolean percent = len > 0 && t[len - 1] == '%';
  if (percent)
    t[len - 1] = '\0';
  char *end = NULL;
  double x = g_ascii_strtod (t, &end);
  if (*t && end && *end == '\0' && isfinite (x))
    {
      if (percent)
        x /= 100;
      if (x > 0 && x <= 1)
        {
          *out = x;
          return TRUE;
        }
    }
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
               "'%s': expected a share in (0, 1] or a percentage 1%%..100%%", v);
  return FALSE;
}

gboolean
proto_key_check_words (const char *v, const char *a, const char *b, GError **error)
{
  if (strcmp (v, a) == 0 || strcmp (v, b) == 0)
    return TRUE;
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s': expected %s or %s", v, a, b);
  return FALSE;
}

/* ---------------------------------------------------------------- the straggler policy

   Declared here, not by a family: gossip and hierarchical take the group
   whole and DISCO's robust four of its keys, and each family's keys must
   stand without another family's folder (tools/family-diff). */

static gboolean
check_straggler_policy (const char *v, GError **error)
{
  ProtoStragglerPolicy sp;
  return proto_straggler_policy_from_name (v, &sp, error);
}

static const ProtoKey straggler_rows[] = {
  { "protocol", "straggler_policy", "wait", PROTO_KEY_OWN, "gossip and hierarchical (and disco's robust): wait | deadline | drop-slowest | async | mixed (hierarchical: all five; robust: all five, its wait and deadline both have its straggler_timeout, async and mixed weigh stale contributions): what a step, a head or robust's coordinator does about peers still training", .check = check_straggler_policy },
  { "protocol", "round_deadline", "30s", PROTO_KEY_DUR, "gossip and hierarchical, straggler_policy = deadline: a step (a head's collection) goes this long after its first ready peer (update), with what came" },
  { "protocol", "drop_factor", "2", PROTO_KEY_NUM, "gossip, hierarchical and robust, drop-slowest (gossip: and mixed): a peer is slow when its step took more than this x the median" },
  { "protocol", "drop_rounds", "3", PROTO_KEY_UINT, "gossip, hierarchical and robust, drop-slowest: steps (rounds) a slow peer is not waited for", 1, 1000000 },
  { "protocol", "async_mix", "0.5", PROTO_KEY_PROB, "gossip and hierarchical, async and mixed: weight of a fresh pushed model or update (staleness 0)" },
  { "protocol", "staleness_exponent", "0.5", PROTO_KEY_NUM, "gossip, hierarchical and robust, async and mixed: a push or update s rounds (head versions) old weighs async_mix x (1 + s)^-exponent (robust: (1 + s)^-exponent against 1 for a fresh one, in the round's mean)" },
};

const ProtoKeyGroup proto_keys_stragglers = {
  .rows = straggler_rows,
  .n_rows = G_N_ELEMENTS (straggler_rows),
};

/* ---------------------------------------------------------------- the quorum and a peer's waits

   DISCO declared them; gossip, hierarchical, the guest and fedavg read
   them too, so they are declared here, one group each (their readers
   differ), and each family parses the ones it reads as it did. */

static const ProtoKey quorum_rows[] = {
  { "protocol", "min_participants", "3", PROTO_KEY_UINT, "minNbOfParticipants", 1, PROTO_KEY_PEERS_MAX },
};

static const ProtoKey model_sync_rows[] = {
  { "protocol", "model_sync_timeout", "30s", PROTO_KEY_DUR, "maxModelSyncTime (disco); gossip: a late joiner waits this long for its provider's model" },
};

static const ProtoKey payload_rows[] = {
  { "protocol", "payload_timeout", "60s", PROTO_KEY_DUR, "per-peer Payload receive wait; on expiry that reception is used up",
    .every_family = TRUE },
};

const ProtoKeyGroup proto_keys_quorum = { .rows = quorum_rows, .n_rows = G_N_ELEMENTS (quorum_rows) };
const ProtoKeyGroup proto_keys_model_sync = { .rows = model_sync_rows, .n_rows = G_N_ELEMENTS (model_sync_rows) };
const ProtoKeyGroup proto_keys_payload = { .rows = payload_rows, .n_rows = G_N_ELEMENTS (payload_rows) };

const ProtoKeyGroup *const proto_key_groups[] = {
  &proto_keys_stragglers, &proto_keys_quorum, &proto_keys_model_sync, &proto_keys_payload, NULL,
};

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

gboolean
proto_keys_configure_stragglers (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  if (!proto_straggler_policy_from_name (proto_keys_value (l, "protocol", "straggler_policy"), &g->straggler_policy,
                                         &e))
    return proto_keys_fail_with (l, error, "protocol", "straggler_policy", e);
  return proto_keys_configure_straggler_knobs (g, l, error);
}

static gboolean
staleness_knob (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  g->staleness_exponent = proto_keys_number (l, "protocol", "staleness_exponent");
  if (!(g->staleness_exponent >= 0))
    return FAIL ("staleness_exponent", "must be 0 or more");
  return TRUE;
}

static gboolean
drop_knobs (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  g->drop_factor = proto_keys_number (l, "protocol", "drop_factor");
  if (!(g->drop_factor >= 1))
    return FAIL ("drop_factor", "must be at least 1 (a factor of the median)");
  g->drop_rounds = proto_keys_uint (l, "protocol", "drop_rounds");
  if (g->drop_rounds == 0)
    return FAIL ("drop_rounds", "must be at least 1");
  return TRUE;
}

gboolean
proto_keys_configure_straggler_knobs (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  g->async_mix = proto_keys_number (l, "protocol", "async_mix");
  if (!(g->async_mix > 0))
    return FAIL ("async_mix", "must be in (0, 1]");
  if (!staleness_knob (g, l, error))
    return FALSE;
  g->round_deadline = proto_keys_duration (l, "protocol", "round_deadline");
  if (g->round_deadline <= 0)
    return FAIL ("round_deadline", "must be more than 0");
  return drop_knobs (g, l, error);
}

gboolean
proto_keys_configure_drop_knobs (ProtoConfig *g, ProtoKeyLookup *l, GError **error)
{
  return staleness_knob (g, l, error) && drop_knobs (g, l, error);
}
