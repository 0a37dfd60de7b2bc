/* fedavg-config.h — the fedavg family's own config: what fedavg-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h), so that the family's knobs are declared
 * here and not in protocol/. */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

/* how the server aggregates (README.md beside this file) */
typedef enum {
  FEDAVG_MODE_SYNC,       /* FedAvg's rounds (McMahan et al. 2017) */
  FEDAVG_MODE_FEDBUFF,    /* buffered asynchronous aggregation (Nguyen et al. 2022): every client
                             trains at its own pace, the server applies every buffer_size updates */
  FEDAVG_MODE_FEDASYNC,   /* asynchronous (Xie et al. 2019): each update is mixed in as it comes */
} FedavgMode;

typedef struct G_GNUC_MAY_ALIAS {   /* it lives in family_config's bytes (docs/architecture.md) */
  FedavgMode mode;
  double fraction;            /* sync: C, the share of the connected clients a round draws, (0, 1] */
  double overcommit;          /* sync: a round draws this x its K and keeps the first K updates (>= 1) */
  DlTime round_timeout;       /* sync: a round ends this long after it began, with the updates that
                                 came; every mode: an idle client says FedHello again this often */
  guint buffer_size;          /* fedbuff: K, the updates the server applies at once */
  double server_lr;           /* fedbuff: eta_g, the server's step on the buffer's mean */
  double mixing;              /* fedasync: alpha, the weight of a fresh update */
  double staleness_power;     /* fedbuff, fedasync: an update tau versions old weighs
                                 s(tau) = (1 + tau)^-staleness_power (0.5: 1/sqrt(1 + tau)) */
} FedavgConfig;

/* fedavg_config (cfg): the family's part, to read; fedavg_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (FedavgConfig, fedavg_config)

G_END_DECLS
