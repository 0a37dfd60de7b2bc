#!/bin/sh
# tests/print-hostile.sh — text from a file or a results database printed
# by dlsim (report, trace, compare, check's PASS line, errors, node's
# lines, explore's and shrink's signatures, merge's line) reaches the
# terminal with its control bytes escaped (cli_shown, cli/cli-util.c): ESC
# ]0; (retitle), ESC [2J (clear), BEL, a C1 CSI and a newline come out as
# \x1b, \x07, \u009b, \x0a, never as the bytes.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"

cat > "$tmp/e.ini" <<'INI'
[scenario]
name = plain
seed = 3
[protocol]
min_participants = 2
[training]
rounds = 2
[model]
kind = softmax
[data]
features = 6
classes = 3
samples = 300
separation = 3
[peers]
count = 3
[expect]
outcome = completed
INI
"$DLSIM" run "$tmp/e.ini" -o "$tmp/e.db" -q || { echo "FAIL: could not make the test database"; exit 1; }
# ESC ]0;title BEL, ESC [2J, a C1 CSI (U+009B), a newline
bad="'a' || char(27) || ']0;owned' || char(7) || char(27) || '[2J' || char(155) || char(10) || 'fake line'"
sqlite3 "$tmp/e.db" "
  UPDATE runs SET scenario = $bad, point_label = $bad;
  UPDATE summary SET value = $bad WHERE key = 'outcome';
  UPDATE peers SET peer = $bad WHERE peer = 'p1';
  UPDATE params SET value = $bad WHERE key = 'scenario.description';
  INSERT INTO event_rows (run_id, seq, t_s, node, kind, detail) VALUES (1, 1000000, 0.5, 'p2', 'note', $bad);
  INSERT INTO event_rows (run_id, seq, t_s, node, kind, msg, other, detail)
    VALUES (1, 1000001, 0.6, $bad, 'failed', $bad, $bad, $bad);" || { echo "FAIL: could not write the text"; exit 1; }

esc=$(printf '\033') bel=$(printf '\007') csi=$(printf '\302\233')
# shown OUT WHAT [LINES]: OUT holds the escapes, none of the bytes (with
# LINES, an error message: its newlines are kept)
shown () {
  want='a\x1b]0;owned\x07\x1b[2J\u009b\x0afake line'
  [ $# -gt 2 ] && want='a\x1b]0;owned\x07\x1b[2J\u009b'
  if LC_ALL=C grep -q -e "$esc" -e "$bel" -e "$csi" "$1"; then
    ko "$2: a control byte printed raw"; LC_ALL=C grep -a -e "$esc" -e "$bel" "$1" | od -c | head -5
  elif ! grep -qF "$want" "$1"; then
    ko "$2: the text is not shown escaped"; head -c 600 "$1"
  else ok; fi
}
"$DLSIM" report "$tmp/e.db" > "$out" 2>&1; shown "$out" "report"
"$DLSIM" report "$tmp/e.db" --run 1 > "$out" 2>&1; shown "$out" "report --run"
"$DLSIM" trace "$tmp/e.db" --run 1 > "$out" 2>&1; shown "$out" "trace"
grep -q '^ *0.500000s  p2 .* note: a\\x1b' "$out" && [ "$(grep -c 'fake line' "$out")" = 2 ] && ok \
  || ko "trace: the note and the failure are not one line each"
"$DLSIM" compare "$tmp/e.db" "$tmp/e.db" > "$out" 2>&1; shown "$out" "compare"
# an error quoting the database (a value that is not a number)
"$DLSIM" plot "$tmp/e.db" summary --y sim_time_s --x scenario.description -o "$tmp/x.png" > "$out" 2>&1
grep -q "not a number" "$out" && shown "$out" "plot's error" lines || { ko "plot's error: $(cat "$out")"; }
# check's PASS line names the file: a file name with ESC in it
f="$tmp/e$(printf '\033')[2J.ini"
cp "$tmp/e.ini" "$f"
"$DLSIM" check "$f" > "$out" 2>&1
grep -q '^PASS .*e\\x1b\[2J.ini' "$out" && ! LC_ALL=C grep -q "$esc" "$out" && ok || { ko "check's PASS line"; od -c "$out" | head; }
# the testbed's PASS line too (a loopback run of the same file, about 1 s)
"$DLSIM" testbed "$f" -o "$tmp/tb.db" > "$out" 2>&1
grep -q '^PASS .*e\\x1b\[2J.ini' "$out" && ! LC_ALL=C grep -q "$esc" "$out" && ok || { ko "testbed's PASS line"; od -c "$out" | head; }
# dlsim node: a control line it ignores (stdin, with --report) is quoted
# escaped, as is a machine's text in its error, reset and finish lines
# (say_observation: no family whose text comes from a file runs on the
# testbed yet, so the ignored line is what a test can reach)
printf 'x\033[2J\007y\nleave\n' | "$DLSIM" node coordinator --listen 127.0.0.1:0 --secret-file "$tmp/n.secret" \
  --scenario "$tmp/e.ini" --report > /dev/null 2> "$out"
grep -qF "ignoring control line 'x\x1b[2J\x07y'" "$out" && ! LC_ALL=C grep -q -e "$esc" -e "$bel" "$out" && ok \
  || { ko "node's ignored control line"; od -c "$out" | head; }

# explore's and shrink's failure signatures: a guest's state names are
# letters, digits and -_. (the line parser refuses `state x<ESC>[2J`), but
# a guest-error signature takes its state from the error, which quotes
# the guest's bad line: `bogus (in x<ESC>[2J<BEL>y)` gives "guest-error in
# x<ESC>[2J<BEL>y"
if command -v python3 >/dev/null; then
  # guest NAME SAID: a guest that says SAID when a node is made, and the
  # scenario NAME.ini that runs it
  guest () {
    printf 'import sys\nfor line in sys.stdin:\n    if line.startswith("bye"):\n        break\n    if line.startswith("new "):\n        sys.stdout.write("%s\\n")\n    sys.stdout.write("quiet\\n")\n    sys.stdout.flush()\n' "$2" > "$tmp/$1.py"
    printf '[scenario]\nseed = 1\n[protocol]\nfamily = guest\nguest_command = python3 %s\nmin_participants = 2\n[training]\nrounds = 1\n[peers]\ncount = 2\n' "$tmp/$1.py" > "$tmp/$1.ini"
  }
  guest gs 'state x\033[2J'
  guest gb 'bogus (in x\033[2J\007y)'
  "$DLSIM" run "$tmp/gs.ini" -o "$tmp/gs.db" > "$out" 2>&1
  grep -q 'state NAME, NAME 1 to 32 letters' "$out" && ! LC_ALL=C grep -q "$esc" "$out" && ok \
    || { ko "a state name with ESC: not refused, or the refusal raw"; od -c "$out" | head; }
  "$DLSIM" explore "$tmp/gb.ini" --runs 1 --faults crash --found "$tmp/gfound" -o "$tmp/gb.db" > "$out" 2>&1
  [ "$(grep -cF 'guest-error in x\x1b[2J\x07y' "$out")" = 2 ] && ! LC_ALL=C grep -q -e "$esc" -e "$bel" "$out" && ok \
    || { ko "explore's signatures"; od -c "$out" | head -20; }
  "$DLSIM" shrink "$tmp/gb.db" --run "$(sqlite3 "$tmp/gb.db" "SELECT MIN(run_id) FROM runs")" -o "$tmp/gb-shrunk.ini" > "$out" 2>&1
  grep -qF 'guest-error in x\x1b[2J\x07y' "$out" && ! LC_ALL=C grep -q -e "$esc" -e "$bel" "$out" && ok \
    || { ko "shrink's signature"; od -c "$out" | head -20; }
else
  echo "SKIP: no python3: the guest signatures are not checked"
fi

# merge's node-merge line: a failed expectation quotes the scenario's
# [expect] value (here an outcome with ESC [2J), as check's FAIL line does
sed "s/^outcome = completed/outcome = x$esc[2J/; s/^rounds = 2/rounds = 1/; s/^count = 3/count = 2/" "$tmp/e.ini" > "$tmp/h.ini"
"$DLSIM" node coordinator --listen 127.0.0.1:0 --secret-file "$tmp/n.secret" --scenario "$tmp/h.ini" -o "$tmp/n-c.db" \
  > /dev/null 2> "$tmp/n-c.err" &
cpid=$!
i=0
while [ $i -lt 50 ] && ! grep -q "listening on" "$tmp/n-c.err"; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/n-c.err")
for i in 1 2; do
  "$DLSIM" node peer --coordinator "127.0.0.1:$port" --name p$i --secret-file "$tmp/n.secret" --scenario "$tmp/h.ini" \
    -o "$tmp/n-p$i.db" < /dev/null > /dev/null 2> "$tmp/n-p$i.err" &
done
for i in $(seq 1 150); do
  [ "$(grep -l "finished its" "$tmp/n-p1.err" "$tmp/n-p2.err" 2>/dev/null | wc -l)" = 2 ] && break
  sleep 0.1
done
kill -TERM $cpid
wait
"$DLSIM" merge "$tmp/m.db" "$tmp/n-c.db" "$tmp/n-p1.db" "$tmp/n-p2.db" > "$out" 2>&1
grep -qF 'outcome: expected = x\x1b[2J, actual' "$out" && ! LC_ALL=C grep -q "$esc" "$out" && ok \
  || { ko "merge's failed expectation"; od -c "$out" | head; }

finish
