#!/bin/sh
# protocol/disco/tests/disco-guest.sh — DISCO's own TypeScript as a guest (guests/disco/,
# docs/guest.md "DISCO as a guest") on the conformance scenarios of issue 36
# §4 (protocol/guest/scenarios/disco-*.ini: three rounds, a leave after round 1, a
# late joiner, two late joiners, a link that never comes up, a crash during
# the exchange, a partition, secure aggregation; docs/conformance.md):
# dlsim check; the same tables twice; against dlsim's C machines
# (guests/disco/twin.sh: family = disco, version = disco-775) through
# guests/disco/conformance.sh (dlsim compare): the outcomes, the discrete
# facts, the messages per type, and every round's list and end time within
# 5 ms; and explore finding and shrinking a failure that reproduces on both.
# DISCO's code: DISCO_SRC, a checkout prepared by guests/disco/install.sh;
# without it, the archives of DISCO_ARCHIVES (default ../shared/disco beside
# the source tree: disco-10b4be70.tar.gz, disco-1110.tar.gz), unpacked and
# prepared once per build tree by protocol/disco/tests/disco-trees.sh into disco-trees/
# (or into DISCO_TREES: .ci/run's distcheck reuses its first build's).
# The checks above run on 10b4be70 (or DISCO_SRC); on the #1110 tree, DISCO's
# own unit test of retry and exclusion (controller-retry-test.mjs, beside
# the archives), three rounds, and every #1110 guest file: the guest twins
# of the failure library, of the 8 conformance files and of 5 files of
# retry, exclusion and sync (protocol/guest/scenarios/disco1110/, docs/conformance.md
# "The #1110 table"), each checked and compared with its C twin, about two
# minutes more.  The C twins (protocol/disco/scenarios/disco1110-twins/) are checked
# first, DISCO or not.  With neither a checkout nor the archives it says SKIP and
# what it needs; under CI (CI=true) a tree that cannot be prepared fails.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
arch=${DISCO_ARCHIVES:-$src/../shared/disco}
trees=${DISCO_TREES:-$(pwd)/disco-trees}
tree1110=
# the C twins of the #1110 guest files need no DISCO code: their [expect]
# (DISCO's own behaviour) holds on dlsim's C machines
n=$(ls "$src"/protocol/disco/scenarios/disco1110-twins/*.ini | wc -l)
expect 0 "$n passed, 0 failed" -- "$DLSIM" check "$src"/protocol/disco/scenarios/disco1110-twins/*.ini
# and twin.sh --version disco-1110, guestify.sh's inverse, makes of each
# guest file a C file that passes its [expect] (the 13: every pin there is
# DISCO's and C's)
mkdir -p "$tmp/tw1110"
for f in "$src"/protocol/disco/scenarios/disco1110-twins/*.ini; do
  sh "$src/guests/disco/twin.sh" --version disco-1110 "$src/protocol/guest/scenarios/disco1110/$(basename "$f")" > "$tmp/tw1110/$(basename "$f")"
done
expect 0 "$n passed, 0 failed" -- "$DLSIM" check "$tmp"/tw1110/*.ini
# the findings of dlsim explore on #1110's own code
# (protocol/guest/scenarios/disco1110-found/, docs/conformance.md "Fault search on
# #1110") reproduce on their C twins (twin.sh --version disco-1110)
for f in "$src"/protocol/guest/scenarios/disco1110-found/*.ini; do
  sh "$src/guests/disco/twin.sh" --version disco-1110 "$f" > "$tmp/found-$(basename "$f")"
done
nf=$(ls "$src"/protocol/guest/scenarios/disco1110-found/*.ini | wc -l)
expect 0 "$nf passed, 0 failed" -- "$DLSIM" check "$tmp"/found-*.ini
# a SKIP below does not hide a failure of the C side
skip () { [ "$fail" -eq 0 ] || finish; exit 77; }
if [ -z "${DISCO_SRC:-}" ]; then
  if [ ! -f "$arch/disco-10b4be70.tar.gz" ]; then
    echo "SKIP: no DISCO code: set DISCO_SRC to a checkout prepared by guests/disco/install.sh, or put DISCO's"
    echo "  archives (disco-10b4be70.tar.gz, disco-1110.tar.gz) in DISCO_ARCHIVES (now $arch)"
    skip
  fi
  if ! sh "$src/protocol/disco/tests/disco-trees.sh" "$arch" "$trees"; then
    [ "${CI:-}" = true ] && { echo "FAIL: DISCO's archives could not be prepared (above)"; exit 1; }
    echo "SKIP: DISCO's archives could not be prepared (above: npm needs its registry)"
    skip
  fi
  DISCO_SRC=$trees/disco-10b4be70/disco
  [ -f "$trees/disco-1110/.stamp" ] && tree1110=$trees/disco-1110/disco
fi
if ! command -v node >/dev/null || [ ! -f "$DISCO_SRC/server/dist/controllers/decentralized_controller.js" ]; then
  echo "SKIP: $DISCO_SRC is not prepared (sh guests/disco/install.sh --disco-src $DISCO_SRC), or no node"
  skip
fi
export DISCO_SRC
# the #1110 tree: DISCO's own test of retry (max_connection_retry) and
# exclusion (ConnectionFail), ported to Node with a fake clock
if [ -n "$tree1110" ]; then
  expect 0 "2 of 2 passed" -- node "$arch/controller-retry-test.mjs" "$tree1110"
  # and the driver runs #1110's client and server through three plain rounds
  expect 0 "1 passed, 0 failed" -- env DISCO_SRC="$tree1110" "$DLSIM" check "$src/protocol/guest/scenarios/disco-three-rounds.ini"
  # every #1110 guest file (protocol/guest/scenarios/disco1110/, docs/conformance.md
  # "The #1110 table"): the guest twins of the failure library and of the
  # 8 conformance files and 5 of retry, exclusion and sync
  # (guests/disco/guestify.sh), each [expect] pinned from DISCO's own run
  # (pin.sh).  conformance.sh --check: dlsim check passes every file, and
  # every row agrees with its C twin (protocol/disco/scenarios/failures or
  # protocol/disco/scenarios/disco1110-twins, run as the guest runs: `runtime =
  # node`, four floats of model) in outcome, discrete facts, messages per
  # type and rounds listed, and every round's list and end time within
  # 5 ms.  About 110 s.
  n1110=$(ls "$src"/protocol/guest/scenarios/disco1110/*.ini | wc -l)
  DISCO_SRC="$tree1110" sh "$src/guests/disco/conformance.sh" --dlsim "$DLSIM" --check \
    --twins "$src/protocol/disco/scenarios/failures" --twins "$src/protocol/disco/scenarios/disco1110-twins" \
    "$src"/protocol/guest/scenarios/disco1110/*.ini > "$tmp/t1110.md" 2> "$tmp/t1110.err" \
    && grep -q "passed all $n1110 guest files" "$tmp/t1110.err" && ok "dlsim check passes the $n1110 #1110 guest files" \
    || { ko "the #1110 guest files: conformance.sh --check failed"; cat "$tmp/t1110.err"; }
  # and on DISCO's own code
  expect 0 "$nf passed, 0 failed" -- env DISCO_SRC="$tree1110" "$DLSIM" check "$src"/protocol/guest/scenarios/disco1110-found/*.ini
  for f in "$src"/protocol/guest/scenarios/disco1110/*.ini; do
    n=$(basename "$f" .ini)
    row=$(grep "^| $n |" "$tmp/t1110.md")
    if echo "$row" | awk -F' [|] ' '{ sub(/ [|]$/, ""); split($2, o, " / "); split($5, r, " / ") }
         END { exit !(NR == 1 && o[1] == o[2] && $3 == "agree" && $4 == "equal" && r[1] == r[2] \
                      && $6 < 5 && ($7 == "-" || $7 + 0 < 5)) }'; then
      ok "$n: DISCO #1110 and its C twin agree"
    else
      ko "$n: DISCO #1110 and its C twin differ: ${row:-no row}"
    fi
    # and guestify.sh still makes it: each file is its source's twin, but
    # for the expectations pin.sh set from DISCO's run (`# C:` above them)
    c=$src/protocol/disco/scenarios/failures/$n.ini
    [ -f "$c" ] || c=$src/protocol/disco/scenarios/disco1110-twins/$n.ini
    sh "$src/guests/disco/guestify.sh" "$c" > "$tmp/twin.ini"
    if sed '/^# C: /{s/^# C: //;N;s/\n.*//;}; /# not pinned for C$/d' "$f" | cmp -s - "$tmp/twin.ini"; then ok "$n: guestify.sh's twin"
    else ko "$n is not guestify.sh's twin of $c"; fi
  done
  # the two facts conformance.sh judges beyond dlsim compare, the retry
  # counter's values (`retry N`: DISCO's #connectionRetry) and the models
  # served stale (`served PEER stale`, S13a), can fail: a copy of the driver
  # that says the counter one too high, and never says stale, makes S6's
  # and S13's rows differ from their C twins in exactly those
  b=$tmp/broken
  mkdir -p "$b/guests" "$b/protocol/guest/scenarios/disco1110"
  cp -R "$src/guests/disco" "$b/guests/"
  cp "$src/protocol/guest/scenarios/disco1110/s06-retry-counter-session-wide.ini" \
     "$src/protocol/guest/scenarios/disco1110/s13-stale-model-served.ini" "$b/protocol/guest/scenarios/disco1110/"
  sed -e 's/act("S", "retry", server.retry)/act("S", "retry", server.retry + 1)/' \
      -e 's/?\.listed ? \["stale"\] : \[\]/?.listed ? [] : []/' "$src/guests/disco/driver.mjs" > "$b/guests/disco/driver.mjs"
  grep -q 'server.retry + 1)' "$b/guests/disco/driver.mjs" && grep -q 'listed ? \[\] : \[\]' "$b/guests/disco/driver.mjs" \
    || ko "the broken driver's two edits did not apply (guests/disco/driver.mjs changed?)"
  DISCO_SRC="$tree1110" sh "$src/guests/disco/conformance.sh" --dlsim "$DLSIM" --twins "$src/protocol/disco/scenarios/failures" \
    "$b"/protocol/guest/scenarios/disco1110/*.ini > "$tmp/broken.md" 2>&1
  grep -q '^| s06-retry-counter-session-wide | [^|]* | differ: retry counter 2,3,4,5/1,2,3,4 (guest/C) |' "$tmp/broken.md" \
    && ok "a wrong retry counter makes S6's row differ" || { ko "a wrong retry counter went unseen"; cat "$tmp/broken.md"; }
  grep -q '^| s13-stale-model-served | [^|]* | differ: stale_model_syncs 0/1 (guest/C) |' "$tmp/broken.md" \
    && ok "a stale serve not said makes S13's row differ" || { ko "a stale serve not said went unseen"; cat "$tmp/broken.md"; }
fi
names="three-rounds leave late-joiner late-sync link-fail crash-exchange partition secure"

expect 0 "8 passed, 0 failed" -- "$DLSIM" check "$src"/protocol/guest/scenarios/disco-*.ini

for n in $names; do
  f=$src/protocol/guest/scenarios/disco-$n.ini
  expect 0 "1 run into" -- "$DLSIM" run "$f" -o "$tmp/$n.db"
  expect 0 "1 run into" -- "$DLSIM" run "$f" -o "$tmp/$n-again.db"
  [ "$(rowdump "$tmp/$n.db")" = "$(rowdump "$tmp/$n-again.db")" ] && ok "$n: same tables twice" || ko "$n: two runs of the DISCO guest differ"
done

# the conformance table: a row a file, each against its disco-775 twin
sh "$src/guests/disco/conformance.sh" --dlsim "$DLSIM" > "$tmp/table.md" 2> "$tmp/table.err" \
  || { ko "conformance.sh failed"; cat "$tmp/table.err"; }
for n in $names; do
  row=$(grep "^| disco-$n |" "$tmp/table.md")
  # | file | outcome G / C | facts | messages | rounds G / C | list ms | end ms |
  if echo "$row" | awk -F' [|] ' '{ sub(/ [|]$/, ""); split($2, o, " / "); split($5, r, " / ") }
       END { exit !(NR == 1 && o[1] == o[2] && $3 == "agree" && $4 == "equal" && r[1] == r[2] && r[1] > 0 \
                    && $6 < 5 && ($7 == "-" || $7 + 0 < 5)) }'; then
    ok "$n: conforms to disco-775"
  else
    ko "$n: differs from disco-775: ${row:-no row}"
  fi
done

# dlsim explore on DISCO's real code: a crash in round 1 leaves the others
# waiting below min_participants (progress), shrunk to a file that
# reproduces on the guest and on its disco-775 twin.  Run seed 92 is such a
# run (a printed seed reproduces its run; 9 of the C twin's first 200 runs
# fail).  A found file keeps the scenario's relative guest_command:
# guest_dir, set absolute, goes with it.
mkdir -p "$tmp/x/found"
expect 0 "progress in not-enough-participants" -- "$DLSIM" explore "$src/protocol/guest/scenarios/disco-three-rounds.ini" --seed 92 -n 1 \
  --faults link-fail,crash,leave --set protocol.guest_dir="$src/protocol/guest/scenarios" --found "$tmp/x/found"
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp"/x/found/*.ini
for f in "$tmp"/x/found/*.ini; do sh "$src/guests/disco/twin.sh" "$f" > "$tmp/x/twin.ini"; done
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp/x/twin.ini"

# a missing checkout is a clear error that names it
expect 1 "no DISCO checkout" -- env DISCO_SRC= "$DLSIM" run "$src/protocol/guest/scenarios/disco-three-rounds.ini" -o "$tmp/none.db"
finish
