#!/bin/sh
# tests/findability.sh — tools/findability, the findability table of
# docs/found.md: its runs to the first find are those dlsim explore's own
# table gives for each search seed, a case its searches never meet says
# "not found in N", a signature no case names is listed, -j changes
# nothing, and the shipped map names only configurations it declares.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=${DLSIM_SRCDIR:-.}
base=$src/scenarios/examples/explore-base.ini
tool=$src/tools/findability

cat > "$tmp/map" <<'MAP'
config 1110
case S20 | 1110 | progress in wait-peers-for-round
case Snone | 1110 | no such signature
MAP
fa () { sh "$tool" --dlsim "$DLSIM" --map "$tmp/map" --runs 50 --seeds 2 "$@" 2>&1; }
fa -j 2 > "$tmp/t2.txt"
# dlsim explore's own first seeds for S20's signature, one search per seed
first () {
  "$DLSIM" explore "$base" --runs 50 --no-shrink --seed "$1" 2>/dev/null \
    | awk -v s="$1" '$1 " " $2 " " $3 == "progress in wait-peers-for-round" && $4 ~ /^[0-9]+$/ { print $5 - s + 1; exit }'
}
a=$(first 1) b=$(first 1000001)
if [ "$a" -le "$b" ]; then lo=$a hi=$b; else lo=$b hi=$a; fi
grep -q "^| S20 | disco-1110 | 2 of 2 seeds | $lo | $hi |$" "$tmp/t2.txt" \
  && ok "S20: median and worst from explore's table ($lo, $hi)" \
  || { ko "S20's row is not '2 of 2 seeds | $lo | $hi':"; cat "$tmp/t2.txt"; }
grep -q "^| Snone | disco-1110 | 0 of 2 seeds | not found in 50 | not found in 50 |$" "$tmp/t2.txt" \
  && ok "a case never met: not found" || ko "Snone: $(grep Snone "$tmp/t2.txt")"
grep "^Found, in no case of the map:" "$tmp/t2.txt" | grep -q "1110: progress in exchanging" \
  && ok "a signature no case names is listed" || ko "no 'progress in exchanging' among the unnamed"
fa -j 1 > "$tmp/t1.txt"
cmp -s "$tmp/t1.txt" "$tmp/t2.txt" && ok "-j 1 gives the same table" || ko "-j 1 differs"
expect 2 "unknown argument '--bogus'" -- sh "$tool" --bogus
# the shipped map: every case's configuration is declared, every case has
# a signature
awk -F ' *[|] *' '/^config / { split($0, w, " "); c[w[2]] = 1 }
  /^case / { if (!($2 in c) || NF < 3) { print "bad case: " $0; bad = 1 } }
  END { exit bad }' "$src/tools/findability.map" > "$tmp/m.txt" \
  && ok "the shipped map is well formed" || { ko "tools/findability.map:"; cat "$tmp/m.txt"; }
finish
