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
