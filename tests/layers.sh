#!/bin/sh
# tests/layers.sh — the layering rules that a grep can check: no file
# outside results/ and plots/ calls SQLite (tools/sql-outside-results).
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=${DLSIM_SRCDIR:-.}

if found=$(sh "$src/tools/sql-outside-results" "$src"); then
  ok "no sqlite3_ call outside results/ and plots/"
else
  ko "sqlite3_ called outside results/ and plots/: $found"
fi
# the check itself finds a call where there is one
mkdir -p "$tmp/tree/cli" "$tmp/tree/results"
printf 'void f (void) { sqlite3_close (0); }\n' > "$tmp/tree/results/ok.c"
printf 'void g (void) { sqlite3_close (0); }\n' > "$tmp/tree/cli/bad.c"
if found=$(sh "$src/tools/sql-outside-results" "$tmp/tree"); then
  ko "a planted sqlite3_ call in cli/ was not found"
elif [ "$found" = "cli/bad.c" ]; then
  ok "the planted call in cli/ (and only it) is found"
else
  ko "the check found '$found', expected cli/bad.c"
fi
finish
