#!/bin/sh
# tests/run-kill.sh — a sweep killed or interrupted, then run again: the
# -j workers die with a parent killed by SIGKILL, --resume takes the
# finished runs their files hold, and every run ends in the database
# exactly once.  Every wait is bounded.
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"

# 8 runs of about a second each (--no-events)
cat > "$tmp/long.ini" <<'INI'
[scenario]
repeat = 8
time_limit = 100h
[protocol]
min_participants = 150
[training]
rounds = 20
[peers]
count = 150
[network]
uplink = 1Gbps
INI

# await_file GLOB SQL: waits up to 60 s until SQL counts a row in a file
# matching GLOB (a worker's file appears once the sweep has forked)
await_file () {
  i=0
  while [ $i -lt 600 ]; do
    for f in $1; do
      [ -f "$f" ] || continue
      [ "$(sqlite3 -cmd '.timeout 2000' "$f" "$2" 2>/dev/null || echo 0)" -ge 1 ] && return 0
    done
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
# gone PID...: waits up to 5 s until none of the processes is left (a
# zombie waiting for init to reap it counts as gone)
gone () {
  i=0
  while [ $i -lt 50 ]; do
    left=
    for p in "$@"; do
      s=$(ps -o stat= -p "$p" 2>/dev/null)
      case "$s" in ''|Z*) ;; *) left="$left $p" ;; esac
    done
    [ -z "$left" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}

# 1. -j 2 killed with SIGKILL once a worker has finished a run
"$DLSIM" run "$tmp/long.ini" -o "$tmp/k.db" -q -j 2 --no-events > "$out" 2>&1 &
pid=$!
if await_file "$tmp/k.db.worker*-$pid" "SELECT COUNT(*) FROM runs WHERE outcome = 'completed'"; then
  ok "a worker finished a run"
else
  ko "no worker finished a run within 60 s"
fi
kids=$(pgrep -P $pid | tr '\n' ' ')
kill -KILL $pid
wait $pid 2>/dev/null
if [ -n "$kids" ] && gone $kids; then
  ok "the workers died with their parent"
else
  ko "workers '$kids' still alive 5 s after their parent was killed:$left"
  for p in $left; do kill -KILL "$p"; done   # ours: let the rest of the test run
fi

# 2. --resume takes the finished runs of the workers' files, removes them,
# runs the rest: every run once
expect 0 "finished runs\? taken into .*k.db from the files of a killed sweep's workers" -- \
  timeout 120 "$DLSIM" run "$tmp/long.ini" --resume -o "$tmp/k.db" -j 2 --no-events
r=$(sqlite3 "$tmp/k.db" "SELECT COUNT(*), COUNT(DISTINCT run_id), COUNT(DISTINCT seed), COUNT(*) FILTER (WHERE outcome = 'completed') FROM runs")
[ "$r" = "8|8|8|8" ] && ok "every run once" || ko "runs after --resume (all, ids, seeds, completed): $r"
left_files=$(ls "$tmp" | grep -c 'k\.db\.worker')
[ "$left_files" = 0 ] && ok "worker files removed" || ko "$left_files worker files left: $(ls "$tmp")"

# 3. --resume -j 2 counts only the runs it ran: with runs 2 and 3 to redo
# and 4 to 8 done, "2 runs (2 completed)", not the 7 from id 2 on
sqlite3 "$tmp/k.db" "UPDATE runs SET outcome = 'interrupted' WHERE run_id IN (2, 3)"
expect 0 "^2 runs into .*k.db (2 completed)$" -- \
  timeout 120 "$DLSIM" run "$tmp/long.ini" --resume -o "$tmp/k.db" -j 2 --no-events

# 4. Ctrl-C during a run, then the same command again: the interrupted run
# is replaced, not kept beside the new one; the message names --resume.
# 60 rounds: a run of a few seconds even without the sanitizers, so the
# signal lands inside it; the wait is for the runs row, which is committed
# before the run starts (events are committed only once a second)
sed -e 's/^repeat = 8/repeat = 3/' -e 's/^rounds = 20/rounds = 60/' "$tmp/long.ini" > "$tmp/three.ini"
"$DLSIM" run "$tmp/three.ini" -o "$tmp/c.db" -q > "$out" 2>&1 &
pid=$!
await_file "$tmp/c.db" "SELECT COUNT(*) FROM runs WHERE outcome IS NULL" \
  || ko "no run in progress within 60 s"
kill -INT $pid
wait $pid
rc=$?
i=$(sqlite3 "$tmp/c.db" "SELECT COUNT(*) FROM runs WHERE outcome = 'interrupted'")
[ "$rc" = 130 ] && [ "$i" = 1 ] && grep -q "interrupted; finished runs are in .*c.db: .*--resume" "$out" \
  && ok "Ctrl-C: one run interrupted, --resume named" \
  || { ko "Ctrl-C: exit $rc, $i interrupted runs"; cat "$out"; }
expect 0 "1 interrupted or unfinished run of these points removed from .*c.db: run again" -- \
  timeout 120 "$DLSIM" run "$tmp/three.ini" -o "$tmp/c.db"
r=$(sqlite3 "$tmp/c.db" "SELECT COUNT(*), COUNT(DISTINCT seed), COUNT(*) FILTER (WHERE outcome = 'completed') FROM runs")
[ "$r" = "3|3|3" ] && ok "the same command again: every run once" || ko "runs after the re-run (all, seeds, completed): $r"

finish
