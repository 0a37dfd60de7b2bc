/* fedavg-keys.c — the fedavg family's scenario keys (README.md beside it)
 * and how it configures itself from them: the fraction of clients a round
 * draws, with DISCO's min_participants as its floor.  E, the local epochs,
 * is [training] epochs_per_round and the rounds [training] rounds, as for
 * every family.  Exported through proto_family_fedavg's `keys`
 * (fedavg-family.c). */
#include "config.h"

#include "protocol/fedavg/fedavg-config.h"
#include "protocol/proto-keys.h"

static const ProtoKey rows[] = {
  { "protocol", "fraction", "10%", PROTO_KEY_SHARE, "fedavg only: C, the share of the connected clients the server draws each round, 1%..100% (or 0.01..1); at least min_participants are drawn (McMahan et al. 2017: C = 0.1)" },
  { "protocol", "overcommit", "1", PROTO_KEY_NUM, "fedavg only: the server draws ceil(overcommit x K) clients, K the round's share, and averages the first K updates (FedScale's over-commitment: 1.3); 1 to 10" },
  { "protocol", "round_timeout", "60s", PROTO_KEY_DUR, "fedavg only: the server ends a round this long after it began, with the updates that came (none: the round is drawn again)" },
};

/* DISCO's quorum key: the fewest clients a round starts with and draws */
static const char *const shared[] = { "protocol.min_participants", NULL };

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

static gboolean
configure (ProtoConfig *pc, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  FedavgConfig *fc = fedavg_config_mut (pc);
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
  .shared = shared,
  .configure = configure,
};
