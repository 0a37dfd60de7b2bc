# export/ — recorded runs in formats other tools read (Perfetto's JSON; CSV and JSON lines).
noinst_LIBRARIES += export/libdlexport.a
export_libdlexport_a_SOURCES = \
	export/export.h \
	export/export-perfetto.c \
	export/export-tables.c \
	$(NULL)
export_libdlexport_a_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
