# export/ — a recorded run in formats other tools read (Perfetto's JSON, a scenario file).
noinst_LIBRARIES += export/libdlexport.a
export_libdlexport_a_SOURCES = \
	export/export.h \
	export/export-perfetto.c \
	export/export-scenario.c \
	$(NULL)
export_libdlexport_a_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
