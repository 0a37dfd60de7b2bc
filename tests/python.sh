#!/bin/bash
# tests/python.sh — the dlsim Python package (python/dlsim, docs/python.md):
# its unit tests (tests/python/test_dlsim.py, python3 -m unittest) against
# this build's binary, from the source tree with no install (PYTHONPATH
# names python/), and `import dlsim` as docs/python.md says.  The Python
# is the first of $PYTHON, /usr/bin/python3 and python3 that has pandas
# (python3-pandas, which tools/install-deps installs).
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$p" -c "import pandas" >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with pandas (tools/install-deps installs python3-pandas)"; exit 77; }
export DLSIM PYTHONPATH="$SRC/python" DLSIM_SRCDIR="$SRC"

# import from the source tree, anywhere: the binary found without DLSIM too
# (the tree's ./dlsim; in a build outside the source tree, as make
# distcheck's, there is none there, and PATH finds the build's)
if [ -x "$SRC/dlsim" ]; then
  (cd "$tmp" && env -u DLSIM "$PY" -c "import dlsim; print(dlsim.binary())") > "$out" 2>&1
else
  (cd "$tmp" && env -u DLSIM PATH="$(dirname "$DLSIM"):$PATH" "$PY" -c "import dlsim; print(dlsim.binary())") > "$out" 2>&1
fi
if grep -qx "$SRC/dlsim\|$DLSIM" "$out"; then ok; else ko "import dlsim from the source tree: $(cat "$out")"; fi

# installed: the files python/local.mk installs (pkgpython_PYTHON), alone
# in a folder on the path, find every module they import and the binary
# on PATH (as after make install)
mkdir -p "$tmp/site/dlsim" "$tmp/bin"
for f in $(sed -n 's|^\t\(python/dlsim/[a-z_]*\.py\) *\\$|\1|p' "$SRC/python/local.mk"); do cp "$SRC/$f" "$tmp/site/dlsim/"; done
ln -s "$DLSIM" "$tmp/bin/dlsim"
(cd "$tmp" && env -u DLSIM PYTHONPATH="$tmp/site" PATH="$tmp/bin:$PATH" "$PY" -c "import dlsim; print(dlsim.binary()); dlsim.Scenario({'peers.count': 3})") > "$out" 2>&1
if grep -qx "$tmp/bin/dlsim" "$out"; then ok; else ko "the installed files: $(cat "$out")"; fi
[ "$(ls "$SRC/python/dlsim/"*.py | wc -l)" -eq "$(ls "$tmp/site/dlsim" | wc -l)" ] && ok || ko "python/local.mk does not install every python/dlsim/*.py"

(cd "$tmp" && "$PY" -m unittest discover -s "$SRC/tests/python" -v) > "$tmp/unit.out" 2>&1
rc=$?
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$tmp/unit.out")
bad=$(grep -cE '^(FAIL|ERROR): ' "$tmp/unit.out")
if [ -z "$ran" ]; then
  cat "$tmp/unit.out"; ko "the unit tests did not run (exit $rc)"
else
  grep -E ' \.\.\. |^(FAIL|ERROR)' "$tmp/unit.out" | grep -v ' ok$' | head -40
  [ "$bad" -gt 0 ] && sed -n '/^======/,/^Ran /p' "$tmp/unit.out" | head -80
  pass=$((pass + ran - bad)); fail=$((fail + bad))
  [ "$rc" -eq 0 ] || [ "$bad" -gt 0 ] || ko "unittest exit $rc"
fi
finish
