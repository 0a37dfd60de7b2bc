#!/bin/sh
# tests/style.sh — the rules of docs/style.md that a tool checks, and the
# tree telling its own rules (issue 45 §6): tools/style-check passes on
# the tree (no tab or trailing white space in C, every C file opening with
# its name and purpose, #pragma once, no citation of a document outside
# the repository) and fails on planted files; tools/commit-form passes a
# message of the form and fails each way one can break it.  Cheap: it
# reads the sources.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)

for f in docs/design.md docs/style.md CONTRIBUTING.md; do
  [ -s "$src/$f" ] && ok "$f is there" || ko "$f is missing"
done
[ -e "$src/.clang-format" ] && ko ".clang-format is back, and the tree does not follow it (docs/style.md)" \
  || ok "no .clang-format that the tree does not follow"

if got=$(python3 "$src/tools/style-check" --src "$src"); then
  ok "tools/style-check passes on the tree"
else
  ko "tools/style-check on the tree:
$got"
fi

# planted files: each problem found, and only it
t=$tmp/tree
mkdir -p "$t/sim" "$t/docs"
plant () {   # plant FILE CONTENT PATTERN: FILE alone in the tree is refused with PATTERN
  rm -rf "$t/sim"/* "$t/docs"/*
  printf '%b' "$2" > "$t/$1"
  python3 "$src/tools/style-check" --src "$t" > "$out" 2>&1
  got=$?
  if [ "$got" -eq 1 ] && grep -q -e "$3" "$out" && [ "$(grep -c . "$out")" = 1 ]; then
    ok "$1: $3"
  else
    ko "planted $1: exit $got, wanted 1 and one line with '$3':
$(sed 's/^/  | /' "$out")"
  fi
}
good='/* a.c — a planted file. */\nint x;\n'
rm -rf "$t/sim"/* "$t/docs"/*
printf '%b' "$good" > "$t/sim/a.c"
printf '/* a.h — its header. */\n#pragma once\nextern int x;\n' > "$t/sim/a.h"
printf '# notes\nSee docs/style.md and ../shared/disco/README.md.\n' > "$t/docs/n.md"
python3 "$src/tools/style-check" --src "$t" > "$out" 2>&1 && ok "good files pass" \
  || ko "good files refused: $(cat "$out")"
plant sim/a.c '/* a.c — a planted file. */\nint\tx;\n' 'sim/a.c:2: a tab'
plant sim/a.c '/* a.c — a planted file. */\nint x; \n' 'sim/a.c:2: trailing white space'
plant sim/a.c 'int x;\n' "sim/a.c:1: does not open with '/\* a.c — '"
plant sim/a.c '/* b.c — another name. */\nint x;\n' "sim/a.c:1: does not open"
plant sim/a.h '/* a.h — no guard. */\nextern int x;\n' "sim/a.h: no '#pragma once'"
plant docs/n.md '# notes\nAs STYLE''.md says.\n' 'docs/n.md:2: cites STYLE[.]md'
plant docs/n.md '# notes\nThe layers of DESIGN''.md.\n' 'docs/n.md:2: cites DESIGN[.]md'
plant docs/n.md '# notes\nRun ../shared''/hooks/file-cycles.\n' 'docs/n.md:2: cites [.][.]/shared/'

# tools/commit-form on a scratch repository
if command -v git >/dev/null; then
  r=$tmp/repo
  git init -q "$r" && git -C "$r" checkout -q -b main 2>/dev/null
  commit () {   # commit MESSAGE
    date=$(date +%s%N)
    echo "$date" > "$r/f"
    git -C "$r" add f
    git -C "$r" -c user.name=t -c user.email=t@t commit -q -m "$1"
  }
  commit "$(printf 'base: the first commit\n\nWhat and why.\n\nChecked: nothing -> it is the first.')"
  git -C "$r" checkout -q -b topic
  form () {   # form MESSAGE PATTERN: one commit with MESSAGE on topic; PATTERN "" passes
    git -C "$r" reset -q --hard main
    commit "$1"
    python3 "$src/tools/commit-form" -C "$r" main..topic > "$out" 2>&1
    got=$?
    if [ -z "$2" ]; then
      [ "$got" -eq 0 ] && [ ! -s "$out" ] && ok "a message of the form passes" \
        || ko "a message of the form refused (exit $got): $(cat "$out")"
    elif [ "$got" -eq 1 ] && grep -q -e "$2" "$out"; then
      ok "commit-form: $2"
    else
      ko "commit-form: exit $got, wanted 1 with '$2': $(cat "$out")"
    fi
  }
  body='What changed, and why it had to.

Checked: make check TESTS=tests/style.sh -> PASS.'
  long=$(printf 'x%.0s' $(seq 1 70))
  form "tests/style.sh: a subject that fits

$body" ''
  form "tests/style.sh: $long

$body" 'the subject is 86 characters, over 72'
  form "tests/style.sh: no body" 'no body'
  form "tests/style.sh: no blank line
$body" 'no blank line after the subject'
  form "tests/style.sh: a long line

What $long and more.

Checked: it." 'line 3 is 85 characters, over 72'
  form "tests/style.sh: quoted output may be long

What:
  $long $long

Checked: it." ''
  form "tests/style.sh: no Checked

What and why." "does not start with 'Checked:'"
else
  echo "SKIP: tools/commit-form's cases need git"
fi
finish
