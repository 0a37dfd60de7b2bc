#!/bin/bash
# tests/python.sh — the dlsim Python package (python/dlsim, docs/python.md):
# its unit tests (tests/python/test_dlsim.py, python3 -m unittest) against
# this build's binary, from the source tree with no install (PYTHONPATH
# names python/), and `import dlsim` as docs/python.md says: in the top
# folder with no PYTHONPATH, and after a real `make install` (prefix
# /usr/local into a DESTDIR), from a folder of the system Python's path,
# with the installed binary and the installed push-pull guest.  The Python
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

# in the tree's top folder, with no PYTHONPATH: python3 -c "import dlsim"
# (the top folder's dlsim.py hands over to python/dlsim)
(cd "$SRC" && env -u PYTHONPATH "$PY" -c "import dlsim, dlsim.guest; print(dlsim.__file__); dlsim.Scenario" > "$out" 2>&1)
if [ "$(head -1 "$out")" = "$SRC/python/dlsim/__init__.py" ]; then ok; else ko "import dlsim in the top folder: $(cat "$out")"; fi

# make install, as a user runs it (prefix /usr/local, into DESTDIR): the
# package lands in a folder of the system Python's own path, and from
# there, with the installed binary on PATH, it imports, runs a scenario,
# and the installed push-pull guest finds its SDK
build=$(dirname "$DLSIM")
if [ -f "$build/Makefile" ]; then
  root=$tmp/root
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s -C "$build" install DESTDIR="$root" prefix=/usr/local \
    > "$tmp/install.out" 2>&1 || ko "make install: $(tail -5 "$tmp/install.out")"
  init=$(find "$root" -path '*/dlsim/__init__.py' | head -1)
  site=${init%/dlsim/__init__.py}
  site=${site#"$root"}
  if [ -n "$init" ] && "$PY" -c "import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)" "$site"; then ok
  else ko "make install put the package in '${site:-nowhere}', not in $PY's sys.path: $("$PY" -c 'import sys; print(sys.path)')"; fi
  [ "$(ls "$SRC/python/dlsim/"*.py | wc -l)" -eq "$(ls "$root$site/dlsim/"*.py | wc -l)" ] && ok \
    || ko "make install does not install every python/dlsim/*.py (python/local.mk)"
  mkdir -p "$tmp/user"
  (cd "$tmp/user" && env -u DLSIM PYTHONPATH="$root$site" PATH="$root/usr/local/bin:$PATH" \
     "$PY" -c "import dlsim; print(dlsim.binary()); print(dlsim.__file__); dlsim.Scenario({'peers.count': 3})") > "$out" 2>&1
  if [ "$(cat "$out")" = "$root/usr/local/bin/dlsim
$root$site/dlsim/__init__.py" ]; then ok; else ko "the installed package: $(cat "$out")"; fi
  pp=$root/usr/local/share/dlsim/protocol/guest/scenarios/pushpull.ini
  (cd "$tmp/user" && env -u DLSIM PYTHONPATH="$root$site" PATH="$root/usr/local/bin:$PATH" \
     "$root/usr/local/bin/dlsim" check "$pp") > "$out" 2>&1
  if grep -q "^1 passed, 0 failed" "$out"; then ok; else ko "the installed guest on the installed SDK: $(tail -5 "$out")"; fi
else
  echo "SKIP: make install (no Makefile beside $DLSIM)"
fi

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
