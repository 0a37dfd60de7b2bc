"""dlsim.check and dlsim.explore: the binary's PASS/FAIL lines and
explore's table, parsed into records."""
import collections
import os
import re

from ._binary import DlsimError, call
from .scenario import Scenario

CheckRun = collections.namedtuple("CheckRun", "passed file label seed run_id outcome expectations failures")
CheckResult = collections.namedtuple("CheckResult", "runs passed failed errors output")
Failure = collections.namedtuple("Failure", "signature runs seeds shrunk found reproduces")
ExploreResult = collections.namedtuple("ExploreResult", "runs failing distinct failures coverage output")

_PASS = re.compile(r"^PASS (.+?)(?: \[(.*)\])? seed (\d+): (\S+), (\d+) expectations$")
_FAIL = re.compile(r"^FAIL (.+?)(?: \[(.*)\])? seed (\d+) \(run (\d+)\): (\S+)$")
_LAST = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) errors?)?")


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def check(paths=None, jobs=1, out=None, seed=None):
    """dlsim check over files or folders: a CheckResult with a CheckRun a
    run (passed, file, label, seed, run_id, outcome, expectations, and the
    failed expectations' lines) and the last line's counts."""
    args = ["check", "-q", "-j", str(int(jobs))] + _paths(paths or [])
    if out:
        args += ["-o", out]
    if seed is not None:
        args += ["--seed", str(seed)]
    _, so, _ = call(args, ok=(0, 1))
    runs, last = [], None
    for line in so.splitlines():
        m, f = _PASS.match(line), _FAIL.match(line)
        if m:
            runs.append(CheckRun(True, m.group(1), m.group(2), int(m.group(3)), None, m.group(4),
                                 int(m.group(5)), []))
        elif f:
            runs.append(CheckRun(False, f.group(1), f.group(2), int(f.group(3)), int(f.group(4)),
                                 f.group(5), None, []))
        elif line.startswith("    ") and runs and not runs[-1].passed:
            runs[-1].failures.append(line.strip())
        elif _LAST.match(line):
            last = _LAST.match(line)
    if not last:
        raise DlsimError("dlsim check printed no 'N passed, N failed' line:\n" + so)
    return CheckResult(runs, int(last.group(1)), int(last.group(2)), int(last.group(3) or 0), so)


def _table(lines):
    """explore's failure table: signature, runs, seeds shown"""
    rows = []
    for line in lines:
        m = re.match(r"^(.+?)\s{2,}(\d+)\s{2}(.*)$", line)
        if m:
            seeds = [int(x) for x in m.group(3).split() if x.isdigit()]
            rows.append(Failure(m.group(1), int(m.group(2)), seeds, [], None, None))
    return rows


def _shrunk(lines, failures, folder):
    """the shrunk section: each failure's lines and found file"""
    by_sig, cur = {f.signature: f for f in failures}, None
    for line in lines:
        m = re.match(r"^  (.+) \(seed \d+\): ", line)
        if m:
            cur = by_sig.get(m.group(1))
            continue
        m = re.match(r"^    -> (.+?): (.+)$", line)
        if m and cur:
            i = failures.index(cur)
            path = m.group(1)
            failures[i] = cur = cur._replace(found=path, reproduces=m.group(2) == "reproduces")
        elif line.startswith("      ") and cur:
            cur.shrunk.append(line.strip())


def explore(scenario, runs=100, jobs=1, found=None, seed=None, faults=None, shrink=True, sets=(),
            messages=None):
    """dlsim explore: an ExploreResult (runs, failing, distinct, each
    Failure's signature, runs, seeds, shrunk lines and found file).
    faults, messages and sets: lists, as --faults, --messages (the
    messages drop and delay pick from: a guest's Guest:TYPE) and --set."""
    tmp = None
    if isinstance(scenario, Scenario):
        if scenario.unchanged():
            scenario = scenario.path
        else:
            import tempfile
            tmp = tempfile.TemporaryDirectory(prefix="dlsim-py-")
            name = os.path.splitext(os.path.basename(scenario.name()))[0] + ".ini"
            scenario = scenario.write(os.path.join(tmp.name, name))
    args = ["explore", os.fspath(scenario), "-n", str(int(runs)), "-j", str(int(jobs))]
    if found:
        args += ["--found", found]
    if seed is not None:
        args += ["--seed", str(seed)]
    if faults:
        args += ["--faults", ",".join(faults)]
    if messages:
        args += ["--messages", ",".join(messages)]
    if not shrink:
        args.append("--no-shrink")
    for s in sets:
        args += ["--set", s]
    try:
        _, so, _ = call(args)
    finally:
        if tmp:
            tmp.cleanup()
    lines = so.splitlines()
    head = re.search(r": (\d+) runs in .*?, (\d+) failing, (\d+) distinct", so)
    if not head:
        raise DlsimError("dlsim explore printed no summary line:\n" + so)
    try:
        k = lines.index("shrunk (ddmin over the plan's lines):")
    except ValueError:
        k = len(lines)
    start = next((i for i, l in enumerate(lines) if l.startswith("signature ")), k)
    end = next((i for i in range(start, k) if lines[i].startswith("coverage:")), k)
    failures = _table(lines[start + 1:end])
    _shrunk(lines[k:], failures, found)
    coverage = [l for l in lines[end:k] if l.strip()]
    return ExploreResult(int(head.group(1)), int(head.group(2)), int(head.group(3)), failures, coverage, so)
