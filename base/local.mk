# base/ — the vocabulary: time, units, random streams, errors.
noinst_LIBRARIES += base/libdlbase.a
base_libdlbase_a_SOURCES = \
	base/dl-error.c \
	base/dl-error.h \
	base/dl-time.c \
	base/dl-time.h \
	base/dl-units.c \
	base/dl-units.h \
	base/dl-random.c \
	base/dl-random.h \
	base/dl-dist.c \
	base/dl-dist.h \
	base/dl-csv.c \
	base/dl-csv.h \
	base/dl-wordmap.c \
	base/dl-wordmap.h \
	base/dl-idset.c \
	base/dl-idmap.c \
	base/dl-idmap.h \
	base/dl-avec.c \
	base/dl-avec.h \
	base/dl-avec-private.h \
	base/dl-huge.c \
	base/dl-huge.h \
	base/dl-slab.c \
	base/dl-slab.h \
	base/dl-idset.h \
	base/dl-sorted.c \
	base/dl-sorted.h \
	$(NULL)
