#!/bin/bash
# tests/notebook.sh — the example notebook (examples/notebooks/dlsim-churn.ipynb,
# docs/python.md) executed as a reader would, with `python3 -m nbconvert
# --to notebook --execute` (Debian's python3-nbconvert and
# python3-ipykernel, which tools/install-deps installs), against this
# build's binary and the tree's python/ package.  It fails if a cell
# fails, if a figure the notebook saves is missing, or if the binary's
# status lines (dlsim.run's progress) do not show in it; SKIP only where
# nbconvert, ipykernel or pandas are missing.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
NB=$SRC/examples/notebooks/dlsim-churn.ipynb
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$p" -c "import nbconvert, ipykernel, pandas, matplotlib" >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with nbconvert, ipykernel, pandas and matplotlib (tools/install-deps installs them)"; exit 77; }
export DLSIM PYTHONPATH="$SRC/python"

# a copy in a folder of its own: the notebook writes its databases and
# figures where it runs, and the source tree may be read-only (distcheck)
mkdir -p "$tmp/nb"
cp "$NB" "$tmp/nb/"
(cd "$tmp/nb" && "$PY" -m nbconvert --to notebook --execute \
  --ExecutePreprocessor.timeout=300 --output-dir "$tmp/executed" dlsim-churn.ipynb) > "$out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok; else
  ko "nbconvert --execute exited $rc"; sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -v '^\s*$' | tail -30 | sed 's/^/  | /'
fi
for f in dlsim-churn.png dlsim-churn-final.png churn-disco.db churn-gossip.db; do
  [ -s "$tmp/nb/$f" ] && ok || ko "the notebook did not write $f"
done
# the executed copy has every code cell run, and no error output
if [ -f "$tmp/executed/dlsim-churn.ipynb" ]; then
  "$PY" - "$tmp/executed/dlsim-churn.ipynb" > "$out" 2>&1 <<'PY'
import json, re, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
bad = [i for i, c in enumerate(code) if c.get("execution_count") is None
       or any(o.get("output_type") == "error" for o in c["outputs"])]
print(len(code), "code cells;", "not run or failed:", bad)
# the binary's status lines reach the notebook, under the cell that runs:
# each family's sweep to its last line, 9/9 runs ... (end)
err = "".join("".join(o.get("text", "")) for c in code for o in c["outputs"]
              if o.get("output_type") == "stream" and o.get("name") == "stderr")
ends = re.findall(r"^dlsim run: (\d+)/(\d+) runs, .*\(end\)$", err, re.M)
print("status lines' ends:", ends)
sys.exit(1 if bad or not code or len(ends) != 2 or any(a != b for a, b in ends) else 0)
PY
  if [ $? -eq 0 ]; then ok; else ko "executed notebook: $(cat "$out")"; fi
else
  ko "nbconvert wrote no executed notebook"
fi
finish
