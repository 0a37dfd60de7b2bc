#!/bin/sh
# tests/export.sh — dlsim export-scenario on every shipped scenario: the
# exported file, run again, gives the same summary and the same events
# (run 1 of each file: its first sweep point and seed, run alone).
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=${DLSIM_SRCDIR:-.}
digest () {
  sqlite3 "$1" "SELECT t_s, node, kind, round, other, detail, state, msg, value FROM events WHERE run_id = 1 ORDER BY seq;
                SELECT key, value FROM summary WHERE run_id = 1 ORDER BY key" | md5sum
}
n=0
# scenarios/reproductions-large/ is left out: 100 000 peers write 2 GB of
# events a run (make check-reproductions runs it); pushpull-10k.ini, the
# same keys at 10 000, is exported here
# (scenarios/ and each family's own, protocol/FAMILY/scenarios/)
for f in $( (find "$SRC/scenarios" -name '*.ini' -not -path '*/reproductions-large/*'
            for d in "$SRC"/protocol/*/scenarios; do [ -d "$d" ] && find "$d" -name '*.ini'; done) | sort); do
  name=$(basename "$f" .ini)
  case $f in
    */scenarios/data/*)
      # Debian's data sets (tools/install-deps installs both; tests/data.sh)
      if [ ! -d /usr/share/datasets/fashion-mnist ] || [ ! -f /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz ]; then
        echo "SKIP: $f (needs dataset-fashion-mnist and python3-sklearn)"
        continue
      fi ;;
  esac
  rm -f "$tmp/a.db" "$tmp/b.db"
  # run 1 alone (--shard 0/N, N above any file's number of runs: the
  # first run of the expansion, with run id 1 as in the whole sweep):
  # the rest of a sweep was run and never read (about 1 000 s of the
  # sanitizer build's make check)
  "$DLSIM" run "$f" -o "$tmp/a.db" -q --shard 0/1000000 >/dev/null 2>&1
  [ $? -le 1 ] || { ko "$f: dlsim run failed"; continue; }
  "$DLSIM" export-scenario "$tmp/a.db" --run 1 -o "$tmp/$name.ini" 2>"$tmp/err" || { ko "$f: export failed: $(cat "$tmp/err")"; continue; }
  "$DLSIM" run "$tmp/$name.ini" -o "$tmp/b.db" -q >/dev/null 2>&1
  [ $? -le 1 ] || { ko "$f: the exported file does not run"; "$DLSIM" run "$tmp/$name.ini" -o "$tmp/c.db" 2>&1 | head -3; continue; }
  if [ "$(digest "$tmp/a.db")" = "$(digest "$tmp/b.db")" ]; then n=$((n + 1)); ok "$f"; else ko "$f: exported run differs"; fi
done
echo "$n scenarios reproduced from their export"
expect 1 "no run 9" -- "$DLSIM" export-scenario "$tmp/a.db" --run 9
expect 2 "expected DB and --run ID" -- "$DLSIM" export-scenario "$tmp/a.db"
finish
