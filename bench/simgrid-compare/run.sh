#!/bin/bash
# bench/simgrid-compare/run.sh — an outside anchor for dlsim's network model:
# the same all-to-all exchange in SimGrid and in dlsim, wall time and
# simulated makespan side by side (docs/performance.md, "SimGrid").
#
#   bench/simgrid-compare/run.sh [DLSIM] [N...]        (default: ./dlsim 100 300 1000)
#
# Not part of `make check` or CI.  Installs Debian's libsimgrid-dev if it is
# missing (root, apt-get), compiles a2a.c against it.
#
# The exchange: N hosts, each sends S bytes to every other; latency 20 ms
# one way, 100 Mbit/s up and down on every host.
# - dlsim: one round of disco-1110 with every peer in it (model none,
#   100 000 floats); the makespan is the round's exchange, from the
#   coordinator's StartWeightSharing to the last peer's aggregation
#   (rounds.end_s - rounds.start_s), and S is the Payload's size on the
#   wire as dlsim counted it (traffic table).
# - SimGrid: a2a.c, every host putting S bytes to every other at time 0,
#   on a cluster whose host links have the same bandwidth (split duplex: up
#   and down apart) and half the latency each, and a backbone that is never
#   the bottleneck; network/model CM02 (max-min sharing without the TCP
#   correction factors of the default LV08).
# dlsim runs with [network] transport = fluid, the model that compares with
# CM02 (a flow at its share from its first byte), whatever the default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DLSIM=${1:-./dlsim}
shift || true
sizes=${*:-100 300 1000}
DLSIM=$(cd "$(dirname "$DLSIM")" && pwd)/$(basename "$DLSIM")

if ! pkg-config --exists simgrid 2>/dev/null && [ ! -e /usr/include/simgrid/engine.h ]; then
  [ "$(id -u)" -eq 0 ] || { echo "simgrid-compare: libsimgrid-dev is missing (apt-get install libsimgrid-dev, as root)" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsimgrid-dev >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -o "$tmp/a2a" "$here/a2a.c" -lsimgrid

printf '%6s  %12s %12s  %12s %12s  %s\n' peers "dlsim wall" "SimGrid wall" "dlsim span" "SimGrid span" "payload bytes"
for n in $sizes; do
  cat > "$tmp/a2a.ini" <<INI
[scenario]
name = a2a-$n
time_limit = 100h
[protocol]
version = disco-1110
min_participants = $n
[training]
rounds = 1
[model]
size = 100000
[network]
transport = fluid
latency = 20ms
server_latency = 1ms
uplink = 100Mbps
downlink = 100Mbps
link_setup = 1ms
[peers]
count = $n
INI
  t0=$(date +%s.%N)
  "$DLSIM" run "$tmp/a2a.ini" -o "$tmp/d.db" -q --no-events
  t1=$(date +%s.%N)
  dl_wall=$(awk "BEGIN { print $t1 - $t0 }")
  span=$(sqlite3 "$tmp/d.db" "SELECT printf('%.6f', end_s - start_s) FROM rounds WHERE round = 1")
  bytes=$(sqlite3 "$tmp/d.db" "SELECT bytes / messages FROM traffic WHERE type = 'Payload'")
  rm -f "$tmp"/d.db*
  cat > "$tmp/p.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="100Mbps" lat="10ms"
           bb_bw="1000000Gbps" bb_lat="0s" sharing_policy="SPLITDUPLEX" bb_sharing_policy="FATPIPE"/>
</platform>
XML
  t0=$(date +%s.%N)
  sg=$("$tmp/a2a" "$tmp/p.xml" "$bytes" --cfg=network/model:CM02 --log=root.thres:critical)
  t1=$(date +%s.%N)
  sg_wall=$(awk "BEGIN { print $t1 - $t0 }")
  sg_span=$(sed -n 's/.*makespan \([0-9.]*\).*/\1/p' <<<"$sg")
  printf '%6s  %11.2fs %11.2fs  %11.3fs %11.3fs  %s\n' "$n" "$dl_wall" "$sg_wall" "$span" "$sg_span" "$bytes"
done
