#!/bin/sh
# bench/phold-compare.sh — PHOLD on the dlsim engine against its two
# reference loops (same-draws and plain), side by side in one process, at 1 000 and
# 100 000 LPs (K = 16 events per LP).  The 100 000-LP run uses a 10x shorter
# end time so both points process about the same number of events per LP
# per second of wall time budget (16 M events instead of 160 M).
# Usage: bench/phold-compare.sh [path/to/dlsim]   (default ./dlsim)
# Environment: REPEAT (alternating runs each, default 3).
set -eu
DLSIM=${1:-./dlsim}
"$DLSIM" bench phold --lps 1000 --events-per-lp 16 --end 100s --compare --repeat "${REPEAT:-3}"
echo
"$DLSIM" bench phold --lps 100000 --events-per-lp 16 --end 10s --compare --repeat "${REPEAT:-3}"
