# sim/ — the event engine (and later the simulated world).
noinst_LIBRARIES += sim/libdlsim.a
sim_libdlsim_a_SOURCES = \
	sim/sim-engine.c \
	sim/sim-engine.h \
	$(NULL)
sim_libdlsim_a_SOURCES += sim/sim-host.c sim/sim-host.h sim/sim-props.c sim/sim-props.h sim/sim-scenario-private.h sim/sim-timeline.c sim/sim-expect.c sim/sim-build.c
sim_libdlsim_a_SOURCES += sim/sim-world.c sim/sim-world.h sim/sim-types.c sim/sim-types.h sim/sim-world-private.h sim/sim-net.c sim/sim-churn.c \
	sim/sim-servers.c sim/sim-peers.c
sim_libdlsim_a_SOURCES += sim/sim-trace.c sim/sim-trace.h sim/sim-bwtrace.c sim/sim-bwtrace.h sim/sim-fedscale.c sim/sim-fedscale.h sim/sim-flows.c sim/sim-flows.h
sim_libdlsim_a_SOURCES += sim/sim-scenario.c sim/sim-scenario.h sim/sim-values.c sim/sim-keys.c sim/sim-point.c
