#!/bin/sh
# tests/scenarios.sh — every shipped scenario with an [expect] section,
# through `dlsim check`, as a user would run it.
set -u
DLSIM=${DLSIM:-./dlsim}
SRC=${DLSIM_SRCDIR:-.}
dirs=""
for d in regression failures edge found; do
  [ -d "$SRC/scenarios/$d" ] && dirs="$dirs $SRC/scenarios/$d"
done
exec "$DLSIM" check -j 2 $dirs
