#!/bin/sh
# tests/plot-hostile.sh — dlsim plot of a results database from someone
# else: a scenario name, point label, outcome, parameter, peer name or
# message type that holds a gnuplot backquote command, a system() call,
# quotes, a newline or ESC is drawn as text.  Every kind exits 0 with a
# PNG, and no command ran (no file appeared).  Also run by `make
# check-scenario-fuzz`.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"

png () {
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
}
# pwned: the files a command in the text would have made
pwned () { ls "$tmp" | grep '^pwned' ; }

# the scenario name from the issue, through dlsim run itself
cat > "$tmp/h.ini" <<INI
[scenario]
name = a\`touch $tmp/pwned-name\`b
seed = 3
repeat = 2
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
count = \${3, 4}
INI
"$DLSIM" run "$tmp/h.ini" -o "$tmp/h.db" -q || { echo "FAIL: could not make the test database"; exit 1; }
[ -z "$(pwned)" ] && ok || ko "dlsim run made $(pwned)"

# text a shared file may hold (SQL literals: '' is a quote)
bq="b\`touch $tmp/pwned-bq\`"
dq="d\" . system(\"touch $tmp/pwned-dq\") . \""
sq="s'' . system(''touch $tmp/pwned-sq'') . ''"
nl="n' || char(10) || 'system(\"touch $tmp/pwned-nl\")' || char(10) || '! touch $tmp/pwned-bang"
esc="e' || char(27) || ']0;title' || char(7) || char(27) || '[2J' || char(155) || ' @x \\_{}^&~"
sqlite3 "$tmp/h.db" "
  UPDATE runs SET scenario = '$bq $nl' WHERE run_id = 1;
  UPDATE runs SET scenario = '$dq $esc', outcome = '$sq' WHERE run_id = 2;
  UPDATE runs SET point_label = point_label || ' $nl' WHERE run_id = 3;
  UPDATE runs SET outcome = '$nl' WHERE run_id = 4;
  UPDATE params SET value = '$sq' WHERE key = 'scenario.description' AND run_id % 2 = 1;
  UPDATE params SET value = '$nl $dq' WHERE key = 'scenario.description' AND run_id % 2 = 0;
  UPDATE peers SET peer = '$dq' WHERE peer = 'p1';
  UPDATE event_chunks SET rows = replace(replace(rows, '\"p1\"', json_quote('$dq')), '\"p2\"', json_quote('$nl'));
  UPDATE event_rows SET node = '$dq' WHERE node = 'p1';
  UPDATE event_rows SET node = '$nl' WHERE node = 'p2';" \
  || { echo "FAIL: could not write the hostile text"; exit 1; }
# message types, in the traffic table and the events alike
i=0
for type in $(sqlite3 "$tmp/h.db" "SELECT DISTINCT type FROM traffic"); do
  case $((i % 3)) in 0) t="$bq $type" ;; 1) t="$nl $type" ;; *) t="$dq $type" ;; esac
  i=$((i + 1))
  sqlite3 "$tmp/h.db" "UPDATE traffic SET type = '$t' WHERE type = '$type';
    UPDATE event_rows SET msg = '$t' WHERE msg = '$type';
    UPDATE event_chunks SET rows = replace(rows, '\"$type\"', json_quote('$t'));" \
    || { echo "FAIL: could not rename $type"; exit 1; }
done

draw () {  # draw NAME ARGS...: one figure, exit 0, a PNG, nothing run
  name=$1; shift
  f="$tmp/$name.png"
  if ( cd "$tmp" && "$DLSIM" plot h.db "$@" -o "$f" > "$out" 2>&1 ) && png "$f"; then ok; else
    ko "plot $*: exit or no PNG"; sed 's/^/  | /' "$out" | head -10; fi
  [ -z "$(pwned)" ] && ok || { ko "plot $* ran a command: $(pwned)"; rm -f "$tmp"/pwned*; }
}
for run in 1 2 3 4; do
  for kind in timeline rounds participants traffic; do
    draw "$kind-$run" "$kind" --run "$run"
  done
done
draw conv convergence
draw conv-desc convergence --by scenario.description
draw conv-name convergence --by scenario.name
draw conv-time convergence --x time --by scenario.description
draw scaling scaling --x peers.count --by scenario.description
draw summary summary --y sim_time_s --x peers.count --by scenario.description
draw summary-where summary --y sim_time_s --x peers.count --where "scenario.description=$(sqlite3 "$tmp/h.db" \
  "SELECT value FROM params WHERE key = 'scenario.description' AND run_id = 1")"
# the output file's name: a quote and a backquote in it are kept; a
# newline is refused (gnuplot would write another file)
f="o'ut\`touch pwned-out\`.png"
( cd "$tmp" && "$DLSIM" plot h.db rounds --run 1 -o "$f" > "$out" 2>&1 ) && png "$tmp/$f" && ok \
  || { ko "an output name with quotes"; cat "$out"; }
[ -z "$(pwned)" ] && ok || ko "an output name ran a command: $(pwned)"
expect 1 "the output's name must be UTF-8 without control characters" -- "$DLSIM" plot "$tmp/h.db" rounds --run 1 \
  -o "$tmp/a
! touch $tmp/pwned-o.png"
[ -z "$(pwned)" ] && ok || ko "an output name with a newline ran a command: $(pwned)"

# the text is drawn as text: in the script, one line each, ` and @ as
# octal escapes, quotes escaped, control bytes as spaces
want1='set title "b\140touch '"$tmp"'/pwned-bq\140 n system(\"touch '"$tmp"'/pwned-nl\") ! touch '"$tmp"'/pwned-bang [peers.count=3], run 1 (seed 3, completed): peer phases"'
want2='set title "d\" . system(\"touch '"$tmp"'/pwned-dq\") . \" e ]0;title  [2J  \100x \\_{}^&~ [peers.count=3], run 2 (seed 4, s'"'"' . system('"'"'touch '"$tmp"'/pwned-sq'"'"') . '"'"'): peer phases"'
for run in 1 2; do
  "$DLSIM" plot "$tmp/h.db" timeline --run $run --script > "$tmp/t$run.gp"
  eval "want=\$want$run"
  grep -qxF "$want font ',12'" "$tmp/t$run.gp" && ok \
    || { ko "timeline $run title:"; grep '^set title' "$tmp/t$run.gp"; printf '%s\n' "wanted: $want"; }
done
LC_ALL=C grep -q -e "$(printf '\033')" -e "$(printf '\302\233')" "$tmp/t1.gp" "$tmp/t2.gp" && ko "ESC or a C1 CSI in the script" || ok

finish
