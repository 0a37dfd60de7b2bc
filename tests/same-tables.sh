#!/bin/sh
# tests/same-tables.sh — tools/same-tables, which backs every "the same
# tables" claim of a refactor: one build against itself gives the same
# tables; a build and a wrapper that changes a run's seed do not; a path
# that is not there is refused (exit 2), never counted as a file both
# builds refuse alike.  Two small runs.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
tool="sh $src/tools/same-tables"
if ! command -v sqlite3 >/dev/null; then echo "SKIP: tools/same-tables needs sqlite3"; exit 77; fi

f=$tmp/small.ini
cat > "$f" <<'INI'
[scenario]
seed = 1
[peers]
count = 4
[training]
rounds = 2
[model]
size = 1000
INI
other=$tmp/other-seed
printf '#!/bin/sh\nexec "%s" "$@" --seed 2\n' "$DLSIM" > "$other"
chmod +x "$other"

expect 0 "1 of 1 files give the same tables" -- $tool "$DLSIM" "$DLSIM" "$f"
expect 1 "DIFFERS" -- $tool "$DLSIM" "$other" "$f"
expect 2 "no such file or folder" -- $tool "$DLSIM" "$DLSIM" "$f" "$tmp/gone"
finish
