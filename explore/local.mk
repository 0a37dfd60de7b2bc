# explore/ — randomized fault search and shrinking (plan, run, ddmin, shrink).
noinst_LIBRARIES += explore/libdlexplore.a
explore_libdlexplore_a_SOURCES = \
	explore/explore.h \
	explore/explore-plan.c \
	explore/explore-shrink.c \
	explore/explore-search.c \
	explore/explore-localize.c \
	$(NULL)
