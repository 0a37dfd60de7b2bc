#!/bin/sh
# tests/function-length.sh — the ratchet on long functions (docs/style.md,
# "Functions"): tools/function-length passes on the tree, and on planted
# trees it fails on a new function over 80 lines, on an allow-listed one
# that grew, and on one that shrank while its entry did not; --shrink
# lowers the list and never raises it; the parser is not fooled by braces
# in strings, comments, character constants or macros.  Cheap: it reads
# the sources.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
tool="python3 $src/tools/function-length"

if got=$($tool --src "$src"); then
  ok "the tree's functions fit, or fit their allow-list"
else
  ko "tools/function-length on the tree:
$got"
fi
n=$(grep -c '^[0-9]' "$src/tools/function-length.allow")
listed=$($tool --src "$src" --list | grep -c .)
[ "$n" = "$listed" ] && ok "the allow-list has one line per function over 80 lines ($n)" \
  || ko "the allow-list has $n lines, the tree $listed functions over 80 lines"

# fn NAME N: a function whose lines, from its name to its closing brace, are N
fn () {
  printf 'static int\n%s (int x)\n{\n' "$1"
  k=3
  while [ "$k" -lt "$2" ]; do
    printf '  x += %d;\n' "$k"
    k=$((k + 1))
  done
  printf '}\n'
}
t=$tmp/tree
mkdir -p "$t/sim" "$t/tools"
: > "$t/tools/function-length.allow"
check () {   # check WANT-STATUS PATTERN: the tool on $t (PATTERN "": prints nothing)
  $tool --src "$t" > "$out" 2>&1
  got=$?
  if [ -z "$2" ]; then
    [ -s "$out" ] && good=no || good=yes
  else
    grep -q -e "$2" "$out" && good=yes || good=no
  fi
  if [ "$got" -eq "$1" ] && [ "$good" = yes ]; then
    ok "$2"
  else
    ko "planted tree: exit $got, wanted $1 with '$2':
$(sed 's/^/  | /' "$out")"
  fi
}

fn at_limit 80 > "$t/sim/a.c"
check 0 ''
fn at_limit 80 > "$t/sim/a.c"; fn one_over 81 >> "$t/sim/a.c"
check 1 '^sim/a.c: one_over is 81 lines, over 80'
[ "$(grep -c . "$out")" = 1 ] && ok "only the 81-line function is named" \
  || ko "more than the 81-line function named: $(cat "$out")"

# an allow-listed function: it may stay, not grow; shrinking moves the list
echo "90 sim/a.c one_over" > "$t/tools/function-length.allow"
fn one_over 90 > "$t/sim/a.c"
check 0 ''
fn one_over 91 > "$t/sim/a.c"
check 1 'sim/a.c: one_over grew from 90 to 91 lines'
$tool --src "$t" --shrink > /dev/null
grep -qx '90 sim/a.c one_over' "$t/tools/function-length.allow" \
  && ok "--shrink does not raise an entry" || ko "--shrink raised: $(cat "$t/tools/function-length.allow")"
fn one_over 85 > "$t/sim/a.c"
check 1 'sim/a.c: one_over is 85 lines now, the allow-list says 90'
$tool --src "$t" --shrink > /dev/null
grep -qx '85 sim/a.c one_over' "$t/tools/function-length.allow" \
  && ok "--shrink lowers an entry" || ko "--shrink did not lower: $(cat "$t/tools/function-length.allow")"
check 0 ''
# moved to another file: the entry follows it by name, and asks for the path
rm "$t/sim/a.c"; fn one_over 85 > "$t/sim/b.c"
check 1 'sim/b.c: one_over is 85 lines now, the allow-list says 85 at sim/a.c'
fn one_over 86 > "$t/sim/b.c"
check 1 'sim/b.c: one_over grew from 85 to 86 lines'
fn one_over 80 > "$t/sim/b.c"
check 1 'one_over is 80 lines now: drop its line'
$tool --src "$t" --shrink > /dev/null
grep -q '^[0-9]' "$t/tools/function-length.allow" \
  && ko "--shrink kept a short function: $(cat "$t/tools/function-length.allow")" || ok "--shrink drops a short function"
check 0 ''
rm "$t/sim/b.c"
echo "90 sim/a.c one_over" > "$t/tools/function-length.allow"
: > "$t/sim/a.c"
check 1 'sim/a.c: one_over is gone'
: > "$t/tools/function-length.allow"

# the parser: braces in strings, comments, character constants and macros,
# initializers and structs, attributes, Check's START_TEST
cat > "$t/sim/a.c" <<'EOF'
/* a comment with { and } */
#define OPEN {
#define LONG_MACRO(x) \
  do { x++; } while (0)
typedef struct { int a; } S;
static const S table[] = { { 1 }, { 2 } };
static const char *text = "}}}{";
static int
tricky (int x) G_GNUC_UNUSED
{
  char c = '}';
  if (x)
    {
      x += c + text[0];   // a } here
    }
  return x;
}
START_TEST (test_thing)
{
  int y = '{';
  (void) y;
}
END_TEST
EOF
$tool --src "$t" --limit 3 > "$out" 2>&1
if grep -q '^sim/a.c: tricky is 9 lines, over 3' "$out" && grep -q '^sim/a.c: test_thing is 5 lines, over 3' "$out" \
   && [ "$(grep -c . "$out")" = 2 ]; then
  ok "the parser finds tricky (9 lines) and test_thing (5) and nothing else"
else
  ko "the parser on a tricky file:
$(sed 's/^/  | /' "$out")"
fi
printf 'static int\nf (void)\n{\n#if A\n  {\n#endif\n  return 0;\n}\n' > "$t/sim/a.c"
check 1 'sim/a.c: the braces do not balance'
finish
