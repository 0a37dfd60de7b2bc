"""Unit tests of the dlsim Python package (python/dlsim, docs/python.md),
run by tests/python.sh: PYTHONPATH names python/, DLSIM the binary, and
DLSIM_SRCDIR the source tree."""
import glob
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

import pandas as pd
from pandas.api import types as pdt

import dlsim

SRC = os.path.abspath(os.environ.get("DLSIM_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")))
DEMO = os.path.join(SRC, "scenarios", "demo.ini")
# runs in test_ctrl_c: enough that a loaded machine cannot finish them all
# between the first progress line and the signal
N_CTRL_C = 200


def small():
    """the demo, short: two rounds"""
    return dlsim.Scenario.load(DEMO).set("training.rounds", 2)


def params(db, run_id):
    """a run's resolved values, but those naming the file"""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT key, value FROM params WHERE run_id = ? AND key NOT LIKE 'provenance.%'"
                       " AND key <> 'scenario.name'", (run_id,)).fetchall()
    con.close()
    return sorted(rows)


def put(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dlsim-pytest-")
        self.cwd = os.getcwd()
        os.chdir(self.tmp)

    def tearDown(self):
        os.chdir(self.cwd)
        shutil.rmtree(self.tmp)


class TestScenario(Tmp):
    def test_round_trip_every_shipped_file(self):
        # load -> write -> load: the same values, every key one --keys lists
        keys = dlsim.keys()
        # but the implosion sweeps: the binary takes 5-9 s to plan them
        files = [DEMO] + sorted(f for f in glob.glob(os.path.join(SRC, "scenarios", "examples", "*.ini"))
                                if "implosion" not in f) \
            + sorted(glob.glob(os.path.join(SRC, "protocol", "disco", "scenarios", "failures", "s0*.ini")))
        self.assertGreater(len(files), 10)
        for folder in sorted({os.path.dirname(f) for f in files}):
            shutil.copytree(folder, os.path.basename(folder))
        for f in files:
            with self.subTest(file=f):
                a = dlsim.Scenario.load(f)
                for k, _ in a.items():
                    if k.split(".")[0] not in dlsim.scenario.FREE_SECTIONS:
                        self.assertIn(k, keys)
                # written in a copy of its folder: the same text, no dir
                w = a.copy()
                w.base_dir = os.path.abspath(os.path.basename(os.path.dirname(f)))
                path = w.write(os.path.join(w.base_dir, "rt.ini"))
                b = dlsim.Scenario.load(path)
                self.assertEqual(a.items(), b.items())

    def test_round_trip_runs_the_same(self):
        # the binary resolves the written file to the same values and runs
        # it to the same summary
        a = small()
        path = a.write("rt.ini")          # another folder: [scenario] dir keeps the paths
        b = dlsim.Scenario.load(path)
        r1 = dlsim.run(a, out="a.db", progress=False)
        r2 = dlsim.run(b, out="b.db", progress=False)
        # scenario.dir: each written file's way back to the scenarios folder
        self.assertEqual([p for p in params("a.db", 1) if p[0] != "scenario.dir"],
                         [p for p in params("b.db", 1) if p[0] != "scenario.dir"])
        s1 = r1.summary().drop(columns="run_id")
        s2 = r2.summary().drop(columns="run_id")
        self.assertTrue(s1.equals(s2))

    def test_written_elsewhere_keeps_relative_paths(self):
        a = dlsim.Scenario.load(os.path.join(SRC, "scenarios", "examples", "availability.ini"))
        self.assertEqual(a.get("churn.trace"), "traces/diurnal-day.csv")
        path = a.write("elsewhere.ini")
        b = dlsim.Scenario.load(path)    # checked by the binary: the trace is found
        self.assertEqual(b.get("churn.trace"), "traces/diurnal-day.csv")
        self.assertTrue(os.path.isabs(os.path.join(os.getcwd(), b.get("scenario.dir"))))

    def test_dict_forms(self):
        a = dlsim.Scenario({"peers": {"count": 4}, "training": {"rounds": 1}})
        b = dlsim.Scenario({"peers.count": 4, "training.rounds": "1"})
        self.assertEqual(a, b)
        self.assertEqual(a.get("peers.count"), "4")
        self.assertIs(a.set("network.latency", "50ms"), a)
        self.assertEqual(a["network.latency"], "50ms")

    def test_sweep(self):
        s = small().sweep("churn.arrival_rate", ["0", "1/min"])
        self.assertEqual(s.get("churn.arrival_rate"), "${0, 1/min}")
        runs = dlsim.run(s, out="sw.db", progress=False).runs()
        self.assertEqual(sorted(runs["point_label"]), ["churn.arrival_rate=0", "churn.arrival_rate=1/min"])

    def test_bad_value_names_section_and_key_as_the_cli(self):
        s = small()
        before = s.items()
        with self.assertRaises(dlsim.ScenarioError) as e:
            s.set("network.latency", "5parsecs")
        self.assertEqual(s.items(), before)            # refused: unchanged
        # the CLI's own message for the same file
        bad = s.copy()
        bad.sections["network"]["latency"] = "5parsecs"
        bad.write("bad.ini")
        p = subprocess.run([dlsim.binary(), "run", "bad.ini", "-o", "bad.db"], stderr=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(p.returncode, 2)
        cli = p.stderr.strip().replace("dlsim run: bad.ini: ", "")
        self.assertIn("[network] latency: '5parsecs'", str(e.exception))
        self.assertTrue(str(e.exception).endswith(cli), (str(e.exception), cli))
        self.assertTrue(str(e.exception).startswith(DEMO + ": "))

    def test_unknown_key(self):
        with self.assertRaisesRegex(dlsim.ScenarioError, r"\[network\] latenc: unknown key \(keys of \[network\]: latency"):
            small().set("network.latenc", "5ms")
        with self.assertRaisesRegex(dlsim.ScenarioError, r"^scenario: \[nope\]: unknown section \(expected scenario, "):
            dlsim.Scenario({"nope.x": 1})
        with self.assertRaisesRegex(dlsim.ScenarioError, "SECTION.KEY"):
            small().set("latency", "5ms")


class TestRun(Tmp):
    def test_seeds_and_skip(self):
        seen = []
        r = dlsim.run(small(), out="r.db", jobs=2, seeds=range(3), progress=seen.append, interval=0)
        runs = r.runs()
        self.assertEqual(list(runs["seed"]), [0, 1, 2])
        self.assertTrue(seen and seen[-1].done == seen[-1].total == 3, seen)
        # again: every run is in the file, none is made
        dlsim.run(small(), out="r.db", jobs=2, seeds=range(3), progress=False)
        self.assertEqual(len(r.runs()), 3)
        # seeds that are not consecutive
        dlsim.run(small(), out="r.db", seeds=[7, 9], progress=False)
        self.assertEqual(sorted(r.runs()["seed"]), [0, 1, 2, 7, 9])

    def test_unchanged_file_runs_itself(self):
        shutil.copy(os.path.join(SRC, "protocol", "disco", "scenarios", "failures", "s01-ready-after-min-left-out.ini"), "s01.ini")
        r = dlsim.run("s01.ini", out="s.db", progress=False)
        self.assertEqual(list(r.table("runs")["file"]), ["s01.ini"])
        self.assertFalse(os.path.exists("s.ini"))
        # the CLI's run of the same file is the same run: skipped
        p = subprocess.run([dlsim.binary(), "run", "s01.ini", "-o", "s.db"], stderr=subprocess.PIPE,
                           stdout=subprocess.PIPE, universal_newlines=True)
        self.assertIn("already in s.db", p.stderr)

    def test_refuses_to_overwrite_a_foreign_file(self):
        put("o.ini", "[peers]\ncount = 3\n")
        with self.assertRaisesRegex(dlsim.DlsimError, "did not write it"):
            dlsim.run(small(), out="o.db", progress=False)
        with open("o.ini", encoding="utf-8") as f:
            self.assertEqual(f.read(), "[peers]\ncount = 3\n")

    def test_ctrl_c(self):
        # SIGINT to the Python process: the binary and its -j workers stop
        # as under the CLI's Ctrl-C, no dlsim process is left, finished
        # runs stay in the database, and the
        # same call again makes only the rest.  200 runs, not 40: a loaded
        # machine (distcheck beside other builds) let the 40 finish between
        # the first progress line and the signal's arrival (done == 40)
        code = ("import dlsim, sys\n"
                "s = dlsim.Scenario.load(%r).set('training.rounds', 2)\n"
                "try:\n"
                "    dlsim.run(s, out='k.db', seeds=range(%d), jobs=2, interval=0,\n"
                "              progress=lambda p: print('P', p.done, flush=True))\n"
                "except KeyboardInterrupt:\n"
                "    print('INTERRUPTED', flush=True); sys.exit(3)\n" % (DEMO, N_CTRL_C))
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(dlsim.__file__))))
        # SIGINT as a terminal leaves it: a shell's background job (make
        # check started with `&`) inherits it ignored, and a Python started
        # so never raises KeyboardInterrupt
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, universal_newlines=True, env=env,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        line = p.stdout.readline()
        self.assertTrue(line.startswith("P "), line)
        p.send_signal(signal.SIGINT)
        rest = p.stdout.read()
        p.stdout.close()
        self.assertEqual(p.wait(timeout=60), 3, rest)
        self.assertIn("INTERRUPTED", rest)
        left = subprocess.run(["pgrep", "-f", "%s run k.ini" % dlsim.binary()], stdout=subprocess.PIPE)
        self.assertEqual(left.stdout, b"")
        # the -j workers' runs are merged into k.db, as after the CLI's Ctrl-C
        self.assertEqual(glob.glob("k.db.worker*"), [])
        con = sqlite3.connect("k.db")
        done = con.execute("SELECT count(*) FROM runs WHERE outcome NOT IN ('interrupted')").fetchone()[0]
        con.close()
        self.assertGreater(done, 0)
        self.assertLess(done, N_CTRL_C)
        seen = []
        dlsim.run(dlsim.Scenario.load(DEMO).set("training.rounds", 2), out="k.db", seeds=range(N_CTRL_C),
                  jobs=2, interval=0, progress=seen.append)
        self.assertEqual(seen[-1].total, N_CTRL_C - done)


def _importable(*names):
    import importlib.util
    return all(importlib.util.find_spec(n) for n in names)


@unittest.skipUnless(_importable("jupyter_client", "ipykernel"), "no jupyter_client and ipykernel "
                     "(python3-nbconvert and python3-ipykernel, which tools/install-deps installs)")
class TestKernel(Tmp):
    """dlsim.run in a Jupyter kernel, as a notebook runs it: the status
    lines reach the front end, and the kernel's interrupt (SIGINT to the
    kernel's process group, jupyter_client's way) stops the runs cleanly;
    the same cell again runs only the rest"""

    CODE = ("import dlsim\n"
            "s = dlsim.Scenario.load(%r).set('training.rounds', 2)\n"
            "r = dlsim.run(s, out='k.db', seeds=range(40), jobs=2, interval=0)\n" % DEMO)

    def cell(self, kc, code, interrupt=None):
        """runs code; returns (its execute_reply's content, its stderr
        text); interrupt() is called at its first status line"""
        msg_id, err = kc.execute(code), ""
        while True:
            m = kc.get_iopub_msg(timeout=120)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream" and m["content"]["name"] == "stderr":
                err += m["content"]["text"]
                if interrupt and "dlsim run: " in err:
                    interrupt()
                    interrupt = None
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        while True:
            r = kc.get_shell_msg(timeout=60)
            if r["parent_header"].get("msg_id") == msg_id:
                return r["content"], err

    def test_interrupt_and_again(self):
        from jupyter_client import KernelManager
        km = KernelManager(kernel_name="python3")
        km.start_kernel(cwd=self.tmp, env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"))
        kc = km.client()
        try:
            kc.start_channels()
            kc.wait_for_ready(timeout=120)
            reply, err = self.cell(kc, self.CODE, interrupt=km.interrupt_kernel)
            self.assertEqual((reply["status"], reply.get("ename")), ("error", "KeyboardInterrupt"), reply)
            self.assertRegex(err, r"dlsim run: \d+/40 runs")
            left = subprocess.run(["pgrep", "-f", "%s run k.ini" % dlsim.binary()], stdout=subprocess.PIPE)
            self.assertEqual(left.stdout, b"")
            con = sqlite3.connect("k.db")
            done = con.execute("SELECT count(*) FROM runs WHERE outcome <> 'interrupted'").fetchone()[0]
            con.close()
            self.assertTrue(0 < done < 40, done)
            reply, err = self.cell(kc, self.CODE + "print(len(r.runs()))")
            self.assertEqual(reply["status"], "ok", reply)
            totals = set(re.findall(r"dlsim run: \d+/(\d+) runs", err))
            self.assertEqual(totals, {str(40 - done)}, err)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


class TestInterruptRace(Tmp):
    def test_interrupt_after_the_binary_ended(self):
        # Ctrl-C the moment the binary has ended and been reaped: the
        # KeyboardInterrupt goes on, not an error of signalling a process
        # that is gone
        from dlsim import runs
        real = subprocess.Popen

        class Reaped:
            def __init__(self, *a, **k):
                self.p = real(*a, **k)
                self.pid, self.stderr = self.p.pid, self.p.stderr

            def wait(self, timeout=None):
                self.p.wait()
                raise KeyboardInterrupt

        runs.subprocess.Popen = Reaped
        try:
            with self.assertRaises(KeyboardInterrupt):
                runs._one(["--version"], False, 1)
        finally:
            runs.subprocess.Popen = real


class TestResults(Tmp):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="dlsim-pytest-")
        s = small().sweep("churn.arrival_rate", ["0", "2/min"])
        cls.r = dlsim.run(s, out=os.path.join(cls.dir, "res.db"), seeds=range(2), progress=False)
        b = dlsim.Scenario.load(os.path.join(SRC, "protocol", "disco", "scenarios", "failures", "s02-leave-breaks-round.ini"))
        cls.v = dlsim.run(b, out=os.path.join(cls.dir, "v.db"), progress=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def numeric(self, df, cols):
        for c in cols:
            self.assertTrue(pdt.is_numeric_dtype(df[c]), "%s is %s" % (c, df[c].dtype))

    def test_runs_wide(self):
        runs = self.r.runs()
        self.assertEqual(len(runs), 4)
        self.numeric(runs, ["run_id", "seed", "final_accuracy", "sim_time_s", "network.uplink_bps",
                            "churn.arrival_rate_per_s", "rounds_completed"])
        rates = sorted(runs["churn.arrival_rate_per_s"].unique())
        self.assertEqual(len(rates), 2)
        self.assertEqual(rates[0], 0)
        self.assertAlmostEqual(rates[1], 2 / 60)

    def test_tables_are_typed(self):
        for name, cols in (("events", ["run_id", "seq", "t_s", "round"]),
                           ("rounds", ["round", "list_s", "start_s", "end_s", "participants"]),
                           ("metrics", ["t_s", "round", "value"]),
                           ("peers", ["joined_s", "left_s", "rounds", "accuracy", "uplink_bps"]),
                           ("traffic", ["messages", "bytes"]),
                           ("violations", ["run_id", "t_s"])):
            with self.subTest(table=name):
                df = getattr(self.r, name)()
                self.numeric(df, cols)
                if name != "violations":
                    self.assertGreater(len(df), 0)
        ev = self.r.events()
        self.assertTrue(pdt.is_float_dtype(ev["t_s"]))
        self.assertEqual(ev["node"].dtype, object)

    def test_times_in_seconds(self):
        # seconds, not ns: within the hour's time limit, the last round
        # ends before the last event, and runs' end is summary's sim_time_s
        ev, rounds, runs, summ = self.r.events(), self.r.rounds(), self.r.table("runs"), self.r.summary()
        for rid in runs["run_id"]:
            last = ev.loc[ev["run_id"] == rid, "t_s"].max()
            self.assertLessEqual(last, 3600)
            self.assertGreaterEqual(last + 1e-9, rounds.loc[rounds["run_id"] == rid, "end_s"].max())
            self.assertGreater(rounds.loc[rounds["run_id"] == rid, "end_s"].max(), 1)
            end = runs.loc[runs["run_id"] == rid, "sim_end_s"].iloc[0]
            t = summ.loc[(summ["run_id"] == rid) & (summ["key"] == "sim_time_s"), "value"].iloc[0]
            # the summary keeps 6 significant digits (results/res-db.c,
            # fmt_double's %.6g): 1118.06 for 1118.0566
            self.assertLessEqual(abs(float(t) - end), 5e-6 * max(abs(end), 1.0))

    def test_violations(self):
        v = self.v.violations()
        self.assertGreater(len(v), 0)
        self.numeric(v, ["run_id", "t_s"])
        self.assertTrue(set(v["property"]) <= {"agreement", "own-round-only", "monotone-rounds", "progress",
                                                "excluded-was-told", "no-lost-model",
                                                "retries-before-exclusion", "sync-served"})

    def script_blocks(self, x):
        """the datablocks of dlsim plot convergence --script"""
        out = subprocess.run([dlsim.binary(), "plot", self.r.path, "convergence", "--x", x, "--script"],
                             stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
        blocks, name = {}, None
        for line in out.splitlines():
            if line.endswith(" << EOD"):
                name, blocks[line[1:-7]] = line[1:-7], []
            elif line == "EOD":
                name = None
            elif name:
                blocks[name].append([float(v) for v in line.split()])
        return blocks

    def test_convergence_as_dlsim_plot(self):
        # the same numbers as the binary's figure, every line, by round and
        # by time (plots/plot-mean.c: the peers there or finished)
        for x in ("round", "time"):
            by, lines = self.r.plot.convergence_data(x=x)
            self.assertEqual(by, "churn.arrival_rate")
            blocks = self.script_blocks(x)
            groups = ["0", "2/min"]
            for gi, value in enumerate(["0", "2/min"]):
                if value not in groups:
                    continue
                for metric in ("accuracy", "loss"):
                    with self.subTest(x=x, group=value, metric=metric):
                        mine = lines[(metric, value)].values.tolist()
                        theirs = blocks["%s%d" % (metric, gi)]
                        self.assertEqual(len(mine), len(theirs))
                        for a, b in zip(mine, theirs):
                            for u, v in zip(a, b):
                                self.assertAlmostEqual(u, v, delta=1e-6 * max(1, abs(v)))

    def test_convergence_counts_online_or_finished_peers(self):
        # by time, a peer that crashed or left unfinished stops counting
        # when it goes; a finished one keeps its last value
        peers = pd.DataFrame({"peer": ["a", "b"], "left_s": [5.0, 5.0], "outcome": ["finished", "crashed"]})
        metrics = pd.DataFrame({"t_s": [1.0, 2.0], "peer": ["a", "b"], "name": ["accuracy"] * 2,
                                "value": [0.5, 0.9], "round": [1, 1]})
        c = dlsim.plot.run_curve(metrics, peers, "accuracy", True, [1.5, 3.0, 6.0])
        self.assertEqual(c.tolist(), [0.5, 0.7, 0.5])
        # every peer gone unfinished: the mean of every peer's latest value
        # (plots/plot-mean.c), not nothing
        peers["outcome"] = ["left", "crashed"]
        c = dlsim.plot.run_curve(metrics, peers, "accuracy", True, [1.5, 3.0, 6.0])
        self.assertEqual(c.tolist(), [0.5, 0.7, 0.7])

    def test_convergence_figure(self):
        import matplotlib
        matplotlib.use("Agg")
        fig = self.r.plot.convergence(x="time", by="churn.arrival_rate")
        fig.savefig(os.path.join(self.dir, "c.png"))
        self.assertGreater(os.path.getsize(os.path.join(self.dir, "c.png")), 1000)
        self.assertEqual(len(fig.axes[0].get_lines()), 2)
        with self.assertRaisesRegex(ValueError, "no run .* has the parameter 'peers.nope'"):
            self.r.plot.convergence(by="peers.nope")

    def test_missing_database(self):
        with self.assertRaisesRegex(dlsim.DlsimError, "no such results database"):
            dlsim.Results("nope.db")


class TestSearch(Tmp):
    def test_check(self):
        shutil.copy(os.path.join(SRC, "protocol", "disco", "scenarios", "failures", "s01-ready-after-min-left-out.ini"), "good.ini")
        put("bad.ini", "[peers]\ncount = 3\n[training]\nrounds = 1\n[expect]\noutcome = timeout\n")
        c = dlsim.check(["good.ini", "bad.ini"])
        self.assertEqual((c.passed, c.failed, c.errors), (1, 1, 0))
        good, bad = c.runs
        self.assertTrue(good.passed)
        self.assertEqual((good.file, good.outcome), ("good.ini", "completed"))
        self.assertFalse(bad.passed)
        self.assertEqual(bad.failures, ["outcome: expected = timeout, actual completed"])

    def test_check_refuses_a_bad_file(self):
        put("bad.ini", "[network]\nlatency = 5parsecs\n[expect]\noutcome = completed\n")
        with self.assertRaisesRegex(dlsim.DlsimError, r"\[network\] latency"):
            dlsim.check("bad.ini")

    def test_explore(self):
        base = os.path.join(SRC, "scenarios", "examples", "explore-base.ini")
        x = dlsim.explore(base, runs=20, found="found")
        self.assertEqual(x.runs, 20)
        self.assertEqual(x.distinct, len(x.failures))
        self.assertGreater(x.distinct, 0)
        self.assertEqual(sum(f.runs for f in x.failures), x.failing)
        for f in x.failures:
            self.assertTrue(f.seeds)
            self.assertTrue(f.reproduces)
            self.assertTrue(os.path.exists(f.found), f.found)
            # the found file pins the violation: it passes dlsim check
            self.assertEqual(dlsim.check(f.found).failed, 0)


class TestExploreGuest(Tmp):
    def test_messages(self):
        # messages=: the kinds drop and delay pick from, as --messages
        pp = os.path.join(SRC, "protocol", "guest", "scenarios", "pushpull.ini")
        x = dlsim.explore(pp, runs=3, faults=["drop", "delay"], messages=["Guest:Push", "Guest:Nope"],
                          shrink=False)
        self.assertEqual(x.runs, 3)
        rules = [l for l in x.coverage if l.startswith("drop rules that never fired")]
        self.assertTrue(rules and "Guest:Nope" in rules[0], x.coverage)
        with self.assertRaisesRegex(dlsim.DlsimError, "--messages: 'Payload:x' is not a message type"):
            dlsim.explore(pp, runs=1, messages=["Payload:x"])


def _toy():
    """a toy protocol on the guest SDK: every effect once"""
    from dlsim import guest

    class Toy(guest.Node):
        def on_new(self):
            self.state("new-" + self.kind)

        def on_start(self):
            self.send(guest.COORDINATOR, "Hello")

        def on_message(self, frm, via, type, data):
            if self.kind == "coordinator":
                self.list_round(1, 1)
                self.send(frm, "Go", "x")
                self.start_round(1, 1)
                self.retry()
                self.retry(4)
                self.excluded("p9")
                self.reset()
            else:
                self.open_link("p2", initiator=True)
                self.connect("p2")
                self.train(1)
                self.set_timer(self.now + 5)

        def on_timer(self):
            self.set_timer(None)

        def on_training_done(self):
            self.send("p2", "Push", "0.5", size=8)
            self.report_model([0.5, 1])
            self.observe("value_ppm", 500000, 1)
            self.round_done(1)
            self.round_done(3, 1)

        def on_link_up(self, peer):
            self.synced(peer)
            self.served("p3")
            self.served("p4", stale=True)
            self.excluded()

        def on_link_closed(self, peer):
            self.foreign(peer, 2)

        def on_stream_closed(self, other):
            self.note("closed " + other)

        def on_link_failed(self, peer):
            self.note("lost " + peer)
            self.close(peer)
            self.failed("no link")

        def on_leave(self):
            self.finished()
            self.disconnect()
    return Toy


class TestGuestSdk(unittest.TestCase):
    def session(self, lines):
        import io
        from dlsim import guest
        out = io.StringIO()
        guest.run(_toy(), stdin=io.StringIO("".join(l + "\n" for l in lines)), stdout=out)
        return out.getvalue().split("\n")[:-1]

    def test_lines(self):
        got = self.session(["hello 1 7 2 1", "new S coordinator 3", "new p1 peer 4", "start p1 0",
                            "msg S 10 p1 stream Hello -", "msg p1 20 S stream Go x", "deadline p1 25",
                            "trained p1 30", "link-up p1 31 p2", "link-closed p1 32 p2", "stream-closed p1 33 S",
                            "link-failed p1 34 p2", "leave p1 40", "free p1", "bye",
                            "never read"])
        self.assertEqual(got, [
            "quiet",
            "state new-coordinator", "quiet",
            "state new-peer", "quiet",
            "send S stream Hello 0 -", "quiet",
            "list 1 1", "send p1 stream Go 0 x", "start 1 1", "retry", "retry 4", "excluded p9", "reset", "quiet",
            "open p2 initiator", "connect p2", "train 1", "deadline 25", "quiet",
            "deadline never", "quiet",
            "send p2 link Push 8 0.5", "model 0.5,1.0", "metric value_ppm 500000 1", "round 1", "round 3 1",
            "quiet",
            "synced p2", "served p3", "served p4 stale", "excluded", "quiet",
            "foreign p2 2", "quiet",
            "note closed S", "quiet",
            "note lost p2", "close p2", "failed no link", "quiet",
            "finished", "disconnect", "quiet",
            "quiet"])

    def test_async_node(self):
        # asyncio on dlsim's clock: a sleep is a deadline, a queue gets a
        # message, and nothing waits for the wall clock
        import asyncio
        import io
        from dlsim import guest

        class Nap(guest.AsyncNode):
            def on_new(self):
                self.inbox = asyncio.Queue()

            async def main(self):
                await asyncio.sleep(300)
                self.send(guest.COORDINATOR, "Hello")
                frm, typ = await self.inbox.get()
                await asyncio.sleep(0.25)
                self.note("%s %s at %d" % (frm, typ, round(self.loop.time() * 1e9)))
                self.finished()

            def on_start(self):
                self.spawn(self.main())

            def on_message(self, frm, via, type, data):
                self.loop.call_soon(self.inbox.put_nowait, (frm, type))

        out = io.StringIO()
        t0 = time.time()
        guest.run(Nap, stdin=io.StringIO("hello 1 1 1 1\nnew p1 peer 5\nstart p1 1000\ndeadline p1 300000001000\n"
                                          "msg p1 300020000000 S stream Ack -\ndeadline p1 300270000000\nbye\n"),
                  stdout=out)
        self.assertLess(time.time() - t0, 5)
        self.assertEqual(out.getvalue().split("\n")[:-1], [
            "quiet", "quiet",
            "deadline 300000001000", "quiet",
            "send S stream Hello 0 -", "deadline never", "quiet",
            "deadline 300270000000", "quiet",
            "note S Ack at 300270000000", "finished", "deadline never", "quiet"])

    def test_hello_of_another_version(self):
        with self.assertRaises(SystemExit) as e:
            self.session(["hello 2 7 2 1"])
        self.assertIn("version 2", str(e.exception.code))

    def test_guest_needs_no_pandas(self):
        code = "import sys, dlsim.guest; sys.exit(1 if 'pandas' in sys.modules else 0)"
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(dlsim.__file__))))
        self.assertEqual(subprocess.run([sys.executable, "-c", code], env=env).returncode, 0)

    def test_guests_on_the_sdk(self):
        # the project's guests are written on the SDK and pass their checks
        for g in ("pushpull/pushpull.py", "testing/close-race.py", "asyncio/sleepy.py"):
            with open(os.path.join(SRC, "guests", g), encoding="utf-8") as f:
                self.assertIn("from dlsim import guest", f.read(), g)
        c = dlsim.check([os.path.join(SRC, "protocol", "guest", "scenarios", "pushpull.ini"),
                         os.path.join(SRC, "protocol", "guest", "scenarios", "asyncio-sleep.ini"),
                         os.path.join(SRC, "scenarios", "edge", "send-on-closing-link.ini")])
        self.assertEqual((c.passed, c.failed, c.errors), (3, 0, 0))


USER_GUEST = '''"""a user's guest on dlsim.guest: each round every peer trains and
sends its Model to the coordinator, which answers all of them with Next
once it has every peer's.  Its bug: a peer whose stream closes is taken
off the round's set, which raises if its Model has not come"""
from dlsim import guest


class Coordinator(guest.Node):
    def on_new(self):
        self.got = set()

    def on_message(self, frm, via, type, data):
        self.got.add(frm)
        if len(self.got) == self.guest.min_participants:
            self.list_round(int(data), len(self.got))
            for p in sorted(self.got):
                self.send(p, "Next", data)
            self.got = set()

    def on_stream_closed(self, other):
        self.got.remove(other)


class Peer(guest.Node):
    def on_start(self):
        self.round = 1
        self.train(1)

    def on_training_done(self):
        self.send(guest.COORDINATOR, "Model", str(self.round), size=1000)

    def on_message(self, frm, via, type, data):
        self.round_done(self.round)
        if self.round == self.guest.rounds:
            self.finished()
        else:
            self.round += 1
            self.train(self.round)


guest.run(Coordinator, Peer)
'''


class TestUserGuest(Tmp):
    """A guest a user writes on the SDK (the package on PYTHONPATH), through
    run, check, explore and shrink, as docs/python.md and docs/guest.md
    tell"""

    def test_run_check_explore_shrink(self):
        put("barrier.py", USER_GUEST)
        put("barrier.ini", "[protocol]\nfamily = guest\nguest_command = %s barrier.py\nmin_participants = 3\n"
            "[training]\nrounds = 5\n[peers]\ncount = 3\n"
            "[expect]\noutcome = completed\npeer.p3.rounds = 5\n" % sys.executable)
        r = dlsim.run("barrier.ini", out="b.db", progress=False)
        self.assertEqual(list(r.runs()["outcome"]), ["completed"])
        self.assertEqual(list(r.peers()["rounds"]), [5, 5, 5])
        self.assertEqual(len(r.rounds()), 5)
        c = dlsim.check("barrier.ini")
        self.assertEqual((c.passed, c.failed, c.errors), (1, 0, 0))
        # a crash reaches the bug: explore finds it, shrinks it to the
        # crash, and the found file reproduces it: run, the guest breaks
        # on the stream's close (a guest-error's found file pins nothing
        # dlsim check can check: its [expect] is empty, and check counts a
        # run that ends in error as an error)
        x = dlsim.explore("barrier.ini", runs=20, faults=["crash"], found="found")
        self.assertEqual([f.signature for f in x.failures], ["guest-error"])
        f = x.failures[0]
        self.assertTrue(f.reproduces)
        self.assertTrue(any("crash p" in line for line in f.shrunk), f.shrunk)
        p = subprocess.run([dlsim.binary(), "run", f.found, "-o", "found.db"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("KeyError", p.stdout)
        self.assertIn("stream-closed S", p.stdout)
        # dlsim shrink: a recorded failing run read back and shrunk
        plan = dlsim.Scenario.load("barrier.ini").set("timeline.round 2 + 10ms", "crash p2")
        plan.sections.pop("expect")
        plan.write("crash.ini")
        p = subprocess.run([dlsim.binary(), "run", "crash.ini", "-o", "crash.db"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("stream-closed S", p.stdout)
        p = subprocess.run([dlsim.binary(), "shrink", "crash.db", "--run", "1", "-o", "shrunk.ini"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("shrunk.ini: guest-error: 1 timeline lines -> 1", p.stdout)
        self.assertIn("reproduces", p.stdout)


class TestGuestTwin(Tmp):
    """The guest SDK against the C twin of push-pull: the project's guest
    (guests/pushpull/pushpull.py, on dlsim.guest) and gossip's push-pull
    (protocol/gossip, gossip_mode = push-pull), run on the same scenario,
    seeds, peers and network, must agree on the discrete facts (`dlsim
    compare`: outcome, rounds, each peer's outcome and rounds, the
    properties' violations) and both do push-pull averaging: the sum kept,
    the spread cut at every cycle."""

    SEEDS = range(3)

    def twin(self, g):
        """g's C twin: its [protocol] gossip's push-pull, its value one float"""
        d = {sec: dict(kv) for sec, kv in g.sections.items()}
        d["protocol"] = {"family": "gossip", "gossip_mode": "push-pull",
                         "min_participants": g.get("protocol.min_participants")}
        d.setdefault("model", {})["size"] = 1
        return dlsim.Scenario(d, base_dir=g.base_dir)

    def pair(self, g, name):
        rg = dlsim.run(g, out=name + "-guest.db", seeds=self.SEEDS, progress=False)
        rc = dlsim.run(self.twin(g), out=name + "-c.db", seeds=self.SEEDS, progress=False)
        return rg, rc

    def compare(self, rg, rc):
        ig, ic = rg.runs().set_index("seed")["run_id"], rc.runs().set_index("seed")["run_id"]
        self.assertEqual(sorted(ig.index), list(self.SEEDS))
        self.assertEqual(sorted(ic.index), list(self.SEEDS))
        for seed in self.SEEDS:
            p = subprocess.run([dlsim.binary(), "compare", "--run-a=%d" % ic[seed], "--run-b=%d" % ig[seed],
                                rc.path, rg.path], stdout=subprocess.PIPE, universal_newlines=True)
            with self.subTest(seed=seed):
                self.assertEqual(p.returncode, 0, p.stdout)
                self.assertIn("discrete facts agree", p.stdout)
        # the same from the package's tables: each peer's outcome and rounds
        cols = ["seed", "peer", "outcome", "rounds"]
        pg = rg.peers().merge(rg.runs()[["run_id", "seed"]])[cols].sort_values(cols[:2]).reset_index(drop=True)
        pc = rc.peers().merge(rc.runs()[["run_id", "seed"]])[cols].sort_values(cols[:2]).reset_index(drop=True)
        self.assertTrue(pg.equals(pc), (pg, pc))

    def factors(self, rg, rc):
        """the variance's factor per cycle, guest and C, over all seeds:
        the guest's from its peers' value_ppm after each cycle, the C
        twin's its coordinator's variance_factor_ppm"""
        m = rg.metrics()
        v = m[m["name"] == "value_ppm"].groupby(["run_id", "round"])["value"]
        # the sum kept, to the ppm rounding of each peer's value
        spread = v.sum().groupby(level=0).agg(lambda s: s.max() - s.min())
        self.assertTrue((spread <= v.size().max()).all(), spread)
        var = v.var().unstack()
        guest = (var[var.columns[1:]].values / var[var.columns[:-1]].values).ravel()
        m = rc.metrics()
        c = (m.loc[m["name"] == "variance_factor_ppm", "value"] / 1e6).values
        return guest, c

    def test_pushpull_and_its_c_twin(self):
        g = dlsim.Scenario.load(os.path.join(SRC, "protocol", "guest", "scenarios", "pushpull.ini"))
        rg, rc = self.pair(g, "pp")
        self.assertEqual(set(rg.runs()["outcome"]), {"completed"})
        self.compare(rg, rc)
        guest, c = self.factors(rg, rc)
        rounds = int(g.get("training.rounds"))
        self.assertEqual(len(guest), len(c))
        self.assertEqual(len(c), (rounds - 1) * len(self.SEEDS))
        # each cuts the variance a cycle, on the mean by more than half
        # (Jelasity et al. 2005: 1/(2 sqrt e) = 0.30 with exchanges one at
        # a time; the guest's cycles overlap, 0.4 to 0.5 measured)
        for name, f in (("guest", guest), ("C twin", c)):
            with self.subTest(side=name):
                self.assertLess(f.mean(), 0.6, f)
                self.assertLess(f.max(), 1.0, f)

    def test_fewer_peers_than_listed(self):
        # 5 peers, 4 cycles, 2 listed first: the latecomers are listed as
        # they come, on both sides
        g = dlsim.Scenario.load(os.path.join(SRC, "protocol", "guest", "scenarios", "pushpull.ini"))
        g.set("peers.count", 5).set("training.rounds", 4).set("protocol.min_participants", 2)
        rg, rc = self.pair(g, "small")
        self.compare(rg, rc)


if __name__ == "__main__":
    unittest.main()
