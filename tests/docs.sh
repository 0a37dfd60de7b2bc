#!/bin/bash
# tests/docs.sh — every command example of README.md, docs/user-guide.md,
# docs/testbed.md and docs/python.md runs as printed.  Each document's fenced blocks are taken in order, in a
# scratch folder laid out as a fresh clone after the Quick start (the
# scenarios, the families' protocol/*/scenarios, ./dlsim, and on PATH, since the guide writes `dlsim`):
#   ```sh      a script: run with sh -e, it must exit 0;
#   ```        whose first line starts with "$ ": a transcript: each "$ "
#              line is run and must exit 0, and the lines up to the next
#              "$ " line, when there are any, are its exact output;
#   ```python  in docs/python.md only: run by a python3 that has pandas,
#              the package from the tree (PYTHONPATH), it must exit 0;
#   other blocks (ini, python elsewhere, the synopsis) are not commands.
# A marker, an HTML comment on the line before the fence, changes that:
#   <!-- doc-test: file NAME -->     the block is the file NAME (written)
#   <!-- doc-test: skip REASON -->   not run (root, several machines, the build)
#   <!-- doc-test: long REASON -->   run only with DLSIM_DOCS_LONG=1
# The tests never edit a block: a block that fails here fails as printed.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=$(cd "${DLSIM_SRCDIR:-.}" && pwd)
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }

scratch () {   # scratch DIR: a fresh clone's layout after the Quick start
  mkdir -p "$1"
  cp -R "$SRC/scenarios" "$1/" && chmod -R u+w "$1/scenarios"   # a copy: no example writes into the source
  for f in "$SRC"/protocol/*/scenarios; do   # and each family's own, at its place
    [ -d "$f" ] || continue
    f=${f#"$SRC"/}
    mkdir -p "$1/${f%/scenarios}" && cp -R "$SRC/$f" "$1/$f" && chmod -R u+w "$1/$f"
  done
  ln -s "$DLSIM" "$1/dlsim"
  ln -s "$SRC/python" "$1/python" && ln -s "$SRC/dlsim.py" "$1/dlsim.py"   # the Python package, as in the tree
  # the Quick start's `make demo` (Makefile.am): demo.db, as the README's later blocks use it
  (cd "$1" && ./dlsim run scenarios/demo.ini -o demo.db -q >/dev/null 2>&1) || ko "setup: the demo run failed"
}

# docs/python.md's blocks: the first of $PYTHON, /usr/bin/python3 and
# python3 that has pandas (python3-pandas, which tools/install-deps installs)
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$p" -c "import pandas, matplotlib" >/dev/null 2>&1; then PY=$p; break; fi
done

for doc in README.md docs/user-guide.md docs/testbed.md docs/python.md; do
  d=$tmp/$(basename "$doc" .md)
  py=
  if [ "$doc" = docs/python.md ]; then
    [ -n "$PY" ] || { ko "$doc: no python3 with pandas and matplotlib to run its examples"; continue; }
    py=$PY
  fi
  scratch "$d"
  PATH="$d:$PATH" python3 - "$SRC/$doc" "$d" "${DLSIM_DOCS_LONG:-0}" "$py" "$SRC/python" > "$tmp/doc.out" 2>&1 <<'PY'
import os, re, subprocess, sys, time
doc, cwd, long_ok, py, pypath = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4], sys.argv[5]
lines = open(doc, encoding="utf-8").read().split("\n")
blocks, i, marker = [], 0, None
while i < len(lines):
    m = re.match(r"^```(\S*)\s*$", lines[i])
    if m:
        lang, start, body = m.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append((start, lang, body, marker))
        marker = None
    else:
        mk = re.match(r"^<!-- doc-test: (\w+)\s*(.*?)\s*-->\s*$", lines[i])
        marker = (mk.group(1), mk.group(2)) if mk else None
    i += 1

passed = failed = 0
def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % what)
        for l in detail.rstrip("\n").split("\n")[-25:]:
            print("  | " + l)

def run(cmd, trace=False):
    # a script's commands are echoed (sh -x) so that a failure shows which;
    # a transcript's output is compared, so it is not
    t0 = time.time()
    try:
        p = subprocess.run(["sh", "-e"] + (["-x"] if trace else []) + ["-c", cmd], cwd=cwd,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        rc, out = 124, (e.output or b"") + b"\n(killed after 300 s)"
    print("  %5.1f s  %s" % (time.time() - t0, cmd.split("\n")[0][:90]))
    return rc, out.decode("utf-8", "replace")

def run_python(code):
    # a docs/python.md block: the package from the tree, figures to files
    t0 = time.time()
    env = dict(os.environ, PYTHONPATH=pypath, MPLBACKEND="Agg")
    try:
        p = subprocess.run([py, "-c", code], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        rc, out = 124, (e.output or b"") + b"\n(killed after 300 s)"
    print("  %5.1f s  python: %s" % (time.time() - t0, code.split("\n")[0][:80]))
    return rc, out.decode("utf-8", "replace")

name = doc.split("/")[-1]
for start, lang, body, marker in blocks:
    where = "%s:%d" % (name, start)
    if marker and marker[0] == "skip":
        print("skip %s: %s" % (where, marker[1]))
        continue
    if marker and marker[0] == "long" and not long_ok:
        print("skip %s (long; DLSIM_DOCS_LONG=1 runs it): %s" % (where, marker[1]))
        continue
    if marker and marker[0] == "file":
        open("%s/%s" % (cwd, marker[1]), "w").write("\n".join(body) + "\n")
        continue
    if lang == "python" and py:
        rc, out = run_python("\n".join(body))
        report(rc == 0, "%s: exit %d" % (where, rc), out)
    elif lang == "sh":
        rc, out = run("\n".join(body), trace=True)
        report(rc == 0, "%s: exit %d" % (where, rc), out)
    elif lang == "" and body and body[0].startswith("$ "):
        k = 0
        while k < len(body):
            cmd, shown = body[k][2:], []
            k += 1
            while k < len(body) and not body[k].startswith("$ "):
                shown.append(body[k])
                k += 1
            rc, out = run(cmd)
            got = out.rstrip("\n").split("\n") if out.strip() else []
            if rc != 0:
                report(False, "%s: '%s': exit %d" % (where, cmd, rc), out)
            elif shown and got != shown:
                diff = [("- " + a) for a in shown if a not in got] + [("+ " + b) for b in got if b not in shown]
                report(False, "%s: '%s': output differs from the document (- shown, + printed)" % (where, cmd),
                       "\n".join(diff))
            else:
                report(True, where)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
  rc=$?
  cat "$tmp/doc.out"
  p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/doc.out" | tail -1)
  if [ -n "$p" ]; then
    pass=$((pass + ${p% *})); fail=$((fail + ${p#* }))
  else
    ko "$doc: the examples did not run (exit $rc)"
  fi
  [ "$rc" -eq 0 ] || [ "${p#* }" != 0 ] || ko "$doc: exit $rc"
done

# drift: the documents against what the binary says of itself.  Each
# command's synopsis line (README and guide) names every option its --help
# lists; the guide's key table has every `dlsim run --keys` key with its
# default and every value its meaning enumerates (a | b | c); the guide's
# "Not expressible today" names no case that ships in protocol/disco/scenarios/failures.
python3 - "$SRC" "$DLSIM" > "$tmp/drift.out" 2>&1 <<'PY'
import os, re, subprocess, sys
src, dlsim = sys.argv[1], sys.argv[2]
bad = 0
def ko(msg):
    global bad
    bad += 1
    print("FAIL: " + msg)
def help_of(args):
    return subprocess.run([dlsim] + args + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
for doc in ("README.md", "docs/user-guide.md"):
    lines = open(os.path.join(src, doc), encoding="utf-8").read().split("\n")
    first = [k for k, l in enumerate(lines) if l.startswith("dlsim run FILE")]
    if not first:
        ko("%s: no synopsis block (a line 'dlsim run FILE...')" % doc)
        continue
    syn, cur, k = {}, None, first[0]
    while k < len(lines) and not lines[k].startswith("```"):
        l = lines[k]
        if l.startswith("dlsim "):
            w = l.split()
            cur = w[1] + (" " + w[2] if w[1] == "bench" and "|" not in w[2] else "")
            syn[cur] = syn.get(cur, "") + " " + l
        elif cur:
            syn[cur] += " " + l
        k += 1
    for cmd, text in syn.items():
        if cmd == "bench":
            continue   # "bench phold|scale|...": the models have their own --help
        for short, opt in re.findall(r"^\s+(?:-(\w), )?--([\w-]+)", help_of(cmd.split()), re.M):
            if opt != "help" and "--" + opt not in text and not (short and re.search(r"(^|[\s\[])-%s\b" % short, text)):
                ko("%s: the synopsis of dlsim %s does not name --%s (dlsim %s --help lists it)" % (doc, cmd, opt, cmd))
guide = open(os.path.join(src, "docs/user-guide.md"), encoding="utf-8").read()
rows = {}
for l in guide.split("\n"):
    m = re.match(r"^\| `([a-z_]+\.[a-z_0-9]+)` \| `(.*?)` \| (.*) \|$", l)
    if m:
        rows[m.group(1)] = (m.group(2), m.group(3).replace("\\\\|", "|").replace("\\|", "|"))
keys = subprocess.run([dlsim, "run", "--keys"], stdout=subprocess.PIPE).stdout.decode().split("\n")
# the families the registry has (dlsim families, one a line, the name
# first): a row may point there instead of naming them
registry = {l.split()[0] for l in subprocess.run([dlsim, "families"], stdout=subprocess.PIPE).stdout.decode().split("\n") if l.strip()}
for l in keys:
    m = re.match(r"^(\S+)\s+(\"\"|\S+)\s+(.*)$", l)
    if not m:
        continue
    key, default, meaning = m.groups()
    if key not in rows:
        ko("user-guide.md: the key table has no row for %s" % key)
        continue
    if rows[key][0] != default:
        ko("user-guide.md: %s defaults to %s, the table says %s" % (key, default, rows[key][0]))
    for enum in re.findall(r"[\w-]+(?: \| [\w-]+)+", meaning):
        if set(enum.split(" | ")) == registry and "`dlsim families`" in rows[key][1]:
            continue   # the registry's list: the row points to dlsim families
        for word in enum.split(" | "):
            if not re.search(r"(^|[^\w-])%s([^\w-]|$)" % re.escape(word), rows[key][1]):
                ko("user-guide.md: the row of %s does not name %s (dlsim run --keys: %s)" % (key, word, enum))
m = re.search(r"Not expressible today:\n((?:- .*\n)+)", guide)
if not m:
    ko("user-guide.md: no 'Not expressible today' list")
else:
    shipped = os.listdir(os.path.join(src, "protocol/disco/scenarios/failures"))
    for item in m.group(1).split("\n"):
        for n in re.findall(r"\bS(\d+)\b(?![a-z])", item.split(":")[0]):
            if any(f.startswith("s%02d-" % int(n)) for f in shipped):
                ko("user-guide.md: S%s is listed as not expressible, but protocol/disco/scenarios/failures has it" % n)
# the binary's own lists: the families it accepts, the distributions it
# parses and the properties [expect] takes, each from its refusal of a bad
# name; --help must name every family (the man page and the guide point
# to dlsim families), the man page every distribution, the guide every
# property
import tempfile
def refusal(section, key, value):
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write("[%s]\n%s = %s\n" % (section, key, value))
    out = subprocess.run([dlsim, "run", f.name, "-o", f.name + ".db"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT).stdout.decode()
    os.unlink(f.name)
    return out
out = refusal("protocol", "family", "nope")
m = re.search(r"expected ([^)]*)\)", out)
families = re.split(r", | or ", m.group(1)) if m else []
if not families:
    ko("no family list in the refusal of family = nope: %s" % out.strip())
out = refusal("network", "latency", "nope(1)")
m = re.search(r"\(expected ([a-z]+(?:, [a-z]+)*,? or [a-z]+)\)", out)
dists = re.split(r", or |, | or ", m.group(1)) if m else []
if not dists:
    ko("no distribution list in the refusal of latency = nope(1): %s" % out.strip())
out = refusal("expect", "violations.nope", "0")
m = re.search(r"violations\.([a-z|-]+)\)", out)
props = m.group(1).split("|") if m else []
if len(props) < 2:
    ko("no property list in the refusal of violations.nope: %s" % out.strip())
man = open(os.path.join(src, "docs/dlsim.1.in"), encoding="utf-8").read().replace("\\-", "-")
top = subprocess.run([dlsim, "--help"], stdout=subprocess.PIPE).stdout.decode()
# the man page's description points to dlsim families (the registry's
# list, generated) instead of naming each family by hand
desc = man.split(".SH DESCRIPTION")[-1].split(".SH")[0]
if not re.search(r"^\.B dlsim families$", desc, re.M):
    ko("dlsim.1.in: the description does not point to dlsim families for [protocol] family")
if set(families) != registry:
    ko("dlsim families lists %s, a bad family is told %s" % (sorted(registry), sorted(families)))
for fam in families:
    if not re.search(r"\b%s\b" % fam, top):
        ko("dlsim --help does not name family %s" % fam)
for d in dists:
    if not re.search(r"\b%s\(" % d, man):
        ko("dlsim.1.in does not name distribution %s(...)" % d)
for text, name in ((man, "dlsim.1.in"), (top, "dlsim --help")):
    if not re.search(r"130 interrupted", text):
        ko("%s: the exit status does not name 130" % name)
psec = guide.split("\n## Properties\n")[-1].split("\n## ")[0]
for row in re.findall(r"^\| `([a-z-]+)` \| ", psec, re.M):
    if row not in props:
        ko("user-guide.md: the properties table's %s is not in [expect]'s list of properties" % row)
for pr in props:
    if "| `%s` |" % pr not in guide:
        ko("user-guide.md: the properties table has no row for %s" % pr)
words = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
m = re.search(r"run checks (\w+) properties", guide)
if not m or words.get(m.group(1), -1) != len(props):
    ko("user-guide.md: 'checks %s properties', the binary has %d" % (m.group(1) if m else "?", len(props)))
# docs/world.md: a `snake_case` name is a key (dlsim run --keys), a column
# of the results schema, or a function or test of the source
keyset = {l.split()[0].split(".")[-1] for l in keys if l.strip()}
schema = open(os.path.join(src, "results/res-file.c"), encoding="utf-8").read()
srcs = subprocess.run(["grep", "-rhoE", "--include=*.c", "--include=*.h", r"\b(sim|test)_[a-z0-9_]+\b",
                       os.path.join(src, "sim"), os.path.join(src, "tests")], stdout=subprocess.PIPE).stdout.decode()
funcs = set(srcs.split("\n"))
for tok in sorted(set(re.findall(r"`([a-z][a-z0-9]*_[a-z0-9_]+)`", open(os.path.join(src, "docs/world.md"), encoding="utf-8").read()))):
    if tok not in keyset and tok not in funcs and not re.search(r"\b%s\b" % tok, schema):
        ko("docs/world.md names `%s`: no key (dlsim run --keys), column or function has that name" % tok)
# every module a document's Python block imports is in the standard library
# or a Debian package tools/install-deps installs (python3-NAME)
deps = open(os.path.join(src, "tools/install-deps"), encoding="utf-8").read()
for doc in ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(src, "docs"))) if f.endswith(".md")]:
    text = open(os.path.join(src, doc), encoding="utf-8").read()
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        for mod in re.findall(r"^\s*(?:import|from) (\w+)", block, re.M):
            if mod not in sys.stdlib_module_names and mod != "dlsim" and "python3-" + mod not in deps:
                ko("%s imports %s, which tools/install-deps does not install (python3-%s)" % (doc, mod, mod))
print("drift: %d problems" % bad)
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$tmp/drift.out"
[ "$rc" -eq 0 ] && ok "docs agree with the binary" || ko "docs drift (above)"
finish
