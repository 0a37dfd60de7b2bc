# testbed/ — the testbed: the orchestrator of a run on real sockets and
# processes, the peers' processes, the network namespaces of --netem, the
# record and control lines, the merge of node databases.
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
	$(NULL)
EXTRA_DIST += testbed/README.md
