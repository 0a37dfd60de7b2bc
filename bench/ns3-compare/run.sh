#!/bin/bash
# bench/ns3-compare/run.sh — dlsim's network model against packet-level
# TCP in ns-3 (Debian's libns3-dev, ns-3.37), case by case, in one table
# (docs/world.md, "ns-3").
#
#   bench/ns3-compare/run.sh [-d DLSIM] [-t TRANSPORTS] [-c CC] [-q QBDP]
#                            [-x NS3_ARGS] [--tol PCT] GRID...
#
# GRID: single (the 60 single transfers: 10 kB, 100 kB, 1 MB, 4 MB, 40 MB;
# 10, 100, 1000 Mbit/s; one-way latency 1, 10, 50, 100 ms), a2a (all-to-all
# rounds: 4, 8, 16 hosts; 1 and 4 MB; 20 and 100 Mbit/s; 1 and 50 ms), or
# one case `single:SIZE:MBPS:LAT_MS` / `a2a:HOSTS:SIZE:MBPS:LAT_MS` (SIZE in
# bytes).  TRANSPORTS: dlsim's [network] transport values to run, one
# column each (default: tcp fluid); CC: ns-3's congestion control, cubic
# (default) or newreno; QBDP: ns-3's drop-tail queues in bandwidth-delay
# products (default 1); NS3_ARGS: more arguments to star.cc, e.g.
# --ns3::TcpCubic::HyStart=false.  With --tol, exits 1 if a case of the first
# transport is further than PCT % from ns-3.
#
# Prints SKIP and exits 77 (automake's skip) when libns3-dev is missing.
#
# The cases:
# - ns-3: star.cc, built here against libns3-dev; every host on its own
#   access link to one switch, TCP with an initial window of 10 and MSS
#   1 448, SACK; a transfer is timed from its first byte handed to an
#   established connection to its last byte read (see star.cc).
# - dlsim: one round of disco-1110 (model none), every peer at the same
#   uplink and downlink, latency L, header_bytes = 54 (the 20-byte IP and
#   32-byte TCP header with timestamps of ns-3's segments, and PPP's 2); a
#   transfer is a Payload, from its send to its reception (events table):
#   for single, p1's Payload to p2 (p2's goes the other way on other links);
#   for a2a, the first Payload sent to the last received.  The model's size
#   is SIZE / 4 floats (4 bytes each), and ns-3 is given the Payload's bytes as dlsim
#   counted them (traffic table), so both move the same payload.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DLSIM=./dlsim
TRANSPORTS="tcp fluid"
CC=cubic
QBDP=1
XARGS=
TOL=
while [ $# -gt 0 ]; do
  case $1 in
    -d) DLSIM=$2; shift 2 ;;
    -t) TRANSPORTS=$2; shift 2 ;;
    -c) CC=$2; shift 2 ;;
    -q) QBDP=$2; shift 2 ;;
    -x) XARGS=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    -*) echo "ns3-compare: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- single
DLSIM=$(cd "$(dirname "$DLSIM")" && pwd)/$(basename "$DLSIM")

if ! pkg-config --exists ns3-core ns3-internet ns3-point-to-point ns3-traffic-control 2>/dev/null; then
  echo "SKIP: ns3-compare needs Debian's libns3-dev (apt-get install ns3 libns3-dev)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -std=c++17 -w -o "$tmp/star" "$here/star.cc" \
  $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet ns3-point-to-point ns3-traffic-control)

cases=()
for g in "$@"; do
  case $g in
    single)
      for s in 10000 100000 1000000 4000000 40000000; do
        for r in 10 100 1000; do
          for l in 1 10 50 100; do cases+=("single:$s:$r:$l"); done
        done
      done ;;
    a2a)
      for h in 4 8 16; do
        for s in 1000000 4000000; do
          for r in 20 100; do
            for l in 1 50; do cases+=("a2a:$h:$s:$r:$l"); done
          done
        done
      done ;;
    single:*:*:*|a2a:*:*:*:*) cases+=("$g") ;;
    *) echo "ns3-compare: unknown grid $g" >&2; exit 2 ;;
  esac
done

# dlsim_case PATTERN HOSTS SIZE MBPS LAT_MS TRANSPORT: prints "SECONDS BYTES"
dlsim_case () {
  local pat=$1 n=$2 size=$3 mbps=$4 lat=$5 tr=$6 q
  cat > "$tmp/case.ini" <<INI
[scenario]
name = ns3-$pat
time_limit = 100h
[protocol]
version = disco-1110
min_participants = $n
[training]
rounds = 1
[model]
size = $((size / 4))
[network]
sharing = fair
$([ "$tr" = default ] || echo "transport = $tr")
latency = ${lat}ms
server_latency = 1ms
uplink = ${mbps}Mbps
downlink = ${mbps}Mbps
link_setup = 1ms
header_bytes = 54
[peers]
count = $n
INI
  rm -f "$tmp"/d.db*
  "$DLSIM" run "$tmp/case.ini" -o "$tmp/d.db" -q
  if [ "$pat" = single ]; then
    q="SELECT printf('%.6f', r.t_s - s.t_s) FROM events s, events r
         WHERE s.kind = 'sent' AND s.msg = 'Payload' AND s.node = 'p1'
           AND r.kind = 'received' AND r.msg = 'Payload' AND r.node = 'p2'"
  else
    q="SELECT printf('%.6f', MAX(t_s) - (SELECT MIN(t_s) FROM events WHERE kind = 'sent' AND msg = 'Payload'))
         FROM events WHERE kind = 'received' AND msg = 'Payload'"
  fi
  echo "$(sqlite3 "$tmp/d.db" "$q") $(sqlite3 "$tmp/d.db" "SELECT bytes / messages FROM traffic WHERE type = 'Payload'")"
}

status=0
within=0
total=0
worst=1
hdr=$(printf '%-28s %10s' case "ns-3 s")
for tr in $TRANSPORTS; do hdr+=$(printf ' %10s %7s' "$tr s" ratio); done
echo "# ns-3 $CC $XARGS, queues of $QBDP BDP; ratio = ns-3 / dlsim"
echo "$hdr   ns-3 wall"
for c in "${cases[@]}"; do
  IFS=: read -r pat a b d e <<<"$c"
  if [ "$pat" = single ]; then n=2 size=$a mbps=$b lat=$d; else n=$a size=$b mbps=$d lat=$e; fi
  row=
  bytes=
  first=
  for tr in $TRANSPORTS; do
    read -r t bytes < <(dlsim_case "$pat" "$n" "$size" "$mbps" "$lat" "$tr")
    row+=" $t"
    [ -n "$first" ] || first=$t
  done
  t0=$(date +%s.%N)
  ns=$("$tmp/star" --pattern="$pat" --hosts="$n" --size="$bytes" --rate="${mbps}e6" --lat="$(awk -v l="$lat" 'BEGIN { print l / 1000 }')" \
       --qbdp="$QBDP" --cc="$CC" $XARGS | sed -n 's/^time //p')
  t1=$(date +%s.%N)
  line=$(printf '%-28s %10.4f' "$c" "$ns")
  for t in $row; do line+=$(printf ' %10.4f %7.2f' "$t" "$(awk -v a="$ns" -v b="$t" 'BEGIN { print a / b }')"); done
  printf '%s   %8.2fs\n' "$line" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
  total=$((total + 1))
  r=$(awk -v a="$ns" -v b="$first" 'BEGIN { print a / b }')
  worst=$(awk -v r="$r" -v w="$worst" 'BEGIN { x = r < 1 ? 1 / r : r; y = w < 1 ? 1 / w : w; print (x > y ? r : w) }')
  if awk -v r="$r" 'BEGIN { exit !(r <= 1.10 && r >= 1 / 1.10) }'; then within=$((within + 1)); fi
  if [ -n "$TOL" ] && ! awk -v r="$r" -v t="$TOL" 'BEGIN { exit !(r <= 1 + t / 100 && r >= 1 / (1 + t / 100)) }'; then
    echo "ns3-compare: $c: ns-3 / dlsim ($(set -- $TRANSPORTS; echo "$1")) = $r, outside $TOL %" >&2
    status=1
  fi
done
echo "# $(set -- $TRANSPORTS; echo "$1"): $within of $total cases within 10 % of ns-3; the furthest at $worst"
exit $status
