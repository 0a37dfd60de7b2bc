/* guest-config.h — the guest family's own config: what guest-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h). */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

typedef struct G_GNUC_MAY_ALIAS {   /* it lives in family_config's bytes (docs/architecture.md) */
  char command[512];          /* the guest's command line, split as a shell would */
  char dir[512];              /* the folder it runs in (the scenario file's) */
  guint timeout_ms;           /* wall clock the guest may take to answer one line */
  gboolean agreement;         /* the guest promises that peers that end a round hold one model:
                                 the agreement property checks the models it reports (`model`) */
  DlTime stall;               /* a peer waiting this long with no progress is hung */
  gboolean round_begins_at_start; /* guest_round_begins = start: a round begins at the
                                 coordinator's `start`, not its `list` */
  char barrier_retry[33];     /* the kinds that play the barrier-retry and connection-fail */
  char connection_fail[33];   /* roles ("": none; PROTO_GUEST_MAX_TYPE + 1 bytes) */
  guint max_connection_retry; /* Retries a peer gets in a round before it is excluded */
} GuestConfig;

/* guest_config (cfg): the family's part, to read; guest_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (GuestConfig, guest_config)

G_END_DECLS
