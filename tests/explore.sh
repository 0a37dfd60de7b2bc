#!/bin/sh
# tests/explore.sh — dlsim explore as a user runs it: the same command gives
# the same table; the search finds distinct failures from a base with no
# timeline; each is shrunk and written as a scenario file that `dlsim check`
# reproduces; bad options are refused by name.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
base=${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini

"$DLSIM" explore "$base" --runs 300 --no-shrink 2>&1 | sed 's/ in [0-9.]* s,/,/' > "$tmp/a.txt"
"$DLSIM" explore "$base" --runs 300 --no-shrink 2>&1 | sed 's/ in [0-9.]* s,/,/' > "$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" && ok "deterministic" || { ko "two searches differ"; diff "$tmp/a.txt" "$tmp/b.txt" | head; }
n=$(sed -n 's/.* \([0-9]*\) distinct failures$/\1/p' "$tmp/a.txt")
[ "${n:-0}" -ge 4 ] && ok "distinct failures" || ko "only '$n' distinct failures in 300 runs"
grep -q "^progress in linking " "$tmp/a.txt" && ok "S8's hang found" || ko "no 'progress in linking' (S8) in 300 runs"
grep -q "^coverage: [0-9]* of [0-9]* peer states reached; never: " "$tmp/a.txt" && ok "coverage" || ko "no coverage line"

expect 0 "reproduces" -- "$DLSIM" explore "$base" --runs 300 --found "$tmp/found"
grep -q "DOES NOT reproduce" "$out" && ko "a shrunk file does not reproduce" || ok "all reproduce"
files=$(ls "$tmp/found"/*.ini 2>/dev/null | wc -l)
[ "$files" -ge 4 ] && ok "found files" || ko "$files found files"
expect 0 "$files passed, 0 failed" -- "$DLSIM" check "$tmp/found"
# shrunk: at most 6 timeline actions each
big=$(for f in "$tmp/found"/*.ini; do sed -n '/^\[timeline\]/,/^\[/p' "$f" | grep -c ' = '; done | awk '$1 > 6' | wc -l)
[ "$big" -eq 0 ] && ok "small" || ko "$big found files with more than 6 timeline actions"

expect 2 "--faults: unknown kind 'nope'" -- "$DLSIM" explore "$base" --runs 5 --faults crash,nope
expect 0 "5 runs" -- "$DLSIM" explore "$base" --runs 5 --faults crash --no-shrink
expect 2 "expected one scenario FILE" -- "$DLSIM" explore
expect 0 "ddmin" -- "$DLSIM" explore --help
finish
