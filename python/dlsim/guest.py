"""dlsim.guest: a guest's side of the line protocol (docs/guest.md), so
that a protocol is a class with handlers and effects, on dlsim's clock.

A protocol subclasses Node (once for the coordinator, once for a peer,
or one class for both) and implements the handlers it needs:

    on_new()                        the node is made (self.kind, self.seed)
    on_start()                      a peer's stream to the coordinator is open
    on_message(frm, via, type, data)  via: "stream" or "link"
    on_timer()                      the deadline set_timer asked for
    on_training_done()              the training train() started is done
    on_link_up(peer), on_link_failed(peer), on_link_closed(peer)
    on_stream_closed(other)         a peer: other is "S"
    on_leave()                      the user closes the client
    on_free()                       the run is over for this node

and calls the effects, each one action line:

    send(to, type, data="-", size=0, via=None)   via: stream to or from S, else link
    open_link(peer, initiator=False), connect(peer), close(peer), disconnect()
    train(round), set_timer(at_ns) / set_timer(None)
    state(name), round_done(n, k=None), list_round(n, k), finished(), failed(text)
    note(text), observe(name, value, round=None), report_model(values)
    the facts: start_round(n, k), retry(n=None), excluded(peer=None), synced(peer),
    served(peer, stale=False), reset(), foreign(peer, n)

AsyncNode is a Node whose code may be asyncio's, on dlsim's clock (its own
dlsim.vclock.VirtualLoop, self.loop; self.spawn(coroutine)).

self.now is the simulated time in ns of the line being handled;
self.rng a random.Random seeded from the node's own seed;
self.guest.rounds, .min_participants and .seed are hello's values.
dlsim.guest.run(Coordinator, Peer) reads stdin and answers on stdout.
It needs only the standard library (no pandas).
"""
import random
import sys

COORDINATOR = "S"


class Node:
    """One node of a run: the coordinator S or a peer."""

    def __init__(self, guest, name, kind, seed):
        self.guest, self.name, self.kind, self.seed = guest, name, kind, seed
        self.rng = random.Random(seed)
        self.now = 0

    # -- effects: each one action line for this node
    def _act(self, *words):
        self.guest.out.append(" ".join(str(w) for w in words))

    def send(self, to, type, data="-", size=0, via=None):
        if via is None:
            via = "stream" if COORDINATOR in (to, self.name) else "link"
        self._act("send", to, via, type, size, data)

    def open_link(self, peer, initiator=False):
        self._act("open", peer, "initiator") if initiator else self._act("open", peer)

    def connect(self, peer):
        self._act("connect", peer)

    def close(self, peer):
        self._act("close", peer)

    def disconnect(self):
        self._act("disconnect")

    def train(self, round):
        self._act("train", round)

    def set_timer(self, at_ns):
        """the node's one deadline, in simulated ns (None: never)"""
        self._act("deadline", "never" if at_ns is None else int(at_ns))

    def state(self, name):
        self._act("state", name)

    def round_done(self, n, k=None):
        self._act("round", n) if k is None else self._act("round", n, k)

    def list_round(self, n, k):
        self._act("list", n, k)

    def finished(self):
        self._act("finished")

    def failed(self, text):
        self._act("failed", text)

    def note(self, text):
        self._act("note", text)

    def observe(self, name, value, round=None):
        if round is None:
            self._act("metric", name, int(value))
        else:
            self._act("metric", name, int(value), round)

    # the facts dlsim counts for its own machines (docs/guest.md, "Facts")
    def start_round(self, n, k):
        """the coordinator: round n's exchange starts with k peers"""
        self._act("start", n, k)

    def retry(self, n=None):
        """the coordinator: its connection barrier timed out; n, its retry
        counter after this timeout's increment (from 1), if it keeps one"""
        self._act("retry") if n is None else self._act("retry", int(n))

    def excluded(self, peer=None):
        """the coordinator excluded peer; a peer (no argument): it was"""
        self._act("excluded", peer) if peer else self._act("excluded")

    def synced(self, peer):
        """a peer took its model from peer"""
        self._act("synced", peer)

    def served(self, peer, stale=False):
        """a peer sent its model to peer, a late joiner; stale: the
        previous round's model (docs/guest.md, `served PEER [stale]`)"""
        self._act("served", peer, "stale") if stale else self._act("served", peer)

    def reset(self):
        """the coordinator: its session reset"""
        self._act("reset")

    def foreign(self, peer, n):
        """a peer aggregated peer's contribution of round n into another"""
        self._act("foreign", peer, n)

    def report_model(self, values):
        if isinstance(values, (int, float)):
            values = [values]
        self._act("model", ",".join(repr(float(v)) if not isinstance(v, str) else v for v in values))

    # -- handlers: override those the protocol needs
    def on_new(self):
        pass

    def on_start(self):
        pass

    def on_message(self, frm, via, type, data):
        pass

    def on_timer(self):
        pass

    def on_training_done(self):
        pass

    def on_link_up(self, peer):
        pass

    def on_link_failed(self, peer):
        pass

    def on_link_closed(self, peer):
        pass

    def on_stream_closed(self, other):
        pass

    def on_leave(self):
        pass

    def on_free(self):
        pass


NS = 1_000_000_000


class AsyncNode(Node):
    """A node whose code may be asyncio's, on dlsim's clock: self.loop is
    its own dlsim.vclock.VirtualLoop.  Around each of the node's lines the
    SDK runs the loop up to the line's time, before and after the handler,
    and says the loop's next timer as the node's deadline when it changed
    (so asyncio.sleep(300) is a deadline 300 s on).  self.spawn(coro)
    starts a coroutine; a handler hands input to it with
    self.loop.call_soon (a queue's put_nowait, a future's set_result).
    The node's deadline is the loop's: do not call set_timer."""

    def __init__(self, guest, name, kind, seed):
        super().__init__(guest, name, kind, seed)
        from .vclock import VirtualLoop
        self.loop = VirtualLoop()
        self._said = ("nothing",)

    def spawn(self, coro):
        """runs coro as a task of the node's loop, from now on"""
        self.loop.call_soon(lambda: self.loop.create_task(coro))

    def _around(self, t_ns, handler):
        t = t_ns / NS
        self.loop.advance(t)
        handler()
        self.loop.advance(t)
        d = self.loop.next_deadline()
        said = None if d is None else round(d * NS)
        if self._said != ("said", said):
            self.set_timer(said)
            self._said = ("said", said)


class Guest:
    """The loop: one line of dlsim's, the node's handler, its actions and
    `quiet`.  before_line(n, line) and after_line(n) may be overridden
    (a test guest's faults)."""

    VERSION = "1"

    def __init__(self, coordinator, peer=None):
        self.classes = {"coordinator": coordinator, "peer": peer or coordinator}
        self.nodes = {}
        self.out = []
        self.seed = self.rounds = self.min_participants = None
        self.lines = 0

    def make(self, name, kind, seed):
        return self.classes[kind](self, name, kind, seed)

    def handle(self, line):
        w = line.split(" ")
        verb = w[0]
        if verb == "hello":
            if w[1] != self.VERSION:
                sys.exit("dlsim.guest: line protocol version %s, this guest knows %s" % (w[1], self.VERSION))
            self.seed, self.rounds, self.min_participants = int(w[2]), int(w[3]), int(w[4])
            return
        if verb == "new":
            node = self.nodes[w[1]] = self.make(w[1], w[2], int(w[3]))
            node.on_new()
            return
        if verb == "free":
            node = self.nodes.pop(w[1], None)
            if node:
                node.on_free()
            return
        node = self.nodes[w[1]]
        node.now = int(w[2])
        if isinstance(node, AsyncNode):
            node._around(node.now, lambda: self._dispatch(node, verb, w[3:]))
        else:
            self._dispatch(node, verb, w[3:])

    @staticmethod
    def _dispatch(node, verb, a):
        if verb == "msg":
            node.on_message(a[0], a[1], a[2], a[3])
        elif verb == "start":
            node.on_start()
        elif verb == "deadline":
            node.on_timer()
        elif verb == "trained":
            node.on_training_done()
        elif verb == "link-up":
            node.on_link_up(a[0])
        elif verb == "link-failed":
            node.on_link_failed(a[0])
        elif verb == "link-closed":
            node.on_link_closed(a[0])
        elif verb == "stream-closed":
            node.on_stream_closed(a[0])
        elif verb == "leave":
            node.on_leave()

    def before_line(self, n, line):
        pass

    def after_line(self, n):
        pass

    def run(self, stdin=None, stdout=None):
        stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
        for line in stdin:
            self.lines += 1
            line = line.rstrip("\n")
            self.before_line(self.lines, line)
            if line == "bye":
                return
            self.out = []
            self.handle(line)
            self.after_line(self.lines)
            self.out.append("quiet")
            stdout.write("\n".join(self.out) + "\n")
            stdout.flush()


def run(coordinator, peer=None, stdin=None, stdout=None):
    """Serves a run: coordinator and peer are Node classes (one class for
    both if peer is None)."""
    Guest(coordinator, peer).run(stdin, stdout)
