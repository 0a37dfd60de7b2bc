# protocol/gossip/ — the gossip family (README.md beside this file);
# included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/gossip/gossip-config.h \
	protocol/gossip/gossip-coord.c protocol/gossip/gossip-coord.h \
	protocol/gossip/gossip-dht.c protocol/gossip/gossip-dht-private.h \
	protocol/gossip/gossip-family.c \
	protocol/gossip/gossip-graph.c protocol/gossip/gossip-graph-private.h \
	protocol/gossip/gossip-keys.c \
	protocol/gossip/gossip-members.c protocol/gossip/gossip-members-private.h \
	protocol/gossip/gossip-mix.c protocol/gossip/gossip-mix.h \
	protocol/gossip/gossip-msgs.c protocol/gossip/gossip-msgs.h \
	protocol/gossip/gossip-peer.c protocol/gossip/gossip-peer.h protocol/gossip/gossip-peer-private.h \
	protocol/gossip/gossip-peer-effects.c protocol/gossip/gossip-peer-model.c \
	protocol/gossip/gossip-peer-records.c \
	protocol/gossip/gossip-variance.c protocol/gossip/gossip-variance-private.h \
	$(NULL)
EXTRA_DIST += protocol/gossip/README.md protocol/gossip/local.mk
# its tests live in protocol/gossip/tests/ (tests/README.md):
# make check TESTS=protocol/gossip/tests/test-gossip
check_PROGRAMS += protocol/gossip/tests/test-gossip protocol/gossip/tests/test-gossip-stragglers
TESTS += protocol/gossip/tests/test-gossip protocol/gossip/tests/test-gossip-stragglers
# the machines (test-gossip.c, with the main) and the arithmetic and
# wire form (test-gossip-mix.c): one program, gossip-suites.h between them
protocol_gossip_tests_test_gossip_SOURCES = protocol/gossip/tests/test-gossip.c \
	protocol/gossip/tests/test-gossip-mix.c protocol/gossip/tests/gossip-suites.h $(PLAN_CHECK_SOURCES) \
	protocol/gossip/tests/gossip-cfg.c protocol/gossip/tests/gossip-cfg.h \
	protocol/gossip/tests/gossip-alone.c protocol/gossip/tests/gossip-alone.h \
	$(FAMILY_HARNESS_SOURCES)
protocol_gossip_tests_test_gossip_CFLAGS = $(DL_CHECK_CFLAGS)
protocol_gossip_tests_test_gossip_stragglers_SOURCES = protocol/gossip/tests/test-gossip-stragglers.c \
	protocol/gossip/tests/gossip-cfg.c protocol/gossip/tests/gossip-cfg.h \
	protocol/gossip/tests/gossip-alone.c protocol/gossip/tests/gossip-alone.h \
	$(FAMILY_HARNESS_SOURCES)
protocol_gossip_tests_test_gossip_stragglers_CFLAGS = $(DL_CHECK_CFLAGS)
# its scenarios live in protocol/gossip/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/gossip/scenarios/; tests/cli.sh checks this list)
nobase_dist_pkgdata_DATA += \
	protocol/gossip/scenarios/gossip-consensus-bounded.ini \
	protocol/gossip/scenarios/gossip-crash-and-late-joiner.ini \
	protocol/gossip/scenarios/gossip-cut-off-helper.ini \
	protocol/gossip/scenarios/gossip-kademlia.ini \
	protocol/gossip/scenarios/gossip-late-joiner-syncs.ini \
	protocol/gossip/scenarios/gossip-lost-helper-notice.ini \
	protocol/gossip/scenarios/gossip-lost-list.ini \
	protocol/gossip/scenarios/gossip-lost-new-node-info.ini \
	protocol/gossip/scenarios/gossip-lost-ready.ini \
	protocol/gossip/scenarios/gossip-stragglers.ini \
	protocol/gossip/scenarios/gossip-topk-error-feedback.ini \
	$(NULL)
