# scenario/ — the scenario loader: the file, --set and sweeps, a point into
# a world configuration, the keys, [timeline] and [expect], and the traces.
noinst_LIBRARIES += scenario/libdlscenario.a
scenario_libdlscenario_a_SOURCES = \
	scenario/sim-scenario.c \
	scenario/sim-scenario.h \
	scenario/sim-scenario-private.h \
	scenario/sim-build.c \
	scenario/sim-keys.c \
	scenario/sim-keys-private.h \
	scenario/sim-keys-value.c \
	scenario/sim-timeline.c \
	scenario/sim-expect.c \
	scenario/sim-values.c \
	scenario/sim-point.c \
	scenario/sim-trace.c \
	scenario/sim-trace.h \
	scenario/sim-fedscale.c \
	scenario/sim-fedscale.h \
	scenario/sim-bwtrace.c \
	scenario/sim-bwtrace.h \
	$(NULL)
