#!/usr/bin/env python3
"""pushpull.py - dlsim's own guest (docs/guest.md): push-pull averaging
behind a coordinator, every node of a run in this one process.

Each peer starts from a value drawn from its seed.  The coordinator waits
for min_participants hellos, then sends every peer the list of peers (and
each later one the list as it is).  A peer runs `rounds` cycles: it trains
(dlsim's compute time), draws a partner, asks the coordinator to introduce
it (Want), opens a link and pushes its value; the partner moves half the
difference towards it and answers with that half (Pull), which the pusher
takes off its own value, so the sum of all values never changes.  A cycle
whose link fails or whose Pull does not come within 5 s ends without an
exchange.  After every cycle a peer reports `metric value_ppm`.

It uses every line of the protocol: send on the stream and on links, open
(initiator or not), connect, close, train, deadline, state, round, list,
finished, failed, note, metric, and disconnect (with --leave-after).

    python3 pushpull.py [--leave-after] [--raise-on-link-failed] [--report-model] [--value-bytes N]
                        [--crash-at LINE] [--hang-at LINE] [--garbage-at LINE]

--value-bytes N: what a Push or a Pull says it costs (default 8).
--report-model: after every cycle a peer reports its value as its model
(`model V`), which the agreement property compares when the scenario says
guest_agreement = on: push-pull values differ, so that finds violations.
--raise-on-link-failed plants a bug that only a fault reaches: a peer whose
link fails raises an exception (as simple-peer's unhandled 'error' ends a
Node client in DISCO, S28), so `dlsim explore --faults link-fail` finds it.
The last three make a bad guest for tests: exit, sleep or print a line
that is no action when it reads its LINE-th line.
"""
import random
import sys
import time

EXCHANGE_TIMEOUT = 5_000_000_000  # ns


class Peer:
    def __init__(self, name, seed):
        self.name = name
        self.rng = random.Random(seed)
        self.value = self.rng.random()
        self.peers = []
        self.cycle = 0
        self.partner = None     # the peer of the exchange under way
        self.sent = None        # the value pushed to it
        self.done = False


class Guest:
    def __init__(self, argv):
        self.leave_after = "--leave-after" in argv
        self.raise_on_link_failed = "--raise-on-link-failed" in argv
        self.report_model = "--report-model" in argv
        # what a Push or a Pull says it costs on the wire (a model's size,
        # say, where the value stands for a model)
        self.value_bytes = 8
        if "--value-bytes" in argv:
            self.value_bytes = int(argv[argv.index("--value-bytes") + 1])
        self.faults = {}
        for flag in ("--crash-at", "--hang-at", "--garbage-at"):
            if flag in argv:
                self.faults[flag] = int(argv[argv.index(flag) + 1])
        self.rounds = 1
        self.min = 1
        self.nodes = {}         # name -> Peer, or "coordinator"
        self.joined = []        # the coordinator's peers, in order of hello
        self.listed = False
        self.out = []
        self.lines = 0

    def act(self, *words):
        self.out.append(" ".join(str(w) for w in words))

    # -- the coordinator
    def coordinator(self, verb, t, w):
        if verb == "msg":
            frm, _via, typ = w[0], w[1], w[2]
            if typ == "Hello":
                if frm not in self.joined:
                    self.joined.append(frm)
                if self.listed:
                    self.act("send", frm, "stream", "Peers", 0, ",".join(self.joined))
                elif len(self.joined) >= self.min:
                    self.listed = True
                    self.act("list", 1, len(self.joined))
                    self.act("state", "listing")
                    for p in self.joined:
                        self.act("send", p, "stream", "Peers", 0, ",".join(self.joined))
            elif typ == "Want":
                # introduce the pusher to its partner
                self.act("send", w[3], "stream", "Meet", 0, frm)
        elif verb == "stream-closed":
            if w[0] in self.joined:
                self.joined.remove(w[0])
                self.act("note", w[0], "left the list")

    # -- a peer
    def next_cycle(self, p):
        if p.cycle >= self.rounds:
            if not p.done:
                p.done = True
                self.act("state", "done")
                self.act("finished")
                if self.leave_after:
                    self.act("disconnect")
            return
        p.cycle += 1
        self.act("state", "training")
        self.act("train", p.cycle)

    def end_exchange(self, p, how):
        if p.partner is not None:
            self.act("close", p.partner)
        if how:
            self.act("note", how)
        p.partner, p.sent = None, None
        self.act("deadline", "never")
        if self.report_model:
            # its value as its model: the peers' values differ until they
            # have converged, so guest_agreement = on must see violations
            self.act("model", repr(p.value))
        self.act("round", p.cycle)
        self.act("metric", "value_ppm", round(p.value * 1e6), p.cycle)
        self.next_cycle(p)

    def peer(self, p, verb, t, w):
        if verb == "start":
            self.act("state", "joining")
            self.act("send", "S", "stream", "Hello", 0, "-")
        elif verb == "trained":
            others = [q for q in p.peers if q != p.name]
            if not others:
                self.end_exchange(p, "nobody to average with")
                return
            q = p.rng.choice(others)
            p.partner = q
            self.act("state", "linking")
            self.act("open", q, "initiator")
            self.act("send", "S", "stream", "Want", 0, q)
            self.act("deadline", t + EXCHANGE_TIMEOUT)
        elif verb == "deadline":
            if p.partner is not None:
                self.end_exchange(p, "no Pull within 5 s")
        elif verb == "link-up":
            if w[0] == p.partner and p.sent is None:
                p.sent = p.value
                self.act("state", "pushing")
                # the value travels as text; say it costs 8 bytes
                self.act("send", w[0], "link", "Push", self.value_bytes, repr(p.value))
        elif verb in ("link-failed", "link-closed"):
            if verb == "link-failed" and self.raise_on_link_failed:
                raise RuntimeError("%s: link to %s failed" % (p.name, w[0]))
            if w[0] == p.partner:
                self.end_exchange(p, "link to %s %s" % (w[0], verb[5:]))
        elif verb == "stream-closed":
            self.act("failed", "the coordinator is gone")
        elif verb == "msg":
            frm, _via, typ, data = w[0], w[1], w[2], w[3]
            if typ == "Peers":
                first = not p.peers
                p.peers = data.split(",")
                if first:
                    self.next_cycle(p)
            elif typ == "Meet":
                self.act("open", data)
                self.act("connect", data)
            elif typ == "Push":
                d = (float(data) - p.value) / 2
                p.value += d
                self.act("send", frm, "link", "Pull", self.value_bytes, repr(d))
            elif typ == "Pull" and frm == p.partner and p.sent is not None:
                p.value -= float(data)
                self.end_exchange(p, None)

    def handle(self, line):
        w = line.split(" ")
        verb = w[0]
        if verb == "hello":
            _seed, self.rounds, self.min = int(w[2]), int(w[3]), int(w[4])
            return
        if verb == "new":
            name, kind, seed = w[1], w[2], int(w[3])
            self.nodes[name] = "coordinator" if kind == "coordinator" else Peer(name, seed)
            self.act("state", "collecting" if kind == "coordinator" else "new")
            return
        if verb == "free":
            self.nodes.pop(w[1], None)
            return
        node = self.nodes[w[1]]
        t = int(w[2])
        if node == "coordinator":
            self.coordinator(verb, t, w[3:])
        else:
            self.peer(node, verb, t, w[3:])

    def run(self):
        for line in sys.stdin:
            self.lines += 1
            line = line.rstrip("\n")
            if self.faults.get("--crash-at") == self.lines:
                sys.exit(3)
            if self.faults.get("--hang-at") == self.lines:
                time.sleep(3600)
            if line == "bye":
                return
            self.out = []
            self.handle(line)
            if self.faults.get("--garbage-at") == self.lines:
                self.out.append("hello world")
            self.out.append("quiet")
            sys.stdout.write("\n".join(self.out) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    Guest(sys.argv[1:]).run()
