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
It is written on dlsim's guest SDK (python/dlsim/guest.py).
"""
import os
import sys

# the SDK: from the source tree (python/ beside guests/), else where
# make install put it (the system's Python path)
_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.isfile(os.path.join(_TREE, "dlsim", "guest.py")):
    sys.path.insert(0, _TREE)
from dlsim import guest  # noqa: E402

SEND_AFTER = 1_000_000      # ns after p2's link-up
FINISH_AFTER = 100_000_000  # ns after p1's close


class Coordinator(guest.Node):
    """does nothing"""


class Racer(guest.Node):
    def on_new(self):
        self.got = False

    def on_start(self):
        self.state("linking")
        if self.name == "p1":
            self.open_link("p2", initiator=True)
            self.connect("p2")
        else:
            self.open_link("p1")

    def on_link_up(self, peer):
        if self.name == "p1":
            self.close("p2")
            self.state("closed")
            self.set_timer(self.now + FINISH_AFTER)
        else:
            self.state("up")
            self.set_timer(self.now + SEND_AFTER)

    def on_timer(self):
        self.set_timer(None)
        if self.name == "p1" and not self.got:
            self.state("done")
            self.round_done(1)
            self.finished()
        elif self.name != "p1":
            self.send("p1", "Late")
            self.state("sent")

    def on_message(self, frm, via, type, data):
        self.got = True
        self.failed("%s got %s on a link it had closed" % (self.name, type))

    def on_link_closed(self, peer):
        if self.name == "p2":
            self.state("done")
            self.round_done(1)
            self.finished()


if __name__ == "__main__":
    guest.run(Coordinator, Racer)
