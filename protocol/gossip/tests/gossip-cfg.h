/* gossip-cfg.h — gossip's config for its tests (test-gossip.c,
 * test-gossip-stragglers.c), beside tests/family-harness.h. */
#pragma once

#include "protocol/proto-config.h"

/* gossip's config with DISCO-1110 defaults elsewhere, payload_timeout 10 s */
ProtoConfig gossip_cfg (guint min, guint rounds, guint fanout);
