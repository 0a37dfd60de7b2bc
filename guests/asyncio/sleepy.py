#!/usr/bin/env python3
"""sleepy.py - a guest written with asyncio (docs/guest.md), run on
dlsim's clock by the guest SDK's AsyncNode (python/dlsim/guest.py): each
node has its own dlsim.vclock.VirtualLoop, which the SDK runs up to each
line's time around the handler, saying the loop's next timer as the
node's deadline.

Each peer's code is a plain coroutine: it sleeps five minutes (asyncio.sleep:
no wall time, a timer dlsim fires), says Hello to the coordinator, awaits
its Ack on an asyncio.Queue with a 10 s asyncio.wait_for, sleeps 250 ms and
finishes its one round.  The coordinator answers each Hello with an Ack.
protocol/guest/scenarios/asyncio-sleep.ini runs it; protocol/guest/tests/guest.sh checks that the
Hellos leave at 300 s of simulated time.
"""
import asyncio
import os
import sys

# the SDK: from the source tree (python/ beside guests/), else where
# make install put it (the system's Python path)
_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.isfile(os.path.join(_TREE, "dlsim", "guest.py")):
    sys.path.insert(0, _TREE)
from dlsim import guest  # noqa: E402


class Sleepy(guest.AsyncNode):
    def on_new(self):
        self.inbox = asyncio.Queue()   # bound to a loop when first used (3.10+)

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
            self.spawn(self.main())
            self.state("sleeping")

    def on_message(self, frm, via, type, data):
        if self.name == guest.COORDINATOR:
            self.send(frm, "Ack")
        else:
            self.loop.call_soon(self.inbox.put_nowait, (frm, type))


if __name__ == "__main__":
    guest.run(Sleepy)
