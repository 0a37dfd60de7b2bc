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
