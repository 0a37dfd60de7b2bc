#!/bin/bash
# bench/ns3-compare/run.sh — dlsim's network model against packet-level
# TCP in ns-3 (Debian's libns3-dev, ns-3.37), case by case, in one table
# (docs/world.md, "ns-3").
#
#   bench/ns3-compare/run.sh [-d DLSIM] [-t TRANSPORTS] [-c CC] [-q QBDP]
#                            [-s SEEDS] [-j JITTER_MS] [-x NS3_ARGS] [-k DIR]
#                            [-r MIN_RTO] [-L] [--tol PCT] GRID...
#
# GRID: single (the 60 single transfers: 10 kB, 100 kB, 1 MB, 4 MB, 40 MB;
# 10, 100, 1000 Mbit/s; one-way latency 1, 10, 50, 100 ms), a2a (all-to-all
# rounds: 4, 8, 16 hosts; 1 and 4 MB; 20 and 100 Mbit/s; 1 and 50 ms),
# fanout (FedAvg's server to 10 and 50 clients, 4 MB each, server link 100
# Mbit/s and 1 Gbit/s, clients 20 Mbit/s, 50 ms), mixed (three hosts
# all-to-all, two of them 5 ms apart and the third 50 ms from both, links
# towards the switch at 1 Gbit/s and from it at 20 or 100 Mbit/s, 1 and 4
# MB: host 0's downlink is shared by a flow with a 10 ms round trip, from
# host 1, and one with a 100 ms round trip, from host 2; each is a row of
# its own), or one case `single:SIZE:MBPS:LAT_MS`,
# `a2a:HOSTS:SIZE:MBPS:LAT_MS`, `fanout:CLIENTS:SIZE:SERVER_MBPS:MBPS:LAT_MS`
# or `mixed:SIZE:MBPS:SHORT_MS:LONG_MS:short|long` (SIZE in bytes; the
# mixed latencies one way).  TRANSPORTS: dlsim's [network] transport
# values to run, one column each (default: tcp fluid); CC: ns-3's
# congestion control, cubic (default) or newreno (dlsim is then given
# [network] hystart = false: NewReno has no HyStart; so it is with
# --ns3::TcpCubic::HyStart=false in NS3_ARGS); QBDP: ns-3's drop-tail
# queues in bandwidth-delay products (default 1; dlsim is given it as
# [network] queue_bdp); MIN_RTO: dlsim's [network] min_rto (default 1s,
# ns-3's minimum retransmission timeout; 0: dlsim without its timeout
# where flows converge, docs/world.md); NS3_ARGS: more arguments
# to star.cc, e.g. --ns3::TcpCubic::HyStart=false, or --min-rto=0.2
# (ns-3's minimum retransmission timeout, Linux's 200 ms; give dlsim -r
# 200ms with it).  -L: Linux-like hosts in ns-3, star.cc's
# --host-qdisc=fqcodel (fq_codel above each host's own link; the switch's
# queues stay drop-tail of QBDP), put before NS3_ARGS (so kept outputs
# of -L and of the default never mix).  JITTER_MS (default 0):
# in a2a and mixed, each host starts sending up to this many milliseconds
# late, uniformly, the same offsets on both sides (ns-3: star.cc's
# --starts; dlsim: a timeline rule delaying that peer's
# StartWeightSharing); SEEDS (default 1): how many draws of those offsets
# (seeds 1 to SEEDS; a case without jitter, or with one sender, runs
# once).  A case's ratio is then the median over the seeds of ns-3 / dlsim,
# its time columns the medians, and the "spread" column the first
# transport's lowest and highest ratio.  With --tol, exits 1 if a case of
# the first transport (its median ratio) is further than PCT % from
# ns-3.  With -k,
# ns-3's output for each case (and QBDP, CC, NS3_ARGS) is kept in DIR and
# reused by the next run with the same -k (dlsim's side always runs).  After
# each GRID (consecutive single cases of one pattern make one): how many
# cases of each transport are within 10 % and within 25 %, and the
# ratios' median and the one furthest from 1.  Then ns-3's retransmission
# timeouts (entries into CA_LOSS, all flows, one count per seed) and the
# links into the hosts' idle fraction from the first send to the last
# transfer into each (the mean over hosts, median over seeds).  The last
# two columns are wall times: ns-3's runs (0 when kept from -k) and
# dlsim's runs under the first transport, summed over the seeds.
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
#   for a2a, the first Payload sent to the last received; for mixed,
#   regions (p1 and p2 in one, local_latency SHORT; p3 LONG away), uplinks
#   of 1 Gbit/s, the first Payload sent to p1's reception of p2's (short) or
#   p3's (long).  fanout is one round of FedAvg (every client in it), with
#   server_uplink and server_downlink at SERVER_MBPS and server_latency L:
#   the server's final model (FedDone) from its first send to its last
#   reception.  The model's size is SIZE / 4 floats (4 bytes each), and
#   ns-3 is given the message's bytes as dlsim counted them (traffic
#   table), so both move the same payload.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DLSIM=./dlsim
TRANSPORTS="tcp fluid"
CC=cubic
QBDP=1
SEEDS=1
JITTER=0
XARGS=
TOL=
KEEP=
MINRTO=1s
HOSTQ=
while [ $# -gt 0 ]; do
  case $1 in
    -d) DLSIM=$2; shift 2 ;;
    -t) TRANSPORTS=$2; shift 2 ;;
    -c) CC=$2; shift 2 ;;
    -q) QBDP=$2; shift 2 ;;
    -s) SEEDS=$2; shift 2 ;;
    -j) JITTER=$2; shift 2 ;;
    -x) XARGS=$2; shift 2 ;;
    -k) KEEP=$2; shift 2 ;;
    -r) MINRTO=$2; shift 2 ;;
    -L) HOSTQ=--host-qdisc=fqcodel; shift ;;
    --tol) TOL=$2; shift 2 ;;
    -*) echo "ns3-compare: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- single
[ -z "$HOSTQ" ] || XARGS="$HOSTQ${XARGS:+ $XARGS}"
DLSIM=$(cd "$(dirname "$DLSIM")" && pwd)/$(basename "$DLSIM")

if ! pkg-config --exists ns3-core ns3-internet ns3-point-to-point ns3-traffic-control 2>/dev/null; then
  echo "SKIP: ns3-compare needs Debian's libns3-dev (apt-get install ns3 libns3-dev)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -std=c++17 -w -o "$tmp/star" "$here/star.cc" \
  $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet ns3-point-to-point ns3-traffic-control)

# expand GRID: prints its cases, one a line
expand () {
  local s r l h k
  case $1 in
    single)
      for s in 10000 100000 1000000 4000000 40000000; do
        for r in 10 100 1000; do
          for l in 1 10 50 100; do echo "single:$s:$r:$l"; done
        done
      done ;;
    a2a)
      for h in 4 8 16; do
        for s in 1000000 4000000; do
          for r in 20 100; do
            for l in 1 50; do echo "a2a:$h:$s:$r:$l"; done
          done
        done
      done ;;
    fanout)
      for k in 10 50; do
        for r in 100 1000; do echo "fanout:$k:4000000:$r:20:50"; done
      done ;;
    mixed)
      for r in 20 100; do
        for s in 1000000 4000000; do
          for l in short long; do echo "mixed:$s:$r:5:50:$l"; done
        done
      done ;;
    single:*:*:*|a2a:*:*:*:*|fanout:*:*:*:*:*|mixed:*:*:*:*:short|mixed:*:*:*:*:long) echo "$1" ;;
    *) echo "ns3-compare: unknown grid $1" >&2; return 2 ;;
  esac
}
for g in "$@"; do expand "$g" >/dev/null || exit 2; done

# offsets CASE SEED: each host's start offset in microseconds, one a
# line, uniform in [0, JITTER ms) from a Park-Miller generator seeded with
# SEED (the same in every awk); nothing without jitter or for one sender
offsets () {
  local pat n
  IFS=: read -r pat n _ <<<"$1"
  case $pat in a2a) ;; mixed) n=3 ;; *) return 0 ;; esac
  awk -v n="$n" -v j="$JITTER" -v seed="$2" 'BEGIN {
    if (j <= 0) exit
    x = seed * 7919 % 2147483647
    for (i = 0; i < 5; i++) x = x * 16807 % 2147483647
    for (i = 0; i < n; i++) { x = x * 16807 % 2147483647; print int(x / 2147483647 * j * 1000) } }'
}

# seeds CASE: the seeds CASE runs with
seeds () {
  if [ -n "$(offsets "$1" 1)" ]; then seq 1 "$SEEDS"; else echo 1; fi
}

# dlsim_case CASE TRANSPORT SEED: prints "SECONDS BYTES"
dlsim_case () {
  local pat a b c d e tr=$2 n size mbps lat net proto msg q timeline i o
  IFS=: read -r pat a b c d e <<<"$1"
  case $pat in
    single) n=2 size=$a mbps=$b lat=$c ;;
    a2a) n=$a size=$b mbps=$c lat=$d ;;
    fanout) n=$a size=$b mbps=$d lat=$e ;;
    mixed) n=3 size=$a mbps=$b lat=$d ;;
  esac
  net="latency = ${lat}ms
uplink = ${mbps}Mbps
downlink = ${mbps}Mbps"
  proto="version = disco-1110"
  msg=Payload
  case $pat in
    fanout)
      proto="family = fedavg
fraction = 100%"
      msg=FedDone
      net+="
server_latency = ${lat}ms
server_uplink = ${c}Mbps
server_downlink = ${c}Mbps" ;;
    mixed)
      net="regions = a:2, b:1
local_latency = ${c}ms
latency = ${d}ms
uplink = 1Gbps
downlink = ${mbps}Mbps
server_latency = 1ms" ;;
    *) net+="
server_latency = 1ms" ;;
  esac
  timeline=
  i=0
  for o in $(offsets "$1" "$3"); do
    i=$((i + 1))
    [ "$o" -eq 0 ] || timeline+="${timeline:+; }delay StartWeightSharing to p$i by ${o}us"
  done
  [ -z "$timeline" ] || timeline="[timeline]
0s = $timeline"
  cat > "$tmp/case.ini" <<INI
$timeline
[scenario]
name = ns3-$pat
time_limit = 100h
[protocol]
$proto
min_participants = $n
[training]
rounds = 1
[model]
size = $((size / 4))
[network]
sharing = fair
$([ "$tr" = default ] || echo "transport = $tr")
$net
link_setup = 1ms
header_bytes = 54
min_rto = $MINRTO
queue_bdp = $QBDP
$(case "$CC $XARGS" in newreno* | *HyStart=false*) echo "hystart = false" ;; esac)
[peers]
count = $n
INI
  rm -f "$tmp"/d.db*
  local t0 t1
  t0=$(date +%s.%N)
  "$DLSIM" run "$tmp/case.ini" -o "$tmp/d.db" -q
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' > "$tmp/dwall.$tr"
  local first="(SELECT MIN(t_s) FROM events WHERE kind = 'sent' AND msg = '$msg')"
  case $pat in
    single)
      q="SELECT r.t_s - s.t_s FROM events s, events r
           WHERE s.kind = 'sent' AND s.msg = 'Payload' AND s.node = 'p1'
             AND r.kind = 'received' AND r.msg = 'Payload' AND r.node = 'p2'" ;;
    mixed)
      q="SELECT t_s - $first FROM events WHERE kind = 'received' AND msg = 'Payload' AND node = 'p1'
           AND other = '$([ "$e" = short ] && echo p2 || echo p3)'" ;;
    *) q="SELECT MAX(t_s) - $first FROM events WHERE kind = 'received' AND msg = '$msg'" ;;
  esac
  echo "$(sqlite3 "$tmp/d.db" "SELECT printf('%.6f', ($q))") $(sqlite3 "$tmp/d.db" "SELECT bytes / messages FROM traffic WHERE type = '$msg'")"
}

# ns3_case CASE BYTES SEED: prints ns-3's seconds for CASE, each transfer
# BYTES, its timeouts and its links' idle fraction
ns3_case () {
  local pat a b c d e args starts
  IFS=: read -r pat a b c d e <<<"$1"
  case $pat in
    single) args="--pattern=single --rate=${b}e6 --lat=$(ms "$c")" ;;
    a2a) args="--pattern=a2a --hosts=$a --rate=${c}e6 --lat=$(ms "$d")" ;;
    fanout) args="--pattern=fanout --hosts=$((a + 1)) --server-rate=${c}e6 --rate=${d}e6 --lat=$(ms "$e")" ;;
    mixed) args="--pattern=a2a --hosts=3 --rate=${b}e6 --up-rate=1e9
                 --delays=$(ms "$c" 2),$(ms "$c" 2),$(awk -v s="$c" -v l="$d" 'BEGIN { print (l - s / 2) / 1000 }')" ;;
  esac
  starts=$(offsets "$1" "$3" | awk '{ printf "%s%.6f", (NR > 1 ? "," : ""), $1 / 1e6 }')
  [ -z "$starts" ] || args+=" --starts=$starts"
  local key
  key=$(echo "$1 $2 $QBDP $CC $XARGS${starts:+ j$JITTER s$3}" | tr -c 'A-Za-z0-9.:=\n-' _)
  # a file name has at most 255 bytes: a longer key keeps its first 200
  # and a digest of the whole (shorter keys, all kept before, unchanged)
  [ ${#key} -le 250 ] || key="${key:0:200}_$(printf '%s' "$key" | md5sum | cut -c1-16)"
  if [ -n "$KEEP" ] && [ -s "$KEEP/$key" ]; then
    cp "$KEEP/$key" "$tmp/ns3.out"
  else
    # shellcheck disable=SC2086
    "$tmp/star" $args --size="$2" --qbdp="$QBDP" --cc="$CC" $XARGS > "$tmp/ns3.out"
    if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp "$tmp/ns3.out" "$KEEP/$key"; fi
  fi
  if [ "$pat" = mixed ]; then
    awk -v w="$([ "$e" = short ] && echo 1 || echo 2)" '$1 == "flow" && $2 == w && $3 == 0 { printf "%s ", $4 }' "$tmp/ns3.out"
  else
    sed -n 's/^time //p' "$tmp/ns3.out" | tr '\n' ' '
  fi
  awk '$1 == "timeouts" { t = $2 } $1 == "idle_mean" { i = $2 } END { printf "%s %s\n", (t == "" ? "-" : t), (i == "" ? "-" : i) }' "$tmp/ns3.out"
}

# median: the median of the numbers on stdin
median () {
  sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ms MS [DIV]: MS milliseconds (divided by DIV) in seconds
ms () { awk -v m="$1" -v d="${2:-1}" 'BEGIN { print m / d / 1000 }'; }

# summary GRID FILE: FILE has one line per case, a ratio per transport
summary () {
  local i=0 tr
  for tr in $TRANSPORTS; do
    i=$((i + 1))
    sort -g -k"$i" "$2" | awk -v c="$i" -v g="$1" -v tr="$tr" '
      { r[NR] = $c; x = $c < 1 ? 1 / $c : $c; if (x > wx) { wx = x; w = $c } if (x <= 1.10) n++; if (x <= 1.25) q++ }
      END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
            printf "# %s, %s: %d of %d cases within 10 %% of ns-3, %d within 25 %%; ratio median %.2f, furthest %.2f\n", g, tr, n, NR, q + 0, m, w }'
  done
}

status=0
hdr=$(printf '%-30s %10s' case "ns-3 s")
for tr in $TRANSPORTS; do hdr+=$(printf ' %10s %7s' "$tr s" ratio); done
echo "# ns-3 $CC $XARGS, queues of $QBDP BDP; start jitter $JITTER ms, $SEEDS seed(s); ratio = ns-3 / dlsim"
echo "$hdr      spread  ns-3 timeouts  idle   ns-3 wall  dlsim wall"
# the cases, each after its group: a named grid, or consecutive cases of
# one pattern
groups=()
for g in "$@"; do
  case $g in *:*) label="${g%%:*} cases" ;; *) label=$g ;; esac
  for c in $(expand "$g"); do groups+=("$label" "$c"); done
done
first_tr=$(set -- $TRANSPORTS; echo "$1")
prev=
: > "$tmp/ratios"
for ((i = 0; i < ${#groups[@]}; i += 2)); do
  label=${groups[i]}
  c=${groups[i + 1]}
  if [ -n "$prev" ] && [ "$label" != "$prev" ]; then
    summary "$prev" "$tmp/ratios"
    : > "$tmp/ratios"
  fi
  prev=$label
  nswall=0 dwall=0 touts= 
  rm -f "$tmp"/per.*
  for seed in $(seeds "$c"); do
    for tr in $TRANSPORTS; do
      read -r t bytes < <(dlsim_case "$c" "$tr" "$seed")
      echo "$t" >> "$tmp/per.t.$tr"
      [ "$tr" != "$first_tr" ] || dwall=$(awk -v a="$dwall" -v b="$(cat "$tmp/dwall.$tr")" 'BEGIN { print a + b }')
    done
    t0=$(date +%s.%N)
    read -r ns tout idle < <(ns3_case "$c" "$bytes" "$seed")
    t1=$(date +%s.%N)
    nswall=$(awk -v w="$nswall" -v a="$t0" -v b="$t1" 'BEGIN { print w + b - a }')
    echo "$ns" >> "$tmp/per.ns"
    echo "$idle" >> "$tmp/per.idle"
    touts+="${touts:+,}$tout"
    for tr in $TRANSPORTS; do
      awk -v a="$ns" -v b="$(tail -n 1 "$tmp/per.t.$tr")" 'BEGIN { print a / b }' >> "$tmp/per.r.$tr"
    done
  done
  ratios=
  line=$(printf '%-30s %10.4f' "$c" "$(median < "$tmp/per.ns")")
  for tr in $TRANSPORTS; do
    r=$(median < "$tmp/per.r.$tr")
    ratios+=" $r"
    line+=$(printf ' %10.4f %7.2f' "$(median < "$tmp/per.t.$tr")" "$r")
  done
  spread=$(sort -g "$tmp/per.r.$first_tr" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')
  idle=$(grep -v '^-$' "$tmp/per.idle" | median)
  printf '%s  %10s  %13s  %4s   %8.2fs  %9.3fs\n' "$line" "$spread" "$touts" "${idle:--}" "$nswall" "$dwall"
  echo "$ratios" >> "$tmp/ratios"
  r=${ratios# }
  r=${r%% *}
  if [ -n "$TOL" ] && ! awk -v r="$r" -v t="$TOL" 'BEGIN { exit !(r <= 1 + t / 100 && r >= 1 / (1 + t / 100)) }'; then
    echo "ns3-compare: $c: ns-3 / dlsim ($first_tr) = $r, outside $TOL %" >&2
    status=1
  fi
done
[ -z "$prev" ] || summary "$prev" "$tmp/ratios"
exit $status
