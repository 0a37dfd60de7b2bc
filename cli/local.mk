# cli/ — the dlsim command.
bin_PROGRAMS += dlsim
dlsim_SOURCES = \
	cli/main.c \
	cli/cli.h \
	cli/cli-util.c \
	cli/cmd-bench.c \
	cli/cmd-run.c \
	cli/cmd-report.c \
	cli/cmd-plot.c \
	cli/cmd-testbed.c \
	cli/cmd-node.c \
	cli/cmd-compare.c \
	cli/cmd-merge.c \
	cli/check-testbed.c \
	cli/cmd-explore.c \
	cli/cmd-localize.c \
	cli/cmd-shrink.c \
	cli/cmd-export-scenario.c \
	cli/cmd-export.c \
	$(NULL)
dlsim_LDADD = \
	explore/libdlexplore.a \
	export/libdlexport.a \
	bench/libdlbench.a \
	runner/libdlrunner.a \
	plots/libdlplot.a \
	testbed/libdltestbed.a \
	results/libdlres.a \
	scenario/libdlscenario.a \
	sim/libdlsim.a \
	host/libdlhost.a \
	protocol/libdlproto.a \
	learn/libdllearn.a \
	base/libdlbase.a \
	$(DL_CORE_LIBS) \
	$(JSON_LIBS) \
	$(NULL)
dlsim_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
