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

It is written on dlsim's guest SDK (python/dlsim/guest.py, docs/python.md):
a Coordinator and a Peer class with handlers and effects; the SDK reads
dlsim's lines and writes the actions.  It uses every line of the protocol: send on the stream and on links, open
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
import os
import sys
import time

# the SDK: from the source tree (python/ beside guests/), else where
# make install put it (the system's Python path)
_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.isfile(os.path.join(_TREE, "dlsim", "guest.py")):
    sys.path.insert(0, _TREE)
from dlsim import guest  # noqa: E402

EXCHANGE_TIMEOUT = 5_000_000_000  # ns


class Options:
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


OPTIONS = Options(sys.argv[1:])


class Coordinator(guest.Node):
    def on_new(self):
        self.joined = []        # the peers, in order of hello
        self.listed = False
        self.state("collecting")

    def on_message(self, frm, via, type, data):
        if type == "Hello":
            if frm not in self.joined:
                self.joined.append(frm)
            if self.listed:
                self.send(frm, "Peers", ",".join(self.joined))
            elif len(self.joined) >= self.guest.min_participants:
                self.listed = True
                self.list_round(1, len(self.joined))
                self.state("listing")
                for p in self.joined:
                    self.send(p, "Peers", ",".join(self.joined))
        elif type == "Want":
            # introduce the pusher to its partner
            self.send(data, "Meet", frm)

    def on_stream_closed(self, other):
        if other in self.joined:
            self.joined.remove(other)
            self.note("%s left the list" % other)


class Peer(guest.Node):
    def on_new(self):
        self.value = self.rng.random()
        self.peers = []
        self.cycle = 0
        self.partner = None     # the peer of the exchange under way
        self.sent = None        # the value pushed to it
        self.done = False
        self.state("new")

    def next_cycle(self):
        if self.cycle >= self.guest.rounds:
            if not self.done:
                self.done = True
                self.state("done")
                self.finished()
                if OPTIONS.leave_after:
                    self.disconnect()
            return
        self.cycle += 1
        self.state("training")
        self.train(self.cycle)

    def end_exchange(self, how):
        if self.partner is not None:
            self.close(self.partner)
        if how:
            self.note(how)
        self.partner, self.sent = None, None
        self.set_timer(None)
        if OPTIONS.report_model:
            # its value as its model: the peers' values differ until they
            # have converged, so guest_agreement = on must see violations
            self.report_model([self.value])
        self.round_done(self.cycle)
        self.observe("value_ppm", round(self.value * 1e6), self.cycle)
        self.next_cycle()

    def on_start(self):
        self.state("joining")
        self.send(guest.COORDINATOR, "Hello")

    def on_training_done(self):
        others = [q for q in self.peers if q != self.name]
        if not others:
            self.end_exchange("nobody to average with")
            return
        q = self.rng.choice(others)
        self.partner = q
        self.state("linking")
        self.open_link(q, initiator=True)
        self.send(guest.COORDINATOR, "Want", q)
        self.set_timer(self.now + EXCHANGE_TIMEOUT)

    def on_timer(self):
        if self.partner is not None:
            self.end_exchange("no Pull within 5 s")

    def on_link_up(self, peer):
        if peer == self.partner and self.sent is None:
            self.sent = self.value
            self.state("pushing")
            # the value travels as text; say it costs value_bytes
            self.send(peer, "Push", repr(self.value), size=OPTIONS.value_bytes)

    def on_link_failed(self, peer):
        if OPTIONS.raise_on_link_failed:
            raise RuntimeError("%s: link to %s failed" % (self.name, peer))
        if peer == self.partner:
            self.end_exchange("link to %s failed" % peer)

    def on_link_closed(self, peer):
        if peer == self.partner:
            self.end_exchange("link to %s closed" % peer)

    def on_stream_closed(self, other):
        self.failed("the coordinator is gone")

    def on_message(self, frm, via, type, data):
        if type == "Peers":
            first = not self.peers
            self.peers = data.split(",")
            if first:
                self.next_cycle()
        elif type == "Meet":
            self.open_link(data)
            self.connect(data)
        elif type == "Push":
            d = (float(data) - self.value) / 2
            self.value += d
            self.send(frm, "Pull", repr(d), size=OPTIONS.value_bytes)
        elif type == "Pull" and frm == self.partner and self.sent is not None:
            self.value -= float(data)
            self.end_exchange(None)


class PushPull(guest.Guest):
    """the SDK's loop, with the bad guest's faults of the flags"""

    def before_line(self, n, line):
        if OPTIONS.faults.get("--crash-at") == n:
            sys.exit(3)
        if OPTIONS.faults.get("--hang-at") == n:
            time.sleep(3600)

    def after_line(self, n):
        if OPTIONS.faults.get("--garbage-at") == n:
            self.out.append("hello world")


if __name__ == "__main__":
    PushPull(Coordinator, Peer).run()
