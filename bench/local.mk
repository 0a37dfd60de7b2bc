# bench/ — benchmark models and their reference loops, and what dlsim bench
# runs and the arithmetic of its readings (bench-run.c; tests/test-bench).
noinst_LIBRARIES += bench/libdlbench.a
bench_libdlbench_a_SOURCES = \
	bench/bench-run.c \
	bench/bench-run.h \
	bench/phold.c \
	bench/phold.h \
	bench/phold-ref.c \
	bench/fuzz-frames.c \
	bench/fuzz-frames.h \
	$(NULL)
dist_noinst_SCRIPTS += bench/phold-compare.sh bench/scaling.sh bench/simgrid-compare/run.sh bench/simgrid-compare/validate.sh \
	bench/ns3-compare/run.sh
EXTRA_DIST += bench/simgrid-compare/a2a.c bench/simgrid-compare/pattern.c bench/ns3-compare/star.cc

# bench/train-cost: the wall time of local training on a real data set
# (docs/performance.md, "Training on real data"); built by make check (so that it keeps compiling) or `make bench/train-cost`
check_PROGRAMS += bench/train-cost
bench_train_cost_SOURCES = bench/train-cost.c
bench_train_cost_LDADD = learn/libdllearn.a base/libdlbase.a $(DL_CORE_LIBS)

# `make check-ns3`: dlsim's transport = tcp against packet-level TCP in
# ns-3 (CUBIC, one-BDP queues) on six single transfers of the grid in
# docs/world.md ("ns-3"; 1 MB at 1 Gbit/s and 1 ms is CUBIC's HyStart),
# two fan-outs (FedAvg's server at 100 Mbit/s and 1 Gbit/s to 10 clients) and the short flow of a mixed-round-trip cell
# (round trips in the sharing), each within 10 %; then that mixed cell
# again with start jitter (up to 10 ms a host, the median of 3 seeds:
# run.sh -s 3 -j 10), within 10 %; about 70 s, much of it compiling
# star.cc twice.  Prints SKIP and passes where Debian's libns3-dev is
# not installed (.ci/run installs it as root).
NS3_CHECK_CASES = single:10000:100:50 single:100000:100:50 single:1000000:100:50 \
	single:1000000:10:100 single:4000000:100:100 single:1000000:1000:1 \
	fanout:10:4000000:100:20:50 fanout:10:4000000:1000:20:50 mixed:4000000:20:5:50:short
NS3_CHECK_JITTER_CASES = mixed:4000000:20:5:50:short
check-ns3: dlsim
	bash $(srcdir)/bench/ns3-compare/run.sh -d $(abs_builddir)/dlsim -t 'tcp fluid' --tol 10 $(NS3_CHECK_CASES); \
	  st=$$?; test $$st -eq 0 -o $$st -eq 77
	bash $(srcdir)/bench/ns3-compare/run.sh -d $(abs_builddir)/dlsim -t tcp -s 3 -j 10 --tol 10 $(NS3_CHECK_JITTER_CASES); \
	  st=$$?; test $$st -eq 0 -o $$st -eq 77
.PHONY: check-ns3
