"""dlsim.run: a scenario's runs into a results database, through
`dlsim run`, with its status lines as progress."""
import collections
import os
import re
import signal
import subprocess
import sys
import tempfile

from ._binary import DlsimError, binary
from .results import Results
from .scenario import Scenario

Progress = collections.namedtuple("Progress", "done total line")
MARK = "# written by dlsim.run (python/dlsim): the scenario of %s\n"
_STATUS = re.compile(r"^dlsim run: (\d+)/(\d+) runs")


def _seed_blocks(seeds):
    """[(first, count)] of consecutive seeds: one `dlsim run` each."""
    blocks = []
    for s in seeds:
        s = int(s)
        if blocks and blocks[-1][0] + blocks[-1][1] == s:
            blocks[-1][1] += 1
        else:
            blocks.append([s, 1])
    return [tuple(b) for b in blocks]


def _scenario_file(scenario, out):
    """The file to run: the loaded file itself when unchanged (the CLI's
    runs of it are then the same runs), else OUT.ini beside the database,
    written by this function and no one else."""
    if scenario.unchanged():
        return scenario.path
    path = os.path.splitext(out)[0] + ".ini"
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.readline() != MARK % os.path.basename(out):
                raise DlsimError("%s exists and dlsim.run did not write it: choose another out=" % path)
    body = scenario.text(scenario._dir_for(os.path.dirname(os.path.abspath(path))))
    with open(path, "w", encoding="utf-8") as f:
        f.write(MARK % os.path.basename(out) + body)
    return path


def _show(progress, p):
    if progress is True:
        print(p.line, file=sys.stderr, flush=True)
    elif callable(progress):
        progress(p)


def _one(args, progress, interval):
    """One `dlsim run`: its status lines to progress; Ctrl-C stops it as
    the CLI's own Ctrl-C does (finished runs stay) and is raised again."""
    env = dict(os.environ, DLSIM_PROGRESS_INTERVAL=str(interval))
    with tempfile.TemporaryFile("w+") as so:
        # its own process group, so that Ctrl-C reaches it (and its -j
        # workers) once, from here, as a terminal's Ctrl-C reaches them all
        proc = subprocess.Popen([binary()] + args, stdin=subprocess.DEVNULL, stdout=so,
                                stderr=subprocess.PIPE, universal_newlines=True, env=env,
                                start_new_session=True)
        other = []
        try:
            for line in proc.stderr:
                line = line.rstrip("\n")
                m = _STATUS.match(line)
                if m:
                    _show(progress, Progress(int(m.group(1)), int(m.group(2)), line))
                else:
                    other.append(line)
            status = proc.wait()
        except KeyboardInterrupt:
            try:
                os.killpg(proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass    # it had ended, and been waited for
            # read on: a closed pipe would end it (SIGPIPE) before it has
            # merged its workers' runs and said where they are
            tail = proc.stderr.read()
            proc.stderr.close()
            proc.wait()
            if progress is True and tail.strip():
                print(tail.rstrip("\n").split("\n")[-1], file=sys.stderr, flush=True)
            raise
        proc.stderr.close()
        so.seek(0)
        summary = so.read().strip()
    if status == 130:
        raise KeyboardInterrupt("dlsim run: interrupted; finished runs are in the database")
    if status != 0:
        raise DlsimError("\n".join(other) or summary, status)
    if progress is True:
        for line in other + ([summary] if summary else []):
            print(line, file=sys.stderr, flush=True)
    return summary


def run(scenario, out=None, jobs=1, seeds=None, progress=True, again=False, no_events=False,
        interval=1.0):
    """Runs every sweep point of scenario (a Scenario or a file's path),
    each once per seed in seeds (default: the scenario's seed and repeat),
    into out (default NAME.db), in jobs worker processes.  Runs already in
    out (same scenario text, values, seed and build) are skipped, as by
    `dlsim run`, unless again.  progress: True prints the binary's status
    lines (every interval seconds) to stderr, a callable gets each as a
    Progress(done, total, line), False shows none.  Returns Results(out)."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    if out is None:
        base = scenario.path or scenario.get("scenario.name") or "scenario"
        out = os.path.splitext(os.path.basename(base))[0] + ".db"
    path = _scenario_file(scenario, out)
    args = [path, "-o", out, "-j", str(int(jobs))]
    if again:
        args.append("--again")
    if no_events:
        args.append("--no-events")
    blocks = _seed_blocks(seeds) if seeds is not None else [None]
    for b in blocks:
        extra = [] if b is None else ["--seed", str(b[0]), "--set", "scenario.repeat=%d" % b[1]]
        _one(["run"] + args + extra, progress, interval)
    return Results(out)
