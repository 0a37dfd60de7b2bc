/* fedavg-config.h — the fedavg family's own config: what fedavg-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h), so that the family's knobs are declared
 * here and not in protocol/. */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

typedef struct {
  double fraction;            /* C: the share of the connected clients a round draws, (0, 1] */
  double overcommit;          /* a round draws this x its K and keeps the first K updates (>= 1) */
  DlTime round_timeout;       /* a round ends this long after it began, with the updates that came */
} FedavgConfig;

/* fedavg_config (cfg): the family's part, to read; fedavg_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (FedavgConfig, fedavg_config)

G_END_DECLS
