#!/usr/bin/env python3
"""sleepy.py - a guest written with asyncio (docs/guest.md), run on
dlsim's clock through vclock.py: one VirtualLoop per node.

Each peer's code is a plain coroutine: it sleeps five minutes (asyncio.sleep:
no wall time, a timer dlsim fires), says Hello to the coordinator, awaits
its Ack on an asyncio.Queue with a 10 s asyncio.wait_for, sleeps 250 ms and
finishes its one round.  The coordinator answers each Hello with an Ack.
scenarios/guest/asyncio-sleep.ini runs it; tests/guest.sh checks that the
Hellos leave at 300 s of simulated time.
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vclock import VirtualLoop  # noqa: E402

NS = 1_000_000_000


class Node:
    def __init__(self, name):
        self.name = name
        self.loop = VirtualLoop()
        self.out = []
        self.inbox = asyncio.Queue()   # bound to a loop when first used (3.10+)
        self.last = None               # the deadline last said


async def peer(node):
    await asyncio.sleep(300)
    node.out += ["state hello", "send S stream Hello 0 -"]
    frm, typ = await asyncio.wait_for(node.inbox.get(), timeout=10)
    node.out.append("note got %s from %s" % (typ, frm))
    await asyncio.sleep(0.25)
    node.out += ["state done", "round 1", "finished"]


def main():
    nodes = {}
    for line in sys.stdin:
        w = line.rstrip("\n").split(" ")
        if w[0] == "bye":
            return
        out = []
        if w[0] == "new":
            nodes[w[1]] = Node(w[1])
        elif w[0] not in ("hello", "free"):
            n = nodes[w[1]]
            t = int(w[2]) / NS
            n.loop.advance(t)
            if w[0] == "start" and w[1] != "S":
                n.loop.call_soon(lambda n=n: n.loop.create_task(peer(n)))
                n.out.append("state sleeping")
            elif w[0] == "msg" and w[1] == "S":
                n.out.append("send %s stream Ack 0 -" % w[3])
            elif w[0] == "msg":
                n.loop.call_soon(n.inbox.put_nowait, (w[3], w[5]))
            n.loop.advance(t)
            out, n.out = n.out, []
            d = n.loop.next_deadline()
            said = "deadline never" if d is None else "deadline %d" % round(d * NS)
            if said != n.last:
                out.append(said)
                n.last = said
        out.append("quiet")
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
