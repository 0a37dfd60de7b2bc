#!/bin/sh
# tests/explore.sh — dlsim explore as a user runs it: the same command gives
# the same table; the search finds distinct failures from a base with no
# timeline; each is shrunk and written as a scenario file that `dlsim check`
# reproduces; bad options are refused by name.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
base=${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini

"$DLSIM" explore "$base" --runs 300 --no-shrink 2>&1 | sed 's/ in [0-9.]* s,/,/' > "$tmp/a.txt"
"$DLSIM" explore "$base" --runs 300 --no-shrink 2>&1 | sed 's/ in [0-9.]* s,/,/' > "$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" && ok "deterministic" || { ko "two searches differ"; diff "$tmp/a.txt" "$tmp/b.txt" | head; }
# -j 2: the same table
"$DLSIM" explore "$base" --runs 300 --no-shrink -j 2 2>&1 | sed 's/ in [0-9.]* s,/,/' > "$tmp/j.txt"
cmp -s "$tmp/a.txt" "$tmp/j.txt" && ok "-j 2 gives the same table" || { ko "-j 2 differs"; diff "$tmp/a.txt" "$tmp/j.txt" | head; }
expect 2 "-j 0: expected 1 to 256" -- "$DLSIM" explore "$base" --runs 5 -j 0
n=$(sed -n 's/.* \([0-9]*\) distinct failures$/\1/p' "$tmp/a.txt")
[ "${n:-0}" -ge 4 ] && ok "distinct failures" || ko "only '$n' distinct failures in 300 runs"
grep -q "^progress in linking " "$tmp/a.txt" && ok "S8's hang found" || ko "no 'progress in linking' (S8) in 300 runs"
grep -q "^coverage: [0-9]* of [0-9]* peer states reached; never: " "$tmp/a.txt" && ok "coverage" || ko "no coverage line"

# robust survives what the search throws at disco-1110 (the full 3 x 10,000
# runs are `make check-robust-search`)
expect 0 "2000 runs in .* s, 0 failing, 0 distinct failures" -- "$DLSIM" explore "$base" --runs 2000 --version robust --no-shrink
expect 0 "reproduces" -- "$DLSIM" explore "$base" --runs 300 --found "$tmp/found/"
grep -q "DOES NOT reproduce" "$out" && ko "a shrunk file does not reproduce" || ok "all reproduce"
# each found file's header counts the plan's lines as the console did
# ("A lines -> B"), not the [scenario] dir or the base's overrides too
same_counts () {
  awk '/ lines -> [0-9]* in / { for (i = 1; i <= NF; i++) if ($i == "->") { a = $(i - 2); b = $(i + 1) } }
       /^    -> .*: reproduces$/ { f = $2; sub(/:$/, "", f); print a, b, f }' "$1" | {
    bad=0 n=0
    while read -r a b f; do
      n=$((n + 1))
      grep -q "^# Shrunk by ddmin over the plan's lines ($a -> $b), then fewer peers and rounds" "$f" \
        || { bad=1; echo "  $f: console $a -> $b, header: $(grep '^# Shrunk' "$f")"; }
    done
    [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
  }
}
same_counts "$out" && ok "found headers count as the console" || ko "found headers and console disagree"
grep -q "$tmp/found//" "$out" && ko "--found DIR/ printed a doubled slash" || ok "--found DIR/: no doubled slash"
files=$(ls "$tmp/found"/*.ini 2>/dev/null | wc -l)
[ "$files" -ge 4 ] && ok "found files" || ko "$files found files"
expect 0 "$files passed, 0 failed" -- "$DLSIM" check "$tmp/found"
# shrunk: at most 6 timeline actions each
big=$(for f in "$tmp/found"/*.ini; do sed -n '/^\[timeline\]/,/^\[/p' "$f" | grep -c ' = '; done | awk '$1 > 6' | wc -l)
[ "$big" -eq 0 ] && ok "small" || ko "$big found files with more than 6 timeline actions"

grep -l "^count = [23]$" "$tmp/found"/*.ini >/dev/null && ok "peers shrunk" || ko "no found file with fewer peers than the base's 4"
expect 0 "runs in .* (time budget reached)" -- "$DLSIM" explore "$base" --runs 1000000 --time-budget 300ms --no-shrink
expect 2 "--time-budget nope: 'nope' is not a duration" -- "$DLSIM" explore "$base" --runs 5 --time-budget nope
# -o DB: every failing run recorded, with its plan, its violations and its events; shrink reads it back
expect 0 "failing runs recorded in" -- "$DLSIM" explore "$base" --runs 100 --no-shrink -o "$tmp/search.db"
nf=$(sed -n 's/.* \([0-9]*\) failing, .*/\1/p' "$out")
[ "$(sqlite3 "$tmp/search.db" 'SELECT COUNT(*) FROM runs')" = "$nf" ] && ok "all failing runs recorded" || ko "recorded runs != $nf failing"
[ "$(sqlite3 "$tmp/search.db" 'SELECT COUNT(DISTINCT run_id) FROM violations')" = "$nf" ] && ok "each with its violations" || ko "violations missing"
expect 0 "reproduces" -- "$DLSIM" shrink "$tmp/search.db" --run 1 -o "$tmp/from-db.ini"
# the base overrides (--version, --set) go into the written files too
expect 0 "reproduces" -- "$DLSIM" explore "$base" --runs 100 --version disco-775 --found "$tmp/found775"
grep -q "DOES NOT reproduce" "$out" && ko "a --version disco-775 file does not reproduce" || ok "775 files reproduce"
[ "$(grep -L '^version = disco-775$' "$tmp/found775"/*.ini | wc -l)" -eq 0 ] && ok "version kept" || ko "a found file lost --version"
same_counts "$out" && ok "--version: headers count as the console" || ko "--version: found headers and console disagree"
expect 2 "--faults: unknown kind 'nope'" -- "$DLSIM" explore "$base" --runs 5 --faults crash,nope
expect 0 "5 runs" -- "$DLSIM" explore "$base" --runs 5 --faults crash --no-shrink
expect 2 "expected one scenario FILE" -- "$DLSIM" explore
expect 0 "ddmin" -- "$DLSIM" explore --help
# dlsim shrink: a recorded failing run with six timeline lines shrinks to the
# one that matters (the lost list: p3 waits for it, drops the others'
# ConnectionFail and hangs), and the file reproduces under dlsim check
cat > "$tmp/sh.ini" <<'INI'
[scenario]
name = shrinkme
seed = 3
[protocol]
min_participants = 2
[training]
rounds = 3
[peers]
count = 4
[timeline]
0s = slow p4 x2
round 1 + 100ms = drop PeersForRound to p3
round 2 = delay Payload from p2 by 200ms
round 2 + 50ms = crash p1
3s = link-slow p1 p2 by 200ms
round 3 = leave p4
INI
"$DLSIM" run "$tmp/sh.ini" -o "$tmp/sh.db" -q >/dev/null 2>&1
expect 0 "progress in wait-peers-for-round (dropped ConnectionFail): 6 timeline lines -> 1 in [0-9]* runs; reproduces" -- \
  "$DLSIM" shrink "$tmp/sh.db" --run 1 -o "$tmp/shrunk.ini"
grep -q "^round 1 = drop PeersForRound to p3$" "$tmp/shrunk.ini" && ok "the lost list is what matters, at a round time" || ko "shrunk timeline: $(sed -n '/^\[timeline\]/,$p' "$tmp/shrunk.ini")"
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp/shrunk.ini"
# the header says what dlsim shrink did (ddmin, rounder times; not peers or
# rounds) with the console's counts, and the file names no temporary folder:
# copied elsewhere it still passes
grep -q "^# Shrunk by ddmin over the plan's lines (6 -> 1), then rounder times and sizes; peers and rounds as recorded" \
  "$tmp/shrunk.ini" && ok "shrink: header" || ko "shrink header: $(grep '^# Shrunk' "$tmp/shrunk.ini")"
grep -q "dlsim-shrink" "$tmp/shrunk.ini" && ko "shrink wrote its temporary folder: $(grep -n 'dlsim-shrink' "$tmp/shrunk.ini")" \
  || ok "shrink: no temporary folder"
mkdir -p "$tmp/elsewhere" && cp "$tmp/shrunk.ini" "$tmp/elsewhere/"
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp/elsewhere/shrunk.ini"
"$DLSIM" run "${DLSIM_SRCDIR:-.}/protocol/disco/scenarios/regression/consensus-mean-3.ini" -o "$tmp/ok.db" -q >/dev/null 2>&1
expect 1 "breaks no property: nothing to shrink" -- "$DLSIM" shrink "$tmp/ok.db" --run 1 -o "$tmp/x.ini"

# the new families under fault search: gossip (steps, deadline, async), its
# drops and delays drawn from its own fault targets, finds nothing in 300
# runs each.  It found a lost NewNodeInfo (seed 132: the joiner waited in
# connecting, the others in wait-list, for good), now said again after
# payload_timeout (protocol/gossip/README.md, "Lost messages";
# protocol/gossip/scenarios/gossip-lost-new-node-info.ini); four hangs and a
# deadline loop were found this way before and fixed.  That the search
# finds real failures is shown above, on DISCO's base.  hierarchical (its
# lost NewNodeInfo fixed the same way) finds only agreement (heads go on
# without the missing after head_timeout: by design) and, with it,
# no-lost-model (a late joiner synced from a head whose cluster went on
# alone), never a hang
cat > "$tmp/gx.ini" <<'INI'
[protocol]
family = gossip
min_participants = 6
payload_timeout = 20s
round_deadline = 2s
[training]
rounds = 3
[model]
kind = softmax
learning_rate = 0.05
[data]
features = 8
classes = 3
samples = 1200
separation = 3.0
[peers]
count = 6
INI
for pol in wait deadline async; do
  expect 0 "300 runs in .*, 0 failing, 0 distinct failures" -- "$DLSIM" explore "$tmp/gx.ini" --runs 300 --set protocol.straggler_policy=$pol
done
# the lost admission itself, and drops of NewNodeInfo only (2 of 300 hung
# before the repeat): the joiner says ClientConnected again and all finish
lost_admission () { # FAMILY INI
  "$DLSIM" run "$2" --set 'timeline.0s=drop NewNodeInfo to p2' -o "$tmp/$1-lost.db" -q >/dev/null 2>&1
  [ "$(sqlite3 "$tmp/$1-lost.db" "SELECT value FROM summary WHERE key = 'outcome'")" = completed ] \
    && [ "$(sqlite3 "$tmp/$1-lost.db" 'SELECT COUNT(*) FROM violations')" = 0 ] \
    && ok "$1: a lost NewNodeInfo no longer hangs" || ko "$1: a lost NewNodeInfo: $(sqlite3 "$tmp/$1-lost.db" 'SELECT property, explanation FROM violations LIMIT 2')"
  expect 0 "sent ClientConnected to S" -- "$DLSIM" trace "$tmp/$1-lost.db" --run 1 --peer p2
  [ "$(grep -c 'sent ClientConnected to S' "$out")" -eq 2 ] && ok "$1: the joiner said ClientConnected twice" || ko "$1: ClientConnected sent $(grep -c 'sent ClientConnected to S' "$out") times"
  expect 0 "300 runs in .*, 0 failing, 0 distinct failures" -- "$DLSIM" explore "$2" --runs 300 --faults drop --messages NewNodeInfo --no-shrink
}
lost_admission gossip "$tmp/gx.ini"
sed 's/^family = gossip/family = hierarchical/; /^round_deadline/d; /^payload_timeout/d' "$tmp/gx.ini" > "$tmp/hx.ini"
printf 'cluster_size = 3\nhead_timeout = 10s\n' > "$tmp/hx-extra"
sed -i "/^family = hierarchical/r $tmp/hx-extra" "$tmp/hx.ini"
"$DLSIM" explore "$tmp/hx.ini" --runs 200 --no-shrink -o "$tmp/hx.db" > "$tmp/hx.out" 2>&1
sigs=$(sed -n '/^signature/,/^$/p' "$tmp/hx.out" | sed '1d;/^$/d' | awk '{print $1}' | sort -u | tr '\n' ' ')
case "$sigs" in
  ""|"agreement "|"agreement no-lost-model "|"no-lost-model ") ok "hierarchical under fault search: no hang ($sigs)" ;;
  *) ko "hierarchical under fault search found: $sigs"; cat "$tmp/hx.out" | head -20 ;;
esac
# hierarchical's lost admission (2 of 300 NewNodeInfo drops hung before the
# repeat, as gossip's: protocol/hierarchical/README.md, "Lost messages"):
# the joiner says ClientConnected again after head_timeout and all finish
lost_admission hierarchical "$tmp/hx.ini"

# the pipeline family under fault search: no failure in either mode (it
# found a lost lookup and a lost hello, both fixed and pinned in
# protocol/pipeline/scenarios/pipeline-lost-*.ini)
for fw in next-peer client; do
  expect 0 "500 runs in .*, 0 failing, 0 distinct failures" -- "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-pipeline.ini" \
    --runs 500 -j 2 --set protocol.forwarding=$fw -o "$tmp/px-$fw.db"
done
expect 0 "500 runs in .*, 0 failing, 0 distinct failures" -- "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-pipeline.ini" \
  --runs 500 -j 2 --set protocol.client_copy=hash --set protocol.faulty_share=0.5 -o "$tmp/px-hash.db"

# the replicated coordinator under fault search: five replicas with the
# leader crashing once or twice among every other fault, robust's machines:
# no failure (the search found a lost SessionResume never sent again, and
# peers whose closed sessions were owed progress; both fixed); three
# replicas crashing twice lose the majority and stall, and the search says so
expect 0 "600 runs in .*, 0 failing, 0 distinct failures" -- "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini" \
  --runs 600 -j 2 --version robust --set protocol.coordinator_replicas=5 \
  --faults coordinator-crash,drop,delay,crash,leave,join,partition,link-fail,link-down,link-slow,slow,jitter,rejoin -o "$tmp/rx.db"
expect 0 "progress in wait-peers-for-round" -- "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini" \
  --runs 200 -j 2 --version robust --set protocol.coordinator_replicas=3 --faults coordinator-crash --no-shrink -o "$tmp/rx3.db"
expect 2 "unknown kind 'leader-crash'" -- "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini" --faults leader-crash
# in a log (stdout not a terminal): status lines on stderr, every
# DLSIM_PROGRESS_INTERVAL seconds (0: after every run), none on stdout
DLSIM_PROGRESS_INTERVAL=0 "$DLSIM" explore "${DLSIM_SRCDIR:-.}/scenarios/examples/explore-base.ini" --runs 5 --no-shrink \
  > "$tmp/st.out" 2> "$tmp/st.err"
grep -q "^dlsim explore: 5/5 runs, [0-9]* failing, [0-9]* distinct, [0-9]* s elapsed$" "$tmp/st.err" \
  && ! grep -q "dlsim explore:" "$tmp/st.out" && ok "explore: status lines on stderr" \
  || { ko "explore: status lines: stderr:"; cat "$tmp/st.err"; }

# coverage on a guest (the project's Python one): its peers name their
# states as they run (no "N of 0"), its drops are Guest:KIND (the rule on
# Guest fired), and only its own message type is listed
if command -v python3 >/dev/null; then
  "$DLSIM" explore "${DLSIM_SRCDIR:-.}/protocol/guest/scenarios/pushpull.ini" --runs 6 --faults drop --no-shrink \
    > "$tmp/g.txt" 2>&1
  grep -q "^coverage: [1-9][0-9]* peer states reached (the family lists none in advance): [a-z]" "$tmp/g.txt" \
    && ! grep -q " of 0 peer states" "$tmp/g.txt" && ok "guest: states reached" \
    || { ko "guest coverage:"; cat "$tmp/g.txt"; }
  grep -q "^drop rules that never fired: -$" "$tmp/g.txt" && ok "guest: Guest:KIND drops fire Guest's rule" \
    || ko "guest: $(grep '^drop rules' "$tmp/g.txt")"
  grep -q "^messages never dropped for want of a listener: Guest$" "$tmp/g.txt" && ok "guest: its own type only" \
    || ko "guest: $(grep '^messages never' "$tmp/g.txt")"
fi

# a printed seed reproduces its run: the signature shown with seed S in a
# 30-run search is the one `--seed S --runs 1` shows, and the one a search
# from another base that covers S shows (run i's plan is drawn from its
# own seed, base + i, not from the base and i)
sig_of () {   # FILE SEED: the signature whose seeds list SEED ("-" if none)
  awk -v s="$2" '/^signature  / { t = 1; next } t && NF == 0 { t = 0 }
    t { for (i = NF; i > 1 && $(i - 1) ~ /^[0-9.]+$/; i--) if ($i == s) { sub(/  +[0-9]+  +[0-9 .]*$/, ""); print; exit } }' "$1" \
    | grep . || echo -
}
x () { "$DLSIM" explore "$base" --no-shrink "$@" 2>&1; }
x --runs 30 > "$tmp/s30.txt"; x --seed 20 --runs 11 > "$tmp/s20.txt"
bad=0 n=0
for s in $(seq 1 30); do
  one=$(x --seed "$s" --runs 1 > "$tmp/s1.txt"; sig_of "$tmp/s1.txt" "$s")
  for f in s30 s20; do   # where the table lists s (it shows six seeds a row)
    want=$(sig_of "$tmp/$f.txt" "$s")
    [ "$want" = - ] && continue
    n=$((n + 1))
    [ "$one" = "$want" ] || { bad=1; echo "  seed $s: '$want' in $f.txt, '$one' alone"; }
  done
done
[ "$bad" -eq 0 ] && [ "$n" -ge 20 ] && ok "a printed seed reproduces its run" \
  || ko "a printed seed does not reproduce its run ($n failing seeds checked)"

# --guided (coverage as feedback): the table depends on the seed alone, as
# without it (-j 1 and -j 2 alike), and it is a different search: runs
# that mutate a plan of the corpus fail differently from fresh draws
g () { "$DLSIM" explore "$base" --runs 300 --no-shrink --guided "$@" 2>&1 | sed 's/ in [0-9.]* s,/,/'; }
g > "$tmp/g1.txt"; g -j 2 > "$tmp/g2.txt"
cmp -s "$tmp/g1.txt" "$tmp/g2.txt" && ok "--guided: -j 2 gives the same table" \
  || { ko "--guided: -j 2 differs"; diff "$tmp/g1.txt" "$tmp/g2.txt" | head; }
g -j 2 > "$tmp/g3.txt"
cmp -s "$tmp/g2.txt" "$tmp/g3.txt" && ok "--guided: deterministic" || ko "--guided: two searches differ"
cmp -s "$tmp/a.txt" "$tmp/g1.txt" && ko "--guided searches as the default does" || ok "--guided is another search"
grep -q "^progress in linking " "$tmp/g1.txt" && ok "--guided: S8's hang found" || ko "--guided: no S8 in 300 runs"
# its shrunk failures reproduce: a failure's plan is the mutated one
expect 0 "reproduces" -- "$DLSIM" explore "$base" --runs 200 --guided -j 2 --found "$tmp/gfound/"
grep -q "DOES NOT reproduce" "$out" && ko "--guided: a shrunk file does not reproduce" || ok "--guided: all reproduce"

finish
