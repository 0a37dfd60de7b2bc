# protocol/pipeline/ — the pipeline family (README.md beside this file);
# included from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/pipeline/pipe.h \
	protocol/pipeline/pipe-config.c protocol/pipeline/pipe-config.h \
	protocol/pipeline/pipe-coord.c \
	protocol/pipeline/pipe-family.c \
	protocol/pipeline/pipe-keys.c \
	protocol/pipeline/pipe-msgs.c protocol/pipeline/pipe-msgs.h \
	protocol/pipeline/pipe-peer.c protocol/pipeline/pipe-peer-private.h \
	protocol/pipeline/pipe-peer-effects.c protocol/pipeline/pipe-peer-records.c \
	protocol/pipeline/pipe-peer-route.c protocol/pipeline/pipe-peer-sessions.c \
	protocol/pipeline/pipe-route.c \
	$(NULL)
EXTRA_DIST += protocol/pipeline/README.md protocol/pipeline/local.mk
# its tests live in protocol/pipeline/tests/ (tests/README.md):
# make check TESTS=protocol/pipeline/tests/test-pipeline
check_PROGRAMS += protocol/pipeline/tests/test-pipeline
TESTS += protocol/pipeline/tests/test-pipeline
protocol_pipeline_tests_test_pipeline_SOURCES = protocol/pipeline/tests/test-pipeline.c $(PLAN_CHECK_SOURCES) \
	$(FAMILY_HARNESS_SOURCES)
protocol_pipeline_tests_test_pipeline_CFLAGS = $(DL_CHECK_CFLAGS)
# its scenarios live in protocol/pipeline/scenarios/ (make install puts them
# in $(pkgdatadir)/protocol/pipeline/scenarios/; tests/cli.sh checks this list)
nobase_dist_pkgdata_DATA += \
	protocol/pipeline/scenarios/pipeline-block-lost.ini \
	protocol/pipeline/scenarios/pipeline-client-relay.ini \
	protocol/pipeline/scenarios/pipeline-disconnect-replay.ini \
	protocol/pipeline/scenarios/pipeline-faulty-push-caught.ini \
	protocol/pipeline/scenarios/pipeline-hash-copy.ini \
	protocol/pipeline/scenarios/pipeline-lost-hello.ini \
	protocol/pipeline/scenarios/pipeline-lost-lookup.ini \
	protocol/pipeline/scenarios/pipeline-lost-role.ini \
	protocol/pipeline/scenarios/pipeline-next-peer-latency.ini \
	protocol/pipeline/scenarios/pipeline-push-unknown-session.ini \
	protocol/pipeline/scenarios/pipeline-server-churn.ini \
	$(NULL)
