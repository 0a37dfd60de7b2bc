# tests/ — one Check program per module folder, plus command-line tests
# (tests/README.md: which program covers which module).
# The protocol tests' one hand-held world, on the host layer (host/sim-host.c)
HARNESS_SOURCES = tests/harness.c tests/harness.h
# its layer for the families' tests other than DISCO's (gw_*: tests/family-harness.h),
# with the checks tests/'s programs and the families' share (fh_*: explore's
# coverage, a refused scenario)
FAMILY_HARNESS_SOURCES = tests/family-harness.c tests/family-harness.h $(HARNESS_SOURCES)
# whole runs' recorder and setups (tests/world-harness.h), for test-world
# and a family's own world tests
WORLD_HARNESS_SOURCES = tests/world-harness.c tests/world-harness.h
# a message of every type (tests/msg-fill.h), filled by its class's
# `example`
MSG_FILL_SOURCES = tests/msg-fill.c tests/msg-fill.h
# What every Check program compiles and links with.  A Check program
# P (here, or a family's in protocol/F/tests/) is three lines:
#   check_PROGRAMS += P
#   TESTS += P
#   P_CFLAGS = $(DL_CHECK_CFLAGS)      (P with / and - as _)
# P_SOURCES only when it is more than P.c (automake's default), and
# P_LDADD only when it links more than LDADD, the default below (then
# $(DL_CHECK_LDADD) and what it adds).  The _CFLAGS line stays: automake
# has no default per-target flags, and AM_CFLAGS, which the libraries
# compile with too, has no $(CHECK_CFLAGS).  Every library, callers
# before what they call: a static library gives a program only the
# objects it uses.
DL_CHECK_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
DL_CHECK_LDADD = export/libdlexport.a explore/libdlexplore.a bench/libdlbench.a runner/libdlrunner.a \
	testbed/libdltestbed.a plots/libdlplot.a results/libdlres.a scenario/libdlscenario.a sim/libdlsim.a host/libdlhost.a protocol/libdlproto.a \
	learn/libdllearn.a base/libdlbase.a $(CHECK_LIBS) $(DL_CORE_LIBS)
LDADD = $(DL_CHECK_LDADD)
# explore's plans as the tests check them (tests/plan-check.h)
PLAN_CHECK_SOURCES = tests/plan-check.c tests/plan-check.h
EXTRA_DIST += tests/README.md
EXTRA_DIST += tests/explore-default.ini
check_PROGRAMS += tests/test-base tests/test-sim
TESTS += tests/test-base tests/test-sim tests/cli.sh tests/run.sh tests/scenarios.sh tests/plot.sh tests/testbed.sh tests/explore.sh tests/export.sh tests/docs.sh
EXTRA_DIST += tests/cli.sh tests/run.sh tests/scenarios.sh tests/plot.sh tests/testbed.sh tests/explore.sh tests/export.sh tests/docs.sh tests/lib.sh \
	tests/tb-attack.py
TESTS += tests/run-kill.sh
EXTRA_DIST += tests/run-kill.sh
TESTS += tests/liveness.sh tests/search-power.sh tests/localize.sh
EXTRA_DIST += tests/liveness.sh tests/search-power.sh tests/localize.sh
# the findability table of docs/found.md (tools/findability)
TESTS += tests/findability.sh
EXTRA_DIST += tests/findability.sh tools/findability tools/findability.map
TESTS += tests/db-faults.sh tests/analysis.sh tests/hang.sh tests/layers.sh
# the Python package's unit tests (python/, tests/python/)
TESTS += tests/python.sh
EXTRA_DIST += tests/python.sh tests/python/test_dlsim.py
# the example notebook, executed with nbconvert (examples/notebooks/)
TESTS += tests/notebook.sh
EXTRA_DIST += tests/notebook.sh examples/notebooks/dlsim-churn.ipynb
# a family is a folder: where the code names a family outside it (cheap: reads the sources)
TESTS += tests/family-folder.sh
EXTRA_DIST += tests/family-folder.sh tools/family-mentions tools/family-diff tools/family-scaffolding
# no function over 80 lines outside a shrinking allow-list (cheap: reads the sources)
TESTS += tests/function-length.sh
TESTS += tests/same-tables.sh
EXTRA_DIST += tests/same-tables.sh tools/same-tables
EXTRA_DIST += tests/function-length.sh tools/function-length tools/function-length.allow
# the rules docs/style.md says a tool checks, and commit messages' form
TESTS += tests/style.sh
EXTRA_DIST += tests/style.sh tools/style-check tools/commit-form
EXTRA_DIST += tests/db-faults.sh tests/hang.sh tests/analysis.sh tests/layers.sh tools/sql-outside-results tools/layer-includes tools/file-cycles

tests_test_base_SOURCES = tests/test-base.c tests/test-base-sorted.c tests/test-base-records.c tests/test-base.h
tests_test_base_CFLAGS = $(DL_CHECK_CFLAGS)

# sim/'s engine (test-sim.c, with the main), the flows' sharing
# (test-sim-flows.c), flows with windows (test-sim-windows.c): one
# program, its suites sharing tests/test-sim.h and test-sim-drive.c
tests_test_sim_SOURCES = tests/test-sim.c tests/test-sim-flows.c tests/test-sim-windows.c \
	tests/test-sim-drive.c tests/test-sim.h tests/slow-start-bound.h
tests_test_sim_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-message
TESTS += tests/test-message
tests_test_message_SOURCES = tests/test-message.c $(MSG_FILL_SOURCES)
tests_test_message_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-learn
TESTS += tests/test-learn
tests_test_learn_SOURCES = tests/test-learn.c tests/test-learn-sources.c tests/test-learn.h
tests_test_learn_CFLAGS = $(DL_CHECK_CFLAGS)

# tests/data.sh's probe of learn/'s data sources (built for make check, not a test itself)
check_PROGRAMS += tests/data-probe
TESTS += tests/data.sh
EXTRA_DIST += tests/data.sh
tests_data_probe_LDADD = learn/libdllearn.a base/libdlbase.a $(DL_CORE_LIBS)

check_PROGRAMS += tests/test-world
TESTS += tests/test-world
tests_test_world_SOURCES = tests/test-world.c $(WORLD_HARNESS_SOURCES)
tests_test_world_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-net-body
TESTS += tests/test-net-body
tests_test_net_body_SOURCES = tests/test-net-body.c $(WORLD_HARNESS_SOURCES) $(MSG_FILL_SOURCES)
tests_test_net_body_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-sim-faults
TESTS += tests/test-sim-faults
tests_test_sim_faults_SOURCES = tests/test-sim-faults.c $(WORLD_HARNESS_SOURCES)
tests_test_sim_faults_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-scenario
TESTS += tests/test-scenario
tests_test_scenario_SOURCES = tests/test-scenario.c $(FAMILY_HARNESS_SOURCES)
tests_test_scenario_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-frame
TESTS += tests/test-frame
tests_test_frame_SOURCES = tests/test-frame.c $(MSG_FILL_SOURCES)
tests_test_frame_CFLAGS = $(DL_CHECK_CFLAGS)

# `make check-netem` (root): the testbed with a network namespace per peer.
# DLSIM_SANITIZED tells tests/netem.sh that this dlsim is built with the
# sanitizers, too slow for its 16-peer timing step (it says SKIP there).
EXTRA_DIST += tests/netem.sh
check-netem: dlsim
	DLSIM=$(abs_builddir)/dlsim DLSIM_SRCDIR=$(srcdir) DLSIM_SANITIZED="$(DL_SAN_LDFLAGS)" \
	  bash $(srcdir)/tests/netem.sh >tests/netem.log 2>&1; \
	  st=$$?; cat tests/netem.log; test $$st -eq 0
.PHONY: check-netem

check_PROGRAMS += tests/test-props
TESTS += tests/test-props
tests_test_props_CFLAGS = $(DL_CHECK_CFLAGS)

# `make check-fuzz`: a million inputs: frames through the decoder, HELLO proofs,
# hostile messages into every family's machines (run by .ci/run in
# its sanitizer build: no crash, no leak, no UB report)
check-fuzz: dlsim
	./dlsim$(EXEEXT) bench fuzz-frames --inputs 1000000
.PHONY: check-fuzz

# `make check-robust-search` (about 90 s): the fault search finds nothing
# under version = robust in 10,000 runs with every fault kind, in three
# configurations (docs/protocol.md, "Fault search"); run by .ci/run
check-robust-search: dlsim
	@set -e; for conf in "--seed 1" "--seed 100000 --set protocol.aggregation=secure" \
	  "--seed 200000 --set peers.count=6 --set protocol.min_participants=3"; do \
	  out=$$(./dlsim$(EXEEXT) explore $(srcdir)/scenarios/examples/explore-base.ini --runs 10000 \
	         --version robust --no-shrink -j 2 $$conf | head -1); echo "$$conf: $$out"; \
	  case "$$out" in *" 0 failing, "*) ;; *) echo "check-robust-search: failures under robust"; exit 1;; esac; \
	done
.PHONY: check-robust-search

# `make check-reproductions` (about a minute, 1 GB): the reproductions too
# large for make check, scenarios/reproductions-large/ (push-pull averaging
# at 100 000 nodes: docs/reproductions.md), events not recorded; run by .ci/run
check-reproductions: dlsim
	./dlsim$(EXEEXT) check --no-events $(srcdir)/scenarios/reproductions-large
.PHONY: check-reproductions

# `make check-scenario-fuzz` (a few minutes under the sanitizers): 400
# mutated copies of the shipped scenario files, seeded, through dlsim run:
# every one ends with exit 0, 1 or 2, and no crash, sanitizer report, GLib
# CRITICAL or hang (tools/fuzz-scenarios); then plots of a database whose
# text holds gnuplot commands (tests/plot-hostile.sh), and 200 000 strings
# through plot_quote and a real gnuplot (tests/test-plot); run by .ci/run
# in its sanitizer build
check-scenario-fuzz: dlsim tests/test-plot$(EXEEXT)
	DLSIM_SRCDIR=$(srcdir) ASAN_OPTIONS='detect_leaks=1:abort_on_error=1' \
	  UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1' $(srcdir)/tools/fuzz-scenarios ./dlsim$(EXEEXT) 400 1
	DLSIM=$(abs_builddir)/dlsim DLSIM_SRCDIR=$(srcdir) sh $(srcdir)/tests/plot-hostile.sh
	DLSIM_QUOTE_FUZZ=200000 ./tests/test-plot$(EXEEXT)
.PHONY: check-scenario-fuzz

# `make check-slurm` (root, with slurm-wlm, munge and parallel installed): a
# real single-node Slurm runs a sharded sweep (tests/slurm.sh)
EXTRA_DIST += tests/slurm.sh tools/testbed-agreement tools/version-cost
check-slurm: dlsim
	DLSIM=$(abs_builddir)/dlsim DLSIM_SRCDIR=$(srcdir) bash $(srcdir)/tests/slurm.sh >tests/slurm.log 2>&1; \
	  st=$$?; cat tests/slurm.log; test $$st -eq 0
.PHONY: check-slurm

check_PROGRAMS += tests/test-results
TESTS += tests/test-results
tests_test_results_SOURCES = tests/test-results.c tests/test-results-compare.c tests/test-results-fixture.c \
  tests/test-results.h
tests_test_results_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-machine
TESTS += tests/test-machine
tests_test_machine_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-runner
TESTS += tests/test-runner
tests_test_runner_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-explore
TESTS += tests/test-explore
tests_test_explore_SOURCES = tests/test-explore.c $(PLAN_CHECK_SOURCES) $(FAMILY_HARNESS_SOURCES)
tests_test_explore_CFLAGS = $(DL_CHECK_CFLAGS)

check_PROGRAMS += tests/test-export
TESTS += tests/test-export
tests_test_export_SOURCES = tests/test-export.c $(MSG_FILL_SOURCES)
tests_test_export_CFLAGS = $(DL_CHECK_CFLAGS) $(JSON_CFLAGS)
tests_test_export_LDADD = $(DL_CHECK_LDADD) $(JSON_LIBS)

# testbed/: a peer's command line, refusals, record lines, the tally, merge (no root)
check_PROGRAMS += tests/test-testbed
TESTS += tests/test-testbed
tests_test_testbed_CFLAGS = $(DL_CHECK_CFLAGS)

# testbed/testbed-netns.c: the --netem plan, its tbf queues, partitions (no root)
check_PROGRAMS += tests/test-testbed-netns
TESTS += tests/test-testbed-netns
tests_test_testbed_netns_CFLAGS = $(DL_CHECK_CFLAGS)

# testbed/: a node's secret, made, read and refused (no root)
check_PROGRAMS += tests/test-testbed-secret
TESTS += tests/test-testbed-secret
tests_test_testbed_secret_CFLAGS = $(DL_CHECK_CFLAGS)

# bench/: dlsim bench's worlds and the arithmetic of its readings (no timing)
check_PROGRAMS += tests/test-bench
TESTS += tests/test-bench
tests_test_bench_CFLAGS = $(DL_CHECK_CFLAGS)

# DISCO's code that DISCO's guest test (protocol/disco/tests/) prepared from
# ../shared/disco's archives (its disco-trees.sh): kept between runs, removed by distclean
distclean-local:
	rm -rf disco-trees
.PHONY: distclean-local
# plots/: plot_quote's fuzz against a real gnuplot; plots of hostile text
check_PROGRAMS += tests/test-plot
TESTS += tests/test-plot tests/plot-hostile.sh
EXTRA_DIST += tests/plot-hostile.sh
tests_test_plot_CFLAGS = $(DL_CHECK_CFLAGS)
# cli/: text from a file or a database printed with its control bytes escaped
TESTS += tests/print-hostile.sh
EXTRA_DIST += tests/print-hostile.sh
# tools/: file names written into a shell (slurm-sweep's job scripts) stay one word
TESTS += tests/shell-hostile.sh
EXTRA_DIST += tests/shell-hostile.sh
