#!/bin/sh
# tests/layers.sh — the layering rules that a tool can check: no file
# outside results/ calls SQLite (tools/sql-outside-results); no
# file includes a header of a folder its layer must not see, as results/ or
# testbed/ one of the world's (tools/layer-includes); no
# cycle of calls between the files of one folder, and no global name without
# its module's prefix, that docs/architecture.md does not name
# (tools/file-cycles, over the built objects).
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)

if found=$(sh "$src/tools/sql-outside-results" "$src"); then
  ok "no sqlite3_ call outside results/"
else
  ko "sqlite3_ called outside results/: $found"
fi
# the check itself finds a call where there is one
mkdir -p "$tmp/tree/cli" "$tmp/tree/plots" "$tmp/tree/results"
printf 'void f (void) { sqlite3_close (0); }\n' > "$tmp/tree/results/ok.c"
printf 'void g (void) { sqlite3_close (0); }\n' > "$tmp/tree/cli/bad.c"
printf 'void h (void) { sqlite3_close (0); }\n' > "$tmp/tree/plots/bad.c"
if found=$(sh "$src/tools/sql-outside-results" "$tmp/tree"); then
  ko "planted sqlite3_ calls in cli/ and plots/ were not found"
elif [ "$found" = "$(printf 'cli/bad.c\nplots/bad.c')" ]; then
  ok "the planted calls in cli/ and plots/ (and only they) are found"
else
  ko "the check found '$found', expected cli/bad.c and plots/bad.c"
fi
# --- includes across layers: results/ and testbed/ see nothing of the world
# (sim/), the world and the host layer nothing of the loader (scenario/)...
if found=$(sh "$src/tools/layer-includes" "$src"); then
  ok "no file includes a header of a folder its layer must not see"
else
  ko "includes across the layers (tools/layer-includes): $found"
fi
# the check itself finds a planted include where there is one
mkdir -p "$tmp/inc/testbed" "$tmp/inc/results" "$tmp/inc/host" "$tmp/inc/runner"
printf '#include "sim/sim-world.h"\n' > "$tmp/inc/testbed/bad.c"
printf '#include "host/sim-types.h"\n#include "sim/sim-engine.h"\n' > "$tmp/inc/results/bad.h"
printf '#include "scenario/sim-scenario.h"\n' > "$tmp/inc/host/bad.c"
printf '#include "host/sim-types.h"\n#include "scenario/sim-scenario.h"\n' > "$tmp/inc/testbed/ok.c"
printf '#include "sim/sim-world.h"\n' > "$tmp/inc/runner/ok.c"
want='host/bad.c: scenario/sim-scenario.h
results/bad.h: sim/sim-engine.h
testbed/bad.c: sim/sim-world.h'
if found=$(sh "$src/tools/layer-includes" "$tmp/inc"); then
  ko "planted includes of sim/ in testbed/ and results/ were not found"
elif [ "$found" = "$want" ]; then
  ok "the planted includes (and only they) are found"
else
  ko "the check found '$found', expected '$want'"
fi
# --- cycles between files of one folder, and names without their prefix
doc=$src/docs/architecture.md
# section NAME: the lines of docs/architecture.md's section "## NAME"
section () {
  awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$doc"
}
cycles=$(python3 "$src/tools/file-cycles" --src "$src") || ko "tools/file-cycles failed"
table=$(section "Cycles between files of one folder" | grep '^| `')
n=$(printf '%s\n' "$cycles" | grep -c .)
said=$(section "Cycles between files of one folder" | sed -n 's/.*it prints \([0-9]*\) line.*/\1/p')
[ "$n" = "$said" ] && ok "docs/architecture.md says $said cycles" \
  || ko "tools/file-cycles prints $n cycles; docs/architecture.md says '$said'"
# every cycle: a row with its folder and each of its files
printf '%s\n' "$cycles" | grep . | while IFS= read -r line; do
  folder=${line%%:*}
  rows=$(printf '%s\n' "$table" | grep -F "| \`$folder/\` |")
  for f in $(printf '%s\n' "${line#*: }" | sed 's/ <-> / /g'); do
    rows=$(printf '%s\n' "$rows" | grep -F "\`$f\`")
  done
  [ -n "$rows" ] || echo "$line"
done > "$tmp/unnamed"
[ -s "$tmp/unnamed" ] && ko "cycles that docs/architecture.md does not name: $(cat "$tmp/unnamed")" \
  || ok "every cycle is named"
# every row: a cycle that is still there (its folder and its first file)
printf '%s\n' "$table" | while IFS= read -r row; do
  [ -n "$row" ] || continue
  folder=$(printf '%s\n' "$row" | sed -n 's/^| `\([^`]*\)\/` .*/\1/p')
  first=$(printf '%s\n' "$row" | cut -d'|' -f3 | sed -n 's/^ `\([^`]*\)`.*/\1/p')
  printf '%s\n' "$cycles" | grep "^$folder: " | grep -q -F "$first" || echo "$folder/$first"
done > "$tmp/stale"
[ -s "$tmp/stale" ] && ko "docs/architecture.md names cycles that are gone: $(cat "$tmp/stale")" \
  || ok "every named cycle is there"
# every name without its prefix: a row with its file and the name
names=$(python3 "$src/tools/file-cycles" --src "$src" --prefixes)
ptable=$(section "Global names without their module's prefix" | grep '^| `')
printf '%s\n' "$names" | grep . | while IFS= read -r line; do
  file=${line%%: *} name=${line#*: }
  printf '%s\n' "$ptable" | grep -F "| \`$file\` |" | grep -q -F "\`$name\`" || echo "$line"
done > "$tmp/unprefixed"
[ -s "$tmp/unprefixed" ] && ko "names without their module's prefix that docs/architecture.md does not name: $(cat "$tmp/unprefixed")" \
  || ok "every name without its prefix is named"
printf '%s\n' "$ptable" | while IFS= read -r row; do
  [ -n "$row" ] || continue
  file=$(printf '%s\n' "$row" | sed -n 's/^| `\([^`]*\)` .*/\1/p')
  printf '%s\n' "$names" | grep -q "^$file: " || echo "$file"
done > "$tmp/pstale"
[ -s "$tmp/pstale" ] && ko "docs/architecture.md lists unprefixed names in files that have none: $(cat "$tmp/pstale")" \
  || ok "every listed file still has such a name"
# the tool finds a planted cycle and a planted name
mkdir -p "$tmp/planted/sim"
printf 'void sim_b (void);\nvoid sim_a (void) { sim_b (); }\n' > "$tmp/planted/sim/a.c"
printf 'void sim_a (void);\nvoid helper (void) { }\nvoid sim_b (void) { sim_a (); }\n' > "$tmp/planted/sim/b.c"
if (cd "$tmp/planted/sim" && ${CC:-cc} -c a.c b.c) 2>/dev/null; then
  got=$(cd "$tmp/planted" && python3 "$src/tools/file-cycles" sim)
  [ "$got" = "sim: a.c <-> b.c" ] && ok "a planted cycle is found" || ko "planted cycle: got '$got'"
  got=$(cd "$tmp/planted" && python3 "$src/tools/file-cycles" --prefixes sim)
  [ "$got" = "sim/b.c: helper" ] && ok "a planted unprefixed name is found" || ko "planted name: got '$got'"
else
  ko "cannot compile the planted files with ${CC:-cc}"
fi
finish
