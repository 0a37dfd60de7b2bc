#!/usr/bin/env python3
"""sleepy.py - a guest written with asyncio (docs/guest.md), run on
dlsim's clock through vclock.py: one VirtualLoop per node.

Each peer's code is a plain coroutine: it sleeps five minutes (asyncio.sleep:
no wall time, a timer dlsim fires), says Hello to the coordinator, awaits
its Ack on an asyncio.Queue with a 10 s asyncio.wait_for, sleeps 250 ms and
finishes its one round.  The coordinator answers each Hello with an Ack.
It is written on dlsim's guest SDK (python/dlsim/guest.py): a Guest whose
loop advances the node's VirtualLoop around each handler and says the
loop's next timer as the deadline.  scenarios/guest/asyncio-sleep.ini runs it; tests/guest.sh checks that the
Hellos leave at 300 s of simulated time.
"""
import asyncio
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
from vclock import VirtualLoop  # noqa: E402

# the SDK: from the source tree (python/ beside guests/), else where
# make install put it (the system's Python path)
_TREE = os.path.join(_HERE, "..", "..", "python")
if os.path.isfile(os.path.join(_TREE, "dlsim", "guest.py")):
    sys.path.insert(0, _TREE)
from dlsim import guest  # noqa: E402

NS = 1_000_000_000


class Sleepy(guest.Node):
    def on_new(self):
        self.loop = VirtualLoop()
        self.inbox = asyncio.Queue()   # bound to a loop when first used (3.10+)
        self.last = None               # the deadline last said

    async def main(self):
        await asyncio.sleep(300)
        self.state("hello")
        self.send(guest.COORDINATOR, "Hello")
        frm, typ = await asyncio.wait_for(self.inbox.get(), timeout=10)
        self.note("got %s from %s" % (typ, frm))
        await asyncio.sleep(0.25)
        self.state("done")
        self.round_done(1)
        self.finished()

    def on_start(self):
        if self.name != guest.COORDINATOR:
            self.loop.call_soon(lambda: self.loop.create_task(self.main()))
            self.state("sleeping")

    def on_message(self, frm, via, type, data):
        if self.name == guest.COORDINATOR:
            self.send(frm, "Ack")
        else:
            self.loop.call_soon(self.inbox.put_nowait, (frm, type))


class AsyncGuest(guest.Guest):
    """runs a node's loop up to the line's time before and after its
    handler, then says its next timer as its deadline when it changed"""

    def handle(self, line):
        w = line.split(" ")
        if w[0] in ("hello", "new", "free"):
            return super().handle(line)
        n = self.nodes[w[1]]
        t = int(w[2]) / NS
        n.loop.advance(t)
        super().handle(line)
        n.loop.advance(t)
        d = n.loop.next_deadline()
        said = None if d is None else round(d * NS)
        if n.last != ("said", said):
            n.set_timer(said)
            n.last = ("said", said)


if __name__ == "__main__":
    AsyncGuest(Sleepy).run()
