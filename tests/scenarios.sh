#!/bin/sh
# tests/scenarios.sh — every shipped scenario with an [expect] section
# (scenarios/'s, its comparisons of two families in scenarios/compare/,
# and the families' own, protocol/*/scenarios/),
# through `dlsim check`, as a user would run it; then the comparisons that
# span two runs, which [expect] (one run at a time) cannot state.
set -u
DLSIM=${DLSIM:-./dlsim}
SRC=${DLSIM_SRCDIR:-.}
dirs=""
for d in regression failures edge found bandwidth reproductions compare; do
  [ -d "$SRC/scenarios/$d" ] && dirs="$dirs $SRC/scenarios/$d"
done
# and each family's own, protocol/FAMILY/scenarios/, but the guest
# family's (python3 and DISCO's code: protocol/guest/tests/guest.sh and
# protocol/disco/tests/disco-guest.sh run them)
for d in "$SRC"/protocol/*/scenarios; do
  [ "$d" = "$SRC/protocol/guest/scenarios" ] && continue
  [ -d "$d" ] && dirs="$dirs $d"
done
"$DLSIM" check -j 2 $dirs || exit 1

# gossip and hierarchical converge within 0.05 of DISCO's all-to-all on the same data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# summary_where DB KEY PARAM VALUE: summary KEY of the run whose params
# have PARAM = VALUE
summary_where () {
  sqlite3 "$1" "SELECT s.value FROM summary s JOIN params p USING (run_id)
                WHERE s.key = '$2' AND p.key = '$3' AND p.value = '$4'"
}
# same_rows_twice FILE: two runs of a shipped file (a path under $SRC)
# give the same rows
same_rows_twice () {
  for i in 1 2; do
    "$DLSIM" run "$SRC/$1" -o "$tmp/twice$i.db" -q || exit 1
  done
  d1=$(sqlite3 "$tmp/twice1.db" "SELECT * FROM events; SELECT * FROM metrics; SELECT * FROM summary" | md5sum)
  d2=$(sqlite3 "$tmp/twice2.db" "SELECT * FROM events; SELECT * FROM metrics; SELECT * FROM summary" | md5sum)
  rm -f "$tmp/twice1.db" "$tmp/twice2.db"
  [ "$d1" = "$d2" ] || { echo "FAIL: $1 differs between two runs of one seed"; exit 1; }
}
for fam in gossip hier; do
  "$DLSIM" run "$SRC/scenarios/compare/$fam-vs-disco.ini" -o "$tmp/$fam-vs.db" -q || exit 1
  gap=$(sqlite3 "$tmp/$fam-vs.db" "SELECT abs(max(CASE WHEN r.protocol_version NOT LIKE 'disco%' THEN s.value END)
                                         - max(CASE WHEN r.protocol_version LIKE 'disco%' THEN s.value END))
                                  FROM summary s JOIN runs r USING (run_id) WHERE s.key = 'final_accuracy'")
  echo "$fam vs disco: accuracy gap $gap"
  awk -v g="$gap" 'BEGIN { exit !(g != "" && g + 0 <= 0.05) }' || { echo "FAIL: $fam is $gap from DISCO's accuracy (> 0.05)"; exit 1; }
done

# hierarchical clusters follow the regions
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-regions.ini" -o "$tmp/reg.db" -q || exit 1
got=$(sqlite3 "$tmp/reg.db" "SELECT group_concat(detail, ' | ') FROM events WHERE node = 'S' AND (detail LIKE '%peers in%clusters' OR detail LIKE 'cluster %: election%')")
echo "hier regions: $got"
case "$got" in
  "12 peers in 2 clusters | cluster eu: election, epoch 1 (formed) | cluster us: election, epoch 1 (formed)") ;;
  *) echo "FAIL: hierarchical clusters do not follow the regions"; exit 1 ;;
esac

# clusters by measured latency recover the regions (the machines are not
# told the labels): 3 clusters, each of one region, none mixing two
lat_regions_ok () {   # DB: each latency cluster is one region, 3 clusters
  sqlite3 "$1" "SELECT detail FROM events WHERE node = 'S' AND detail LIKE 'cluster lat% (landmark %'" > "$tmp/lat.clusters"
  sqlite3 "$1" "SELECT node, substr(detail, 8) FROM events WHERE kind = 'join'" > "$tmp/lat.regions"
  cat "$tmp/lat.clusters"
  awk -F'|' 'NR == FNR { region[$1] = $2; next }
             { n++; sub(/^[^:]*: /, ""); k = split($0, ids, " "); r = region[ids[1]]
               for (i = 2; i <= k; i++) if (region[ids[i]] != r) { print "cluster mixes " r " and " region[ids[i]] ": " $0; bad = 1 }
               seen[r]++ }
             END { if (n != 3) { print n " clusters by latency, 3 expected"; bad = 1 }
                   for (r in seen) if (seen[r] != 1) { print "region " r " split over " seen[r] " clusters"; bad = 1 }
                   exit bad }' "$tmp/lat.regions" "$tmp/lat.clusters"
}
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-latency-clusters.ini" -o "$tmp/lat.db" -q || exit 1
lat_regions_ok "$tmp/lat.db" || { echo "FAIL: clusters by latency do not follow the regions"; exit 1; }
# the check can fail: with a radius wider than the long haul every peer is
# in the first landmark's group, cut into id blocks of 4 that mix regions
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-latency-clusters.ini" -o "$tmp/lat2.db" -q --set protocol.cluster_radius=1s || exit 1
if lat_regions_ok "$tmp/lat2.db"; then echo "FAIL: id blocks passed the region check"; exit 1; fi

# an all-NAT cluster joins one with an eligible head (the file's seed gives one)
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-nat-cluster.ini" -o "$tmp/natk.db" -q || exit 1
test "$(sqlite3 "$tmp/natk.db" "SELECT count(*) FROM events WHERE node = 'S' AND detail LIKE 'cluster %: every candidate is behind symmetric NAT: its % members join cluster %'")" = 1 || {
  echo "FAIL: hier-nat-cluster.ini no longer merges an all-NAT cluster"; exit 1; }

# a late gossip peer syncs: its first test loss is below that of the same
# peer at the same time with the SharedModel dropped (it times out at once
# and trains from the initial model)
g9 () { sqlite3 "$1" "SELECT CAST(1000 * value AS INTEGER) FROM metrics WHERE name = 'loss' AND peer = 'p9' ORDER BY t_s LIMIT 1"; }
"$DLSIM" run "$SRC/protocol/gossip/scenarios/gossip-late-joiner-syncs.ini" -o "$tmp/gs.db" -q || exit 1
sed 's/^round 4 = join p9$/round 4 = join p9\n0s = drop SharedModel to p9/' "$SRC/protocol/gossip/scenarios/gossip-late-joiner-syncs.ini" \
  | sed '/^peer.p9.synced/d; /^model_syncs/d' > "$tmp/gs-drop.ini"
"$DLSIM" run "$tmp/gs-drop.ini" -o "$tmp/gs-drop.db" -q --set protocol.model_sync_timeout=350ms || exit 1
with=$(g9 "$tmp/gs.db") without=$(g9 "$tmp/gs-drop.db")
echo "gossip late joiner: first test loss x1000: synced $with, not synced $without"
[ $((without - with)) -ge 30 ] || { echo "FAIL: the late gossip peer's sync does not show in its loss"; exit 1; }

# robust's async and mixed weigh stale contributions (RoundStaleness), and
# async reaches 0.85 long before waiting does; agreement holds (the file's
# [expect]); mixed weighs the slow peers' late lists
"$DLSIM" run "$SRC/protocol/disco/scenarios/regression/robust-async.ini" -o "$tmp/ra.db" -q || exit 1
"$DLSIM" run "$SRC/protocol/disco/scenarios/regression/robust-async.ini" -o "$tmp/rw.db" -q --set protocol.straggler_policy=wait || exit 1
"$DLSIM" run "$SRC/protocol/disco/scenarios/regression/robust-async.ini" -o "$tmp/rm.db" -q --set protocol.straggler_policy=mixed || exit 1
weighed () { sqlite3 "$1" "SELECT count(*) FROM events WHERE node = 'S' AND detail LIKE '%: % listed peers trained from an older round: weighed by staleness'"; }
ta=$("$SRC/tools/time-to-accuracy" "$tmp/ra.db" 0.85 | awk '{ print $3 }')
tw=$("$SRC/tools/time-to-accuracy" "$tmp/rw.db" 0.85 | awk '{ print $3 }')
echo "robust async: $(weighed "$tmp/ra.db") weighed lists, 0.85 at $ta s (wait: $tw s); mixed: $(weighed "$tmp/rm.db") weighed lists"
[ "$(weighed "$tmp/ra.db")" -gt 10 ] && [ "$(weighed "$tmp/rm.db")" -ge 1 ] && [ "$(weighed "$tmp/rw.db")" = 0 ] \
  && awk -v a="$ta" -v w="$tw" 'BEGIN { exit !(a != "never" && w != "never" && a + 0 < w / 2) }' \
  || { echo "FAIL: robust's async and mixed do not weigh stale contributions, or async is not faster"; exit 1; }

# the straggler policies beat waiting on time to 0.87 accuracy
"$DLSIM" run "$SRC/protocol/gossip/scenarios/gossip-stragglers.ini" -o "$tmp/st.db" -q -j 2 || exit 1
"$SRC/tools/time-to-accuracy" "$tmp/st.db" 0.87 > "$tmp/tta"
cat "$tmp/tta"
awk '{ split($2, kv, "="); t[kv[2]] = $3 }
     END { bad = 0
           for (p in t) if (p != "wait" && (t[p] == "never" || t["wait"] == "never" || t[p] + 0 >= t["wait"] + 0)) {
             print "FAIL: straggler_policy " p " reaches 0.87 at " t[p] ", wait at " t["wait"]; bad = 1 }
           exit bad }' "$tmp/tta" || exit 1

# Kademlia under crashes: calls to the dead time out and their contacts are dropped
"$DLSIM" run "$SRC/protocol/gossip/scenarios/gossip-kademlia.ini" -o "$tmp/kad.db" -q || exit 1
dropped=$(sqlite3 "$tmp/kad.db" "SELECT count(*) FROM events WHERE detail LIKE 'kademlia: call % unanswered: contact dropped'")
lookups=$(sqlite3 "$tmp/kad.db" "SELECT count(*) FROM events WHERE detail LIKE 'kademlia: lookup % done:%'")
echo "kademlia: $lookups lookups done, $dropped calls unanswered"
[ "$dropped" -gt 0 ] && [ "$lookups" -gt 0 ] || { echo "FAIL: kademlia's lookups or call timeouts did not happen"; exit 1; }

# the hierarchical family's deadline and async policies beat waiting
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-stragglers.ini" -o "$tmp/hst.db" -q -j 2 || exit 1
"$SRC/tools/time-to-accuracy" "$tmp/hst.db" 0.87 > "$tmp/htta"
cat "$tmp/htta"
awk '{ split($2, kv, "="); t[kv[2]] = $3 }
     END { exit !(t["deadline"] != "never" && t["wait"] != "never" && t["deadline"] + 0 < t["wait"] + 0) }' "$tmp/htta" \
  || { echo "FAIL: hierarchical deadline does not reach 0.87 sooner than wait"; exit 1; }
awk '{ split($2, kv, "="); t[kv[2]] = $3 }
     END { exit !(t["async"] != "never" && t["wait"] != "never" && t["async"] + 0 < t["wait"] + 0) }' "$tmp/htta" \
  || { echo "FAIL: hierarchical async does not reach 0.87 sooner than wait"; exit 1; }
# async heads mix each update in at once, with a staleness weight
test "$(sqlite3 "$tmp/hst.db" "SELECT count(*) FROM events e JOIN params p USING (run_id) WHERE p.key = 'protocol.straggler_policy'
        AND p.value = 'async' AND e.detail LIKE 'async: mixed in at staleness %'")" -gt 100 \
  || { echo "FAIL: hierarchical async heads did not mix updates in"; exit 1; }
# mixed: the slow members' updates are taken asynchronously, and the fast
# peers finish long before they do under wait (10th of 20 to finish)
test "$(sqlite3 "$tmp/hst.db" "SELECT count(*) FROM events e JOIN params p USING (run_id) WHERE p.key = 'protocol.straggler_policy'
        AND p.value = 'mixed' AND e.detail LIKE 'mixed: a slow member''s update, % for the next cluster mean'")" -gt 5 \
  || { echo "FAIL: hierarchical mixed heads took no slow update asynchronously"; exit 1; }
# (20x slower, their updates come after the fast peers finished; 4x slower,
# they are mixed into cluster means)
"$DLSIM" run "$SRC/protocol/hierarchical/scenarios/hier-stragglers.ini" -o "$tmp/hst4.db" -q --set protocol.straggler_policy=mixed \
  --set "peers.stragglers=0.1 x4" || exit 1
test "$(sqlite3 "$tmp/hst4.db" "SELECT count(*) FROM events WHERE detail LIKE 'mixed: mixed in at staleness %'")" -gt 3 \
  || { echo "FAIL: hierarchical mixed heads mixed no slow update into a cluster mean"; exit 1; }
tenth () { sqlite3 "$tmp/hst.db" "SELECT CAST(e.t_s AS INTEGER) FROM events e JOIN params p USING (run_id) WHERE p.key = 'protocol.straggler_policy'
            AND p.value = '$1' AND e.kind = 'finished' ORDER BY e.t_s LIMIT 1 OFFSET 9"; }
echo "hier stragglers: 10th peer finished at $(tenth wait) s (wait), $(tenth mixed) s (mixed), $(tenth async) s (async)"
[ "$(tenth mixed)" -lt $(( $(tenth wait) / 2 )) ] && [ "$(tenth async)" -lt "$(tenth mixed)" ] \
  || { echo "FAIL: hierarchical mixed and async do not finish the fast peers sooner than wait"; exit 1; }

# the pipeline: next-peer's step is well under client relay's on the same
# chain, and the same file and seed give the same rows twice
"$DLSIM" run "$SRC/protocol/pipeline/scenarios/pipeline-next-peer-latency.ini" "$SRC/protocol/pipeline/scenarios/pipeline-client-relay.ini" \
  -o "$tmp/pipe.db" -q || exit 1
np=$(summary_where "$tmp/pipe.db" metric.step_latency_s.median protocol.forwarding next-peer)
cl=$(summary_where "$tmp/pipe.db" metric.step_latency_s.median protocol.forwarding client)
echo "pipeline: median step $np s with next-peer, $cl s with client relay"
awk -v a="$np" -v b="$cl" 'BEGIN { exit !(a != "" && b != "" && a + 0 < 0.3 * b) }' \
  || { echo "FAIL: next-peer's step is not under 0.3 x client relay's"; exit 1; }
same_rows_twice protocol/pipeline/scenarios/pipeline-disconnect-replay.ini

# the replicated coordinator: the gossip file's crash with one coordinator
# ends the session (no peer finishes); with three it does not (the file's
# own [expect]); before the crash, Raft's rounds are slower than
# primary-backup's (every input waits for a majority to hold its 8 MB
# entry), and only primary-backup loses messages at the crash; and a run
# with replicas gives the same rows twice
"$DLSIM" run "$SRC/scenarios/regression/replica-gossip-leader-crash.ini" --set protocol.coordinator_replicas=1 \
  -o "$tmp/r1.db" -q || exit 1
fin=$(sqlite3 "$tmp/r1.db" "SELECT value FROM summary WHERE key = 'peers_finished'")
rc=$(sqlite3 "$tmp/r1.db" "SELECT value FROM summary WHERE key = 'rounds_completed'")
echo "replica: gossip with one coordinator that crashes: $fin peers finished, $rc rounds"
[ "$fin" = 0 ] && [ "$rc" -lt 6 ] || { echo "FAIL: one crashed coordinator did not end the gossip session"; exit 1; }
"$DLSIM" run "$SRC/protocol/disco/scenarios/regression/replica-primary-backup-loss.ini" "$SRC/protocol/disco/scenarios/regression/replica-raft-no-loss.ini" \
  -o "$tmp/rep.db" -q || exit 1
round2 () {
  sqlite3 "$tmp/rep.db" "SELECT r.list_s FROM rounds r JOIN params p ON p.run_id = r.run_id
    WHERE r.round = 2 AND p.key = 'protocol.coordinator_replication' AND p.value = '$1'"
}
pb=$(round2 primary-backup); rf=$(round2 raft)
pbl=$(summary_where "$tmp/rep.db" metric.session_lost.sum protocol.coordinator_replication primary-backup)
rfl=$(summary_where "$tmp/rep.db" metric.session_lost.sum protocol.coordinator_replication raft)
echo "replica: round 2's list at $pb s under primary-backup, $rf s under raft; messages lost at the crash: $pbl, $rfl"
awk -v a="$pb" -v b="$rf" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }' \
  || { echo "FAIL: Raft's rounds before the crash were not slower than primary-backup's"; exit 1; }
[ "${pbl:-0}" -ge 1 ] && [ "$rfl" = 0 ] || { echo "FAIL: primary-backup lost nothing, or Raft lost something"; exit 1; }
same_rows_twice protocol/disco/scenarios/regression/replica-leader-crash.ini

# a bandwidth trace: the round's time that each file pins is the trace's
# (without it both files fail their sim_time_s), its change is a `rate`
# fact in the timeline at 2 s, the peers table keeps the rates before it,
# and two runs give the same rows
for f in bandwidth-trace bandwidth-trace-fifo; do
  "$DLSIM" check "$SRC/protocol/disco/scenarios/regression/$f.ini" --set network.bandwidth_trace= > "$tmp/bw.out" 2>&1 \
    && { echo "FAIL: $f.ini passes without its bandwidth trace"; exit 1; }
  grep -q "sim_time_s: expected = .*, actual [34]\." "$tmp/bw.out" || { echo "FAIL: $f.ini without the trace:"; cat "$tmp/bw.out"; exit 1; }
done
"$DLSIM" run "$SRC/protocol/disco/scenarios/regression/bandwidth-trace.ini" -o "$tmp/bw.db" -q || exit 1
got=$(sqlite3 "$tmp/bw.db" "SELECT t_s || ' ' || node || ' ' || detail FROM events WHERE kind = 'rate';
                            SELECT peer || ' ' || uplink_bps || ' ' || downlink_bps FROM peers ORDER BY peer")
echo "bandwidth trace: $got" | tr '\n' ';'; echo
[ "$got" = "2.0 p1 uplink 1Mbps, downlink 100Mbps (bandwidth_trace line 6)
p1 10000000 100000000
p2 10000000 100000000" ] || { echo "FAIL: the bandwidth trace's change is not in the timeline as expected"; exit 1; }
same_rows_twice protocol/disco/scenarios/regression/bandwidth-trace.ini
# tcp is the default transport (docs/world.md, "Under tcp"): the same file
# without its `transport = fluid` line is the run under tcp, which slow
# start makes later than the file's pin
uplink_drop=$(cd "$SRC/scenarios/traces" && pwd)/uplink-drop.csv
grep -v '^transport = fluid$' "$SRC/protocol/disco/scenarios/regression/bandwidth-trace.ini" > "$tmp/bw-default.ini"
"$DLSIM" run "$tmp/bw-default.ini" --set network.bandwidth_trace="$uplink_drop" -o "$tmp/bw-default.db" -q || exit 1
"$DLSIM" run "$tmp/bw-default.ini" --set network.bandwidth_trace="$uplink_drop" --set network.transport=tcp -o "$tmp/bw-tcp.db" -q || exit 1
t_default=$(sqlite3 "$tmp/bw-default.db" "SELECT value FROM summary WHERE key = 'sim_time_s'")
t_tcp=$(sqlite3 "$tmp/bw-tcp.db" "SELECT value FROM summary WHERE key = 'sim_time_s'")
t_fluid=$(sqlite3 "$tmp/bw.db" "SELECT value FROM summary WHERE key = 'sim_time_s'")
echo "default transport: $t_default s (tcp $t_tcp, the file's fluid $t_fluid)"
[ "$t_default" = "$t_tcp" ] && [ "$t_default" != "$t_fluid" ] \
  || { echo "FAIL: a file without [network] transport does not run under tcp"; exit 1; }
