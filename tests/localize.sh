#!/bin/sh
# tests/localize.sh — dlsim explore --localize (docs/found.md, "When did it
# become likely?"): on a constructed run whose failure is one message lost
# to [network] loss, the failure ratio is low before the loss and 1 after
# it, and the loss is the decisive event named; the same command prints
# the same curve (with -j 1 and -j 2); the `reseed` action re-seeds a
# coordinator's own stream too (fedavg's sampling), and the same salt
# gives the same run; the curve is stored and plotted; bad input is
# refused, naming the file.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
# seed 5 of this run stalls: a Payload on a peer link is lost (loss is the
# only random draw that matters: fixed latencies, no timeline)
cat >"$tmp/loss.ini" <<'INI'
[scenario]
name = localize-loss
seed = 5
[protocol]
version = disco-1110
min_participants = 2
[training]
rounds = 3
[model]
size = 1000
[peers]
count = 3
[network]
loss = 0.01
INI
ratio () { # FILE CUT -> the ratio printed at that cut
  awk -v c="$2" '$1 == c && $2 ~ /^[0-9.]+$/ { print $2; exit }' "$1"
}
"$DLSIM" explore --localize "$tmp/loss.ini" --runs 30 --points 10 -j 2 -o "$tmp/l.db" >"$tmp/a.txt" 2>&1 \
  && ok "localize ran" || ko "localize: $(cat "$tmp/a.txt")"
r0=$(ratio "$tmp/a.txt" 0.000000s)
awk -v r="$r0" 'BEGIN { exit !(r != "" && r <= 0.3) }' && ok "before the loss: ratio $r0" || ko "ratio at 0: '$r0'"
last=$(grep -E '^ +[0-9.]+s +[0-9.]+ ' "$tmp/a.txt" | tail -1 | awk '{ print $2 }')
[ "$last" = 1.000 ] && ok "at the failure: ratio 1" || ko "ratio at the failure: '$last'"
grep -q 'certain from here on' "$tmp/a.txt" && ok "a certain cut" || ko "no certain cut: $(cat "$tmp/a.txt")"
sed -n '/^decisive event/,$p' "$tmp/a.txt" | grep -q 'lost p[0-9] (\[network\] loss)' \
  && ok "the loss is named" || ko "the decisive event: $(sed -n '/^decisive/,$p' "$tmp/a.txt")"
# the decisive instant is the loss's, in the recorded found run
lost=$(sqlite3 "$tmp/l.db" "SELECT printf('%.6f', MIN(t_s)) FROM events WHERE kind = 'lost'")
dec=$(sqlite3 "$tmp/l.db" "SELECT printf('%.6f', value) FROM summary WHERE key = 'localize.decisive_s'")
[ -n "$lost" ] && [ "$lost" = "$dec" ] && ok "decisive at the loss ($dec s)" || ko "loss at '$lost', decisive at '$dec'"
# the cut just before the decisive one is not certain: the ratio jumps there
before=$(grep -B1 'certain from here on' "$tmp/a.txt" | head -1 | awk '{ print $2 }')
awk -v r="$before" 'BEGIN { exit !(r != "" && r < 0.9) }' && ok "uncertain just before ($before)" || ko "before the jump: '$before'"
# determinism: the same curve with one thread
"$DLSIM" explore --localize "$tmp/loss.ini" --runs 30 --points 10 -j 1 >"$tmp/b.txt" 2>&1
grep -v '^the found run is run' "$tmp/a.txt" | sed '$d' >"$tmp/a2.txt"
cmp -s "$tmp/a2.txt" "$tmp/b.txt" && ok "same output with -j 1" || ko "-j 1 differs: $(diff "$tmp/a2.txt" "$tmp/b.txt" | head)"
# every stream, a coordinator's own too: fedavg's server draws which
# clients a round samples from a stream of its own (ProtoMachineClass.reseed);
# re-seeded between rounds 2 and 3, rounds 1-2 are the same, later ones
# differ, and the same salt gives the same run
fed=${DLSIM_SRCDIR:-.}/protocol/fedavg/scenarios/fedavg-basic.ini
sampled () { # DB ROUND-CMP: the server's sends of the rounds before/after the cut, in order
  sqlite3 "$1" "SELECT group_concat(other, ',') FROM (SELECT other FROM events WHERE node = 'S' AND kind = 'sent'
    AND round $2 3 ORDER BY seq)"
}
for k in 0 1 2; do
  set -- ; [ "$k" -gt 0 ] && set -- --set 'timeline.500ms=reseed 3'
  "$DLSIM" run "$fed" "$@" -o "$tmp/fed$k.db" -q >/dev/null 2>&1 || true
done
[ -n "$(sampled "$tmp/fed0.db" '<')" ] && [ "$(sampled "$tmp/fed0.db" '<')" = "$(sampled "$tmp/fed1.db" '<')" ] \
  && ok "before the cut: the same run" || ko "before the cut: $(sampled "$tmp/fed0.db" '<') / $(sampled "$tmp/fed1.db" '<')"
[ "$(sampled "$tmp/fed0.db" '>=')" != "$(sampled "$tmp/fed1.db" '>=')" ] \
  && ok "after the cut: the server's own sampling re-seeded" || ko "after the cut: the same clients sampled"
[ "$(sampled "$tmp/fed1.db" '>=')" = "$(sampled "$tmp/fed2.db" '>=')" ] \
  && ok "the same salt: the same run" || ko "reseed 3 twice: two runs"
# the plot reads the curve back
expect 0 'decisive at' -- "$DLSIM" plot "$tmp/l.db" localize --script
expect 1 'has no localize curve' -- sh -c "\"$DLSIM\" run \"$tmp/loss.ini\" -o \"$tmp/plain.db\" -q >/dev/null 2>&1; \"$DLSIM\" plot \"$tmp/plain.db\" localize --script"
# bad input names the file
sed 's/^loss = 0.01/loss = 0/' "$tmp/loss.ini" >"$tmp/fine.ini"
expect 1 "fine.ini: its run (seed 5) breaks no property" -- "$DLSIM" explore --localize "$tmp/fine.ini" --runs 2
expect 1 "loss.ini: its run (seed 7) breaks no property" -- "$DLSIM" explore --localize "$tmp/loss.ini" --seed 7 --runs 2
expect 2 "missing.ini" -- "$DLSIM" explore --localize "$tmp/missing.ini" --runs 2
expect 2 "expected --points 1 to 1000" -- "$DLSIM" explore --localize "$tmp/loss.ini" --points 0
printf '[timeline]\n1s = reseed x\n' | cat "$tmp/loss.ini" - >"$tmp/bad.ini"
expect 2 "bad.ini: \[timeline\] 1s: 'reseed x': expected reseed SALT" -- "$DLSIM" explore --localize "$tmp/bad.ini"
finish
