# plots/ — gnuplot figures from a results database.
noinst_LIBRARIES += plots/libdlplot.a
plots_libdlplot_a_SOURCES = \
	plots/plot.c \
	plots/plot.h \
	plots/plot-localize.c \
	plots/plot-mean.c \
	plots/plot-private.h \
	plots/plot-scaling.c \
	plots/plot-summary.c \
	plots/plot-util.c \
	$(NULL)
