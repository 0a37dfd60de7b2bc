# runner/ — the run sequence (scenario point -> build -> world -> record), once.
noinst_LIBRARIES += runner/libdlrunner.a
runner_libdlrunner_a_SOURCES = \
	runner/runner.c \
	runner/runner.h \
	$(NULL)
