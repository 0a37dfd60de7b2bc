# tests/lib.sh — shared by the shell tests: sourced, not run.
# Sets DLSIM (absolute), a temporary folder $tmp removed on exit, $out, the
# pass/fail counters, and:
#   expect STATUS PATTERN -- COMMAND...   exit status and a grep pattern over stdout+stderr
#   ok DESCRIPTION                         count a check done by hand as passed
#   ko DESCRIPTION                         ... as failed (and say why)
#   finish                                 the closing "N passed, N failed" line and exit status
DLSIM=${DLSIM:-./dlsim}
case "$DLSIM" in /*) ;; *) DLSIM="$(pwd)/$DLSIM" ;; esac
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

expect () {
  want=$1 pattern=$2
  shift 3
  "$@" >"$out" 2>&1
  got=$?
  if [ "$got" -eq "$want" ] && grep -q -e "$pattern" "$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* (exit $got, wanted $want; pattern '$pattern')"
    sed 's/^/  | /' "$out" | head -20
  fi
}

ok () { pass=$((pass + 1)); }
ko () { fail=$((fail + 1)); echo "FAIL: $*"; }

finish () {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# rowdump DB: a digest of every run's rows (wall times left out), in any order
rowdump () {
  for t in runs params peers rounds events metrics traffic summary expectations violations; do
    case $t in
      runs) sqlite3 "$1" "SELECT run_id, scenario, point, point_label, seed, dlsim_version, protocol_version, sim_end_s, outcome, file, mode FROM runs" ;;
      *) sqlite3 "$1" "SELECT * FROM $t" ;;
    esac | sort
  done | md5sum
}
