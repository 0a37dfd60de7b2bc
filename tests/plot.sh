#!/bin/sh
# tests/plot.sh — dlsim plot from a small results database: every kind to
# PNG and SVG (file signatures), the generated script's series, error paths.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"

cat > "$tmp/sweep.ini" <<'INI'
[scenario]
name = small_sweep
seed = 3
repeat = 2
[protocol]
min_participants = 2
[training]
rounds = 3
[model]
kind = softmax
[data]
features = 6
classes = 3
samples = 600
separation = 3
[peers]
count = 3
[network]
uplink = ${5Mbps, 50Mbps}
[timeline]
round 2 = crash p3
INI
"$DLSIM" run "$tmp/sweep.ini" -o "$tmp/s.db" -q || { echo "FAIL: could not make the test database"; exit 1; }

png () {  # png FILE: the PNG signature
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
}
svg () {  # svg FILE: an XML file whose root element is svg, closed at the end
  [ -s "$1" ] && head -c 200 "$1" | grep -q '<?xml' && grep -q '<svg' "$1" && tail -c 20 "$1" | grep -q '</svg>'
}
for kind in convergence timeline rounds participants traffic; do
  run=""
  [ "$kind" = convergence ] || run="--run 2"
  for ext in png svg; do
    f="$tmp/$kind.$ext"
    if "$DLSIM" plot "$tmp/s.db" "$kind" $run -o "$f" > "$out" 2>&1 && $ext "$f"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL: $kind -> $ext"; sed 's/^/  | /' "$out" | head -10
    fi
  done
done
expect 0 "" -- "$DLSIM" plot "$tmp/s.db" convergence --x time -o "$tmp/ct.png"
png "$tmp/ct.png" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: convergence by time"; }
# the default output name
( cd "$tmp" && "$DLSIM" plot s.db rounds --run 1 > "$out" 2>&1 ) && png "$tmp/s-rounds.png" && pass=$((pass + 1)) \
  || { fail=$((fail + 1)); echo "FAIL: default output name"; cat "$out"; }

# the script for this database: one series per swept value, both panels
expect 0 'title "network.uplink = 5Mbps"' -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 'title "network.uplink = 50Mbps"' -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 "set ylabel 'test loss" -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 'mean over up to 2 seeds' -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 'title "scenario.name = small\\\\_sweep"' -- "$DLSIM" plot "$tmp/s.db" convergence --by scenario.name --script
expect 0 "title 'crash'" -- "$DLSIM" plot "$tmp/s.db" timeline --run 1 --script
expect 0 "title 'training'" -- "$DLSIM" plot "$tmp/s.db" timeline --run 1 --script
expect 0 "title 'Payload'" -- "$DLSIM" plot "$tmp/s.db" traffic --run 1 --script
expect 0 "title 'exchange (start to end)'" -- "$DLSIM" plot "$tmp/s.db" rounds --run 1 --script
expect 0 "set terminal svg" -- "$DLSIM" plot "$tmp/s.db" participants --run 1 -o x.svg --script
# no temporary files: the script goes through the pipe
ls "$tmp" | grep -qv -e '\.png$' -e '\.svg$' -e '\.db' -e '\.ini$' -e '^out$' && { fail=$((fail + 1)); echo "FAIL: stray files"; ls "$tmp"; } || pass=$((pass + 1))

# errors: each a clear message, exit 1
expect 1 "unknown plot kind 'pie'" -- "$DLSIM" plot "$tmp/s.db" pie
expect 1 "run 42 is not in" -- "$DLSIM" plot "$tmp/s.db" timeline --run 42
expect 1 "has 4 runs: choose one with --run" -- "$DLSIM" plot "$tmp/s.db" rounds
expect 1 "no such results database" -- "$DLSIM" plot "$tmp/none.db" convergence
expect 1 "must end in .png or .svg" -- "$DLSIM" plot "$tmp/s.db" convergence -o x.pdf
expect 1 "no run in .* has the parameter 'churn.nope'" -- "$DLSIM" plot "$tmp/s.db" convergence --by churn.nope
expect 1 "gnuplot not found" -- env DLSIM_GNUPLOT=/nonexistent/gnuplot "$DLSIM" plot "$tmp/s.db" convergence -o "$tmp/x.png"
cp "$tmp/s.db" "$tmp/empty.db"
sqlite3 "$tmp/empty.db" "DELETE FROM runs"
expect 1 "has no runs" -- "$DLSIM" plot "$tmp/empty.db" convergence
printf '[protocol]\nmin_participants = 2\n[training]\nrounds = 1\n' > "$tmp/none.ini"
"$DLSIM" run "$tmp/none.ini" -o "$tmp/none-model.db" -q
expect 1 "no accuracy metrics" -- "$DLSIM" plot "$tmp/none-model.db" convergence
expect 2 "expected a results database and a kind" -- "$DLSIM" plot "$tmp/s.db"

# scaling: families against a swept peer count, one line per family, six panels
cat > "$tmp/scale.ini" <<'INI'
[scenario]
seed = 2
[protocol]
family = ${disco, gossip}
min_participants = 3
[training]
rounds = 2
[model]
kind = softmax
[data]
features = 6
classes = 3
samples = 600
separation = 3
[peers]
count = ${3, 6, 30}
INI
"$DLSIM" run "$tmp/scale.ini" -o "$tmp/scale.db" -q -j 2
expect 0 "scale.png" -- "$DLSIM" plot "$tmp/scale.db" scaling -o "$tmp/scale.png"
png "$tmp/scale.png" && ok || ko "scaling: not a PNG"
"$DLSIM" plot "$tmp/scale.db" scaling --script -o "$tmp/x.png" > "$tmp/scale.gp"
[ "$(grep -c '^plot ' "$tmp/scale.gp")" = 6 ] && ok || ko "scaling: expected 6 panels"
grep -q 'title "disco"' "$tmp/scale.gp" && grep -q 'title "gossip"' "$tmp/scale.gp" && ok || ko "scaling: one line per family"
grep -q 'set logscale x' "$tmp/scale.gp" && ok || ko "scaling: peers 3..30 on a log axis"
# the gossip line's messages per round at 30 peers is below DISCO's (its whole point)
awk '/^\$line0 <</ { l = 0 } /^\$line1 <</ { l = 1 } /^30 / { m[l] = $2 } END { exit !(m[1] < m[0]) }' "$tmp/scale.gp" \
  && ok || ko "scaling: gossip's messages per round at 30 peers are not below DISCO's"
# a panel with no data (model none has no accuracy) is drawn empty, not an error
cat > "$tmp/scale-none.ini" <<'INI'
[protocol]
family = gossip
min_participants = 3
[training]
rounds = 2
[peers]
count = ${3, 6}
INI
"$DLSIM" run "$tmp/scale-none.ini" -o "$tmp/scale-none.db" -q
expect 0 "scale-none.png" -- "$DLSIM" plot "$tmp/scale-none.db" scaling -o "$tmp/scale-none.png"
png "$tmp/scale-none.png" && ok || ko "scaling with model none: not a PNG"
"$DLSIM" plot "$tmp/scale-none.db" scaling --script -o "$tmp/x.png" | grep -c 'no data in these runs' | grep -qx 2 && ok || ko "scaling with model none: two panels without data"
expect 1 "sweeps no numeric key" -- "$DLSIM" plot "$tmp/s.db" scaling --by network.uplink -o "$tmp/x.png"
expect 1 "is '5Mbps', not a number" -- "$DLSIM" plot "$tmp/s.db" scaling --x network.uplink -o "$tmp/x.png"
expect 1 "--target must be an accuracy" -- "$DLSIM" plot "$tmp/scale.db" scaling --target 3 -o "$tmp/x.png"

finish
