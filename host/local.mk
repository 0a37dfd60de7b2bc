# host/ — the host layer (feeding a machine, carrying out its outbox, the
# tally), the properties, a peer's attributes, and a run's types.
noinst_LIBRARIES += host/libdlhost.a
host_libdlhost_a_SOURCES = \
	host/sim-host.c \
	host/sim-host.h \
	host/sim-props.c \
	host/sim-props.h \
	host/sim-peers.c \
	host/sim-types.c \
	host/sim-types.h \
	$(NULL)
