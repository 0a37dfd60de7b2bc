# protocol/guest/ — the guest family (README.md beside this file); included
# from protocol/local.mk.
protocol_libdlproto_a_SOURCES += \
	protocol/guest/guest-config.h \
	protocol/guest/guest-family.c \
	protocol/guest/guest-keys.c \
	protocol/guest/guest-line.c protocol/guest/guest-line.h \
	protocol/guest/guest-msgs.c protocol/guest/guest-msgs.h \
	protocol/guest/guest-proc.c protocol/guest/guest-proc.h \
	$(NULL)
EXTRA_DIST += protocol/guest/README.md protocol/guest/local.mk
# its tests live in protocol/guest/tests/ (tests/README.md): the line
# protocol's Check program, and guests as a user runs them
# make check TESTS='protocol/guest/tests/test-guest protocol/guest/tests/guest.sh'
check_PROGRAMS += protocol/guest/tests/test-guest
TESTS += protocol/guest/tests/test-guest protocol/guest/tests/guest.sh
EXTRA_DIST += protocol/guest/tests/guest.sh
protocol_guest_tests_test_guest_CFLAGS = $(DL_CHECK_CFLAGS)
