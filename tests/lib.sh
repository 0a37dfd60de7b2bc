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

# The dlsim processes this test started, and their children: each inherits
# DLSIM_TEST_RUN (this test's $tmp), so a test's "no process left" check
# does not see another test's `dlsim node` running beside it under make -j.
export DLSIM_TEST_RUN="$tmp"
# ours WHAT: the pids of our "$DLSIM WHAT" processes ("node", "node peer"),
# one a line; status 0 if there is any
ours () {
  found=1
  for p in $(pgrep -f "$DLSIM $1"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qxF "DLSIM_TEST_RUN=$tmp"; then
      echo "$p"; found=0
    fi
  done
  return $found
}
