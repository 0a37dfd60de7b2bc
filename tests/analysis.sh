#!/bin/sh
# tests/analysis.sh — results as analysis tools read them: compare judges
# every discrete fact (violations too), summary values are typed numbers
# that pandas reads as such (the user guide's recipe, verbatim), a sweep
# run twice into its file is not doubled, and trace --format perfetto
# keeps to --peer and --brief.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
F3=$SRC/protocol/disco/scenarios/regression/consensus-mean-3.ini

# compare: a run that broke a property the other did not differs (here a
# copy of a simulated run, as a testbed run that met DISCO's race records it)
"$DLSIM" run "$F3" -o "$tmp/sim.db" -q >/dev/null 2>&1
cp "$tmp/sim.db" "$tmp/tb.db"
sqlite3 "$tmp/tb.db" "UPDATE runs SET mode = 'testbed';
                      UPDATE summary SET value = '4' WHERE key = 'violations.own-round-only';
                      INSERT INTO violations VALUES (1, 2.5, 'own-round-only', 'p2', 'aggregated round 3 in round 2')"
expect 1 "discrete facts DIFFER" -- "$DLSIM" compare "$tmp/sim.db" "$tmp/tb.db"
grep -q "violations.own-round-only  *0  *4  *DIFFERS" "$out" && ok "compare: the violation's row" \
  || { ko "compare: no DIFFERS row for violations.own-round-only"; cat "$out"; }
expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/sim.db" "$tmp/sim.db"
grep -q "violations.progress  *0  *0" "$out" && ok "compare: the properties shown" || ko "compare: no violations rows"
# columns in line: every row's A and B values start under the header's
# "A:" and "B:", however long its key (violations.retries-before-exclusion)
# or value; a row shown without judging that differs says so, and the last
# line does not say "agree" under it without counting it
cp "$tmp/sim.db" "$tmp/msg.db"
sqlite3 "$tmp/msg.db" "UPDATE runs SET mode = 'testbed'; UPDATE traffic SET messages = messages + 2 WHERE type = 'Payload'"
expect 0 "^discrete facts agree; 1 row not judged differs$" -- "$DLSIM" compare "$tmp/sim.db" "$tmp/msg.db"
grep -q "^  Payload  *18  *20  *(differs, not judged)$" "$out" && ok "compare: unjudged row marked" \
  || { ko "compare: Payload's row"; grep Payload "$out"; }
grep -q "^  messages (not judged)$" "$out" && ok "compare: messages not judged" || ko "compare: messages heading"
awk 'index($0, "A: ") > 0 && pa == 0 { pa = index($0, "A: "); pb = index($0, "B: "); next }
     pa && length($0) >= pb && $0 ~ /^  [^ ]/ {
       if (substr($0, pa - 1, 1) != " " || substr($0, pa, 1) == " " || substr($0, pb - 1, 1) != " " || substr($0, pb, 1) == " ") { print; bad = 1 } }
     END { exit !(pa > 0 && !bad) }' "$out" && ok "compare: columns in line" || ko "compare: rows out of line (above)"

# the user guide's pandas recipe, as printed, on the sweep it names: numeric
# columns (wide export and typed summary values), means without casts
guide=$SRC/docs/user-guide.md
PY=python3
$PY -c "import pandas" 2>/dev/null || PY=/usr/bin/python3
CHURN=$SRC/scenarios/examples/convergence-vs-churn.ini
mkdir "$tmp/recipe"
(cd "$tmp/recipe" && "$DLSIM" run "$CHURN" -o results.db -q >/dev/null 2>&1)
if ! $PY -c "import pandas" 2>/dev/null; then
  ko "pandas is missing (sh tools/install-deps installs python3-pandas)"
else
  cmd=$(awk '/^## Results in other tools/ { s = 1 } s && /^dlsim export/ { sub(/ *#.*/, ""); print; exit }' "$guide")
  (cd "$tmp/recipe" && eval "\"\$DLSIM\" ${cmd#dlsim }") >/dev/null 2>&1 || ko "the guide's export command: $cmd"
  awk '/^## Results in other tools/ { s = 1 } s && /^```python/ { p = 1; next } p && /^```/ { exit } p' "$guide" \
    > "$tmp/recipe/recipe.py"
  printf '%s\n' 'assert runs["final_accuracy"].dtype.kind == "f" and acc["value"].dtype.kind == "f", "not numeric"' \
    'assert runs["churn.arrival_rate_per_s"].nunique() == 4 and runs["seed"].dtype.kind == "i"' >> "$tmp/recipe/recipe.py"
  if (cd "$tmp/recipe" && $PY recipe.py) > "$out" 2>&1 && grep -q "churn.arrival_rate=1/min *0\.[0-9]" "$out"; then
    ok "the guide's pandas recipe"
    [ -s "$tmp/recipe/accuracy-vs-churn.png" ] && ok "the recipe's figure (matplotlib)" \
      || ko "the recipe drew no accuracy-vs-churn.png"
  else
    ko "the guide's pandas recipe"; sed 's/^/  | /' "$out" | tail -15
  fi
fi
# summary values are typed: numbers as INTEGER or REAL, no value (a
# model-less run's accuracy) as NULL
printf '[peers]\ncount = 3\n[training]\nrounds = 2\n' > "$tmp/none.ini"
"$DLSIM" run "$tmp/none.ini" -o "$tmp/sim.db" -q >/dev/null 2>&1
t=$(sqlite3 "$tmp/sim.db" "SELECT group_concat(run_id || ':' || key || ':' || typeof(value), ' ') FROM summary
                           WHERE key IN ('outcome', 'rounds_completed', 'final_accuracy', 'sim_time_s', 'peer.p1.synced')")
[ "$t" = "1:peer.p1.synced:text 1:outcome:text 1:rounds_completed:integer 1:final_accuracy:real 1:sim_time_s:real 2:peer.p1.synced:text 2:outcome:text 2:rounds_completed:integer 2:final_accuracy:null 2:sim_time_s:real" ] \
  && ok "typed summary values" || ko "summary value types: $t"
# a file written before schema 6 (summary.value TEXT) is upgraded: its old
# values become numbers, and runs appended to it are typed the same
cp "$tmp/sim.db" "$tmp/v4.db"
sqlite3 "$tmp/v4.db" "CREATE TABLE s4 (run_id INTEGER, key TEXT, value TEXT);
  INSERT INTO s4 SELECT run_id, key, COALESCE(value, '') FROM summary; DROP TABLE summary;
  ALTER TABLE s4 RENAME TO summary; PRAGMA user_version = 5"
"$DLSIM" run "$F3" -o "$tmp/v4.db" -q --seed 7 >/dev/null 2>&1
t=$(sqlite3 "$tmp/v4.db" "PRAGMA user_version; SELECT run_id || ':' || typeof(value) FROM summary
                          WHERE key IN ('final_accuracy', 'consensus_distance') ORDER BY run_id, key")
[ "$(echo $t)" = "6 1:real 1:real 2:null 2:null 3:real 3:real" ] && ok "schema 5 upgraded" || ko "schema 5 upgrade: $(echo $t)"

# a sweep run again into its file is not doubled: its runs are there
# already (same scenario text, values, seed and build); --again adds a copy,
# which a mean over seeds counts once, as it counts once the copies an older
# dlsim made (no identities)
R=$tmp/recipe/results.db
expect 0 "20 of 20 runs are already in .*results.db.*skipped; --again runs them once more" -- "$DLSIM" run "$CHURN" -o "$R" -q
expect 0 "20 of 24 runs are already in" -- "$DLSIM" run "$CHURN" -o "$R" -q --set scenario.repeat=6
r=$(sqlite3 "$R" "SELECT COUNT(*), COUNT(DISTINCT seed) FROM runs")
[ "$r" = "24|6" ] && ok "no run twice" || ko "runs after running the sweep again: $r"
check_again () { "$DLSIM" run "$CHURN" -o "$R" -q --again >/dev/null 2>&1; }
check_again && [ "$(sqlite3 "$R" "SELECT COUNT(*) FROM runs")" = 44 ] && ok "--again" || ko "--again did not add a copy"
expect 0 "mean over up to 6 seeds" -- "$DLSIM" plot "$R" convergence --script
sqlite3 "$R" "DELETE FROM params WHERE key = 'provenance.run_identity'"
expect 0 "mean over up to 6 seeds" -- "$DLSIM" plot "$R" convergence --script

# trace --format perfetto keeps to --peer and --brief as the text trace
# does (--peer: spans of that node only, every arrow to or from it;
# --brief: no sends or receives, so no arrows), and frees what it kept of
# messages never received (a crash loses some; LSan fails the run)
cat > "$tmp/crash.ini" <<'INI'
[protocol]
min_participants = 2
[training]
rounds = 3
[peers]
count = 4
[timeline]
round 2 + 100ms = crash p3   # a message in flight to p3 is lost
INI
"$DLSIM" run "$tmp/crash.ini" -o "$tmp/pf.db" -q >/dev/null 2>&1
for v in all p2 brief; do
  case $v in all) opt= ;; p2) opt="--peer p2" ;; brief) opt="--brief" ;; esac
  # shellcheck disable=SC2086
  "$DLSIM" trace "$tmp/pf.db" --run 1 --format perfetto -o "$tmp/$v.json" $opt > "$out" 2>&1 \
    && ok "perfetto $v" || { ko "perfetto $v"; sed 's/^/  | /' "$out" | head; }
done
r=$($PY -c "
import json
def load(v):
    ev = json.load(open('$tmp/' + v + '.json'))['traceEvents']
    tid = {e['args']['name']: e['tid'] for e in ev if e['ph'] == 'M'}
    return ev, tid
ev, tid = load('all')
spans_all = sum(1 for e in ev if e['ph'] == 'X')
flows_all = sum(1 for e in ev if e['ph'] in 'sf')
ev, tid = load('p2')
spans = {e['tid'] for e in ev if e['ph'] == 'X'}
flows = [e for e in ev if e['ph'] in 'sf']
ids = {}
for e in flows: ids.setdefault(e['id'], []).append(e['tid'])
p2 = spans == {tid['p2']} and flows and all(tid['p2'] in t for t in ids.values()) and len(flows) < flows_all
ev, tid = load('brief')
brief = not any(e['ph'] in 'sf' or e.get('cat') in ('sent', 'received') for e in ev) \
        and sum(1 for e in ev if e['ph'] == 'X') == spans_all and flows_all > 0
print('ok' if p2 and brief else 'p2 %s brief %s' % (p2, brief))
" 2>&1)
[ "$r" = ok ] && ok "perfetto --peer, --brief" || ko "perfetto --peer, --brief: $r"

finish
