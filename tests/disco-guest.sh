#!/bin/sh
# tests/disco-guest.sh — DISCO's own TypeScript as a guest (guests/disco/,
# docs/guest.md "DISCO as a guest") on the three scenarios of issue 36 and
# one more (scenarios/guest/disco-*.ini: three rounds, a leave after round 1,
# a late joiner, a link that never comes up): dlsim check; the same tables twice; against dlsim's C machines
# (guests/disco/twin.sh: family = disco, version = disco-775) through dlsim
# compare: the discrete facts, the messages per type, and every round's list
# time within 5 ms; and explore finding and shrinking a failure that
# reproduces on both.  It needs a DISCO checkout prepared by
# guests/disco/install.sh, named by DISCO_SRC; without one it says SKIP.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
if [ -z "${DISCO_SRC:-}" ]; then
  echo "SKIP: no DISCO checkout (set DISCO_SRC to one prepared by guests/disco/install.sh)"
  exit 77
fi
if ! command -v node >/dev/null || [ ! -f "$DISCO_SRC/server/dist/controllers/decentralized_controller.js" ]; then
  echo "SKIP: $DISCO_SRC is not prepared (sh guests/disco/install.sh --disco-src $DISCO_SRC), or no node"
  exit 77
fi
export DISCO_SRC
names="three-rounds leave late-joiner link-fail"

expect 0 "4 passed, 0 failed" -- "$DLSIM" check "$src"/scenarios/guest/disco-*.ini

# messages sent per type, the guest's type names as DISCO's C rendering names them
types () {
  sqlite3 "$1" "SELECT CASE WHEN msg = 'Guest' THEN detail ELSE msg END, COUNT(*) FROM events
                WHERE kind = 'sent' GROUP BY 1 ORDER BY 1" | sed 's/^NewDecentralizedNodeInfo|/NewNodeInfo|/' | sort
}

for n in $names; do
  f=$src/scenarios/guest/disco-$n.ini
  expect 0 "1 run into" -- "$DLSIM" run "$f" -o "$tmp/$n.db"
  expect 0 "1 run into" -- "$DLSIM" run "$f" -o "$tmp/$n-again.db"
  [ "$(rowdump "$tmp/$n.db")" = "$(rowdump "$tmp/$n-again.db")" ] && ok "$n: same tables twice" || ko "$n: two runs of the DISCO guest differ"

  sh "$src/guests/disco/twin.sh" "$f" > "$tmp/c-$n.ini"
  expect 0 "1 run into" -- "$DLSIM" run "$tmp/c-$n.ini" -o "$tmp/c-$n.db"
  expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/c-$n.db" "$tmp/$n.db"
  a=$(types "$tmp/c-$n.db"); b=$(types "$tmp/$n.db")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$n: messages per type"; else
    ko "$n: messages per type differ"; echo "C:     $a" | tr '\n' ' '; echo; echo "guest: $b" | tr '\n' ' '; echo; fi
  sqlite3 "$tmp/c-$n.db" "SELECT round, list_s FROM rounds ORDER BY round" > "$tmp/c-$n.lists"
  sqlite3 "$tmp/$n.db" "SELECT round, list_s FROM rounds ORDER BY round" > "$tmp/$n.lists"
  if [ -s "$tmp/$n.lists" ] && join -t'|' "$tmp/c-$n.lists" "$tmp/$n.lists" \
       | awk -F'|' -v want="$(wc -l < "$tmp/$n.lists")" \
           '{ d = $2 - $3; if (d < 0) d = -d; if (d >= 0.005) bad++; n++ } END { exit !(n == want && bad == 0) }'; then
    ok "$n: round lists within 5 ms"
  else
    ko "$n: round lists differ"; paste -d' ' "$tmp/c-$n.lists" "$tmp/$n.lists"
  fi
done

# dlsim explore on DISCO's real code: a leave in round 1 leaves the others
# waiting below min_participants (progress), shrunk to a file that
# reproduces on the guest and on its disco-775 twin.  A found file keeps
# the scenario's relative guest_command: guest_dir, set absolute, goes
# with it.
mkdir -p "$tmp/x/found"
expect 0 "progress in" -- "$DLSIM" explore "$src/scenarios/guest/disco-three-rounds.ini" -n 3 \
  --faults link-fail,crash,leave --set protocol.guest_dir="$src/scenarios/guest" --found "$tmp/x/found"
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp"/x/found/*.ini
for f in "$tmp"/x/found/*.ini; do sh "$src/guests/disco/twin.sh" "$f" > "$tmp/x/twin.ini"; done
expect 0 "1 passed, 0 failed" -- "$DLSIM" check "$tmp/x/twin.ini"

# a missing checkout is a clear error that names it
expect 1 "no DISCO checkout" -- env DISCO_SRC= "$DLSIM" run "$src/scenarios/guest/disco-three-rounds.ini" -o "$tmp/none.db"
finish
