#!/bin/bash
# tests/netem.sh — `dlsim testbed --netem` (root only: `make check-netem`,
# and .ci/run): each peer in its own network namespace, bandwidth shaped by
# tc tbf, latency added by the sender.  Round durations agree with the
# simulator's within 25 % on a latency-bound and on a bandwidth-bound
# scenario (and do not without --netem, so the shaping is what makes them
# agree); nothing is left behind after a run, after Ctrl-C, or after
# dlsim itself was killed (the next run sweeps it); without root, a clear
# error; --congestion-control reaches the connections.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=${DLSIM_SRCDIR:-.}

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "SKIP: needs root, ip and tc"; exit 77
fi

leftovers () {   # namespaces, bridges or veths of a dlsim testbed that no longer runs
  { ip netns list | sed -n 's/^\(dlsim-\([0-9]*\)-[^ ]*\).*/\2 \1/p'
    ip -o link show | sed -n 's/^[0-9]*: \(dl[bh]\([0-9]*\)[^:@]*\).*/\2 \1/p'; } 2>/dev/null |
  while read -r pid name; do kill -0 "$pid" 2>/dev/null || echo "$name"; done
}
clean () {   # clean WHAT: nothing of ours is left
  sleep 0.2
  if [ -n "$(leftovers)" ]; then ko "$1: left behind: $(leftovers | cut -c1-60 | tr '\n' ' ')"; else ok "$1"; fi
}
ratio_ok () {   # ratio_ok WHAT: the "round period median" ratio of the last compare is within 25 %
  r=$(sed -n 's/.*round period median.*ratio \([0-9.]*\).*/\1/p' "$out")
  if [ -n "$r" ] && awk -v r="$r" 'BEGIN { exit !(r >= 0.75 && r <= 1.25) }'; then ok "$1"
  else ko "$1: round period median ratio '$r' (wanted 0.75..1.25)"; sed 's/^/  | /' "$out" | tail -6; fi
}

# 1. latency-bound: consensus, 3 peers, 40 ms / 20 ms one way
# (the shipped file as it is: with its latencies, Start reaches every peer
# before another peer's Payload, so DISCO's F1 race does not show)
f=$SRC/protocol/disco/scenarios/regression/consensus-mean-3.ini
expect 0 "PASS .*consensus-mean-3.ini seed 1: completed" -- "$DLSIM" testbed "$f" --netem -o "$tmp/tb.db"
[ "$(sqlite3 "$tmp/tb.db" "SELECT value FROM params WHERE key = 'testbed.network'")" = netem ] \
  && ok "params say netem" || ko "params: testbed.network is not netem"
[ "$(sqlite3 "$tmp/tb.db" "SELECT value FROM params WHERE key = 'testbed.congestion_control'")" = cubic ] \
  && ok "params say cubic (the default)" || ko "params: testbed.congestion_control is not cubic"
"$DLSIM" run "$f" -o "$tmp/sim.db" -q >/dev/null 2>&1
expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/sim.db" "$tmp/tb.db"
ratio_ok "latency-bound round period within 25 %"
clean "after a run"

# 2. bandwidth-bound: 4 MB updates on 20 Mbit/s uplinks
cat > "$tmp/bw.ini" <<'INI'
[scenario]
name = bw
[protocol]
min_participants = 3
[training]
rounds = 3
[model]
kind = none
size = 1000000
[peers]
count = 3
[network]
uplink = 20Mbps
downlink = 100Mbps
INI
"$DLSIM" run "$tmp/bw.ini" -o "$tmp/bws.db" -q >/dev/null 2>&1
expect 0 "PASS" -- "$DLSIM" testbed "$tmp/bw.ini" --netem -o "$tmp/bwn.db"
expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/bws.db" "$tmp/bwn.db"
ratio_ok "bandwidth-bound round period within 25 %"
# without --netem the same file runs at loopback speed: far from the simulator
"$DLSIM" testbed "$tmp/bw.ini" -o "$tmp/bwl.db" >/dev/null 2>&1
"$DLSIM" compare "$tmp/bws.db" "$tmp/bwl.db" >"$out" 2>&1
r=$(sed -n 's/.*round period median.*ratio \([0-9.]*\).*/\1/p' "$out")
awk -v r="${r:-1}" 'BEGIN { exit !(r < 0.5) }' && ok "loopback is not shaped" || ko "loopback ratio '$r': shaping not visible"
clean "after the bandwidth runs"

# 3. Ctrl-C during a run: exit 130, the run recorded as interrupted, nothing left
cat > "$tmp/long.ini" <<'INI'
[scenario]
name = long
[training]
rounds = 1000
[peers]
count = 3
INI
# (with --congestion-control reno: a peer's connections use it, whatever
# the machine's net.ipv4.tcp_congestion_control, and the run records it)
"$DLSIM" testbed "$tmp/long.ini" --netem --congestion-control reno -o "$tmp/long.db" >/dev/null 2>&1 &
pid=$!
sleep 2
ss_p1=$(ip netns exec "dlsim-$pid-p1" ss -tin 2>&1)
kill -INT "$pid"
wait "$pid"; st=$?
[ "$st" -eq 130 ] && ok "Ctrl-C exit 130" || ko "Ctrl-C: exit $st, wanted 130"
[ "$(sqlite3 "$tmp/long.db" 'SELECT outcome FROM runs')" = interrupted ] && ok "interrupted run recorded" \
  || ko "Ctrl-C: the run is not recorded as interrupted"
clean "after Ctrl-C"
echo "$ss_p1" | grep -q "^[[:space:]]*reno " && ! echo "$ss_p1" | grep -q "^[[:space:]]*\(cubic\|bbr\) " \
  && ok "--congestion-control reno: p1's connections are reno" \
  || ko "--congestion-control reno: p1's connections: $(echo "$ss_p1" | tr '\n' ' ' | cut -c1-200)"
[ "$(sqlite3 "$tmp/long.db" "SELECT value FROM params WHERE key = 'testbed.congestion_control'")" = reno ] \
  && ok "params say reno" || ko "params: testbed.congestion_control is not reno"

# 4. dlsim itself killed: its peers exit (their stdin closes), its namespaces
# stay, and the next --netem run removes them
"$DLSIM" testbed "$tmp/long.ini" --netem -o "$tmp/killed.db" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 1
ip netns list | grep -q "^dlsim-$pid-p1" && ok "stale namespaces exist" || ko "no stale namespace of pid $pid"
expect 0 "removed what a dlsim that no longer runs left: .*namespace dlsim-$pid-p1" -- \
  "$DLSIM" testbed "$f" --netem -o "$tmp/after.db"
clean "after the stale sweep"
ours node >/dev/null && ko "dlsim node processes left" || ok "no dlsim node left"

# 6. dlsim node across two network namespaces standing in for two machines:
# the coordinator on "machine" A, three peers on B, each node recording its
# own database; dlsim merge makes one run of them.  A veth is a LAN: the
# nodes add the file's latencies (--emulate-latency), as docs/testbed.md says
A=dltest-$$-a B=dltest-$$-b
ip netns add $A && ip netns add $B && ip link add dlta$$ type veth peer name dltb$$ \
  && ip link set dlta$$ netns $A && ip link set dltb$$ netns $B \
  && ip -n $A addr add 10.250.0.1/24 dev dlta$$ && ip -n $B addr add 10.250.0.2/24 dev dltb$$ \
  && ip -n $A link set dlta$$ up && ip -n $B link set dltb$$ up && ip -n $A link set lo up && ip -n $B link set lo up \
  && ok "two namespaces" || ko "could not make two namespaces"
# the coordinator makes the deployment's secret; "copying" it to B is a cp
ip netns exec $A "$DLSIM" node coordinator --listen 10.250.0.1:7000 --secret-file "$tmp/a.secret" --emulate-latency \
  --scenario "$f" -o "$tmp/m-coord.db" 2>/dev/null &
cpid=$!
sleep 0.3
cp -p "$tmp/a.secret" "$tmp/b.secret"
for i in 1 2 3; do
  ip netns exec $B "$DLSIM" node peer --coordinator 10.250.0.1:7000 --name p$i --listen 10.250.0.2 --secret-file "$tmp/b.secret" \
    --emulate-latency --scenario "$f" -o "$tmp/m-p$i.db" </dev/null >/dev/null 2>&1 &
done
models () { for i in 1 2 3; do sqlite3 "$tmp/m-p$i.db" "SELECT COUNT(*) FROM node_records WHERE line LIKE 'W%'" 2>/dev/null; done | tr '\n' ' '; }
for i in $(seq 1 150); do [ "$(models)" = "3 3 3 " ] && break; sleep 0.1; done
kill -TERM $cpid; wait $cpid
for i in $(seq 1 50); do ours "node peer" >/dev/null || break; sleep 0.1; done
expect 0 "merged 4 node databases into run 1 (testbed): completed, 3 rounds, 6 expectations" -- \
  "$DLSIM" merge "$tmp/machines.db" "$tmp/m-coord.db" "$tmp/m-p1.db" "$tmp/m-p2.db" "$tmp/m-p3.db"
expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/sim.db" "$tmp/machines.db"
n=$(sqlite3 "$tmp/machines.db" "SELECT COUNT(*) FROM events WHERE kind = 'join' AND detail = '10.250.0.1:7000'")
[ "${n:-0}" -ge 3 ] && ok "peers joined over the namespaces' link" || ko "no join with 10.250.0.1:7000 recorded ($n)"
ip netns del $A; ip netns del $B
ours node >/dev/null && ko "dlsim node processes left" || ok "no dlsim node left"

# 7. a partition: p3 cut off from everyone by blackhole routes in round 2,
# healed 15 s later; the run hangs as in the simulator, and no route stays
cat > "$tmp/pt.ini" <<'INI'
[scenario]
name = pt
[protocol]
min_participants = 2
peer_connection_timeout = 3s
payload_timeout = 5s
model_sync_timeout = 3s
[training]
rounds = 3
[peers]
count = 3
[timeline]
round 2 + 10ms = partition p3 | server
round 2 + 15s = heal
INI
"$DLSIM" run "$tmp/pt.ini" -o "$tmp/pts.db" -q >/dev/null 2>&1
expect 0 "PASS .*pt.ini seed 1: stalled" -- "$DLSIM" testbed "$tmp/pt.ini" --netem -o "$tmp/ptt.db"
expect 0 "discrete facts agree" -- "$DLSIM" compare "$tmp/pts.db" "$tmp/ptt.db"
ip route | grep -q blackhole && ko "a blackhole route stayed" || ok "no blackhole route left"
expect 2 "partition (without --netem): not supported in the testbed" -- "$DLSIM" testbed "$tmp/pt.ini" -o "$tmp/ptl.db"
clean "after the partition"

# 8. the kernel's TCP where ns-3.37 stalls (docs/world.md, "The kernel's
# TCP on that cell with a shallow queue"): 16 peers, 4 MB Payloads, 20
# Mbit/s, L = 1 ms and each tbf's queue 4 bandwidth-delay products of a
# 2 ms round trip (--queue 8ms: limit 20000).  ns-3 loses a tail segment
# there and waits out a timeout (1.30 x dlsim); the kernel's CUBIC, with
# its tail-loss probe and RACK, keeps the round within 25 % of the
# simulator (1.04-1.05 measured).  Under BBR it does not (1.65): this
# also fails if --netem stops giving the connections CUBIC.  Not with a
# sanitizer build (DLSIM_SANITIZED, from make check-netem): 16 peers under
# ASan are bound by 2 cores' CPU, not by the network (ratio 1.83 in
# .ci/run's first try), so .ci/run runs this file again with a plain build.
f16=$SRC/protocol/disco/scenarios/bandwidth/a2a-16-20mbps.ini
S16="--set network.latency=1ms --set network.server_latency=1ms"
if [ -n "${DLSIM_SANITIZED:-}" ]; then
  echo "SKIP: step 8 (16 peers' timing) with a sanitizer build ($DLSIM_SANITIZED)"
else
  "$DLSIM" run "$f16" $S16 -o "$tmp/s16.db" -q >/dev/null 2>&1
  expect 0 "PASS .*a2a-16-20mbps.ini seed 1: completed" -- \
    "$DLSIM" testbed "$f16" --netem --queue 8ms $S16 -o "$tmp/t16.db"
  "$DLSIM" compare "$tmp/s16.db" "$tmp/t16.db" >"$out" 2>&1
  ratio_ok "16 x 4 MB, 20 Mbit/s, 4-BDP queues: the kernel's CUBIC within 25 %"
  clean "after the shallow-queue run"
fi

# 5. without root: a clear error
if command -v setpriv >/dev/null; then
  cp "$f" "$tmp/c.ini"; chmod 755 "$tmp"; chmod 644 "$tmp/c.ini"
  expect 1 "needs root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$DLSIM" testbed "$tmp/c.ini" --netem -o /tmp/dlsim-nobody-$$.db
  rm -f /tmp/dlsim-nobody-$$.db
fi
finish
