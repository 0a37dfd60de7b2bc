# protocol/hierarchical/ — the hierarchical family (README.md beside this
# file); included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/hierarchical/hier.h \
	protocol/hierarchical/hier-config.h \
	protocol/hierarchical/hier-coord.c protocol/hierarchical/hier-coord-private.h \
	protocol/hierarchical/hier-coord-effects.c protocol/hierarchical/hier-coord-records.c \
	protocol/hierarchical/hier-family.c \
	protocol/hierarchical/hier-keys.c \
	protocol/hierarchical/hier-latency.c protocol/hierarchical/hier-latency-private.h \
	protocol/hierarchical/hier-mix.c protocol/hierarchical/hier-mix-private.h \
	protocol/hierarchical/hier-msgs.c protocol/hierarchical/hier-msgs.h \
	protocol/hierarchical/hier-peer.c protocol/hierarchical/hier-peer-private.h \
	protocol/hierarchical/hier-peer-effects.c protocol/hierarchical/hier-peer-policies.c \
	protocol/hierarchical/hier-peer-records.c \
	$(NULL)
EXTRA_DIST += protocol/hierarchical/README.md protocol/hierarchical/local.mk
# its tests live in protocol/hierarchical/tests/ (tests/README.md):
# make check TESTS=protocol/hierarchical/tests/test-hier
check_PROGRAMS += protocol/hierarchical/tests/test-hier
TESTS += protocol/hierarchical/tests/test-hier
protocol_hierarchical_tests_test_hier_SOURCES = protocol/hierarchical/tests/test-hier.c \
	$(FAMILY_HARNESS_SOURCES)
protocol_hierarchical_tests_test_hier_CFLAGS = $(DL_CHECK_CFLAGS)
# its scenarios live in protocol/hierarchical/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/hierarchical/scenarios/; tests/cli.sh checks this list)
nobase_dist_pkgdata_DATA += \
	protocol/hierarchical/scenarios/hier-crash-before-hello.ini \
	protocol/hierarchical/scenarios/hier-cut-both-ways.ini \
	protocol/hierarchical/scenarios/hier-cut-pair-cluster.ini \
	protocol/hierarchical/scenarios/hier-finished-head-awaited.ini \
	protocol/hierarchical/scenarios/hier-head-failover.ini \
	protocol/hierarchical/scenarios/hier-late-joiner-syncs.ini \
	protocol/hierarchical/scenarios/hier-late-tree.ini \
	protocol/hierarchical/scenarios/hier-latency-clusters.ini \
	protocol/hierarchical/scenarios/hier-link-fail-in-cluster.ini \
	protocol/hierarchical/scenarios/hier-link-never-up.ini \
	protocol/hierarchical/scenarios/hier-lost-candidacy.ini \
	protocol/hierarchical/scenarios/hier-lost-every-head.ini \
	protocol/hierarchical/scenarios/hier-lost-heads.ini \
	protocol/hierarchical/scenarios/hier-lost-hello.ini \
	protocol/hierarchical/scenarios/hier-lost-new-node-info.ini \
	protocol/hierarchical/scenarios/hier-nat-cluster.ini \
	protocol/hierarchical/scenarios/hier-nat.ini \
	protocol/hierarchical/scenarios/hier-pair-split.ini \
	protocol/hierarchical/scenarios/hier-regions.ini \
	protocol/hierarchical/scenarios/hier-stragglers.ini \
	$(NULL)
