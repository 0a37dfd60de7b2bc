#!/usr/bin/env python3
"""close-race.py - a test guest (docs/guest.md) for one race of dlsim's
world: a message sent on a link whose far end has already been destroyed,
while the close notice is still on its way.

p1 opens a link to p2 (initiator) and p2 opens its end.  When the link is
up, p1 destroys its end at once (`close p2`); p2 sends `Late` on the link
1 ms after its own link-up, before the close notice (the link's latency
away) can reach it.  The message must be lost at p1, as a WebRTC data
channel's message is when the receiving end is gone (sim/sim-net.c: a
message sent after the receiver destroyed its end is "doomed").

p1 says `failed` if `Late` reaches it, else `finished` 100 ms after its
close; p2 says `finished` when the close notice reaches it.  The
coordinator does nothing.  scenarios/edge/send-on-closing-link.ini runs it.
"""
import sys

SEND_AFTER = 1_000_000      # ns after p2's link-up
FINISH_AFTER = 100_000_000  # ns after p1's close


FAILED = set()


def handle(w, out):
    verb = w[0]
    if verb in ("hello", "new", "free"):
        return
    node, t = w[1], int(w[2])
    if node == "S":
        return
    if verb == "start":
        if node == "p1":
            out += ["state linking", "open p2 initiator", "connect p2"]
        else:
            out += ["state linking", "open p1"]
    elif verb == "link-up":
        if node == "p1":
            out += ["close p2", "state closed", "deadline %d" % (t + FINISH_AFTER)]
        else:
            out += ["state up", "deadline %d" % (t + SEND_AFTER)]
    elif verb == "deadline":
        if node == "p1" and node not in FAILED:
            out += ["deadline never", "state done", "round 1", "finished"]
        elif node == "p1":
            out.append("deadline never")
        else:
            out += ["deadline never", "send p1 link Late 0 -", "state sent"]
    elif verb == "msg":
        FAILED.add(node)
        out.append("failed %s got %s on a link it had closed" % (node, w[5]))
    elif verb == "link-closed" and node == "p2":
        out += ["state done", "round 1", "finished"]


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line == "bye":
            return
        out = []
        handle(line.split(" "), out)
        out.append("quiet")
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
