#!/bin/sh
# tests/scenarios.sh — every shipped scenario with an [expect] section,
# through `dlsim check`, as a user would run it; then the comparisons that
# span two runs, which [expect] (one run at a time) cannot state.
set -u
DLSIM=${DLSIM:-./dlsim}
SRC=${DLSIM_SRCDIR:-.}
dirs=""
for d in regression failures edge found; do
  [ -d "$SRC/scenarios/$d" ] && dirs="$dirs $SRC/scenarios/$d"
done
"$DLSIM" check -j 2 $dirs || exit 1

# gossip converges within 0.05 of DISCO's all-to-all on the same data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$DLSIM" run "$SRC/scenarios/regression/gossip-vs-disco.ini" -o "$tmp/vs.db" -q || exit 1
gap=$(sqlite3 "$tmp/vs.db" "SELECT abs(max(CASE WHEN r.protocol_version = 'gossip' THEN s.value END)
                                       - max(CASE WHEN r.protocol_version <> 'gossip' THEN s.value END))
                            FROM summary s JOIN runs r USING (run_id) WHERE s.key = 'final_accuracy'")
echo "gossip vs disco: accuracy gap $gap"
awk -v g="$gap" 'BEGIN { exit !(g != "" && g + 0 <= 0.05) }' || { echo "FAIL: gossip is $gap from DISCO's accuracy (> 0.05)"; exit 1; }

# the straggler policies beat waiting on time to 0.87 accuracy
"$DLSIM" run "$SRC/scenarios/regression/gossip-stragglers.ini" -o "$tmp/st.db" -q -j 2 || exit 1
"$SRC/tools/time-to-accuracy" "$tmp/st.db" 0.87 > "$tmp/tta"
cat "$tmp/tta"
awk '{ split($2, kv, "="); t[kv[2]] = $3 }
     END { bad = 0
           for (p in t) if (p != "wait" && (t[p] == "never" || t["wait"] == "never" || t[p] + 0 >= t["wait"] + 0)) {
             print "FAIL: straggler_policy " p " reaches 0.87 at " t[p] ", wait at " t["wait"]; bad = 1 }
           exit bad }' "$tmp/tta" || exit 1
