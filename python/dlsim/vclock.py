"""dlsim.vclock - an asyncio event loop on dlsim's clock, for guests
(docs/python.md, "Writing a guest"; docs/guest.md, "Writing a guest").

A guest written for asyncio keeps its code: its coroutines, asyncio.sleep,
loop.call_later, futures and queues.  Only the loop changes: one
VirtualLoop per node, whose time() is the simulated time dlsim gave in its
last line, and which runs only the callbacks due by then.  For each line of
dlsim's for a node, the guest

    loop.advance(t)           # run what is due up to t (seconds), in time order
    loop.call_soon(...)       # hand the input to the node's code
    loop.advance(t)           # run it and what it makes ready at once
    loop.next_deadline()      # the node's `deadline` (None: never)

dlsim.guest.AsyncNode does exactly that around each handler.  So
asyncio.sleep(300) takes no wall time: it is a timer at now + 300, which
dlsim fires as the node's deadline.  Nothing reads the wall clock.

It drives the loop through BaseEventLoop._run_once, which CPython 3.11
(Debian 12's python3) has; with something ready or due, that step never
waits in select().  Standard library only.
"""
import asyncio
import asyncio.events


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self):
        super().__init__()
        self._now = 0.0

    def time(self):
        return self._now

    def _due(self, t):
        """the earliest live timer if it is due by t, else None"""
        live = [h.when() for h in self._scheduled if not h._cancelled]
        if not live or min(live) > t:
            return None
        return min(live)

    def advance(self, t):
        """Runs every callback due by t (seconds), in time order; time()
        is then t.  Callbacks made ready on the way run too."""
        asyncio.events._set_running_loop(self)
        try:
            while True:
                if self._ready:
                    self._run_once()
                    continue
                when = self._due(t)
                if when is None:
                    break
                self._now = max(self._now, when)
                self._run_once()
            self._now = max(self._now, t)
        finally:
            asyncio.events._set_running_loop(None)

    def next_deadline(self):
        """the earliest live timer (seconds), or None"""
        live = [h.when() for h in self._scheduled if not h._cancelled]
        return min(live) if live else None
