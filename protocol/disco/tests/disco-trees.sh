#!/bin/sh
# protocol/disco/tests/disco-trees.sh ARCHIVES OUT — DISCO's own code for
# protocol/disco/tests/disco-guest.sh: each ARCHIVES/disco-*.tar.gz (../shared/disco/ beside
# the source tree: disco-10b4be70, disco-1110; its README says what each
# is) is unpacked into OUT/NAME/disco and prepared by guests/disco/install.sh
# (npm install --ignore-scripts, tsc).  A tree is made once per archive:
# OUT/NAME/.stamp holds the archive's SHA-256, and a tree whose stamp
# matches is kept.  Without ARCHIVES it says what it needs and exits 0, so
# that `make check` on a user's clone goes on (disco-guest.sh then says SKIP).
set -eu
arch=${1:?usage: disco-trees.sh ARCHIVES OUT}
out=${2:?usage: disco-trees.sh ARCHIVES OUT}
here=$(cd "$(dirname "$0")/../../.." && pwd)
set -- "$arch"/disco-*.tar.gz
if [ ! -f "$1" ]; then
  echo "disco-trees: no DISCO archives in $arch (disco-*.tar.gz, as ../shared/disco/ holds): none prepared"
  exit 0
fi
for a in "$@"; do
  name=$(basename "$a" .tar.gz)
  sum=$(sha256sum "$a" | cut -d' ' -f1)
  if [ -f "$out/$name/.stamp" ] && [ "$(cat "$out/$name/.stamp")" = "$sum" ]; then
    echo "disco-trees: $name ready (kept: $out/$name/disco)"
    continue
  fi
  rm -rf "$out/$name"
  mkdir -p "$out/$name"
  tar -xzf "$a" -C "$out/$name"
  start=$(date +%s)
  if ! sh "$here/guests/disco/install.sh" --disco-src "$out/$name/disco" > "$out/$name/install.log" 2>&1; then
    tail -20 "$out/$name/install.log" >&2
    echo "disco-trees: $name: guests/disco/install.sh failed (log: $out/$name/install.log)" >&2
    exit 1
  fi
  echo "$sum" > "$out/$name/.stamp"
  echo "disco-trees: $name ready in $(( $(date +%s) - start )) s: $out/$name/disco"
done
