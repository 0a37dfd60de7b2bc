#!/bin/sh
# tests/family-folder.sh — a protocol family is a folder (issue 34): outside
# protocol/FAMILY/, docs/, tests/, scenarios/ and guests/, the code names a
# family only in its registry line (protocol/proto-machine.c) and its
# include line (protocol/local.mk).  tools/family-mentions lists every other
# place; this test fails on one that docs/architecture.md's table "Family
# names outside their folder" does not name (file, family and the name),
# and on a row or a name of that table that is gone.  So the world, the
# CLI, results, plots, explore, runner, testbed or sim naming fedavg (or
# any family, in a new place) fails here.  Cheap: it reads the sources.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
doc=$src/docs/architecture.md

found=$(python3 "$src/tools/family-mentions" --src "$src") || ko "tools/family-mentions failed"
section=$(awk '$0 == "## Family names outside their folder" { on = 1; next } /^## / { on = 0 } on' "$doc")
# the table (its header row; it may have no other row)
printf '%s\n' "$section" | grep -q '^| file | family | names | why |$' \
  || ko "docs/architecture.md has no table \"Family names outside their folder\""
table=$(printf '%s\n' "$section" | grep '^| `')
# every mention: a row with its file and family that names it
printf '%s\n' "$found" | grep . | while IFS= read -r line; do
  file=${line%%: *} rest=${line#*: }
  fam=${rest%%: *} name=${rest#*: }
  printf '%s\n' "$table" | grep -F "| \`$file\` | $fam |" | grep -q -F "\`$name\`" || echo "$line"
done > "$tmp/unnamed"
if [ -s "$tmp/unnamed" ]; then
  ko "family names outside their folder that docs/architecture.md does not name:
$(cat "$tmp/unnamed")"
else
  ok "every family name outside its folder is named ($(printf '%s\n' "$found" | grep -c .))"
fi
# fedavg, the proof (issue 34 §6): named nowhere outside its folder
printf '%s\n' "$found" | grep -q ': fedavg: ' && ko "fedavg is named outside its folder: $(printf '%s\n' "$found" | grep ': fedavg: ')" \
  || ok "fedavg is named nowhere outside protocol/fedavg/ but its two lines"
# every row, and every name in it: still found
printf '%s\n' "$table" | while IFS= read -r row; do
  file=$(printf '%s\n' "$row" | cut -d'|' -f2 | sed -n 's/^ `\([^`]*\)` $/\1/p')
  fam=$(printf '%s\n' "$row" | cut -d'|' -f3 | tr -d ' ')
  for name in $(printf '%s\n' "$row" | cut -d'|' -f4 | grep -o '`[^`]*`' | tr -d '`'); do
    printf '%s\n' "$found" | grep -q -x -F "$file: $fam: $name" || echo "$file: $fam: $name"
  done
done > "$tmp/stale"
[ -s "$tmp/stale" ] && ko "docs/architecture.md names family names that are gone: $(cat "$tmp/stale")" \
  || ok "every name in the table is still there"

# every family of the registry has its tests in its folder
# (protocol/FAMILY/tests/, listed by its local.mk, as tests/README.md says)
for fam in $(sed -n 's/^  X (\([a-z0-9_]*\)[,)].*/\1/p' "$src/protocol/proto-machine.c"); do
  [ -d "$src/protocol/$fam/tests" ] && grep -q "^TESTS += protocol/$fam/tests/" "$src/protocol/$fam/local.mk" \
    || echo "$fam"
done > "$tmp/untested"
[ -s "$tmp/untested" ] && ko "families without protocol/FAMILY/tests/ listed by their local.mk: $(cat "$tmp/untested")" \
  || ok "every family's tests are in its folder, listed by its local.mk"

# a family whose tests live in its folder (protocol/FAMILY/tests/, as
# tests/README.md says) leaves no test file of its own in tests/
for d in "$src"/protocol/*/tests; do
  [ -d "$d" ] || continue
  fam=$(basename "$(dirname "$d")")
  ls "$src/tests" | grep -E '\.(c|h|sh)$' | while IFS= read -r b; do
    case "-$(printf '%s' "$b" | tr . -)-" in *"-$fam-"*) echo "tests/$b" ;; esac
  done
  grep -o -E "tests/test-$fam([-.][a-z0-9-]*)?" "$src/tests/local.mk" | sed 's/^/tests\/local.mk: /'
done > "$tmp/left"
[ -s "$tmp/left" ] && ko "a family with protocol/FAMILY/tests/ left tests in tests/: $(cat "$tmp/left")" \
  || ok "the families with their own tests/ folder leave none in tests/"

# the tool finds a planted mention, and not the two lines of registration
mkdir -p "$tmp/tree/protocol/fam" "$tmp/tree/sim"
printf '#define PROTO_FAMILIES(X) \\\n  X (fam)   /* protocol/fam/fam-family.c */ \\\n\n' > "$tmp/tree/protocol/proto-machine.c"
printf 'include protocol/fam/local.mk\n' > "$tmp/tree/protocol/local.mk"
printf '#pragma once\n#define FAM_HELLO 7\ntypedef struct { int x; } FamThing;\nvoid fam_start (FamThing *t);\n' \
  > "$tmp/tree/protocol/fam/fam.h"
printf '/* fam_start in a comment is no mention */\nvoid g (void) { f (FAM_HELLO, "fam"); }\n' > "$tmp/tree/sim/sim-x.c"
got=$(python3 "$src/tools/family-mentions" --src "$tmp/tree" | tr '\n' '|')
[ "$got" = 'sim/sim-x.c: fam: "fam"|sim/sim-x.c: fam: FAM_HELLO|' ] && ok "a planted mention is found, the registration is not" \
  || ko "planted mention: got '$got'"
finish
