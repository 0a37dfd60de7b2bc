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
