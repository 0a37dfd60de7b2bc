/* gossip-suites.h — what the files of protocol/gossip/tests/test-gossip
 * share: the suite its main (test-gossip.c, the machines') runs beside
 * its own. */
#pragma once

#include <check.h>

/* the arithmetic and the payload's wire form (test-gossip-mix.c) */
Suite *test_gossip_mix_suite (void);
