# protocol/fedavg/ — the fedavg family (README.md beside this file);
# included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/fedavg/fedavg.h \
	protocol/fedavg/fedavg-agg.c protocol/fedavg/fedavg-agg.h \
	protocol/fedavg/fedavg-async.c \
	protocol/fedavg/fedavg-client.c \
	protocol/fedavg/fedavg-config.h \
	protocol/fedavg/fedavg-family.c \
	protocol/fedavg/fedavg-keys.c \
	protocol/fedavg/fedavg-msgs.c protocol/fedavg/fedavg-msgs.h \
	protocol/fedavg/fedavg-server.c \
	$(NULL)
EXTRA_DIST += protocol/fedavg/README.md protocol/fedavg/local.mk
# its tests live in protocol/fedavg/tests/ (tests/README.md):
# make check TESTS=protocol/fedavg/tests/test-fedavg
check_PROGRAMS += protocol/fedavg/tests/test-fedavg
TESTS += protocol/fedavg/tests/test-fedavg
protocol_fedavg_tests_test_fedavg_SOURCES = protocol/fedavg/tests/test-fedavg.c $(PLAN_CHECK_SOURCES)
protocol_fedavg_tests_test_fedavg_CFLAGS = $(DL_CHECK_CFLAGS)
# its scenarios live in protocol/fedavg/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/fedavg/scenarios/; tests/cli.sh checks this list)
nobase_dist_pkgdata_DATA += \
	protocol/fedavg/scenarios/fedavg-basic.ini \
	protocol/fedavg/scenarios/fedavg-churn.ini \
	protocol/fedavg/scenarios/fedavg-redrawn-round.ini \
	protocol/fedavg/scenarios/fedbuff-churn.ini \
	protocol/fedavg/scenarios/fedbuff-fedasync.ini \
	protocol/fedavg/scenarios/fedbuff-stragglers.ini \
	$(NULL)
