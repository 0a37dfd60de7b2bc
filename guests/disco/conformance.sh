#!/bin/sh
# conformance.sh - the conformance table of issue 36 §4 (docs/conformance.md):
# each DISCO guest scenario run as `family = guest` over real DISCO and as
# its C twin (twin.sh: family = disco, version = disco-775), compared with
# `dlsim compare`.  Prints one markdown row a file:
#
#   - outcome: the run's outcome, guest / C;
#   - discrete facts: `dlsim compare`'s verdict (outcome, rounds completed,
#     retries, exclusions, model syncs, the properties' violations, each
#     peer's outcome, rounds, retries and fails), the coordinator's retry
#     counter at each retry (the retry events' values, in order) and
#     stale_model_syncs, and the facts that differ;
#   - messages: the messages sent per type, equal or not (the events' type
#     names: the guest's NewDecentralizedNodeInfo is the C side's NewNodeInfo;
#     dlsim compare counts a guest's messages as one type, Guest);
#   - rounds: how many rounds have a list (both), and the largest difference
#     of a round's list time and of its end time, guest - C, in ms.
#
#     sh guests/disco/conformance.sh [--dlsim PATH] [--disco-src DIR]
#                                    [--set SECTION.KEY=VALUE]... [--twins DIR]... [--check]
#                                    [FILE...]
#
# --twins DIR: the C twin of FILE is DIR/NAME.ini, the file guestify.sh made
# it from (protocol/disco/scenarios/failures or protocol/disco/scenarios/disco1110-twins for
# protocol/guest/scenarios/disco1110), not twin.sh's; repeat it to search several
# folders, the first that holds NAME.ini wins.  Such a twin runs as the
# guest does: `[peers] runtime = node` (DISCO's clients are Node processes
# here: an error nothing listens to ends one, docs/conformance.md) and a
# model of four floats, the weights the guest's clients inject (`[model]
# kind = none, size = 4`, as twin.sh's), with the file's own [compute].
# --check: the guest runs are `dlsim check` runs (FILE's [expect]): a file
# that fails them is named on stderr, and the exit status is 1 at the end.
# --set goes to both runs of every file (dlsim run --set; no spaces in it).
# FILE: guest scenarios (default: protocol/guest/scenarios/disco-*.ini beside this
# script).  DLSIM (or --dlsim; default ./dlsim, then dlsim on the PATH) and
# DISCO_SRC (or --disco-src) as for run.sh.  Exit 1 if a run fails to
# start; a difference is a row, not an error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sets=
twins=
check=
dlsim=${DLSIM:-}
while [ $# -gt 0 ]; do
  case $1 in
    --dlsim) dlsim=${2:?--dlsim needs a path}; shift 2 ;;
    --disco-src) DISCO_SRC=${2:?--disco-src needs a folder}; export DISCO_SRC; shift 2 ;;
    --twins) twins="$twins ${2:?--twins needs a folder}"; shift 2 ;;
    --check) check=1; shift ;;
    --set) sets="${sets:-} --set ${2:?--set needs SECTION.KEY=VALUE}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/{/^set -eu/d;p;}' "$0"; exit 0 ;;
    -*) echo "conformance.sh: unknown option: $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ -z "$dlsim" ]; then
  if [ -x ./dlsim ]; then dlsim=./dlsim; else dlsim=dlsim; fi
fi
command -v sqlite3 >/dev/null || { echo "conformance.sh: needs sqlite3" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$here"/../../protocol/guest/scenarios/disco-*.ini

work=$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# messages sent per type, by the names of the events
types () {
  sqlite3 "$1" "SELECT CASE WHEN msg = 'Guest' THEN detail ELSE msg END, COUNT(*) FROM events
                WHERE kind = 'sent' GROUP BY 1" | sed 's/^NewDecentralizedNodeInfo|/NewNodeInfo|/' | sort
}
summary () { sqlite3 "$1" "SELECT value FROM summary WHERE key = '$2'"; }
# the coordinator's retry counter at each of its retries, in order (the
# retry events' values: DISCO's #connectionRetry as the guest says it in
# `retry N`, the C coordinator's counter; `-`: no retry)
counter () {
  sqlite3 "$1" "SELECT IFNULL(GROUP_CONCAT(value, ','), '-') FROM (SELECT IFNULL(value, '?') AS value FROM events
                WHERE node = 'S' AND kind = 'retry' ORDER BY seq)"
}

failed=
echo "| file | outcome, guest / C | discrete facts | messages per type | rounds listed | max \\|Δ list\\| (ms) | max \\|Δ end\\| (ms) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for f in "$@"; do
  n=$(basename "$f" .ini)
  g=$work/$n.db c=$work/c-$n.db
  if [ -n "$check" ]; then
    # shellcheck disable=SC2086 # $sets: words
    if ! "$dlsim" check "$f" -o "$g" -q $sets > "$work/$n.out" 2>&1; then
      [ -s "$g" ] || { cat "$work/$n.out" >&2; exit 1; }
      grep -v '^PASS' "$work/$n.out" >&2; failed="$failed $n"
    fi
  else
    # shellcheck disable=SC2086
    "$dlsim" run "$f" -o "$g" -q $sets > "$work/$n.out" 2>&1 || { cat "$work/$n.out" >&2; exit 1; }
  fi
  csets=$sets
  if [ -n "$twins" ]; then
    # shellcheck disable=SC2086 # $twins: words
    for d in $twins; do [ -f "$d/$n.ini" ] && { cp "$d/$n.ini" "$work/c-$n.ini"; break; }; done
    [ -f "$work/c-$n.ini" ] || { echo "conformance.sh: no twin $n.ini in$twins" >&2; exit 1; }
    csets="$sets --set peers.runtime=node --set model.kind=none --set model.size=4"
  else
    sh "$here/twin.sh" "$f" > "$work/c-$n.ini"
  fi
  # shellcheck disable=SC2086
  "$dlsim" run "$work/c-$n.ini" -o "$c" -q $csets > "$work/c-$n.out" 2>&1 || { cat "$work/c-$n.out" >&2; exit 1; }
  if "$dlsim" compare "$c" "$g" > "$work/$n.cmp" 2>&1; then
    facts=agree
  else
    # the facts that differ: compare marks each row DIFFERS
    # (columns: the header's "A:" and "B:" say where A's and B's start)
    facts="differ: $(awk '
      function trim(s) { gsub(/^ +| +$/, "", s); return s }
      !a && /A: / { a = index($0, "A: "); b = index($0, "B: "); next }
      a && /DIFFERS/ { printf "%s%s %s/%s", sep, trim(substr($0, 1, a - 1)), trim(substr($0, b, b - a)),
                                                   trim(substr($0, a, b - a)); sep = ", " }' "$work/$n.cmp") (guest/C)"
  fi
  # two facts dlsim compare does not judge: the retry counter's values, and
  # the models served stale (S13a: the summary's stale_model_syncs)
  more=
  [ "$(counter "$g")" = "$(counter "$c")" ] || more="retry counter $(counter "$g")/$(counter "$c")"
  [ "$(summary "$g" stale_model_syncs)" = "$(summary "$c" stale_model_syncs)" ] \
    || more="${more:+$more, }stale_model_syncs $(summary "$g" stale_model_syncs)/$(summary "$c" stale_model_syncs)"
  if [ -n "$more" ]; then
    if [ "$facts" = agree ]; then facts="differ: $more (guest/C)"; else facts="${facts% (guest/C)}, $more (guest/C)"; fi
  fi
  if [ "$(types "$g")" = "$(types "$c")" ]; then msgs=equal; else
    msgs="differ: $(types "$g" > "$work/tg"; types "$c" > "$work/tc"
      join -t'|' -a1 -a2 -e0 -o 0,1.2,2.2 "$work/tg" "$work/tc" | awk -F'|' '$2 != $3 { printf "%s%s %s/%s", sep, $1, $2, $3; sep = ", " }') (guest/C)"
  fi
  sqlite3 "$g" "SELECT round, list_s, IFNULL(end_s, '') FROM rounds WHERE list_s IS NOT NULL ORDER BY round" > "$work/g.r"
  sqlite3 "$c" "SELECT round, list_s, IFNULL(end_s, '') FROM rounds WHERE list_s IS NOT NULL ORDER BY round" > "$work/c.r"
  rounds="$(wc -l < "$work/g.r" | tr -d ' ') / $(wc -l < "$work/c.r" | tr -d ' ')"
  times=$(join -t'|' "$work/g.r" "$work/c.r" | awk -F'|' '
    function abs(x) { return x < 0 ? -x : x }
    { l = abs($2 - $4) * 1000; if (l > ml) ml = l
      if ($3 != "" && $5 != "") { e = abs($3 - $5) * 1000; if (e > me) me = e; ne++ } }
    END { printf "%.3f|%s", ml, ne ? sprintf("%.3f", me) : "-" }')
  printf '| %s | %s / %s | %s | %s | %s | %s | %s |\n' "$n" "$(summary "$g" outcome)" "$(summary "$c" outcome)" \
    "$facts" "$msgs" "$rounds" "${times%|*}" "${times#*|}"
done
if [ -n "$check" ]; then
  [ -z "$failed" ] || { echo "conformance.sh: dlsim check failed on$failed" >&2; exit 1; }
  echo "conformance.sh: dlsim check passed all $# guest files" >&2
fi
