# runner/ — the run sequence (scenario point -> build -> world -> record), once;
# a sweep's jobs, the -j work queue and its progress.
noinst_LIBRARIES += runner/libdlrunner.a
runner_libdlrunner_a_SOURCES = \
	runner/runner.c \
	runner/runner.h \
	runner/runner-plan.c \
	runner/runner-plan.h \
	runner/runner-progress.c \
	runner/runner-progress.h \
	$(NULL)
