#!/bin/sh
# tests/db-faults.sh — results databases under faults: a journal a killed
# writer left, a file another process holds locked, two runs writing one
# file at once, damaged and foreign files, a full disk.  Each reading
# command must read the file or say why, never refuse a file it could read.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
check () {  # check DESCRIPTION COMMAND...: the command must succeed
  desc=$1
  shift
  if "$@" >"$out" 2>&1; then ok "$desc"; else ko "$desc"; sed 's/^/  | /' "$out"; fi
}
SRC=${DLSIM_SRCDIR:-.}
F3=$SRC/protocol/disco/scenarios/regression/consensus-mean-3.ini

"$DLSIM" run "$F3" -o "$tmp/base.db" -q >/dev/null 2>&1
base_rows=$(rowdump "$tmp/base.db")

# hot DB: a copy of base.db with the journal of a writer killed mid-way
# (its change spilled to the file: params emptied, a table of junk added),
# as `kill -9` of a run between two commits leaves it
hot () {
  rm -f "$1" "$1-journal"
  cp "$tmp/base.db" "$1"
  python3 - "$1" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA cache_size = 1")
c.execute("BEGIN")
c.execute("DELETE FROM params")
c.execute("CREATE TABLE junk (x)")
for i in range(500):
    c.execute("INSERT INTO junk VALUES (?)", (os.urandom(2000),))
os._exit(0)
PY
  [ -s "$1-journal" ] || ko "no hot journal beside $1"
}

# 1. every reading command rolls the killed writer's journal back and reads
# the file as it was before
rolled_back () {  # rolled_back DESCRIPTION: the file is base.db again
  if [ ! -e "$tmp/hot.db-journal" ] && [ "$(rowdump "$tmp/hot.db")" = "$base_rows" ]; then ok "$1"; else ko "$1: not rolled back"; fi
}
hot "$tmp/hot.db"; expect 0 "consensus-mean-3 *completed" -- "$DLSIM" report "$tmp/hot.db"; rolled_back report
hot "$tmp/hot.db"; expect 0 "rounds_completed" -- "$DLSIM" report "$tmp/hot.db" --run 1; rolled_back "report --run"
hot "$tmp/hot.db"; expect 0 "StartWeightSharing" -- "$DLSIM" trace "$tmp/hot.db" --run 1; rolled_back trace
hot "$tmp/hot.db"; check "trace perfetto" "$DLSIM" trace "$tmp/hot.db" --run 1 --format perfetto -o "$tmp/t.json"; rolled_back "trace perfetto"
hot "$tmp/hot.db"; check export "$DLSIM" export "$tmp/hot.db" --format csv -o "$tmp/ex"; rolled_back export
[ "$(wc -l < "$tmp/ex/params.csv")" -gt 1 ] && ok "export params" || ko "export wrote no params"
hot "$tmp/hot.db"; check export-scenario "$DLSIM" export-scenario "$tmp/hot.db" --run 1 -o "$tmp/x.ini"; rolled_back export-scenario
hot "$tmp/hot.db"; expect 0 "set terminal" -- "$DLSIM" plot "$tmp/hot.db" rounds --script; rolled_back plot
hot "$tmp/hot.db"; expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/hot.db" "$tmp/base.db"; rolled_back compare
hot "$tmp/hot.db"; check merge "$DLSIM" merge "$tmp/m.db" "$tmp/hot.db"; rolled_back "merge's input"
[ "$(rowdump "$tmp/m.db")" = "$base_rows" ] && ok "merged from a rolled-back file" || ko "merge of a hot file differs"
# a reader that cannot write the folder cannot roll back: it says so
# (as root: the reader runs as nobody)
mkdir "$tmp/ro"
hot "$tmp/ro/r.db"
chmod 555 "$tmp/ro"
chmod 755 "$tmp"
if [ "$(id -u)" -ne 0 ]; then
  expect 1 "left its journal.*cannot be written" -- "$DLSIM" report "$tmp/ro/r.db"
elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null \
     && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$DLSIM"; then
  expect 1 "left its journal.*cannot be written" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$DLSIM" report "$tmp/ro/r.db"
else
  echo "SKIP: a folder root can write is not read-only"
fi
chmod 755 "$tmp/ro"

# 2. a reader waits for a lock another process holds (here 2 s), as it
# waits for a run's once-a-second commits
cp "$tmp/base.db" "$tmp/locked.db"
python3 - "$tmp/locked.db" "$tmp/locked.flag" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(2)
c.execute("COMMIT")
PY
lpid=$!
i=0
while [ ! -e "$tmp/locked.flag" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect 0 "consensus-mean-3 *completed" -- "$DLSIM" report "$tmp/locked.db"
wait $lpid

# 3. two runs into one file at once: the second waits for the first, both
# finish, every run under its own id, nothing lost
cat > "$tmp/two.ini" <<'INI'
[scenario]
name = two
repeat = 6
[protocol]
min_participants = 3
[training]
rounds = 10
[peers]
count = 20
INI
"$DLSIM" run "$tmp/two.ini" -o "$tmp/same.db" -q --set scenario.repeat=20 > "$tmp/a.out" 2>&1 &
p1=$!
"$DLSIM" run "$tmp/two.ini" -o "$tmp/same.db" -q --set scenario.repeat=20 --seed 100 > "$tmp/b.out" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
r=$(sqlite3 "$tmp/same.db" "SELECT COUNT(*), COUNT(DISTINCT run_id), MIN(run_id), MAX(run_id), COUNT(outcome),
                              COUNT(DISTINCT seed) FROM runs")
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ "$r" = "40|40|1|40|40|40" ]; then ok "two runs at once"; else
  ko "two runs at once: exit $r1 and $r2, runs '$r'"; cat "$tmp/a.out" "$tmp/b.out"; fi
# run ids stop at 2^63 - 1: the next run is refused, and nothing is written
"$DLSIM" run "$tmp/two.ini" -o "$tmp/big.db" -q --set scenario.repeat=1 >/dev/null 2>&1
sqlite3 "$tmp/big.db" "UPDATE runs SET run_id = 9223372036854775806"
expect 1 "largest run id is 9223372036854775806, and 2 more would pass 2^63 - 1" -- \
  "$DLSIM" run "$tmp/two.ini" -o "$tmp/big.db" -q --set scenario.repeat=2
check "the last id" "$DLSIM" run "$tmp/two.ini" -o "$tmp/big.db" -q --set scenario.repeat=1
expect 1 "largest run id is 9223372036854775807, and 1 more would pass" -- \
  "$DLSIM" run "$tmp/two.ini" -o "$tmp/big.db" -q --set scenario.repeat=1
r=$(sqlite3 "$tmp/big.db" "SELECT COUNT(*), MIN(run_id) > 0 FROM runs")
[ "$r" = "2|1" ] && ok "no run past 2^63 - 1" || ko "run ids past 2^63 - 1: '$r'"
# merge --renumber refuses a run it cannot give an id
"$DLSIM" run "$tmp/two.ini" -o "$tmp/other.db" -q --set scenario.repeat=1 --seed 9 >/dev/null 2>&1
sqlite3 "$tmp/other.db" "UPDATE runs SET run_id = 9223372036854775807; UPDATE params SET run_id = 9223372036854775807"
expect 1 "would take an id past 2^63 - 1" -- "$DLSIM" merge "$tmp/big.db" "$tmp/other.db" --renumber
r=$(sqlite3 "$tmp/big.db" "SELECT COUNT(*), MIN(run_id) > 0 FROM runs")
[ "$r" = "2|1" ] && ok "merge: no run past 2^63 - 1" || ko "merge: run ids past 2^63 - 1: '$r'"

# 4. dlsim writes only to its own files: not into another program's
# database, nor (--resume or not) into one whose runs table is gone
sqlite3 "$tmp/foreign.db" "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'x')"
expect 1 "foreign.db is not a dlsim results database (it has customers)" -- "$DLSIM" run "$tmp/two.ini" -o "$tmp/foreign.db" -q
[ "$(sqlite3 "$tmp/foreign.db" "SELECT group_concat(name) FROM sqlite_master")" = customers ] \
  && ok "foreign file untouched" || ko "dlsim wrote its tables into another program's database"
cp "$tmp/base.db" "$tmp/noruns.db"
sqlite3 "$tmp/noruns.db" "DROP TABLE runs"
expect 1 "without its runs table" -- "$DLSIM" run "$F3" --resume -o "$tmp/noruns.db"
expect 1 "without its runs table" -- "$DLSIM" run "$F3" -o "$tmp/noruns.db" -q
[ "$(sqlite3 "$tmp/noruns.db" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'")" = 0 ] \
  && ok "no runs table made again" || ko "a runs table was made again beside the old rows"
# an events row that cannot be read is an error, not "(no events)"
cp "$tmp/base.db" "$tmp/bad-events.db"
sqlite3 "$tmp/bad-events.db" "UPDATE event_chunks SET rows = substr(rows, 1, 100)"
expect 1 "run 1's events cannot be read after 0 of them: malformed JSON" -- "$DLSIM" trace "$tmp/bad-events.db" --run 1
expect 1 "run 1's events cannot be read: malformed JSON" -- \
  "$DLSIM" trace "$tmp/bad-events.db" --run 1 --format perfetto -o "$tmp/bad.json"
expect 1 "events cannot be read after 0 rows: malformed JSON" -- "$DLSIM" export "$tmp/bad-events.db" --format csv -o "$tmp/bad-ex"
# a full disk (here the file size limit): the run fails and leaves no
# unfinished runs row, however often it is tried; the runs before stay
cp "$tmp/base.db" "$tmp/full.db"
blocks=$(( $(wc -c < "$tmp/full.db") / 512 + 64 ))
for try in 1 2 3; do
  expect 1 "(run 2 not recorded)" -- sh -c "ulimit -f $blocks; trap '' XFSZ; exec \"\$0\" \"\$@\"" \
    "$DLSIM" run "$tmp/two.ini" -o "$tmp/full.db" -q --set scenario.repeat=20
done
r=$(sqlite3 "$tmp/full.db" "PRAGMA integrity_check; SELECT COUNT(*), COUNT(outcome) FROM runs")
[ "$r" = "ok
1|1" ] && ok "full disk: no unfinished runs" || ko "full disk: $(echo $r)"

# merge of unusual inputs: a schema-1 file is upgraded in place and merged
# (it merged as "0 runs merged" with exit 0); a text run_id (dropped
# silently) and a run_id on two rows (a raw UNIQUE error, or with
# --renumber exit 1 after the renumbering lines) are refused by name,
# nothing of the file merged, nothing told renumbered
"$DLSIM" run "$F3" --set scenario.repeat=2 -o "$tmp/two.db" -q >/dev/null 2>&1
cp "$tmp/two.db" "$tmp/v1.db"
sqlite3 "$tmp/v1.db" "CREATE TABLE old AS SELECT * FROM events; DROP VIEW events; DROP TABLE event_rows;
  DROP TABLE event_chunks;
  CREATE TABLE events (run_id INTEGER, seq INTEGER, t_s REAL, node TEXT, kind TEXT, round INTEGER, other TEXT,
    detail TEXT, state TEXT, msg TEXT, value INTEGER, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
  INSERT INTO events SELECT * FROM old; DROP TABLE old;
  ALTER TABLE runs DROP COLUMN mode; DROP TABLE node_records;
  ALTER TABLE peers DROP COLUMN uplink_bps; ALTER TABLE peers DROP COLUMN downlink_bps; PRAGMA user_version = 1;"
expect 0 "^2 runs merged into .*mv1.db, 0 already there" -- "$DLSIM" merge "$tmp/mv1.db" "$tmp/v1.db"
grep -q "v1.db: upgraded from results schema 1 to 6" "$out" && ok "merge says it upgraded" || ko "merge: no upgrade notice"
r=$(sqlite3 "$tmp/mv1.db" "SELECT COUNT(*), COUNT(DISTINCT seed), group_concat(DISTINCT mode) FROM runs; SELECT COUNT(*) > 0 FROM events")
[ "$r" = "2|2|sim
1" ] && ok "schema-1 input merged with its events" || ko "schema-1 input merged as: $(echo $r)"
# (a runs table without its INTEGER PRIMARY KEY, as a file not made by dlsim may have)
loose () {
  cp "$tmp/two.db" "$1"
  sqlite3 "$1" "CREATE TABLE r2 AS SELECT * FROM runs; DROP TABLE runs; ALTER TABLE r2 RENAME TO runs; $2"
}
loose "$tmp/text.db" "UPDATE runs SET run_id = 'abc' WHERE run_id = 2"
expect 1 "text.db: its runs table has run_id 'abc', not a whole number: nothing merged" -- \
  "$DLSIM" merge "$tmp/mt.db" "$tmp/text.db"
[ "$(sqlite3 "$tmp/mt.db" "SELECT COUNT(*) FROM runs")" = 0 ] && ok "text run_id: nothing merged" || ko "text run_id: runs merged"
loose "$tmp/dup.db" "INSERT INTO runs SELECT * FROM runs WHERE run_id = 1"
expect 1 "dup.db: its runs table has 2 rows with run_id 1 (a run id names one run): nothing merged" -- \
  "$DLSIM" merge "$tmp/md.db" "$tmp/dup.db"
"$DLSIM" run "$F3" --seed 99 -o "$tmp/mr.db" -q >/dev/null 2>&1
before=$(rowdump "$tmp/mr.db")
expect 1 "dup.db: its runs table has 2 rows with run_id 1" -- "$DLSIM" merge "$tmp/mr.db" "$tmp/dup.db" --renumber
grep -q "in the output" "$out" && ko "--renumber told runs renumbered, then failed" || ok "--renumber: no partial message"
[ "$(rowdump "$tmp/mr.db")" = "$before" ] && ok "--renumber: the output unchanged" || ko "--renumber: the output changed"

# 5. commits wait on no disk (issue 44): while dlsim writes a file it is in
# WAL mode with synchronous = NORMAL, so a 20-run sweep syncs the disk as
# often as a single run (a rollback journal synced each commit: 143 syncs
# against 10); and a writer killed mid-way leaves its log, with every run it
# committed, which a reader finds and the next writer folds back in
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
  syncs () {  # syncs RUNS: the fsync and fdatasync calls of a sweep of RUNS runs
    rm -f "$tmp/s.db" "$tmp/s.db-wal" "$tmp/s.db-shm" "$tmp/s.db-journal"
    strace -f -o "$tmp/st" -e trace=fsync,fdatasync "$DLSIM" run "$tmp/two.ini" -o "$tmp/s.db" -q \
      --set scenario.repeat="$1" --set training.rounds=3 >/dev/null 2>&1
    grep -c 'sync(' "$tmp/st"
  }
  one=$(syncs 1); twenty=$(syncs 20)
  if [ "$twenty" -le $((one + 2)) ]; then ok "syncs: $twenty for 20 runs, $one for 1"; else
    ko "syncs: $twenty for 20 runs against $one for 1: a sync per run"; fi
else
  echo "SKIP: no strace to count the syncs"
fi
cat > "$tmp/killed.ini" <<'INI'
[scenario]
repeat = 6
time_limit = 100h
[protocol]
min_participants = 60
[training]
rounds = 20
[peers]
count = 60
INI
rm -f "$tmp/k.db"*
"$DLSIM" run "$tmp/killed.ini" -o "$tmp/k.db" -q >/dev/null 2>&1 &
kpid=$!
i=0
while [ $i -lt 600 ] && [ "$(sqlite3 -cmd '.timeout 2000' "$tmp/k.db" "SELECT COUNT(outcome) FROM runs" 2>/dev/null || echo 0)" -lt 1 ]; do
  sleep 0.1; i=$((i + 1))
done
kill -KILL $kpid; wait $kpid 2>/dev/null
if [ -s "$tmp/k.db-wal" ]; then ok "killed: the log stays"; else ko "killed: no WAL beside k.db"; fi
expect 0 "completed" -- "$DLSIM" report "$tmp/k.db"
check "killed: a run appends after" "$DLSIM" run "$F3" -o "$tmp/k.db" -q
r=$(sqlite3 "$tmp/k.db" "PRAGMA journal_mode; SELECT COUNT(outcome) >= 2 FROM runs")
if [ "$(echo $r)" = "delete 1" ] && [ ! -e "$tmp/k.db-wal" ]; then ok "killed: folded back, a rollback journal at rest"; else
  ko "killed: '$(echo $r)', $(ls "$tmp"/k.db*)"; fi

# 6. a reader that holds a read transaction on a -j sweep's file, from the
# end of a worker's first run to the end of the sweep, makes the sweep
# wait for nothing: every run is copied into the file while it reads
# (before, the merge at the end waited 60 s for the reader, then failed
# with "database is locked"), and the reader, its transaction ended,
# reads them all
rm -f "$tmp/j.db"*
"$DLSIM" run "$tmp/killed.ini" -o "$tmp/j.db" -q -j 2 > "$tmp/j.out" 2>&1 &
jpid=$!
finished_in_parts () {  # the most finished runs in one worker's file (0: none yet)
  { echo 0; for w in "$tmp"/j.db.worker*[0-9]; do
    [ -e "$w" ] && sqlite3 -cmd '.timeout 2000' "$w" "SELECT COUNT(outcome) FROM runs" 2>/dev/null
  done; } | sort -n | tail -n 1
}
i=0
while [ $i -lt 600 ] && [ "$(finished_in_parts)" -lt 1 ]; do sleep 0.05; i=$((i + 1)); done
( echo "BEGIN; SELECT COUNT(*) FROM runs;"
  while kill -0 $jpid 2>/dev/null; do sleep 0.1; done
  echo "COMMIT; SELECT COUNT(outcome) FROM runs;" ) | sqlite3 -cmd '.timeout 5000' "$tmp/j.db" > "$tmp/reader.out" 2>&1 &
rpid=$!
wait $jpid; jrc=$?
wait $rpid
if [ $jrc -eq 0 ] && [ "$(tail -n 1 "$tmp/reader.out")" = 6 ]; then ok "a held reader: the -j sweep copied its 6 runs"; else
  ko "a held reader: dlsim exit $jrc, the reader read '$(tail -n 1 "$tmp/reader.out")'"; sed 's/^/  | /' "$tmp/j.out"; fi
if ls "$tmp"/j.db.worker* >/dev/null 2>&1; then ko "a held reader: workers' files left"; else ok "a held reader: no workers' files left"; fi

finish
