# testbed/ — the testbed: the orchestrator of a run on real sockets and
# processes, the peers' processes, the network namespaces of --netem, the
# record and control lines, the merge of node databases; a node on sockets
# (its streams and frames) under the host layer.
noinst_LIBRARIES += testbed/libdltestbed.a
testbed_libdltestbed_a_SOURCES = \
	testbed/testbed.c \
	testbed/testbed.h \
	testbed/testbed-private.h \
	testbed/testbed-tally.c \
	testbed/testbed-procs.c \
	testbed/testbed-merge.c \
	testbed/testbed-merge.h \
	testbed/testbed-node.c \
	testbed/testbed-node.h \
	testbed/testbed-netns.c \
	testbed/testbed-netns.h \
	testbed/testbed-records.c \
	testbed/testbed-records.h \
	testbed/testbed-host.c \
	testbed/testbed-host.h \
	testbed/testbed-host-private.h \
	testbed/testbed-host-limits.c \
	testbed/testbed-host-limits.h \
	testbed/testbed-host-rules.c \
	testbed/testbed-host-learn.c \
	testbed/testbed-conn.c \
	testbed/testbed-conn.h \
	testbed/testbed-frame.c \
	testbed/testbed-frame.h \
	testbed/testbed-secret.c \
	testbed/testbed-secret.h \
	$(NULL)
EXTRA_DIST += testbed/README.md
