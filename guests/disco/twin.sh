#!/bin/sh
# twin.sh [--version V] FILE - print the C twin of a DISCO guest scenario:
# the same file with family = disco, version = V (default disco-775,
# dlsim's C rendering of the DISCO code at 10b4be70; disco-1110 for a
# guest of DISCO's #1110 tree, protocol/guest/scenarios/disco1110/) instead of the
# guest, and its model four floats, the size of the weights the guest's
# clients inject (driver.mjs), so that a Payload costs about what the
# guest's does, and its clients Node processes ([peers] runtime = node: an
# uncaught error ends one), as the guest's are.
# A guest told `--aggregation secure` (driver.mjs) has `aggregation = secure`;
# one told `--max-connection-retry M`, `--peer-connection-time MS` and
# `--model-sync-time MS` has max_connection_retry, peer_connection_timeout
# and model_sync_timeout (guestify.sh's inverse); the guest family's own
# keys (guest_*) go.
# A timeline rule on a kind of the guest's messages (`drop Guest:Payload to
# p1`, docs/guest.md) names the C type of that name (NewDecentralizedNodeInfo
# is the C machines' NewNodeInfo).
version=disco-775
if [ "${1:-}" = --version ]; then version=${2:?--version needs a version}; shift 2; fi
f=${1:?usage: twin.sh [--version V] FILE}
opt () { sed -n "s/^guest_command = .* $1 \([0-9][0-9]*\).*/\1/p" "$f"; }
m=$(opt --max-connection-retry) t=$(opt --peer-connection-time) s=$(opt --model-sync-time)
keys="family = disco\nversion = $version"
[ -n "$m" ] && keys="$keys\nmax_connection_retry = $m"
[ -n "$t" ] && keys="$keys\npeer_connection_timeout = ${t}ms"
[ -n "$s" ] && keys="$keys\nmodel_sync_timeout = ${s}ms"
grep -q '^guest_command = .* --aggregation secure' "$f" && keys="$keys\naggregation = secure"
exec sed -e "s/^family = guest\$/$keys/" \
         -e '/^guest_[a-z_]* *=/d' \
         -e 's/^\[compute\]$/[model]\nkind = none\nsize = 4\n\n[compute]/' \
         -e 's/Guest:NewDecentralizedNodeInfo/NewNodeInfo/g' -e 's/Guest:\([A-Za-z]\)/\1/g' \
         -e 's/^\[peers\]$/[peers]\nruntime = node/' "$f"
