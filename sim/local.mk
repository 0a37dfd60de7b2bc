# sim/ — the event engine and the simulated world.
noinst_LIBRARIES += sim/libdlsim.a
sim_libdlsim_a_SOURCES = \
	sim/sim-engine.c \
	sim/sim-engine.h \
	$(NULL)
sim_libdlsim_a_SOURCES += sim/sim-host.c sim/sim-host.h sim/sim-props.c sim/sim-props.h
sim_libdlsim_a_SOURCES += sim/sim-world.c sim/sim-world.h sim/sim-types.c sim/sim-types.h sim/sim-world-private.h sim/sim-net.c sim/sim-churn.c \
	sim/sim-servers.c sim/sim-peers.c
sim_libdlsim_a_SOURCES += sim/sim-flows.c sim/sim-flows.h
