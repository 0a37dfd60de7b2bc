#!/bin/sh
# tests/hang.sh — runs that would never end, and whose simulated time
# hardly moves, end: durations that make a protocol spin are refused with
# their floor; a guest that asks for a deadline in the past again and
# again, or writes lines and never says `quiet`, ends the run in error
# naming the bound; and Ctrl-C (SIGINT, and SIGTERM) stops a run stuck below one
# simulated second within a second or two of wall time, exit status 130,
# with what it recorded kept.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
if ! command -v python3 >/dev/null; then
  echo "SKIP: no python3 (the test's guest is Python; apt install python3)"
  exit 77
fi

# the common part of the scenarios, FAMILY and extra [protocol] lines after
scn () {
  printf '[scenario]\nseed = 1\ntime_limit = 1h\n[protocol]\nfamily = %s\nmin_participants = 2\n' "$1"
  shift
  for l in "$@"; do printf '%s\n' "$l"; done
  printf '[training]\nrounds = 2\n[model]\nkind = softmax\n[data]\nfeatures = 8\nclasses = 2\nsamples = 200\n[peers]\ncount = 3\n'
}

# durations below the floor: refused before anything runs, naming the key
scn gossip "payload_timeout = 0s" > "$tmp/g0.ini"
scn gossip "payload_timeout = 1ns" > "$tmp/g1.ini"
scn hierarchical "election_timeout = 1ns" > "$tmp/h1.ini"
expect 2 "\[protocol\] payload_timeout: must be at least 1ms (it is 0s)" -- timeout -s KILL 20 "$DLSIM" run "$tmp/g0.ini" -o "$tmp/g0.db"
expect 2 "\[protocol\] payload_timeout: must be at least 1ms (it is 1ns)" -- timeout -s KILL 20 "$DLSIM" run "$tmp/g1.ini" -o "$tmp/g1.db"
expect 2 "\[protocol\] election_timeout: must be at least 1ms (it is 1ns)" -- timeout -s KILL 20 "$DLSIM" run "$tmp/h1.ini" -o "$tmp/h1.db"

# a guest (MODE: past, flood, tick or biground) whose peers, once started, ask for
# a deadline in the past, write notes forever, ask for one 1 ns on, or
# say they ended round 2^31 - 1
cat > "$tmp/guest.py" <<'EOF'
import sys
mode = sys.argv[1]
out = sys.stdout
for line in sys.stdin:
    w = line.split()
    if not w or w[0] == "bye":
        break
    if w[0] in ("start", "deadline") and w[1] != "S":
        t = int(w[2])
        if mode == "past":
            out.write("deadline %d\n" % (t + 10 if w[0] == "start" else t - 5))
        elif mode == "biground":
            out.write("round 2147483647\n")
        elif mode == "tick":
            out.write("note tick\ndeadline %d\n" % (t + 1))
        else:
            while True:
                out.write("note flooding\n")
    out.write("quiet\n")
    out.flush()
EOF
for m in past flood tick biground; do
  scn guest "guest_command = python3 $tmp/guest.py $m" "guest_timeout = 10s" > "$tmp/$m.ini"
  sed -i '/^\[model\]/,/^samples/d' "$tmp/$m.ini"
done
expect 1 "asked for a deadline at or before now 1000 times in a row .*(bound: 1000" -- timeout -s KILL 20 "$DLSIM" run "$tmp/past.ini" -o "$tmp/past.db"
expect 1 "with 100000 lines .* and no \`quiet\` (bounds: 100000 lines" -- timeout -s KILL 20 "$DLSIM" run "$tmp/flood.ini" -o "$tmp/flood.db"
# a round number far beyond any run's (the recorder keeps a row per round
# number up to the largest: 2^31 rows were 128 GiB)
expect 1 "round 2147483647\`: train N | round N \[K\], N a round number from 1 to 1000000" -- timeout -s KILL 20 "$DLSIM" run "$tmp/biground.ini" -o "$tmp/biground.db"
for m in past flood biground; do
  [ "$(sqlite3 "$tmp/$m.db" "SELECT outcome FROM runs")" = error ] && ok "$m: outcome error" || ko "$m: outcome not error"
done

# Ctrl-C (and SIGTERM) on a run that never reaches one simulated second:
# exit 130 within two seconds of wall time, the run recorded as
# interrupted, its events kept
for sig in INT TERM; do
  rm -f "$tmp/tick.db"
  "$DLSIM" run "$tmp/tick.ini" -o "$tmp/tick.db" >"$tmp/tick.out" 2>&1 &
  pid=$!
  sleep 3
  kill -$sig $pid
  t0=$(date +%s%N)
  # a watchdog of our own, so that the test ends if dlsim does not
  ( sleep 10; kill -KILL $pid 2>/dev/null ) &
  dog=$!
  wait $pid
  st=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  kill $dog 2>/dev/null
  [ "$st" -eq 130 ] && ok "SIG$sig: status 130" || ko "SIG$sig: status $st, wanted 130"
  [ "$ms" -lt 2000 ] && ok "SIG$sig: ended in $ms ms" || ko "SIG$sig: took $ms ms of wall time to end"
  [ "$(sqlite3 "$tmp/tick.db" "SELECT outcome FROM runs")" = interrupted ] && ok "recorded as interrupted" || ko "SIG$sig: outcome not interrupted"
  n=$(sqlite3 "$tmp/tick.db" "SELECT COUNT(*) FROM events WHERE detail = 'tick'")
  [ "${n:-0}" -gt 10 ] && ok "its events kept ($n ticks)" || ko "SIG$sig: events lost ($n ticks)"
  end=$(sqlite3 "$tmp/tick.db" "SELECT MAX(t_s) FROM events")
  awk -v e="$end" 'BEGIN { exit !(e < 1) }' && ok "stuck below 1 s (last event at $end s)" || ko "SIG$sig: the run reached $end s"
done
# --wall-limit: the same stuck run stops by itself after 1 s of wall time;
# check counts it as failed (exit 1, the limit named), with one worker and
# with two; run records it as interrupted and says so
{ cat "$tmp/tick.ini"; printf '[expect]\noutcome = completed\n'; } > "$tmp/tickx.ini"
for j in 1 2; do
  rm -f "$tmp/wl.db"
  t0=$(date +%s%N)
  expect 1 "^    the wall-clock limit of 1.000 s was reached at simulated time 0\." -- \
    timeout -s KILL 20 "$DLSIM" check "$tmp/tickx.ini" --wall-limit 1s -j $j -o "$tmp/wl.db"
  ms=$((($(date +%s%N) - t0) / 1000000))
  grep -q "^0 passed, 1 failed$" "$out" && ok "-j $j: counted as failed" || { ko "-j $j: not counted as failed"; cat "$out"; }
  [ "$ms" -lt 5000 ] && ok "-j $j: ended in $ms ms" || ko "-j $j: --wall-limit 1s took $ms ms"
done
rm -f "$tmp/wl.db"
expect 0 "tick.ini seed 1 (run 1): the wall-clock limit of 1.000 s was reached at .*; recorded as interrupted" -- \
  timeout -s KILL 20 "$DLSIM" run "$tmp/tick.ini" --wall-limit 1s -o "$tmp/wl.db"
[ "$(sqlite3 "$tmp/wl.db" "SELECT outcome FROM runs")" = interrupted ] && ok "run: recorded as interrupted" \
  || ko "run --wall-limit: outcome not interrupted"
expect 2 "--wall-limit 0s: at least 1us" -- "$DLSIM" check "$tmp/tickx.ini" --wall-limit 0s
finish
