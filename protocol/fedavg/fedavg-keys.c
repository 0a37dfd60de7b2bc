/* fedavg-keys.c — the fedavg family's scenario keys (README.md beside it)
 * and how it configures itself from them: the fraction of clients a round
 * draws, with the quorum, min_participants, as its floor.  E, the local epochs,
 * is [training] epochs_per_round and the rounds [training] rounds, as for
 * every family.  Exported through proto_family_fedavg's `keys`
 * (fedavg-family.c). */
#include "config.h"

#include "protocol/fedavg/fedavg-config.h"
#include "protocol/proto-keys.h"
#include "protocol/proto-message.h"

#include <string.h>

static gboolean
check_mode (const char *v, GError **error)
{
  if (strcmp (v, "sync") == 0 || strcmp (v, "fedbuff") == 0 || strcmp (v, "fedasync") == 0)
    return TRUE;
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s': expected sync, fedbuff or fedasync", v);
  return FALSE;
}

static const ProtoKey rows[] = {
  { "protocol", "fraction", "10%", PROTO_KEY_SHARE, "fedavg only: C, the share of the connected clients the server draws each round, 1%..100% (or 0.01..1); at least min_participants are drawn (McMahan et al. 2017: C = 0.1)" },
  { "protocol", "overcommit", "1", PROTO_KEY_NUM, "fedavg only: the server draws ceil(overcommit x K) clients, K the round's share, and averages the first K updates (FedScale's over-commitment: 1.3); 1 to 10" },
  { "protocol", "round_timeout", "60s", PROTO_KEY_DUR, "fedavg only: the server ends a round this long after it began, with the updates that came (none: the round is drawn again)" },
  { "protocol", "fedavg_mode", "sync", PROTO_KEY_OWN, "fedavg only: sync | fedbuff | fedasync: FedAvg's rounds; or every client trains at its own pace and the server applies every buffer_size updates (FedBuff, Nguyen et al. 2022) or each one as it comes (FedAsync, Xie et al. 2019), weighted by staleness", .check = check_mode },
  { "protocol", "buffer_size", "10", PROTO_KEY_UINT, "fedavg, fedbuff: K, the updates the server buffers and applies at once", .min = 1, .max = 100000 },
  { "protocol", "server_lr", "1", PROTO_KEY_NUM, "fedavg, fedbuff: the server's learning rate: the model moves by server_lr x the buffer's staleness-weighted mean update" },
  { "protocol", "mixing", "0.6", PROTO_KEY_NUM, "fedavg, fedasync: alpha, the weight of a fresh model in the mix (1 - a) w + a x_new, a = alpha x s(staleness); in (0, 1]" },
  { "protocol", "staleness_power", "0.5", PROTO_KEY_NUM, "fedavg, fedbuff and fedasync: an update tau server versions old weighs s(tau) = (1 + tau)^-staleness_power (0.5: FedBuff's 1/sqrt(1 + tau); 0: no discount)" },
};

/* the quorum (proto-keys.c's group): the fewest clients a round starts
 * with and draws */
static const ProtoKeyGroup *const groups[] = { &proto_keys_quorum, NULL };

static const char *
default_of (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    if (strcmp (rows[i].key, key) == 0)
      return rows[i].def;
  g_return_val_if_reached ("");
}

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

static gboolean
configure (ProtoConfig *pc, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  FedavgConfig *fc = fedavg_config_mut (pc);
  const char *mode = proto_keys_value (l, "protocol", "fedavg_mode");
  fc->mode = strcmp (mode, "fedbuff") == 0    ? FEDAVG_MODE_FEDBUFF
             : strcmp (mode, "fedasync") == 0 ? FEDAVG_MODE_FEDASYNC
                                              : FEDAVG_MODE_SYNC;
  /* a knob of another mode set to other than its default does nothing: an
   * error, as a key of another family (at its default it is let pass: an
   * exported scenario, dlsim export-scenario, gives every key) */
  static const struct { const char *key; guint modes; } only[] = {
    { "fraction", 1u << FEDAVG_MODE_SYNC }, { "overcommit", 1u << FEDAVG_MODE_SYNC },
    { "buffer_size", 1u << FEDAVG_MODE_FEDBUFF }, { "server_lr", 1u << FEDAVG_MODE_FEDBUFF },
    { "mixing", 1u << FEDAVG_MODE_FEDASYNC },
    { "staleness_power", 1u << FEDAVG_MODE_FEDBUFF | 1u << FEDAVG_MODE_FEDASYNC },
  };
  for (guint i = 0; i < G_N_ELEMENTS (only); i++)
    if (!(only[i].modes & 1u << fc->mode) && proto_keys_given (l, "protocol", only[i].key)
        && strcmp (proto_keys_value (l, "protocol", only[i].key), default_of (only[i].key)) != 0)
      return FAIL (only[i].key, "does nothing with fedavg_mode = %s", mode);
  fc->buffer_size = proto_keys_uint (l, "protocol", "buffer_size");
  fc->server_lr = proto_keys_number (l, "protocol", "server_lr");
  if (!(fc->server_lr > 0))
    return FAIL ("server_lr", "must be more than 0");
  fc->mixing = proto_keys_number (l, "protocol", "mixing");
  if (!(fc->mixing > 0 && fc->mixing <= 1))
    return FAIL ("mixing", "must be in (0, 1]");
  fc->staleness_power = proto_keys_number (l, "protocol", "staleness_power");
  if (!(fc->staleness_power >= 0))
    return FAIL ("staleness_power", "must be 0 or more");
  pc->min_participants = proto_keys_uint (l, "protocol", "min_participants");
  if (pc->min_participants == 0)
    return FAIL ("min_participants", "must be at least 1");
  if (!proto_key_parse_share (proto_keys_value (l, "protocol", "fraction"), &fc->fraction, &e))
    return proto_keys_fail_with (l, error, "protocol", "fraction", e);
  fc->overcommit = proto_keys_number (l, "protocol", "overcommit");
  if (!(fc->overcommit >= 1 && fc->overcommit <= 10))
    return FAIL ("overcommit", "must be 1 to 10");
  fc->round_timeout = proto_keys_duration (l, "protocol", "round_timeout");
  if (fc->round_timeout <= 0)
    return FAIL ("round_timeout", "must be more than 0");
  /* 2 to 9: a value out of 1..9 is the loader's error (its range) */
  guint replicas = proto_keys_uint (l, "protocol", "coordinator_replicas");
  if (replicas > 1 && replicas <= 9)
    return FAIL ("coordinator_replicas", "fedavg's server is one machine: 1 only");
  return TRUE;
}

const ProtoFamilyKeys proto_fedavg_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .groups = groups,
  .configure = configure,
};
