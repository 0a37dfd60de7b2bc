# protocol/hierarchical/ — the hierarchical family (README.md beside this
# file); included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/hierarchical/hier.h \
	protocol/hierarchical/hier-config.h \
	protocol/hierarchical/hier-coord.c \
	protocol/hierarchical/hier-family.c \
	protocol/hierarchical/hier-keys.c \
	protocol/hierarchical/hier-latency.c protocol/hierarchical/hier-latency-private.h \
	protocol/hierarchical/hier-mix.c protocol/hierarchical/hier-mix-private.h \
	protocol/hierarchical/hier-msgs.c protocol/hierarchical/hier-msgs.h \
	protocol/hierarchical/hier-peer.c \
	$(NULL)
EXTRA_DIST += protocol/hierarchical/README.md protocol/hierarchical/local.mk
# its tests live in protocol/hierarchical/tests/ (tests/README.md):
# make check TESTS=protocol/hierarchical/tests/test-hier
check_PROGRAMS += protocol/hierarchical/tests/test-hier
TESTS += protocol/hierarchical/tests/test-hier
protocol_hierarchical_tests_test_hier_SOURCES = protocol/hierarchical/tests/test-hier.c \
	$(FAMILY_HARNESS_SOURCES)
protocol_hierarchical_tests_test_hier_CFLAGS = $(DL_CHECK_CFLAGS)
