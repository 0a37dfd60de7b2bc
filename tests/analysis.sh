#!/bin/sh
# tests/analysis.sh — results as analysis tools read them: compare judges
# every discrete fact (violations too), summary values are typed numbers
# that pandas reads as such (the user guide's recipe, verbatim), a sweep
# run twice into its file is not doubled, and trace --format perfetto
# keeps to --peer and --brief.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=${DLSIM_SRCDIR:-.}
F3=$SRC/scenarios/regression/consensus-mean-3.ini

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

finish
