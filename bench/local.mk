# bench/ — benchmark models and their reference loops (linked into dlsim bench).
noinst_LIBRARIES += bench/libdlbench.a
bench_libdlbench_a_SOURCES = \
	bench/phold.c \
	bench/phold.h \
	bench/phold-ref.c \
	bench/fuzz-frames.c \
	bench/fuzz-frames.h \
	$(NULL)
dist_noinst_SCRIPTS += bench/phold-compare.sh bench/scaling.sh bench/simgrid-compare/run.sh bench/simgrid-compare/validate.sh
EXTRA_DIST += bench/simgrid-compare/a2a.c bench/simgrid-compare/pattern.c
