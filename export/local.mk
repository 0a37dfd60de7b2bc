# export/ — recorded runs in formats other tools read (Perfetto's JSON; CSV and JSON lines;
# JUnit XML and TAP; a run's scenario file).
noinst_LIBRARIES += export/libdlexport.a
export_libdlexport_a_SOURCES = \
	export/export.h \
	export/export-perfetto.c \
	export/export-tables.c \
	export/export-check.c \
	export/export-scenario.c \
	$(NULL)
export_libdlexport_a_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
