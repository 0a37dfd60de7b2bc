#!/bin/bash
# bench/simgrid-compare/validate.sh — dlsim's network model (sharing = fair,
# transport = fluid, whatever the default) against two outside references,
# case by case:
# - SimGrid 3.32 (Debian's libsimgrid-dev): the same exchange on a platform
#   with the same per-host uplinks and downlinks, network/model CM02 with
#   network/crosstraffic off, which is max-min sharing of the hosts' links;
# - the analytic bound, for symmetric all-to-all: each uplink carries n-1
#   Payloads, (n-1) W 8 / uplink, plus one latency.
# S is the Payload's size (dlsim's traffic table) and W what it occupies the
# links for: S plus 66 header bytes per 1448-byte segment (network.mss and
# header_bytes, their defaults); SimGrid is given W.
#
#   bench/simgrid-compare/validate.sh [DLSIM] [CASE...]
#
# Cases: a2a-10 a2a-30 a2a-100 a2a-300 asym-30 mixed-30 gossip-30 (default:
# all but a2a-300).  Exits 1 if a case is off by more
# than 5 % from SimGrid, or an a2a case by more than 2 % from its bound.
#
# The exchange: one round of disco-1110 with every peer in it (model none,
# 100 000 floats); dlsim's makespan is the round's exchange (rounds.end_s -
# rounds.start_s).  Each peer's rates are read back from dlsim's peers table
# (uplink_bps, downlink_bps), so that a distribution draws the same rates in
# both.  In SimGrid, a2a.c puts the Payload's wire size (dlsim's traffic
# table) from every host to every other at time 0, on a Cluster zone whose
# hosts each have an up and a down link of their own (half the latency each)
# and a backbone that is never the bottleneck.
#
# gossip-30, a sparse pattern: one step of the gossip family (fanout 4: each
# peer sends its model to the peers of its contact graph, 222 GossipPayloads
# among 30 peers).  dlsim's makespan is from the step's first send to its
# last reception; pattern.c replays the same transfers (sender, receiver,
# bytes, start time from the events) in SimGrid.
#
# Not part of `make check` (SimGrid is not a build dependency); `make
# check-simgrid` runs it as root, installing libsimgrid-dev.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DLSIM=${1:-./dlsim}
shift || true
cases=${*:-a2a-10 a2a-30 a2a-100 asym-30 mixed-30 gossip-30}
DLSIM=$(cd "$(dirname "$DLSIM")" && pwd)/$(basename "$DLSIM")

if [ ! -e /usr/include/simgrid/engine.h ]; then
  [ "$(id -u)" -eq 0 ] || { echo "validate: libsimgrid-dev is missing (apt-get install libsimgrid-dev, as root)" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsimgrid-dev >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -o "$tmp/a2a" "$here/a2a.c" -lsimgrid
gcc -O2 -Wall -o "$tmp/pattern" "$here/pattern.c" -lsimgrid

status=0
printf '%-10s %6s  %11s %11s %11s  %8s %8s  %9s %9s\n' case peers "dlsim span" "SimGrid" "bound" "vs SG" "vs bound" "dlsim wall" "SG wall"
for c in $cases; do
  n=${c##*-}
  up=100Mbps; down=100Mbps; bound=yes; family=disco; msg=Payload
  case $c in
    a2a-*) ;;
    gossip-*) family=gossip; msg=GossipPayload; bound=no ;;
    asym-*) up=10Mbps ;;
    mixed-*) up='uniform(10Mbps, 100Mbps)'; bound=no ;;
    *) echo "validate: unknown case $c" >&2; exit 2 ;;
  esac
  cat > "$tmp/case.ini" <<INI
[scenario]
name = $c
time_limit = 100h
[protocol]
$([ "$family" = disco ] && echo "version = disco-1110" || printf 'family = %s\nfanout = 4' "$family")
min_participants = $n
[training]
rounds = 1
[model]
size = 100000
[network]
sharing = fair
transport = fluid
latency = 20ms
server_latency = 1ms
uplink = $up
downlink = $down
link_setup = 1ms
[peers]
count = $n
INI
  rm -f "$tmp"/d.db*
  t0=$(date +%s.%N)
  events=--no-events
  [ "$family" = disco ] || events=
  "$DLSIM" run "$tmp/case.ini" -o "$tmp/d.db" -q $events
  t1=$(date +%s.%N)
  dl_wall=$(awk "BEGIN { print $t1 - $t0 }")
  if [ "$family" = disco ]; then
    span=$(sqlite3 "$tmp/d.db" "SELECT printf('%.6f', end_s - start_s) FROM rounds WHERE round = 1")
  else
    span=$(sqlite3 "$tmp/d.db" "SELECT printf('%.6f', MAX(t_s) - (SELECT MIN(t_s) FROM events WHERE kind = 'sent' AND msg = '$msg'))
      FROM events WHERE kind = 'received' AND msg = '$msg'")
  fi
  bytes=$(sqlite3 "$tmp/d.db" "SELECT bytes / messages FROM traffic WHERE type = '$msg'")
  bytes=$((bytes + (bytes + 1447) / 1448 * 66))
  {
    echo "<?xml version='1.0'?>"
    echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
    echo '<platform version="4.1"><zone id="c" routing="Cluster">'
    # p1.. in dlsim are node-0.. in SimGrid
    sqlite3 -separator ' ' "$tmp/d.db" "SELECT CAST(substr(peer, 2) AS INTEGER) - 1, uplink_bps, downlink_bps FROM peers ORDER BY 1" |
      while read -r i u d; do
        echo "<host id=\"node-$i\" speed=\"1Gf\"/>"
        echo "<link id=\"up-$i\" bandwidth=\"${u}bps\" latency=\"10ms\"/>"
        echo "<link id=\"down-$i\" bandwidth=\"${d}bps\" latency=\"10ms\"/>"
        echo "<host_link id=\"node-$i\" up=\"up-$i\" down=\"down-$i\"/>"
      done
    echo '<backbone id="bb" bandwidth="1000000Gbps" latency="0s"/></zone></platform>'
  } > "$tmp/p.xml"
  t0=$(date +%s.%N)
  if [ "$family" = disco ]; then
    sg=$("$tmp/a2a" "$tmp/p.xml" "$bytes" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thres:critical)
  else
    sqlite3 -separator ' ' "$tmp/d.db" "SELECT CAST(substr(node, 2) AS INTEGER) - 1, CAST(substr(other, 2) AS INTEGER) - 1, $bytes,
        printf('%.9f', t_s - (SELECT MIN(t_s) FROM events WHERE kind = 'sent' AND msg = '$msg'))
      FROM events WHERE kind = 'sent' AND msg = '$msg' ORDER BY seq" > "$tmp/transfers"
    sg=$("$tmp/pattern" "$tmp/p.xml" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thres:critical < "$tmp/transfers")
  fi
  t1=$(date +%s.%N)
  sg_wall=$(awk "BEGIN { print $t1 - $t0 }")
  sg_span=$(sed -n 's/.*makespan \([0-9.]*\).*/\1/p' <<<"$sg")
  if [ "$bound" = yes ]; then
    ub=$(sqlite3 "$tmp/d.db" "SELECT MIN(uplink_bps) FROM peers")
    b=$(awk -v n="$n" -v s="$bytes" -v u="$ub" 'BEGIN { printf "%.6f", (n - 1) * s * 8 / u + 0.020 }')
    vb=$(awk -v a="$span" -v b="$b" 'BEGIN { printf "%+.2f%%", (a / b - 1) * 100 }')
    okb=$(awk -v a="$span" -v b="$b" 'BEGIN { print (a / b - 1 <= 0.02 && a / b - 1 >= -0.02) ? 1 : 0 }')
  else
    b=-; vb=-; okb=1
  fi
  vs=$(awk -v a="$span" -v b="$sg_span" 'BEGIN { printf "%+.2f%%", (a / b - 1) * 100 }')
  oks=$(awk -v a="$span" -v b="$sg_span" 'BEGIN { d = a / b - 1; print (d <= 0.05 && d >= -0.05) ? 1 : 0 }')
  printf '%-10s %6s  %10ss %10ss %10s%s  %8s %8s  %8.2fs %8.2fs\n' "$c" "$n" "$span" "$sg_span" "$b" "$([ "$b" = - ] || echo s)" "$vs" "$vb" "$dl_wall" "$sg_wall"
  if [ "$oks" != 1 ] || [ "$okb" != 1 ]; then
    echo "validate: $c is off" >&2
    status=1
  fi
done
exit $status
