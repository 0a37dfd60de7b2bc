# results/ — the SQLite results database and the recorder.
noinst_LIBRARIES += results/libdlres.a
results_libdlres_a_SOURCES = \
	results/res-compare.c \
	results/res-compare.h \
	results/res-db.c \
	results/res-db.h \
	results/res-db-private.h \
	results/res-localize.c \
	results/res-localize.h \
	results/res-merge.c \
	results/res-merge.h \
	results/res-plot.c \
	results/res-plot.h \
	results/res-query.c \
	results/res-query.h \
	results/res-rows.c \
	results/res-rows.h \
	results/res-file.c \
	results/res-run-private.h \
	results/res-summary.c \
	results/res-summary-private.h \
	results/res-writer.c \
	results/res-node.c \
	results/res-node.h \
	results/res-violations.c \
	results/res-violations.h \
	results/res-wide.c \
	$(NULL)
