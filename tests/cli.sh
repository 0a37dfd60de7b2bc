#!/bin/sh
# tests/cli.sh — the dlsim command as a user runs it: help, version, exit
# codes, usage errors, and the PHOLD benchmark's cross-check.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"

expect 0 "^dlsim [0-9][0-9.]* (build [0-9a-f.]*" -- "$DLSIM" --version
expect 0 "Commands:" -- "$DLSIM" --help
expect 2 "Usage: dlsim COMMAND" -- "$DLSIM"
expect 2 "unknown command 'frobnicate'" -- "$DLSIM" frobnicate
expect 2 "nope.ini: no such file or directory" -- "$DLSIM" run nope.ini
expect 2 "no scenario file given" -- "$DLSIM" run
expect 1 "x.db: no such results database" -- "$DLSIM" plot x.db convergence
expect 0 "^  dlsim check \[OPTION" -- "$DLSIM" check --help
expect 0 "^  dlsim run \[OPTION" -- "$DLSIM" run --help
expect 0 "^  dlsim trace \[OPTION" -- "$DLSIM" trace --help
expect 0 "^  dlsim report \[OPTION" -- "$DLSIM" report --help
expect 0 "Models:" -- "$DLSIM" bench --help
expect 2 "unknown benchmark 'nope'" -- "$DLSIM" bench nope
expect 0 "lookahead" -- "$DLSIM" bench phold --help

# dlsim families: the registry's families (those --help names, in its
# order, and those a bad [protocol] family lists), each with what it is
expect 0 "^  dlsim families \[OPTION" -- "$DLSIM" families --help
expect 2 "families: takes no arguments" -- "$DLSIM" families extra
"$DLSIM" families > "$tmp/families"
listed=$(awk '{ print $1 }' "$tmp/families" | tr '\n' ' ')
inhelp=$("$DLSIM" --help | sed -n '/what each is):$/{n;p;}' | sed 's/^ *//; s/\.$//; s/,//g; s/ and / /')
[ -n "$inhelp" ] && [ "$listed" = "$inhelp " ] && ok "dlsim families lists --help's families" \
  || ko "dlsim families lists '$listed', --help '$inhelp'"
printf '[protocol]\nfamily = nope\n' > "$tmp/nofam.ini"
refused=$("$DLSIM" run "$tmp/nofam.ini" -o "$tmp/nofam.db" 2>&1 | sed -n 's/.*(expected \([^)]*\)).*/\1/p' \
  | sed 's/,//g; s/ or / /')
[ -n "$refused" ] && [ "$listed" = "$refused " ] && ok "dlsim families lists the families a scenario takes" \
  || ko "dlsim families lists '$listed', a bad family is told '$refused'"
short=$(awk 'NF < 5' "$tmp/families")
[ -z "$short" ] && ok "every family has a description" || ko "families without a description: $short"
head -1 "$tmp/families" | grep -q ' (the default)$' && [ "$(grep -c '(the default)' "$tmp/families")" = 1 ] \
  && ok "the first family is the default" || ko "the default is not marked once, first: $(cat "$tmp/families")"
expect 2 "end: '5x': unknown duration unit 'x'" -- "$DLSIM" bench phold --end 5x
expect 2 "must be positive" -- "$DLSIM" bench phold --lps 0
expect 2 "probability" -- "$DLSIM" bench phold --remote 1.5
expect 2 "unexpected argument 'extra'" -- "$DLSIM" bench phold extra
expect 0 "[0-9] events/s" -- "$DLSIM" bench phold --lps 100 --events-per-lp 4 --end 10s
expect 0 "ratio engine/reference" -- "$DLSIM" bench phold --lps 100 --events-per-lp 4 --end 10s --compare --repeat 1

expect 0 "outcome completed, rounds completed 2, peers finished 20" -- "$DLSIM" bench scale --peers 20 --rounds 2 --model-size 1000
expect 2 "must be positive" -- "$DLSIM" bench scale --peers 0
# bench scale stays fluid without --transport, whatever the key's default
# (its readings in docs/performance.md stay comparable)
expect 0 "transport=fluid" -- "$DLSIM" bench scale --peers 5 --rounds 1 --model-size 10
expect 0 "transport=tcp" -- "$DLSIM" bench scale --peers 5 --rounds 1 --model-size 10 --transport tcp
expect 2 "uplink: '5x'" -- "$DLSIM" bench scale --uplink 5x
expect 0 "peak memory" -- "$DLSIM" bench scale --peers 5 --rounds 1 --model-size 10 --secure
# disco-pre775 caps a round at min_participants: 50 peers, 3 rounds each, lists of 5
expect 0 "outcome completed, rounds completed 3, peers finished 50" -- "$DLSIM" bench scale --version disco-pre775 --peers 50 --min-participants 5 --rounds 3 --model-size 10
expect 2 "min-participants" -- "$DLSIM" bench scale --min-participants -1
expect 0 "recording costs [-+][0-9]* %" -- "$DLSIM" bench record --peers 5 --rounds 2 --model-size 100 --repeat 1
expect 2 "must be positive" -- "$DLSIM" bench record --repeat 0
expect 2 "unexpected argument 'x'" -- "$DLSIM" bench record x

# help says what each command takes: the top-level help names every bench
# model; run --help lists none of check's options and check --help none of
# run's (each refuses the other's, saying whose it is); -q is what each says
models=$("$DLSIM" bench --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
bl=$("$DLSIM" --help | grep '^  bench ')
nb=$(for m in $models; do echo "$bl" | grep -q "[( ]$m[,)]" || echo "$m"; done)
[ -n "$models" ] && [ -z "$nb" ] && ok "help names the bench models" || ko "dlsim --help does not name bench models: $nb"
"$DLSIM" run --help > "$tmp/rh" 2>&1
"$DLSIM" check --help > "$tmp/ch" 2>&1
for o in testbed netem junit tap; do
  grep -q -e "--$o" "$tmp/rh" && ko "run --help lists check's --$o" || ok "run --help without --$o"
done
for o in keys shard resume; do
  grep -q -e "--$o" "$tmp/ch" && ko "check --help lists run's --$o" || ok "check --help without --$o"
done
expect 2 "belong to dlsim check" -- "$DLSIM" run --junit x.xml nope.ini
expect 2 "belong to dlsim run" -- "$DLSIM" check --shard 0/2 nope.ini
printf '[peers]\ncount = 2\n[protocol]\nmin_participants = 2\n[training]\nrounds = 1\n[expect]\noutcome = completed\n' > "$tmp/q.ini"
"$DLSIM" run "$tmp/q.ini" -o "$tmp/q.db" -q > "$tmp/q.out" 2>&1
[ -s "$tmp/q.out" ] && { ko "run -q printed:"; cat "$tmp/q.out"; } || ok "run -q prints nothing"
expect 0 "^1 passed, 0 failed" -- "$DLSIM" check "$tmp/q.ini" -q
# nothing to check is an error that says where it looked: a folder without
# an [expect] file, a file without one, and no argument in a folder without
# scenarios/ or protocol/*/scenarios/ (the default, which --help names)
mkdir -p "$tmp/noexp"
sed '/^\[expect\]/,$d' "$tmp/q.ini" > "$tmp/noexp/n.ini"
expect 2 "^dlsim check: no scenario with an \[expect\] section found in .*noexp$" -- "$DLSIM" check "$tmp/noexp"
expect 2 "no scenario with an \[expect\] section found in .*noexp/n.ini" -- "$DLSIM" check "$tmp/noexp/n.ini"
expect 2 "found in scenarios and protocol/\*/scenarios (the folders checked when no FILE or DIR is given)" -- \
  sh -c "cd '$tmp/noexp' && '$DLSIM' check"
tr '\n' ' ' < "$tmp/ch" | grep -q "no FILE or DIR.*scenarios and each family's ./protocol/\*/scenarios" \
  && ok "check --help names the default folders" \
  || ko "check --help does not say what it checks with no FILE or DIR"
# a family's own scenarios (protocol/FAMILY/scenarios/) are checked with
# no argument too, after scenarios/
mkdir -p "$tmp/fam/scenarios" "$tmp/fam/protocol/ring/scenarios" "$tmp/fam/protocol/ring2"
cp "$tmp/q.ini" "$tmp/fam/scenarios/a.ini"
cp "$tmp/q.ini" "$tmp/fam/protocol/ring/scenarios/b.ini"
cp "$tmp/q.ini" "$tmp/fam/protocol/ring2/c.ini"
(cd "$tmp/fam" && "$DLSIM" check) > "$tmp/fam.out" 2>&1
if grep -q "^2 passed, 0 failed" "$tmp/fam.out" && grep -q "PASS.*scenarios/a.ini" "$tmp/fam.out" \
   && grep -q "PASS.*protocol/ring/scenarios/b.ini" "$tmp/fam.out"; then
  ok "check with no argument: scenarios/ and protocol/*/scenarios/"
else
  ko "check with no argument in scenarios/ and protocol/ring/scenarios/ gave: $(tail -3 "$tmp/fam.out")"
fi
# a run that ends in error (a guest that does not start) is counted as an
# error on the last line, not hidden behind "0 passed, 0 failed"
printf '[protocol]\nfamily = guest\nguest_command = sh -c "exit 3"\nmin_participants = 2\n[peers]\ncount = 2\n[training]\nrounds = 1\n[expect]\noutcome = completed\n' \
  > "$tmp/gerr.ini"
expect 1 "^0 passed, 0 failed, 1 error$" -- "$DLSIM" check "$tmp/gerr.ini" -q
cp "$tmp/gerr.ini" "$tmp/gerr2.ini"
expect 1 "^1 passed, 0 failed, 2 errors$" -- "$DLSIM" check "$tmp/q.ini" "$tmp/gerr.ini" "$tmp/gerr2.ini" -q -j 3
grep -e "-q, --quiet" "$tmp/ch" | grep -q "last line stay" && ok "check --help: -q keeps the last line" \
  || ko "check --help says of -q: $(grep -e '-q, --quiet' "$tmp/ch")"
grep -e "-q, --quiet" "$tmp/rh" | grep -q "no summary line" && ok "run --help: -q" || ko "run --help: -q"
# progress in a log (stdout and stderr not a terminal): status lines on
# stderr, every DLSIM_PROGRESS_INTERVAL seconds (0: after every run) and a
# last one; -q none.  Three runs of q.ini, one at a time and on 2 workers.
sed 's/^\[peers\]/[scenario]\nrepeat = 3\n[peers]/' "$tmp/q.ini" > "$tmp/p.ini"
for j in 1 2; do
  rm -f "$tmp/p.db"
  DLSIM_PROGRESS_INTERVAL=0 "$DLSIM" run "$tmp/p.ini" -o "$tmp/p.db" -j $j > "$tmp/p.out" 2> "$tmp/p.err"
  if grep -q "^dlsim run: [12]/3 runs, [0-9]* s elapsed, ETA .*M events/s" "$tmp/p.err" \
     && grep -q "^dlsim run: 3/3 runs, [0-9]* s elapsed; .*M events/s (end)$" "$tmp/p.err" \
     && ! grep -q "dlsim run:" "$tmp/p.out"; then
    ok "status lines on stderr (-j $j)"
  else
    ko "status lines (-j $j): stderr:"; cat "$tmp/p.err"
  fi
  rm -f "$tmp/p.db"
  DLSIM_PROGRESS_INTERVAL=0 "$DLSIM" run "$tmp/p.ini" -o "$tmp/p.db" -j $j -q > "$tmp/p.out" 2>&1
  [ -s "$tmp/p.out" ] && { ko "run -q -j $j printed:"; cat "$tmp/p.out"; } || ok "run -q: no status line (-j $j)"
done
# the default interval is 10 s: a run of a second says nothing more than before
rm -f "$tmp/p.db"
env -u DLSIM_PROGRESS_INTERVAL "$DLSIM" run "$tmp/p.ini" -o "$tmp/p.db" > "$tmp/p.out" 2> "$tmp/p.err"
[ -s "$tmp/p.err" ] && { ko "a short run printed on stderr:"; cat "$tmp/p.err"; } || ok "a short run: no status line"
# dlsim node by hand (-o, no --report) says on stderr how its run goes: a
# peer each round's training done and when it has finished its rounds, the
# coordinator each round it starts
SRC=${DLSIM_SRCDIR:-.}
f=$SRC/protocol/disco/scenarios/regression/consensus-mean-3.ini
"$DLSIM" node coordinator --listen 127.0.0.1:0 --secret-file "$tmp/n.secret" --scenario "$f" -o "$tmp/n-coord.db" \
  > /dev/null 2> "$tmp/n-coord.err" &
cpid=$!
i=0
while [ $i -lt 50 ] && ! grep -q "listening on" "$tmp/n-coord.err"; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/n-coord.err")
for i in 1 2 3; do
  "$DLSIM" node peer --coordinator "127.0.0.1:$port" --name p$i --secret-file "$tmp/n.secret" --scenario "$f" -o "$tmp/n-p$i.db" \
    < /dev/null > /dev/null 2> "$tmp/n-p$i.err" &
done
for i in $(seq 1 150); do grep -q "finished its" "$tmp/n-p3.err" 2>/dev/null && break; sleep 0.1; done
kill -TERM $cpid
wait
grep -q "^dlsim node p3: round 3: training done, [0-9.]* s after start$" "$tmp/n-p3.err" \
  && grep -q "^dlsim node p3: finished its 3 rounds, [0-9.]* s after start$" "$tmp/n-p3.err" \
  && ok "a node peer says when it is done" || { ko "dlsim node peer's stderr:"; cat "$tmp/n-p3.err"; }
grep -q "^dlsim node coordinator: round 3 started with 3 peers" "$tmp/n-coord.err" \
  && ok "the coordinator says its rounds" || { ko "dlsim node coordinator's stderr:"; cat "$tmp/n-coord.err"; }
# shrink --help says what the user guide says it does: ddmin, then rounder times
"$DLSIM" shrink --help > "$tmp/sh" 2>&1
grep -q "Not yet.*times" "$tmp/sh" && ko "shrink --help says it does not shrink times" || ok "shrink --help on times"
grep -q "rounder" "$tmp/sh" && ok "shrink --help: rounder times" || ko "shrink --help does not say it makes times rounder"

# errors say why: a bad --set value blames --set, not the file; a peer's
# bad --name says so, not that the option is missing
expect 2 "^dlsim run: --set training.rounds=abc: \[training\] rounds: 'abc' is not a whole number" -- \
  "$DLSIM" run "$tmp/q.ini" -o "$tmp/set.db" --set training.rounds=abc
expect 2 "^dlsim check: --set peers.count=x: \[peers\] count" -- "$DLSIM" check "$tmp/q.ini" --set peers.count=x
# --set is one SECTION.KEY=VALUE argument: `--set peers.count 4` is refused
# as such, not taken as a file named 4, by every command that has --set
for c in run check explore testbed; do
  expect 2 "^dlsim $c: --set peers.count: --set needs SECTION.KEY=VALUE" -- "$DLSIM" $c "$tmp/q.ini" --set peers.count 4
done
# testbed --queue names itself and its value: a bad duration, 0, and
# without --netem (the loopback has no tbf to queue in)
expect 2 "^dlsim testbed: --queue fast: 'fast' is not a duration" -- \
  "$DLSIM" testbed "$tmp/q.ini" --netem --queue fast
expect 2 "^dlsim testbed: --queue 0s: expected a duration > 0" -- "$DLSIM" testbed "$tmp/q.ini" --netem --queue 0s
expect 2 "^dlsim testbed: --queue 8ms: the queue is --netem's tbf" -- "$DLSIM" testbed "$tmp/q.ini" --queue 8ms
# --congestion-control: --netem's only, a word, one the kernel lists (the
# message names the file it read), all before a database is made
expect 2 "^dlsim testbed: --congestion-control bbr: the loopback's TCP is the machine's; add --netem" -- \
  "$DLSIM" testbed "$tmp/q.ini" --congestion-control bbr -o "$tmp/cc.db"
expect 2 "^dlsim testbed: --congestion-control: congestion control 'cubic dev lo': expected a kernel's name" -- \
  "$DLSIM" testbed "$tmp/q.ini" --netem --congestion-control "cubic dev lo" -o "$tmp/cc.db"
expect 2 "^dlsim testbed: --congestion-control: congestion control 'no_such_cc' is not one this kernel offers (/proc/sys/net/ipv4/tcp_available_congestion_control" -- \
  "$DLSIM" testbed "$tmp/q.ini" --netem --congestion-control no_such_cc -o "$tmp/cc.db"
[ ! -e "$tmp/cc.db" ] && ok "testbed --congestion-control: refused before a database" \
  || ko "testbed --congestion-control: a refused name left $tmp/cc.db"
expect 2 "^dlsim node: --set peers.count: --set needs SECTION.KEY=VALUE" -- \
  "$DLSIM" node peer --set peers.count 4 --scenario "$tmp/q.ini"
# a relative path in a --set value is the scenario file's folder's, as
# --help says: a trace beside the file is found from another folder
for c in run check explore testbed node; do
  "$DLSIM" $c --help | grep -q -- "--set.*relative path in VALUE is taken from the scenario file's folder" \
    && ok "$c --help: --set paths" || ko "$c --help does not say where --set paths are taken from"
done
mkdir -p "$tmp/setdir"
cp "$tmp/q.ini" "$tmp/setdir/q.ini" && printf 'peer,join,leave\np1,0,100000\np2,0,100000\n' > "$tmp/setdir/tr.csv"
expect 0 "^1 run into" -- sh -c "cd '$tmp' && '$DLSIM' run setdir/q.ini --set churn.trace=tr.csv -o setdir.db"
expect 2 "trace: setdir/setdir/tr.csv:" -- sh -c "cd '$tmp' && '$DLSIM' run setdir/q.ini --set churn.trace=setdir/tr.csv -o x.db"
printf '[peers]\ncount = z\n' > "$tmp/z.ini"   # the file's own bad value: the file is named
expect 2 "z.ini: \[peers\] count: 'z' is not" -- "$DLSIM" run "$tmp/z.ini" -o "$tmp/set.db" --set training.rounds=2
expect 2 "^dlsim node: --name bob: a peer's name is p and its number" -- \
  "$DLSIM" node peer --name bob --coordinator 127.0.0.1:1 --scenario "$tmp/q.ini"
expect 2 "missing: --coordinator" -- "$DLSIM" node peer --name p1 --scenario "$tmp/q.ini"

# a database that cannot be created says why: a missing folder, a read-only one
expect 1 "nodir/x.db: cannot create the database: the folder .*nodir does not exist" -- \
  "$DLSIM" run "$tmp/q.ini" -o "$tmp/nodir/x.db"
mkdir -p "$tmp/ro" && chmod 755 "$tmp" && chmod 644 "$tmp/q.ini" && chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  expect 1 "ro/x.db: cannot create the database: the folder .*ro is not writable" -- "$DLSIM" run "$tmp/q.ini" -o "$tmp/ro/x.db"
elif command -v setpriv >/dev/null; then   # root writes anywhere: as nobody
  expect 1 "ro/x.db: cannot create the database: the folder .*ro is not writable" -- \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$DLSIM" run "$tmp/q.ini" -o "$tmp/ro/x.db"
fi

# Same seed, same checksum; engine and reference agree (also checked by --compare).
a=$("$DLSIM" bench phold --lps 64 --end 5s --seed 3 | sed -n 's/.*order checksum \([0-9a-f]*\).*/\1/p')
b=$("$DLSIM" bench phold --lps 64 --end 5s --seed 3 --reference | sed -n 's/.*order checksum \([0-9a-f]*\).*/\1/p')
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: checksums '$a' vs '$b'"; fi

# install: every shipped scenario is in scenarios/local.mk, and a
# family's own (protocol/FAMILY/scenarios/) in protocol/FAMILY/local.mk
# (make install copies those lists), the man page and the completion know
# every command
SRC=${DLSIM_SRCDIR:-.}
missing=$(cd "$SRC" && find scenarios protocol/*/scenarios -name '*.ini' 2>/dev/null | sort | while read -r f; do
  case $f in
    protocol/*) mk=${f%%/scenarios/*}/local.mk ;;
    *) mk=scenarios/local.mk ;;
  esac
  grep -q "	$f " "$mk" 2>/dev/null || echo "$f (not in $mk)"
done)
[ -z "$missing" ] && ok "scenarios listed" || ko "make install would miss these scenarios: $missing"
cmds=$("$DLSIM" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
[ "$(echo "$cmds" | wc -l)" -ge 14 ] && ok "help lists the commands" || ko "dlsim --help lists only: $cmds"
nm=$(for c in $cmds; do grep -q "^\.B $c\b" "$SRC/docs/dlsim.1.in" || echo "$c"; done)
[ -z "$nm" ] && ok "man page" || ko "commands missing from docs/dlsim.1.in: $nm"
# the man page names every option of every command's --help (and each
# benchmark model's) in that command's own section (tools/man-options
# writes them), and has the sections a man page is read for
man_section () {  # man_section "CMD...": the lines of its .SS section
  awk -v h=".SS \"dlsim $1\"" '$0 == h { on = 1; next } on && /^\.S[SH] / { exit } on' "$SRC/docs/dlsim.1.in"
}
models=$("$DLSIM" bench --help 2>&1 | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
mo=$( (for c in $cmds; do [ "$c" = bench ] || echo "$c"; done; for m in $models; do echo "bench $m"; done) | while read -r c; do
  # shellcheck disable=SC2086
  for o in $("$DLSIM" $c --help 2>&1 | sed -n '/^Application Options:/,/^$/p' | grep -o -e '--[a-z][a-z0-9-]*' | sort -u); do
    man_section "$c" | sed 's/\\-/-/g' | grep -q -e "^\.B .*$o\b" || echo "dlsim $c $o"
  done
done)
[ -z "$mo" ] && ok "man page: every command's options" || ko "options missing from docs/dlsim.1.in (tools/man-options ./dlsim --update): $mo"
for sec in "COMMAND OPTIONS" "SCENARIO FORMAT" ENVIRONMENT EXAMPLES; do
  grep -q "^\.SH $sec\$" "$SRC/docs/dlsim.1.in" && ok "man page: $sec" || ko "man page: no $sec section"
done
# every environment variable the binary reads is in ENVIRONMENT
envs=$(cd "$SRC" && grep -rhoE --exclude-dir=tests 'g_getenv \("DLSIM_[A-Z_]+"' cli sim results plots bench base learn protocol | sed 's/.*"\(.*\)"/\1/' | sort -u)
for e in $envs; do
  awk '/^\.SH ENVIRONMENT/ { on = 1; next } on && /^\.SH / { exit } on' "$SRC/docs/dlsim.1.in" | grep -qx ".B $e" \
    && ok "man page: $e" || ko "man page: $e is not in ENVIRONMENT"
done
# make install installs the documents (every docs/*.md) and their figures
ni=$(for f in $(cd "$SRC" && ls docs/*.md docs/figures/*.png); do
  grep -qxF "$(printf '\t%s \\' "$f")" "$SRC/Makefile.am" || echo "$f"
done)
[ -z "$ni" ] && ok "documents installed" || ko "not installed (Makefile.am dist_doc_DATA, dist_docfigures_DATA): $ni"
# make install installs every tool the user documents name (tools/NAME);
# install-deps and the family-* checks are for the source tree
ut=$(cd "$SRC" && grep -ohE 'tools/[a-z][a-z0-9-]+' README.md docs/user-guide.md docs/cluster.md \
  docs/data.md docs/families.md | sort -u | grep -v -e install-deps -e tools/family-)
ni=$(for t in $ut; do grep -qxF "$(printf '\t%s \\' "$t")" "$SRC/Makefile.am" || echo "$t"; done)
[ -n "$ut" ] && [ -z "$ni" ] && ok "documented tools installed" \
  || ko "named by the documents, not installed (Makefile.am dist_usertools_SCRIPTS): $ni"
comp=$(bash -c ". '$SRC/tools/completion/dlsim'; PATH='$(dirname "$DLSIM")':\$PATH; COMP_WORDS=(dlsim ex); COMP_CWORD=1; _dlsim; echo \${COMPREPLY[*]}")
[ "$comp" = "explore export export-scenario" ] && ok "completion of commands" || ko "completion of 'ex': '$comp'"
comp=$(bash -c ". '$SRC/tools/completion/dlsim'; PATH='$(dirname "$DLSIM")':\$PATH; COMP_WORDS=(dlsim run --sh); COMP_CWORD=2; _dlsim; echo \${COMPREPLY[*]}")
[ "$comp" = "--shard" ] && ok "completion of options" || ko "completion of 'run --sh': '$comp'"
# completion offers plot kinds, benchmark models, --format values and --set
# keys, each read from the binary
complete_words () {  # complete_words CWORD WORD...: what _dlsim offers
  cw=$1; shift
  bash -c ". '$SRC/tools/completion/dlsim'; PATH='$(dirname "$DLSIM")':\$PATH; COMP_WORDS=(\"\$@\"); COMP_CWORD=$cw; _dlsim; echo \${COMPREPLY[*]}" _ "$@"
}
kinds=$("$DLSIM" plot --help | sed -n '/^KIND is one of:/,/^[^ ]/s/^  \([a-z][a-z-]*\)  .*/\1/p' | tr '\n' ' ')
[ "$(complete_words 3 dlsim plot x.db '') " = "$kinds" ] && [ "$kinds" != " " ] && ok "completion of plot kinds" \
  || ko "completion of 'plot x.db ': '$(complete_words 3 dlsim plot x.db '')' (kinds: $kinds)"
comp=$(complete_words 5 dlsim plot --run 2 x.db s)
[ "$comp" = "scaling summary" ] && ok "completion of a plot kind after --run N" || ko "completion of 'plot --run 2 x.db s': '$comp'"
comp=$(complete_words 2 dlsim bench '')
[ "$comp" = "phold scale record fuzz-frames" ] && ok "completion of bench models" || ko "completion of 'bench ': '$comp'"
comp=$(complete_words 4 dlsim export x.db --format '')
[ "$comp" = "csv jsonl" ] && ok "completion of export --format" || ko "completion of 'export --format ': '$comp'"
comp=$(complete_words 4 dlsim trace x.db --format '')
[ "$comp" = "text perfetto" ] && ok "completion of trace --format" || ko "completion of 'trace --format ': '$comp'"
comp=$(complete_words 4 dlsim run x.ini --set scenario.rep)
[ "$comp" = "scenario.repeat=" ] && ok "completion of a --set key" || ko "completion of 'run --set scenario.rep': '$comp'"
comp=$(complete_words 3 dlsim check x.ini --set=peers.cou)
[ "$comp" = "--set=peers.count=" ] && ok "completion of --set=KEY" || ko "completion of 'check --set=peers.cou': '$comp'"
nkeys=$(complete_words 4 dlsim run x.ini --set '' | wc -w)
[ "$nkeys" -eq "$("$DLSIM" run --keys | wc -l)" ] && ok "completion: every --set key" \
  || ko "completion offers $nkeys --set keys, dlsim run --keys lists $("$DLSIM" run --keys | wc -l)"

# printed paths have no doubled slash: a folder given as "DIR/"
"$DLSIM" run "${DLSIM_SRCDIR:-.}/protocol/disco/scenarios/regression/consensus-mean-3.ini" -o "$tmp/slash.db" -q >/dev/null 2>&1
expect 0 "^$tmp/ex/runs.csv: 1 rows" -- "$DLSIM" export "$tmp/slash.db" --format csv -o "$tmp/ex/"
grep -q "//" "$out" && ko "export printed a doubled slash: $(grep -m1 // "$out")" || ok "export: no doubled slash"

# huge pages (cli/main.c, exec_with_huge_pages): dlsim execs itself once
# with glibc.malloc.hugetlb=1 put before what GLIBC_TUNABLES held; read
# from /proc while it waits on a FIFO for its scenario (Debian 12's
# glibc cuts the text at the first ':' as it reads it; others may not)
if [ -r /proc/self/environ ]; then
  mkfifo "$tmp/wait.ini"
  env -u DLSIM_HUGETLB GLIBC_TUNABLES=glibc.malloc.arena_max=2 "$DLSIM" run "$tmp/wait.ini" -o "$tmp/wait.db" -q >/dev/null 2>&1 &
  pid=$!
  seen=""
  for i in $(seq 100); do
    seen=$(tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep '^GLIBC_TUNABLES=')
    case "$seen" in *hugetlb*) break ;; esac
    sleep 0.1
  done
  once=$(tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep '^DLSIM_HUGETLB=')
  name=$(cat /proc/$pid/comm 2>/dev/null)
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  case "$seen" in
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1|GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2) ;;
    *) seen="wrong: $seen" ;;
  esac
  [ "${seen#wrong}" = "$seen" ] && [ "$once" = "DLSIM_HUGETLB=1" ] && [ "$name" = "$(basename "$DLSIM")" ] \
    && ok "dlsim runs with malloc's huge pages" \
    || ko "dlsim's GLIBC_TUNABLES: '$seen', its DLSIM_HUGETLB: '$once', its name '$name'"
fi

# DLSIM_HUGETLB set (to anything): no exec, GLIBC_TUNABLES as it was.
# Opening the FIFO to write returns once dlsim has opened it to read its
# scenario, after main's exec point: what /proc shows then is final.
if [ -r /proc/self/environ ]; then
  mkfifo "$tmp/wait0.ini"
  env DLSIM_HUGETLB=0 GLIBC_TUNABLES=glibc.malloc.arena_max=2 "$DLSIM" run "$tmp/wait0.ini" -o "$tmp/wait0.db" -q >/dev/null 2>&1 &
  pid=$!
  seen=$(timeout 20 sh -c 'exec 9>"$1"; tr "\0" "\n" < /proc/$2/environ' _ "$tmp/wait0.ini" $pid | grep '^GLIBC_TUNABLES=')
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  [ "$seen" = "GLIBC_TUNABLES=glibc.malloc.arena_max=2" ] && ok "DLSIM_HUGETLB=0: dlsim runs as started" \
    || ko "DLSIM_HUGETLB=0: dlsim's GLIBC_TUNABLES: '$seen'"
fi

finish
