#!/bin/sh
# twin.sh FILE - print the C twin of a DISCO guest scenario: the same file
# with family = disco, version = disco-775 (dlsim's C rendering of the same
# DISCO code) instead of the guest, and its model four floats, the size of
# the weights the guest's clients inject (driver.mjs), so that a Payload
# costs about what the guest's does, and its clients Node processes
# ([peers] runtime = node: an uncaught error ends one), as the guest's are.
# A guest told `--aggregation secure` (driver.mjs) has `aggregation = secure`.
# A timeline rule on a kind of the guest's messages (`drop Guest:Payload to
# p1`, docs/guest.md) names the C type of that name (NewDecentralizedNodeInfo
# is the C machines' NewNodeInfo).
exec sed -e 's/^family = guest$/family = disco\nversion = disco-775/' \
         -e 's/^guest_command = .* --aggregation secure\( .*\)\{0,1\}$/aggregation = secure/' \
         -e '/^guest_command/d' -e '/^guest_dir/d' -e '/^guest_agreement/d' \
         -e 's/^\[compute\]$/[model]\nkind = none\nsize = 4\n\n[compute]/' \
         -e 's/Guest:NewDecentralizedNodeInfo/NewNodeInfo/g' -e 's/Guest:\([A-Za-z]\)/\1/g' \
         -e 's/^\[peers\]$/[peers]\nruntime = node/' "${1:?usage: twin.sh FILE}"
