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
# distinct_styles FILE: every plot command of a gnuplot script draws each
# line series (linespoints, yerrorlines) with a dash type and a point type
# of its own, so that lines with the same data drawn over each other stay
# visible; and at least one plot command has two series or more
distinct_styles () {
  awk '/^plot / { n = split($0, items, /, [$]/); split("", seen); c = 0
         for (i = 1; i <= n; i++) if (items[i] ~ /with (linespoints|yerrorlines)/) {
           if (!match(items[i], / dt [0-9]+/)) { bad = 1; continue }
           if (!match(items[i], / pt [0-9]+/)) { bad = 1; continue }
           pt = substr(items[i], RSTART, RLENGTH)
           if (pt in seen) bad = 1
           seen[pt] = 1; c++ }
         if (c > 1) several = 1 }
       END { exit bad || !several }' "$1"
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
expect 0 'set ylabel "test loss' -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 'mean over up to 2 seeds' -- "$DLSIM" plot "$tmp/s.db" convergence --script
expect 0 'title "scenario.name = small_sweep"' -- "$DLSIM" plot "$tmp/s.db" convergence --by scenario.name --script
expect 0 "title 'crash'" -- "$DLSIM" plot "$tmp/s.db" timeline --run 1 --script
expect 0 "title 'training'" -- "$DLSIM" plot "$tmp/s.db" timeline --run 1 --script
expect 0 'title "Payload"' -- "$DLSIM" plot "$tmp/s.db" traffic --run 1 --script
expect 0 "title 'exchange (start to end)'" -- "$DLSIM" plot "$tmp/s.db" rounds --run 1 --script
expect 0 "set terminal svg" -- "$DLSIM" plot "$tmp/s.db" participants --run 1 -o x.svg --script
# no temporary files: the script goes through the pipe
ls "$tmp" | grep -qv -e '\.png$' -e '\.svg$' -e '\.db' -e '\.ini$' -e '^out$' && { fail=$((fail + 1)); echo "FAIL: stray files"; ls "$tmp"; } || pass=$((pass + 1))

# every figure: its own style per series, times labelled as what they are
"$DLSIM" plot "$tmp/s.db" convergence --script > "$tmp/conv.gp"
distinct_styles "$tmp/conv.gp" && ok || ko "convergence: series share a dash or point type"
"$DLSIM" plot "$tmp/s.db" convergence --x time --script > "$tmp/conv-t.gp"
grep -q "^set xlabel \"simulated time (s)\"" "$tmp/conv-t.gp" && ok || ko "convergence by time: x label"
# the testbed's (and dlsim node's) times are wall-clock seconds, not simulated ones
cp "$tmp/s.db" "$tmp/tb.db"
sqlite3 "$tmp/tb.db" "UPDATE runs SET mode = 'testbed'"
"$DLSIM" plot "$tmp/tb.db" timeline --run 1 --script > "$tmp/tl-tb.gp"
grep -q "^set xlabel 'wall-clock time since the start of the run (s)'" "$tmp/tl-tb.gp" && ! grep -q "simulated" "$tmp/tl-tb.gp" \
  && ok || ko "testbed timeline: $(grep xlabel "$tmp/tl-tb.gp")"
"$DLSIM" plot "$tmp/tb.db" timeline --run 1 -o "$tmp/tl-tb.png" > "$out" 2>&1 && png "$tmp/tl-tb.png" && ok \
  || { ko "testbed timeline: no figure"; cat "$out"; }
"$DLSIM" plot "$tmp/s.db" timeline --run 1 --script | grep -q "^set xlabel 'simulated time (s)'" && ok \
  || ko "simulated timeline: x label"
"$DLSIM" plot "$tmp/tb.db" convergence --x time --script | grep -q "^set xlabel \"wall-clock time" && ok \
  || ko "testbed convergence by time: x label"
sqlite3 "$tmp/tb.db" "UPDATE runs SET mode = 'node'"
"$DLSIM" plot "$tmp/tb.db" participants --run 1 --script | grep -q "^set xlabel 'wall-clock time" && ok \
  || ko "node participants: x label"
"$DLSIM" plot "$tmp/tb.db" participants --run 1 -o "$tmp/pa-tb.png" > "$out" 2>&1 && png "$tmp/pa-tb.png" && ok \
  || { ko "node participants: no figure"; cat "$out"; }

# one "accuracy at time t" (plot-mean.c): the peers there or finished at t,
# each one's latest value; at the end of a run it is the summary's
# final_accuracy, crashed peers (p3 here) left out
last_acc () {  # last_acc SCRIPT: the accuracy curve's last mean
  awk '/^[$]accuracy0 <</ { on = 1; next } on && /^EOD/ { print v; exit } on { v = $2 }' "$1"
}
near () { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a - b < 1e-5 && b - a < 1e-5) }'; }
"$DLSIM" plot "$tmp/s.db" convergence --x time --by scenario.name --script > "$tmp/conv-end.gp"
sum=$(sqlite3 "$tmp/s.db" "SELECT AVG(value) FROM summary WHERE key = 'final_accuracy'")
near "$(last_acc "$tmp/conv-end.gp")" "$sum" && ok || ko "convergence by time ends at $(last_acc "$tmp/conv-end.gp"), final_accuracy $sum"
grep -q '^set ylabel "test accuracy (fraction correct)\\nmean of the latest values of the peers there or finished"' \
  "$tmp/conv-end.gp" && ok || ko "convergence by time: the y label does not say which peers"
# every session left before the end: final_accuracy is the mean of each
# one's last value (not empty), and the figure ends there too
printf 'peer,join,leave\np1,0,6\np2,0,9\np3,1,12\np4,2,4\n' > "$tmp/left.csv"
cat > "$tmp/left.ini" <<'INI'
[scenario]
name = all_left
seed = 3
time_limit = 1h
[protocol]
family = gossip
min_participants = 2
[training]
rounds = 1000
[model]
kind = softmax
learning_rate = 0.002
[data]
features = 6
classes = 3
samples = 600
separation = 1
partition = dirichlet(0.3)
[compute]
sample_cost = 10ms
[peers]
count = 0
[churn]
trace = left.csv
INI
"$DLSIM" run "$tmp/left.ini" -o "$tmp/left.db" -q
fa=$(sqlite3 "$tmp/left.db" "SELECT value FROM summary WHERE key = 'final_accuracy'")
each=$(sqlite3 "$tmp/left.db" "SELECT AVG(accuracy) FROM peers WHERE left_s IS NOT NULL")
near "$fa" "$each" && ok || ko "all sessions left: final_accuracy '$fa', the mean of their last values $each"
"$DLSIM" plot "$tmp/left.db" convergence --x time --script > "$tmp/left.gp"
near "$(last_acc "$tmp/left.gp")" "$fa" && ok || ko "all sessions left: the figure ends at $(last_acc "$tmp/left.gp"), final_accuracy '$fa'"
# two sessions of four leave, two finish: the figure ends at the mean of
# the two that finished, as the summary, not of all four
printf 'peer,join,leave\np1,0,\np2,0,\np3,1,5\np4,2,6\n' > "$tmp/some.csv"
sed -e 's/left.csv/some.csv/' -e 's/^rounds = 1000/rounds = 12/' "$tmp/left.ini" > "$tmp/some.ini"
"$DLSIM" run "$tmp/some.ini" -o "$tmp/some.db" -q
fa=$(sqlite3 "$tmp/some.db" "SELECT value FROM summary WHERE key = 'final_accuracy'")
each=$(sqlite3 "$tmp/some.db" "SELECT AVG(accuracy) FROM peers WHERE outcome = 'finished'")
"$DLSIM" plot "$tmp/some.db" convergence --x time --script > "$tmp/some.gp"
near "$fa" "$each" && near "$(last_acc "$tmp/some.gp")" "$fa" && ok \
  || ko "two sessions left: the figure ends at $(last_acc "$tmp/some.gp"), final_accuracy '$fa', the finished peers' $each"

# a comparison of several scenarios is titled by their number, not the first one's name
cp "$tmp/s.db" "$tmp/two.db"
sqlite3 "$tmp/two.db" "UPDATE runs SET scenario = 'other' WHERE run_id = 2"
expect 0 'set multiplot layout 2,1 title "2 scenarios: ' -- "$DLSIM" plot "$tmp/two.db" convergence --script
# one seed: no confidence band or interval is claimed
sqlite3 "$tmp/two.db" "DELETE FROM runs WHERE run_id > 1"
"$DLSIM" plot "$tmp/two.db" convergence --script > "$tmp/one.gp"
grep -q '^set multiplot .*(1 seed, no confidence band)' "$tmp/one.gp" && ! grep -q '95% confidence band' "$tmp/one.gp" \
  && ok || ko "convergence of one seed: $(grep '^set multiplot' "$tmp/one.gp")"
# a day on the time axis reads in hours, not in seconds up to 90 000
"$DLSIM" run "${DLSIM_SRCDIR:-.}/scenarios/examples/availability.ini" -o "$tmp/day.db" -q
"$DLSIM" plot "$tmp/day.db" convergence --x time --script > "$tmp/day.gp"
grep -q '^set xlabel "simulated time (h)"' "$tmp/day.gp" && awk '/^[$]accuracy0 <</ { on = 1; next } on && /^EOD/ { exit !(x == 24) } on { x = $1 }' "$tmp/day.gp" \
  && ok || ko "convergence over a day: $(grep xlabel "$tmp/day.gp"), ends at x $(awk '/^[$]accuracy0 <</ { on = 1; next } on && /^EOD/ { print x; exit } on { x = $1 }' "$tmp/day.gp")"
"$DLSIM" plot "$tmp/day.db" timeline --script | grep -q "^set xlabel 'simulated time (h)'" && ok || ko "timeline over a day: not in hours"
"$DLSIM" plot "$tmp/day.db" participants --script | grep -q "^set xlabel 'simulated time (h)'" && ok || ko "participants over a day: not in hours"
# traffic: a closing message tagged with the round after the last (FedAvg's FedDone) is in the last round, the axis ends there
sed -e 's/^min_participants = 2/family = fedavg\nmin_participants = 2/' -e '/^uplink/d' -e '/^\[network\]/d' -e '/^\[timeline\]/,$d' \
  -e 's/^repeat = 2/repeat = 1/' "$tmp/sweep.ini" > "$tmp/fed.ini"
"$DLSIM" run "$tmp/fed.ini" -o "$tmp/fed.db" -q
"$DLSIM" plot "$tmp/fed.db" traffic --script > "$tmp/fed.gp"
grep -q '^set xrange \[0.5:3.5\]' "$tmp/fed.gp" && ! grep -q '^4 ' "$tmp/fed.gp" && ok \
  || ko "traffic of 3 rounds: $(grep xrange "$tmp/fed.gp"), rows of round 4: $(grep -c '^4 ' "$tmp/fed.gp")"
# traffic: a round without a type's messages breaks its line on the log axis
cp "$tmp/fed.db" "$tmp/gap.db"
sqlite3 "$tmp/gap.db" "INSERT INTO traffic VALUES (1, 'Gappy', 2, 200);
  INSERT INTO event_rows (run_id, seq, t_s, node, kind, round, msg) VALUES (1, 900001, 0.1, 'p1', 'sent', 1, 'Gappy'), (1, 900002, 0.9, 'p1', 'sent', 3, 'Gappy')"
"$DLSIM" plot "$tmp/gap.db" traffic --run 1 --script > "$tmp/gap.gp"
t=$(grep -o '[$]t[0-9]* using 1:2 [^,]* title .Gappy.' "$tmp/gap.gp" | cut -d' ' -f1)
[ -n "$t" ] && [ "$(sed -n "/^[$]${t#$} <</,/^EOD/p" "$tmp/gap.gp" | tr '\n' '|')" = "\$${t#$} << EOD|1 1 100||3 1 100|EOD|" ] \
  && ok || ko "traffic: the line of a type absent from round 2 is not broken: $(sed -n "/^[$]${t#$} <</,/^EOD/p" "$tmp/gap.gp" | tr '\n' '|')"
# traffic of a run with no sent message events (its traffic table counts
# messages): an empty figure that says so; gnuplot failed on the log
# scale of no points ("all points y value undefined")
cp "$tmp/fed.db" "$tmp/nosent.db"
sqlite3 "$tmp/nosent.db" "DELETE FROM event_chunks; DELETE FROM event_rows"
if "$DLSIM" plot "$tmp/nosent.db" traffic --run 1 -o "$tmp/nosent.png" > "$out" 2>&1 && png "$tmp/nosent.png" \
  && "$DLSIM" plot "$tmp/nosent.db" traffic --run 1 --script | grep -q "label 1 'no sent message events recorded"; then
  ok
else
  ko "traffic with no sent events: $(tr "\n" " " < "$out" | head -c 300)"
fi
# timeline: one join mark a peer, though the testbed records two (process started, then connected)
cp "$tmp/s.db" "$tmp/join.db"
sqlite3 "$tmp/join.db" "INSERT INTO event_rows (run_id, seq, t_s, node, kind, state, detail)
  SELECT 1, seq + 0.5, t_s + 0.01, node, 'join', 'world', '127.0.0.1:1' FROM events WHERE run_id = 1 AND kind = 'join'"
"$DLSIM" plot "$tmp/join.db" timeline --run 1 --script > "$tmp/join.gp"
n=$(sed -n '/^[$]mark0 <</,/^EOD/p' "$tmp/join.gp" | grep -c '^[0-9]')
[ "$n" = 3 ] && ok || ko "timeline: $n join marks for 3 peers"
# participants: the peers online count each once
most=$("$DLSIM" plot "$tmp/join.db" participants --run 1 --script | sed -n '/^[$]online <</,/^EOD/p' | awk '/^[0-9]/ && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }')
[ "$most" = 3 ] && ok || ko "participants: $most peers online of 3"

# errors: each a clear message, exit 1
expect 1 "unknown plot kind 'pie'" -- "$DLSIM" plot "$tmp/s.db" pie
expect 1 "run 42 is not in" -- "$DLSIM" plot "$tmp/s.db" timeline --run 42
expect 1 "has 4 runs: choose one with --run" -- "$DLSIM" plot "$tmp/s.db" rounds
expect 1 "no such results database" -- "$DLSIM" plot "$tmp/none.db" convergence
expect 1 "must end in .png or .svg" -- "$DLSIM" plot "$tmp/s.db" convergence -o x.pdf
expect 1 "no run in .* has the parameter 'churn.nope'" -- "$DLSIM" plot "$tmp/s.db" convergence --by churn.nope
expect 1 "gnuplot not found" -- env DLSIM_GNUPLOT=/nonexistent/gnuplot "$DLSIM" plot "$tmp/s.db" convergence -o "$tmp/x.png"
[ -e "$tmp/x.png" ] && ko "a failed plot left an empty x.png" || ok "no file from a failed plot"
# an output that cannot be written: a clear error, and no figure bytes on
# stdout (gnuplot keeps its terminal's output when `set output` fails)
"$DLSIM" plot "$tmp/s.db" convergence -o "$tmp/nodir/x.png" > "$tmp/po.out" 2> "$tmp/po.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "nodir/x.png: cannot write the figure: No such file or directory" "$tmp/po.err" \
  && ok "unwritable output named" || { ko "plot -o into a missing folder: exit $rc"; head -c 300 "$tmp/po.err"; }
[ -s "$tmp/po.out" ] && ko "plot -o into a missing folder wrote $(wc -c < "$tmp/po.out") bytes to stdout" || ok "nothing on stdout"
cp "$tmp/s.db" "$tmp/empty.db"
sqlite3 "$tmp/empty.db" "DELETE FROM runs"
expect 1 "has no runs" -- "$DLSIM" plot "$tmp/empty.db" convergence
# a run without a scenario name (runs.scenario NULL) is drawn, as report shows it: ?
cp "$tmp/s.db" "$tmp/noname.db"
sqlite3 "$tmp/noname.db" "UPDATE runs SET scenario = NULL"
expect 0 "" -- "$DLSIM" plot "$tmp/noname.db" timeline --run 1 -o "$tmp/noname.png"
png "$tmp/noname.png" && ok || ko "timeline of a run without a scenario name: not a PNG"
expect 0 'set title "? \[network.uplink=5Mbps\], run 1 ' -- "$DLSIM" plot "$tmp/noname.db" timeline --run 1 --script
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
distinct_styles "$tmp/scale.gp" && ok || ko "scaling: series share a dash or point type"
grep -q '^set xlabel "peers.count (count)"' "$tmp/scale.gp" && grep -q '^set ylabel "bytes"' "$tmp/scale.gp" \
  && grep -q '^set ylabel "s"' "$tmp/scale.gp" && ok || ko "scaling: axis labels with units"
[ "$(grep -c '^plot .*with yerrorlines' "$tmp/scale.gp")" = 6 ] && [ "$(grep -c '^set title .*1 seed a point' "$tmp/scale.gp")" = 6 ] \
  && ok || ko "scaling: error bars and the seeds behind each point (1) in every panel"
grep -q '^set multiplot layout 3,2 title ".*(1 seed a point, no interval)' "$tmp/scale.gp" && ! grep -q '95 % confidence' "$tmp/scale.gp" \
  && ok || ko "scaling of one seed claims an interval: $(grep '^set multiplot' "$tmp/scale.gp")"
# three seeds: the bars span the seeds' 95 % interval, each panel says 3
"$DLSIM" run "$tmp/scale.ini" --set scenario.repeat=3 -o "$tmp/scale3.db" -q -j 2
"$DLSIM" plot "$tmp/scale3.db" scaling --script -o "$tmp/x.png" > "$tmp/scale3.gp"
grep -q '^set title "bytes on the wire, 3 seeds a point"' "$tmp/scale3.gp" && ok || ko "scaling: 3 seeds a point"
grep -q '^set multiplot .*(mean over seeds, bars: 95 % confidence interval)' "$tmp/scale3.gp" && ok || ko "scaling of 3 seeds: no interval in the title"
# bytes (column 3) lies within its bar (11, 17), which is not empty at 30 peers; 3 seeds behind it (23)
awk '/^30 / && $3 >= $11 && $3 <= $17 && $17 > $11 && $23 == 3 { ok = 1 } END { exit !ok }' "$tmp/scale3.gp" \
  && ok || ko "scaling: a bar around the mean of 3 seeds"
# the gossip line's messages per round at 30 peers is below DISCO's (its whole point)
awk '/^\$line0 <</ { l = 0 } /^\$line1 <</ { l = 1 } /^30 / { m[l] = $2 } END { exit !(m[1] < m[0]) }' "$tmp/scale.gp" \
  && ok || ko "scaling: gossip's messages per round at 30 peers are not below DISCO's"
# Ctrl-C, then the same command again: the interrupted run's row stays,
# before the finished run of the same point and seed.  The figures over
# many runs leave it out (every panel full, as without it) and say so
int_db () {  # int_db FROM TO: FROM with an interrupted first try of its run 3
  cp "$1" "$2"
  for t in runs params peers rounds metrics traffic summary expectations violations event_chunks event_rows node_records; do
    sqlite3 "$2" "UPDATE $t SET run_id = run_id + 100"
  done
  sqlite3 "$2" "INSERT INTO runs (run_id, scenario, point, point_label, seed, dlsim_version, protocol_version, started_at, file, mode, outcome)
                SELECT 1, scenario, point, point_label, seed, dlsim_version, protocol_version, started_at, file, mode, 'interrupted'
                FROM runs WHERE run_id = 103;
                INSERT INTO params SELECT 1, key, value FROM params WHERE run_id = 103"
}
data_of () { sed '/^set terminal/q' "$1" | grep -v '^set terminal'; }
int_db "$tmp/scale.db" "$tmp/scale-int.db"
for fig in "scaling" "summary --y messages,bytes --x peers.count --by protocol.family" "convergence"; do
  "$DLSIM" plot "$tmp/scale.db" $fig --script -o "$tmp/x.png" > "$tmp/fin.gp"
  "$DLSIM" plot "$tmp/scale-int.db" $fig --script -o "$tmp/x.png" > "$tmp/int.gp"
  [ -s "$tmp/fin.gp" ] && [ "$(data_of "$tmp/fin.gp")" = "$(data_of "$tmp/int.gp")" ] && ok \
    || ko "$fig: an interrupted row changes the data: $(diff "$tmp/fin.gp" "$tmp/int.gp" | head -5)"
  grep -q 'title ".*1 unfinished run left out' "$tmp/int.gp" && ok || ko "$fig: the title does not say the interrupted run is left out"
done
# a panel title counts the points it draws
sqlite3 "$tmp/scale-int.db" "DELETE FROM summary WHERE run_id = 103 AND key = 'bytes'"
"$DLSIM" plot "$tmp/scale-int.db" scaling --script -o "$tmp/x.png" > "$tmp/int.gp"
grep -q '^set title "bytes on the wire, 1 seed a point, 5 of 6 points"' "$tmp/int.gp" && ok \
  || ko "scaling: a point without a value is not counted in the title: $(grep '^set title "bytes' "$tmp/int.gp")"
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
# a rate on x (churn.arrival_rate = 2/min) reads as per second
cat > "$tmp/scale-churn.ini" <<'INI'
[protocol]
family = ${disco, gossip}
min_participants = 3
[training]
rounds = 2
[peers]
count = 3
[churn]
arrival_rate = ${0/s, 6/min}
max_peers = 5
INI
"$DLSIM" run "$tmp/scale-churn.ini" -o "$tmp/scale-churn.db" -q
expect 0 "scale-churn.png" -- "$DLSIM" plot "$tmp/scale-churn.db" scaling --x churn.arrival_rate --by protocol.family -o "$tmp/scale-churn.png"
"$DLSIM" plot "$tmp/scale-churn.db" scaling --x churn.arrival_rate --by protocol.family --script -o "$tmp/x.png" > "$tmp/churn.gp"
grep -Eq '^0\.10*1? ' "$tmp/churn.gp" && ok || ko "scaling: 6/min on x is not 0.1 per second"
expect 1 "sweeps no numeric key" -- "$DLSIM" plot "$tmp/s.db" scaling --by network.uplink -o "$tmp/x.png"
expect 1 "is '5Mbps', not a number" -- "$DLSIM" plot "$tmp/s.db" scaling --x network.uplink -o "$tmp/x.png"
expect 1 "--target must be an accuracy" -- "$DLSIM" plot "$tmp/scale.db" scaling --target 3 -o "$tmp/x.png"

# summary: any summary keys against a swept parameter (a pipeline sweep;
# durations on x read as seconds), a line per --by value, --where filters
cat > "$tmp/pipe.ini" <<'INI'
[scenario]
name = pipe_sweep
[protocol]
family = pipeline
blocks = 8
servers = ${2, 4}
steps = 6
forwarding = ${client, next-peer}
[network]
regions = c:1, dc:10
latency = ${20ms, 60ms}
local_latency = 1ms
uplink = 1Gbps
INI
"$DLSIM" run "$tmp/pipe.ini" -o "$tmp/pipe.db" -q || ko "summary: could not make the pipeline database"
expect 0 "sum.png" -- "$DLSIM" plot "$tmp/pipe.db" summary --y metric.step_latency_s.median,metric.client_egress_bytes.mean \
  --x protocol.servers --by protocol.forwarding --where network.latency=60ms -o "$tmp/sum.png"
png "$tmp/sum.png" && ok || ko "summary: not a PNG"
"$DLSIM" plot "$tmp/pipe.db" summary --y metric.step_latency_s.median,metric.client_egress_bytes.mean --x protocol.servers \
  --by protocol.forwarding --where network.latency=60ms --script -o "$tmp/x.png" > "$tmp/sum.gp"
[ "$(grep -c '^plot ' "$tmp/sum.gp")" = 2 ] && ok || ko "summary: expected 2 panels"
grep -q 'title "client"' "$tmp/sum.gp" && grep -q 'title "next-peer"' "$tmp/sum.gp" && ok || ko "summary: one line per forwarding"
distinct_styles "$tmp/sum.gp" && ok || ko "summary: series share a dash or point type"
grep -q '^set xlabel "protocol.servers (count)"' "$tmp/sum.gp" \
  && grep -q '^set ylabel "metric.step_latency_s.median (s)"' "$tmp/sum.gp" \
  && grep -q '^set ylabel "metric.client_egress_bytes.mean (bytes)"' "$tmp/sum.gp" && ok \
  || ko "summary: axis labels with units: $(grep label "$tmp/sum.gp")"
[ "$(grep -c '^plot .*with yerrorlines' "$tmp/sum.gp")" = 2 ] && grep -q '^set title ".*(1 seed a point)"' "$tmp/sum.gp" \
  && ok || ko "summary: error bars and the seeds behind each point"
# the data: at 4 servers next-peer's median step is below client relay's
awk '/^\$line0/ { l = 0 } /^\$line1/ { l = 1 } /^4 / { v[l] = $2 } END { exit !(v[1] + 0 > 0 && v[1] + 0 < v[0] + 0) }' "$tmp/sum.gp" \
  && ok || ko "summary: next-peer's step at 4 servers is not below client relay's"
"$DLSIM" plot "$tmp/pipe.db" summary --y metric.step_latency_s.median --x network.latency \
  --by protocol.forwarding,protocol.servers --script -o "$tmp/x.png" > "$tmp/sum2.gp"
grep -q '^0.06 ' "$tmp/sum2.gp" && grep -q 'title "next-peer, 4"' "$tmp/sum2.gp" && ok \
  || ko "summary: a duration on x (60ms as 0.06) and a line per combination of --by keys"
grep -q '^set xlabel "network.latency (s)"' "$tmp/sum2.gp" && ok || ko "summary: a duration's axis in s"
distinct_styles "$tmp/sum2.gp" && ok || ko "summary: four series share a dash or point type"
# runs of one point with other seeds: their count at each point, when it differs
"$DLSIM" run "$tmp/pipe.ini" --set scenario.repeat=2 -o "$tmp/pipe2.db" -q
sqlite3 "$tmp/pipe2.db" "DELETE FROM runs WHERE run_id = (SELECT MAX(run_id) FROM runs)"
"$DLSIM" plot "$tmp/pipe2.db" summary --y metric.step_latency_s.median --x protocol.servers --by protocol.forwarding \
  --where network.latency=60ms --script -o "$tmp/x.png" > "$tmp/sum3.gp"
grep -q '^set title ".*(1 to 2 seeds a point: n at each)"' "$tmp/sum3.gp" && grep -q "with labels" "$tmp/sum3.gp" \
  && ok || ko "summary: 1 to 2 seeds, n at each point: $(grep '^set title' "$tmp/sum3.gp")"
# a key no run has a number for: an error naming it and the keys there are, no figure
rm -f "$tmp/nokey.png"
expect 1 "--y no_such_key: no such summary key in .*pipe.db; the keys with numbers: .*bytes, .*sim_time_s" -- \
  "$DLSIM" plot "$tmp/pipe.db" summary --y sim_time_s,no_such_key -o "$tmp/nokey.png"
[ -e "$tmp/nokey.png" ] && ko "summary --y no_such_key drew $tmp/nokey.png" || ok
expect 1 "--y outcome: no finished run of .* has a number for it" -- "$DLSIM" plot "$tmp/pipe.db" summary --y outcome -o "$tmp/x.png"
expect 1 "summary needs --y" -- "$DLSIM" plot "$tmp/pipe.db" summary -o "$tmp/x.png"
expect 1 "--where takes KEY=VALUE" -- "$DLSIM" plot "$tmp/pipe.db" summary --y outcome --where latency -o "$tmp/x.png"
expect 1 "no run of .* has network.latency=5ms" -- "$DLSIM" plot "$tmp/pipe.db" summary --y sim_time_s --where network.latency=5ms -o "$tmp/x.png"
expect 1 "--y takes 1 to 6 summary keys" -- "$DLSIM" plot "$tmp/pipe.db" summary --y a,b,c,d,e,f,g -o "$tmp/x.png"
expect 1 "not a number, a duration or a rate" -- "$DLSIM" plot "$tmp/pipe.db" summary --y sim_time_s --x protocol.forwarding -o "$tmp/x.png"

finish
