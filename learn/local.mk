# learn/ — weight vectors (and later models, data, training).
noinst_LIBRARIES += learn/libdllearn.a
learn_libdllearn_a_SOURCES = \
	learn/learn-weights.c \
	learn/learn-weights.h \
	learn/learn-data.c \
	learn/learn-data.h \
	learn/learn-sources.c \
	learn/learn-model.c \
	learn/learn-model.h \
	$(NULL)
