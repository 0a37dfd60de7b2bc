# sim/ — the event engine and the simulated world.
noinst_LIBRARIES += sim/libdlsim.a
sim_libdlsim_a_SOURCES = \
	sim/sim-engine.c \
	sim/sim-engine.h \
	sim/sim-engine-keys.c \
	sim/sim-engine-keys.h \
	$(NULL)
sim_libdlsim_a_SOURCES += sim/sim-world.c sim/sim-world.h sim/sim-world-private.h sim/sim-net.c sim/sim-churn.c \
	sim/sim-servers.c sim/sim-net-maps.c sim/sim-net-msg.c sim/sim-net-msg-private.h \
	sim/sim-net-rules.c sim/sim-net-rates.c sim/sim-net-chan.c sim/sim-net-chan-private.h sim/sim-net-links.c
sim_libdlsim_a_SOURCES += sim/sim-flows.c sim/sim-flows.h sim/sim-ramp.c sim/sim-ramp-private.h \
	sim/sim-flows-private.h sim/sim-flows-heap.c sim/sim-flows-win.c \
	sim/sim-flows-fill.c sim/sim-flows-solve.c
