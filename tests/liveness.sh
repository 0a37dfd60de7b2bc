#!/bin/sh
# tests/liveness.sh — the two phases (docs/user-guide.md, "Properties"):
# `heal all` ends the fault phase; safety properties are checked in both
# phases, liveness ones (progress, excluded-was-told) only after the heal,
# owed within the stall window; [scenario] properties = safety (explore
# --safety-only) checks no liveness property.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
base=${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini
# S8's hang (protocol/disco/scenarios/found/explore-base-progress-in-linking-dropped-ConnectionFail.ini):
# p4's link to p1 never comes up, and DISCO never leaves getPeers
hang='timeline.0s=link-fail p4 p1'
props () { # DB -> "property count" lines
  sqlite3 "$1" 'SELECT property, COUNT(*) FROM violations GROUP BY property ORDER BY property' | tr '|' ' '
}
summary () { sqlite3 "$1" "SELECT value FROM summary WHERE key = '$2'"; }

# no heal: judged at the end, as ever
"$DLSIM" run "$base" --set "$hang" -o "$tmp/a.db" -q >/dev/null 2>&1
props "$tmp/a.db" | grep -q '^progress [1-9]' && ok "no heal: progress broken" || ko "no heal: $(props "$tmp/a.db")"
# the run ends before the heal has had its stall window: the liveness
# failure of the fault phase is not reported
"$DLSIM" run "$base" --set "$hang" --set 'timeline.20min=heal all' --set scenario.time_limit=21min \
  -o "$tmp/b.db" -q >/dev/null 2>&1
[ "$(summary "$tmp/b.db" outcome)" = time_limit ] && ok "fault phase: ran to the limit" || ko "fault phase: outcome $(summary "$tmp/b.db" outcome)"
[ -z "$(props "$tmp/b.db")" ] && ok "fault phase: no liveness violation" || ko "fault phase: $(props "$tmp/b.db")"
# with the window after the heal, the hang (which the heal does not cure) is reported
"$DLSIM" run "$base" --set "$hang" --set 'timeline.20min=heal all' -o "$tmp/c.db" -q >/dev/null 2>&1
props "$tmp/c.db" | grep -q '^progress [1-9]' && ok "after the heal: progress broken" || ko "after the heal: $(props "$tmp/c.db")"
t=$(summary "$tmp/c.db" sim_time_s)
awk -v t="$t" 'BEGIN { exit !(t > 1200) }' && ok "the stall watch waits for the window after the heal ($t s)" \
  || ko "stopped at $t s, before the heal's window"
# the heal lifts the faults and stops new ones: a drop after it is ignored
"$DLSIM" run "$base" --set 'timeline.0s=heal all' --set 'timeline.round 1=drop PeersForRound to p1' \
  -o "$tmp/d.db" -q >/dev/null 2>&1
[ "$(summary "$tmp/d.db" outcome)" = completed ] && [ -z "$(props "$tmp/d.db")" ] \
  && ok "no fault after the heal" || ko "a fault after the heal: $(summary "$tmp/d.db" outcome) $(props "$tmp/d.db")"
expect 0 "after heal all: no new faults" -- "$DLSIM" trace "$tmp/d.db" --run 1
# safety in both phases: F1's foreign round (own-round-only) before a heal
f1=${DLSIM_SRCDIR:-.}/protocol/disco/scenarios/found/f1-early-payloads-next-round-tag.ini
"$DLSIM" run "$f1" --set 'timeline.1h=heal all' -o "$tmp/e.db" -q >/dev/null 2>&1
props "$tmp/e.db" | grep -q '^own-round-only [1-9]' && ok "safety checked in the fault phase" || ko "F1 with a heal: $(props "$tmp/e.db")"
# safety only: the hang is not a violation, the foreign round still is
"$DLSIM" run "$base" --set "$hang" --set scenario.properties=safety -o "$tmp/f.db" -q >/dev/null 2>&1
[ -z "$(props "$tmp/f.db")" ] && ok "safety only: no liveness" || ko "safety only: $(props "$tmp/f.db")"
"$DLSIM" run "$f1" --set scenario.properties=safety -o "$tmp/g.db" -q >/dev/null 2>&1
props "$tmp/g.db" | grep -q '^own-round-only [1-9]' && ok "safety only: safety checked" || ko "safety only: $(props "$tmp/g.db")"
expect 2 "properties: 'some': expected all or safety" -- "$DLSIM" run "$base" --set scenario.properties=some -o "$tmp/x.db"
expect 2 "heal / heal all" -- "$DLSIM" run "$base" --set 'timeline.1s=heal everything' -o "$tmp/x.db"

# explore: --heal draws a heal per run and keeps it through shrinking;
# --safety-only finds no liveness failure
expect 0 "runs in" -- "$DLSIM" explore "$base" --runs 100 --heal --found "$tmp/found"
grep -q "DOES NOT reproduce" "$out" && ko "--heal: a found file does not reproduce" || ok "--heal: found files reproduce"
n=$(ls "$tmp/found"/*.ini | wc -l)
[ "$n" -gt 0 ] && [ "$(grep -L '= heal all$' "$tmp/found"/*.ini | wc -l)" -eq 0 ] \
  && ok "--heal: every found file keeps its heal" || ko "--heal: $n files, without a heal: $(grep -L '= heal all$' "$tmp/found"/*.ini)"
expect 0 "runs in" -- "$DLSIM" explore "$base" --runs 300 --safety-only --no-shrink
grep -q "^progress\|^excluded-was-told" "$out" && ko "--safety-only reported liveness" || ok "--safety-only: no liveness"
grep -q "^sync-served" "$out" && ok "--safety-only: safety found" || ko "--safety-only: no sync-served in 300 runs"
expect 2 "choose one" -- "$DLSIM" explore "$base" --heal --safety-only
finish
