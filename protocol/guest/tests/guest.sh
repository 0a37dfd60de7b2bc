#!/bin/sh
# protocol/guest/tests/guest.sh — `[protocol] family = guest` as a user runs it, with the
# project's own guest (guests/pushpull/pushpull.py, docs/guest.md): run and
# check; the same tables twice; what push-pull averaging must do (the sum of
# the values kept, their spread shrunk); explore finding and shrinking a bug
# that only a fault reaches; shrink reading a recorded run back; and bad
# guests (one that exits, one that hangs, one that writes garbage) ending
# the run with an error that names the guest's line, with what was recorded
# kept.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
pp=$src/protocol/guest/scenarios/pushpull.ini
if ! command -v python3 >/dev/null; then
  echo "SKIP: no python3 (the project's guest is Python; apt install python3)"
  exit 77
fi

expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$pp"
expect 0 "1 run into" -- "$DLSIM" run "$pp" -o "$tmp/a.db"
expect 0 "1 run into" -- "$DLSIM" run "$pp" -o "$tmp/b.db"
[ "$(rowdump "$tmp/a.db")" = "$(rowdump "$tmp/b.db")" ] && ok "same tables twice" || ko "two runs of the guest differ"

# push-pull averaging: every exchange moves a value by d and its partner's
# by -d, so the sum stays (to the ppm rounding of 8 values); the spread
# shrinks (Jelasity et al. 2005: by a constant factor a cycle)
sums=$(sqlite3 "$tmp/a.db" "SELECT MAX(s) - MIN(s) FROM (SELECT SUM(value) s FROM metrics WHERE name = 'value_ppm' GROUP BY round)")
[ "${sums%.*}" -le 8 ] && ok "sum kept" || ko "the sum of the values moved by $sums ppm"
# the variance across peers after cycle R, in ppm^2
var () { sqlite3 "$tmp/a.db" "SELECT CAST(AVG(value * value) - AVG(value) * AVG(value) AS INTEGER) FROM metrics WHERE name = 'value_ppm' AND round = $1"; }
v1=$(var 1) v10=$(var 10)
[ "$v10" -lt $((v1 / 1000)) ] && ok "variance shrinks" || ko "variance after cycle 10 ($v10) not under 1/1000 of cycle 1's ($v1)"
# the network charges what a guest says a message costs: 1 MB a Push and a
# Pull (their text is a few bytes)
expect 0 "1 run into" -- "$DLSIM" run "$pp" --set "protocol.guest_command=python3 ../../../guests/pushpull/pushpull.py --value-bytes 1000000" -o "$tmp/big.db"
npp=$(sqlite3 "$tmp/big.db" "SELECT COUNT(*) FROM events WHERE kind = 'sent' AND (detail = 'Push' OR detail = 'Pull')")
gb=$(sqlite3 "$tmp/big.db" "SELECT bytes FROM traffic WHERE type = 'Guest'")
[ "$npp" -gt 0 ] && [ "$gb" -ge $((npp * 1000000)) ] && [ "$gb" -lt $((npp * 1000000 + 100000)) ] && ok "said size charged" \
  || ko "Guest traffic $gb bytes for $npp Pushes and Pulls of 1 MB"
n=$(sqlite3 "$tmp/a.db" "SELECT COUNT(*) FROM events WHERE detail LIKE '%Push%'")
[ "$n" -gt 0 ] && ok "messages named by the guest's type" || ko "no event names the guest's Push"

# a bug only a fault reaches: explore finds it, shrinks it, and it reproduces
cat > "$tmp/bug.ini" <<EOF
[scenario]
seed = 1
[protocol]
family = guest
guest_command = python3 $src/guests/pushpull/pushpull.py --raise-on-link-failed
min_participants = 4
[training]
rounds = 3
[peers]
count = 4
EOF
expect 0 "0 failing" -- "$DLSIM" explore "$tmp/bug.ini" --runs 10 --faults crash,slow,jitter --no-shrink
expect 0 "reproduces" -- "$DLSIM" explore "$tmp/bug.ini" --runs 20 --faults link-fail --found "$tmp/found"
grep -q "^guest-error " "$out" && ok "guest-error found" || ko "no guest-error signature"
grep -q "DOES NOT reproduce" "$out" && ko "the shrunk file does not reproduce" || ok "reproduces"
[ "$(sed -n '/^\[timeline\]/,/^\[/p' "$tmp/found"/*.ini | grep -c ' = ')" -eq 1 ] && ok "shrunk to one action" \
  || ko "the found file has more than one timeline action"
expect 1 "its line .*link-failed p" -- "$DLSIM" run "$tmp/found"/*.ini -o "$tmp/found.db"
# the same bug with the shipped file's relative guest_command, found into
# another folder: the found file says where its relative paths are taken
# from ([scenario] dir, relative) and reproduces; without dir it cannot start
expect 0 "reproduces" -- "$DLSIM" explore "$pp" --runs 20 --faults link-fail --found "$tmp/found-rel" \
  --set "protocol.guest_command=python3 ../../../guests/pushpull/pushpull.py --raise-on-link-failed"
grep -q "DOES NOT reproduce" "$out" && ko "the found file with a relative command does not reproduce" || ok "relative: reproduces"
f=$(ls "$tmp/found-rel"/*.ini | head -1)
want=$(python3 -c "import os,sys; print(os.path.relpath(os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])))" "$src/protocol/guest/scenarios" "$tmp/found-rel")
[ "$(sed -n 's/^dir = //p' "$f")" = "$want" ] && ok "[scenario] dir = $want" || ko "dir in $f: '$(sed -n 's/^dir = //p' "$f")', wanted '$want'"
sed '/^dir = /d' "$f" > "$tmp/found-rel/nodir.ini"
expect 1 "does not start\|can't open\|No such file" -- "$DLSIM" run "$tmp/found-rel/nodir.ini" -o "$tmp/nodir.db"
# -o DB and shrink: the recorded failing run read back and shrunk
expect 0 "failing runs recorded in" -- "$DLSIM" explore "$tmp/bug.ini" --runs 20 --faults link-fail --no-shrink -o "$tmp/search.db"
id=$(sqlite3 "$tmp/search.db" "SELECT MIN(run_id) FROM runs")
expect 0 "guest-error" -- "$DLSIM" shrink "$tmp/search.db" --run "$id" -o "$tmp/shrunk.ini"

# bad guests: the run ends with an error naming the guest's line; the
# events recorded before it stay, and the run's outcome is error
# (the hang's limit, 4 s, is short but above what a healthy answer takes
# under a loaded make -j2 check: at 1 s the check failed there, the run
# ending on an earlier, slow line with fewer events)
for bad in crash hang garbage; do
  sed -e "s|^guest_command = .*|guest_command = python3 $src/guests/pushpull/pushpull.py --$bad-at 12|" "$pp" > "$tmp/$bad.ini"
done
sed -i "s|^min_participants = 8|min_participants = 8\nguest_timeout = 4s|" "$tmp/hang.ini"
expect 1 "exited with status 3 after its line" -- "$DLSIM" run "$tmp/crash.ini" -o "$tmp/crash.db"
expect 1 "said nothing for 4000 ms .*guest_timeout" -- "$DLSIM" run "$tmp/hang.ini" -o "$tmp/hang.db"
expect 1 "its line 28 (for p5, after \`start p5 0\`): \`hello world\`: unknown action" -- "$DLSIM" run "$tmp/garbage.ini" -o "$tmp/garbage.db"
for bad in crash hang garbage; do
  [ "$(sqlite3 "$tmp/$bad.db" "SELECT outcome FROM runs")" = error ] && ok "$bad: outcome error" || ko "$bad: outcome not error"
  [ "$(sqlite3 "$tmp/$bad.db" "SELECT COUNT(*) FROM events")" -gt 5 ] && ok "$bad: events kept" || ko "$bad: events lost"
done
# one that exits before it reads a line: the same words whether dlsim's
# write or its read meets the closed socket first
for i in 1 2 3; do
  expect 1 "exited with status 4 after its line 0 (after dlsim's line \`hello 1 " -- "$DLSIM" run "$pp" --set 'protocol.guest_command=python3 -c "import sys; sys.exit(4)"' -o "$tmp/ex$i.db"
done
expect 1 "does not start" -- "$DLSIM" run "$pp" --set "protocol.guest_command=./no-such-guest" -o "$tmp/none.db"
expect 2 "guest_command: a guest needs its command line" -- "$DLSIM" run "$pp" --set "protocol.guest_command=" -o "$tmp/empty.db"
expect 2 "guest_timeout: must be 1ms to 1h" -- "$DLSIM" run "$pp" --set protocol.guest_timeout=2h -o "$tmp/t.db"
expect 2 "guest_command: applies to family = guest only" -- "$DLSIM" run "$pp" --set protocol.family=disco -o "$tmp/d.db"
expect 1 "family = guest: a guest's messages are not carried over the testbed's sockets yet" -- "$DLSIM" testbed "$pp" -o "$tmp/tb.db"
# a timeline drop rule names a guest's messages Guest: p2's Hello lost, the
# coordinator never has its 8 and the run stalls
{ sed '/^\[expect\]/,$d' "$pp" | sed "s|^guest_command = .*|guest_command = python3 $src/guests/pushpull/pushpull.py|"
  printf '[timeline]\n0s = drop Guest from p2 count 1\n'; } > "$tmp/drop.ini"
expect 0 "1 stalled" -- "$DLSIM" run "$tmp/drop.ini" -o "$tmp/drop.db"
[ "$(sqlite3 "$tmp/drop.db" "SELECT COUNT(*) FROM events WHERE kind = 'drop'")" = 1 ] && ok "one Guest dropped" || ko "the drop rule did not drop one Guest"
# ... and a kind of them by the guest's TYPE word: Guest:Push drops only
# Pushes (the first two to p3), Guest:Nope none; the timeline says which
{ sed '/^\[expect\]/,$d' "$pp" | sed "s|^guest_command = .*|guest_command = python3 $src/guests/pushpull/pushpull.py|"
  printf '[timeline]\n0s = drop Guest:Push to p3 count 2\n1ms = drop Guest:Nope from p2\n'; } > "$tmp/kind.ini"
expect 0 "1 completed" -- "$DLSIM" run "$tmp/kind.ini" -o "$tmp/kind.db"
drops=$(sqlite3 "$tmp/kind.db" "SELECT group_concat(detail, ',') FROM events WHERE kind = 'drop'")
[ "$drops" = "Guest:Push,Guest:Push" ] && ok "Guest:Push dropped twice, nothing else" || ko "kind drops: '$drops'"
expect 2 "drop TYPE to|from pN" -- "$DLSIM" run "$tmp/kind.ini" --set "timeline.1s=drop Payload:Push to p1" -o "$tmp/k2.db"
expect 2 "drop TYPE to|from pN" -- "$DLSIM" run "$tmp/kind.ini" --set "timeline.1s=drop Guest:Pu\$h to p1" -o "$tmp/k3.db"
# explore aims its drops and delays at the kinds --messages names
expect 0 "drop rules that never fired: Guest:[A-Za-z]*\(, Guest:[A-Za-z]*\)*$" -- "$DLSIM" explore "$pp" --runs 5 --faults drop,delay --messages Guest:Push,Guest:Pull,Guest:Hello --no-shrink
expect 2 "--messages: 'Payload:x' is not a message type" -- "$DLSIM" explore "$pp" --runs 1 --messages Payload:x
# model V: with guest_agreement = on the agreement property compares the
# models peers report; push-pull's values differ, so it finds violations,
# and without the key it checks nothing
expect 0 "1 completed" -- "$DLSIM" run "$pp" --set "protocol.guest_command=python3 ../../../guests/pushpull/pushpull.py --report-model" --set protocol.guest_agreement=on -o "$tmp/agree.db"
n=$(sqlite3 "$tmp/agree.db" "SELECT value FROM summary WHERE key = 'violations.agreement'")
[ "${n:-0}" -gt 0 ] && ok "agreement checked on reported models ($n violations)" || ko "no agreement violation on push-pull's differing values"
expect 0 "1 completed" -- "$DLSIM" run "$pp" --set "protocol.guest_command=python3 ../../../guests/pushpull/pushpull.py --report-model" -o "$tmp/noagree.db"
[ "$(sqlite3 "$tmp/noagree.db" "SELECT value FROM summary WHERE key = 'violations.agreement'")" = 0 ] && ok "no agreement promised, none checked" || ko "agreement checked without guest_agreement"
# a guest written with asyncio on the simulated clock (guests/asyncio/:
# one VirtualLoop a node): asyncio.sleep(300) is a deadline at 300 s, not
# five minutes of wall time, and asyncio.sleep(0.25) after the Ack ends the
# round 250 ms after it arrived
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$src/protocol/guest/scenarios/asyncio-sleep.ini"
expect 0 "1 completed" -- "$DLSIM" run "$src/protocol/guest/scenarios/asyncio-sleep.ini" -o "$tmp/as.db"
hello=$(sqlite3 "$tmp/as.db" "SELECT group_concat(t_s, ',') FROM events WHERE kind = 'sent' AND detail = 'Hello'")
[ "$hello" = "300.0,300.0,300.0" ] && ok "the Hellos leave at 300 s" || ko "Hellos at '$hello', wanted 300.0 x3"
gap=$(sqlite3 "$tmp/as.db" "SELECT printf('%.6f', e.t_s - a.t_s) FROM events e JOIN events a ON a.node = e.node
                             AND a.kind = 'received' AND a.detail = 'Ack' WHERE e.kind = 'round-end' AND e.node = 'p1'")
[ "$gap" = "0.250000" ] && ok "the round ends 250 ms after the Ack" || ko "round end - Ack = '$gap', wanted 0.250000"
# docs/guest.md's sample session: the same scenario through a relay that
# logs both directions; the sample's lines (comments stripped) occur in the
# log in the sample's order
cat > "$tmp/relay.py" <<'PY'
import subprocess, sys
log = open(sys.argv[1], "w")
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    log.write("> " + line)
    child.stdin.write(line)
    child.stdin.flush()
    if line.strip() == "bye":
        break
    while True:
        r = child.stdout.readline()
        log.write("< " + r)
        sys.stdout.write(r)
        sys.stdout.flush()
        if r.strip() == "quiet" or not r:
            break
PY
cat > "$tmp/sample.ini" <<EOF
[scenario]
seed = 1
[protocol]
family = guest
guest_command = python3 $tmp/relay.py $tmp/session.log python3 $src/guests/pushpull/pushpull.py
min_participants = 2
[training]
rounds = 1
[peers]
count = 2
EOF
expect 0 "1 completed" -- "$DLSIM" run "$tmp/sample.ini" -o "$tmp/sample.db"
awk '/<!-- guest-sample -->/ { s = 1; next } s && /^```$/ { if (p) exit; p = 1; next } p' "$src/docs/guest.md" \
  | grep -v '^\.\.\.' | sed 's/  .*$//; s/ *$//' > "$tmp/sample.txt"
missing=$(awk 'NR == FNR { want[++n] = $0; next } k < n && $0 == want[k + 1] { k++ } END { if (k < n) print want[k + 1]; if (n < 15) print "(only " n " lines)" }' \
  "$tmp/sample.txt" "$tmp/session.log")
[ -z "$missing" ] && ok "docs/guest.md's sample session happens" || ko "docs/guest.md's sample session: not in order in a real run: $missing"

finish
