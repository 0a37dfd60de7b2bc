#!/bin/sh
# twin.sh FILE - print the C twin of a DISCO guest scenario: the same file
# with family = disco, version = disco-775 (dlsim's C rendering of the same
# DISCO code) instead of the guest, and its model four floats, the size of
# the weights the guest's clients inject (driver.mjs), so that a Payload
# costs about what the guest's does.
exec sed -e 's/^family = guest$/family = disco\nversion = disco-775/' -e '/^guest_command/d' \
         -e 's/^\[compute\]$/[model]\nkind = none\nsize = 4\n\n[compute]/' "${1:?usage: twin.sh FILE}"
