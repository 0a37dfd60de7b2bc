#!/bin/bash
# bench/scaling.sh — wall time and peak memory against the number of peers,
# for docs/performance.md ("Scaling") and its figure.
#
#   bench/scaling.sh [DLSIM] [OUTDIR]      (defaults: ./dlsim, docs/figures)
#
# Two series of `dlsim bench scale`, model `none` with 100 000 floats,
# 3 rounds:
# - all-to-all: disco-1110, every peer in every round (the n² exchange),
#   1 Gbit/s links, at 100, 300, 1 000 and 3 000 peers (3 000 needs about
#   TWO minutes and several GiB; SKIP_3000=1 leaves it out);
# - groups of 10: disco-pre775 with min_participants 10 (its coordinator
#   lists the first 10 ready peers as a round), default 20/100 Mbit/s, at
#   100, 300, 1 000, 3 000 and 10 000 peers.
# Writes OUTDIR/scaling.dat (series, peers, wall seconds, peak MiB, events)
# and draws OUTDIR/scaling.png with gnuplot.  Wall times are this machine's:
# run it on an idle one.
set -euo pipefail
DLSIM=${1:-./dlsim}
OUT=${2:-docs/figures}
mkdir -p "$OUT"
dat="$OUT/scaling.dat"
echo "# series peers wall_s peak_mib events  (bench/scaling.sh, $(date -u +%Y-%m-%d))" > "$dat"

run () {   # series peers args...
  local series=$1 peers=$2
  shift 2
  local out
  out=$("$DLSIM" bench scale --peers "$peers" --rounds 3 --model-size 100000 "$@")
  local wall mem events outcome
  wall=$(sed -n 's/^wall \([0-9.]*\) s.*/\1/p' <<<"$out")
  mem=$(sed -n 's/.*peak memory \([0-9.]*\) MiB.*/\1/p' <<<"$out")
  events=$(sed -n 's/^\([0-9]*\) events,.*/\1/p' <<<"$out")
  outcome=$(sed -n 's/^outcome \([a-z_]*\),.*/\1/p' <<<"$out")
  if [ "$outcome" != completed ]; then
    echo "scaling.sh: $series at $peers peers: outcome $outcome" >&2
    exit 1
  fi
  echo "$series $peers $wall $mem $events" | tee -a "$dat"
}

sizes_a2a="100 300 1000"
[ "${SKIP_3000:-0}" = 1 ] || sizes_a2a="$sizes_a2a 3000"
for n in $sizes_a2a; do run all-to-all "$n" --uplink 1Gbps --downlink 1Gbps; done
for n in 100 300 1000 3000 10000; do run groups-of-10 "$n" --version disco-pre775 --min-participants 10; done

gnuplot <<EOF
set terminal pngcairo size 1100,450 font ",10"
set output "$OUT/scaling.png"
set multiplot layout 1,2 title "dlsim bench scale: 3 rounds, model none (100 000 floats)"
set logscale xy
set grid
set key top left
set xlabel "peers"
set ylabel "wall seconds"
plot "$dat" using 2:(strcol(1) eq "all-to-all" ? \$3 : 1/0) with linespoints title "disco-1110 all-to-all, 1 Gbit/s", \
     "$dat" using 2:(strcol(1) eq "groups-of-10" ? \$3 : 1/0) with linespoints title "disco-pre775, rounds of 10"
set ylabel "peak memory (MiB)"
plot "$dat" using 2:(strcol(1) eq "all-to-all" ? \$4 : 1/0) with linespoints title "disco-1110 all-to-all, 1 Gbit/s", \
     "$dat" using 2:(strcol(1) eq "groups-of-10" ? \$4 : 1/0) with linespoints title "disco-pre775, rounds of 10"
unset multiplot
EOF
echo "wrote $dat and $OUT/scaling.png"
