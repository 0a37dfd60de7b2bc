#!/usr/bin/python3
"""tests/tb-attack.py — a hostile client of the testbed's sockets, for
tests/testbed.sh (loopback only, every wait bounded).

  tb-attack.py hello PORT ID TO [SECRET_FILE]  HELLO(ID) to the listener of id
      TO: with the HMAC of SECRET_FILE's secret, else a made-up one; a
      listener that sends no CHALLENGE gets the 4-byte HELLO of old.  Then
      waits up to 5 s and prints "closed" if the listener closed the stream,
      "open" if not (and then holds it open 15 s more, as an impostor would).
  tb-attack.py idle PORT        connects, sends nothing; prints the seconds
      until the listener closes the stream ("open" after 20 s).
  tb-attack.py many PORT N      holds N connections; prints how many the
      listener closed within 2 s.
  tb-attack.py oversize PORT MB  two streams announce a 1 GiB frame and send
      up to MB MiB of it each; prints the MiB the listener took, then holds
      the streams open for 3 s (the listener's memory is measured then).
  tb-attack.py flood PORT N     N streams of 64 bytes of garbage each.
  tb-attack.py bigframe PORT ID TO SECRET_FILE MB  HELLO(ID) with the
      secret, then a MSG frame that announces 1 GiB and up to MB MiB of it;
      prints the MiB the listener took and "closed" or "open" (2 s later).
  tb-attack.py hold PORT RATE SECONDS SRC  opens RATE streams a second from
      the loopback address SRC for SECONDS, says nothing on them and holds
      the last 1000 open; prints how many it opened.
  tb-attack.py relay PORT TO DELAY_MS SECONDS  listens on 127.0.0.1:PORT and
      relays each stream to 127.0.0.1:TO (from 127.0.0.1), every byte
      DELAY_MS late each way: a round trip of 2 DELAY_MS on loopback; stops
      after SECONDS.
"""
import asyncio
import collections
import hashlib
import hmac
import select
import socket
import struct
import sys
import time

LABEL = b"dlsim testbed HELLO v1\0"   # testbed/testbed-frame.c's hello_label, with its NUL


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s


def read_challenge(s, wait):
    """The listener's CHALLENGE nonce, or None if none came within wait s."""
    s.settimeout(wait)
    buf = b""
    try:
        while len(buf) < 4 + 33:
            b = s.recv(4 + 33 - len(buf))
            if not b:
                return None
            buf += b
    except (socket.timeout, OSError):
        return None
    if buf[:5] != struct.pack(">IB", 33, 3):
        return None
    return buf[5:]


def closed_within(s, wait):
    """True if the other end closed (EOF or reset) within wait seconds."""
    end = time.monotonic() + wait
    s.setblocking(False)
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
        if r:
            try:
                if not s.recv(65536):
                    return True
            except BlockingIOError:
                continue
            except OSError:
                return True
    return False


def hello(port, ident, to, secret_file=None):
    s = connect(port)
    nonce = read_challenge(s, 1.0)
    if nonce is None:
        s.sendall(struct.pack(">IBI", 5, 2, ident))   # the HELLO of old: an id, no proof
    else:
        if secret_file:
            key = open(secret_file, "rb").read().rstrip(b"\r\n")
            mac = hmac.new(key, LABEL + nonce + struct.pack(">II", ident, to), hashlib.sha256).digest()
        else:
            mac = bytes(32)
        s.sendall(struct.pack(">IBI", 37, 2, ident) + mac)
    if closed_within(s, 5):
        print("closed")
    else:
        print("open", flush=True)
        time.sleep(15)


def idle(port):
    s = connect(port)
    t0 = time.monotonic()
    if closed_within(s, 20):
        print("%.1f" % (time.monotonic() - t0))
    else:
        print("open")


def many(port, n):
    socks = []
    for _ in range(n):
        socks.append(connect(port))
        time.sleep(0.01)
    end = time.monotonic() + 2
    closed = set()
    while time.monotonic() < end and len(closed) < n:
        for i, s in enumerate(socks):
            if i not in closed and closed_within(s, 0.01):
                closed.add(i)
    print(len(closed))


def oversize(port, mib):
    took = 0
    socks = []
    for _ in range(2):
        s = connect(port)
        read_challenge(s, 1.0)
        chunk = bytes(1 << 20)
        try:
            s.sendall(struct.pack(">IB", 1 << 30, 1))
            for _ in range(mib):
                s.sendall(chunk)
                took += 1
        except OSError:
            pass
        socks.append(s)
    print(took, flush=True)
    time.sleep(3)


def flood(port, n):
    for _ in range(n):
        try:
            s = connect(port)
            s.sendall(b"\xff" * 64)
            s.close()
        except OSError:
            pass
    print(n)


def bigframe(port, ident, to, secret_file, mib):
    s = connect(port)
    nonce = read_challenge(s, 1.0) or bytes(32)
    key = open(secret_file, "rb").read().rstrip(b"\r\n")
    mac = hmac.new(key, LABEL + nonce + struct.pack(">II", ident, to), hashlib.sha256).digest()
    took = 0
    s.settimeout(2)
    try:
        s.sendall(struct.pack(">IBI", 37, 2, ident) + mac)
        s.sendall(struct.pack(">IB", 1 << 30, 1))
        chunk = bytes(1 << 20)
        for _ in range(mib):
            s.sendall(chunk)
            took += 1
    except OSError:
        pass
    print(took, "closed" if closed_within(s, 2) else "open")


def hold(port, rate, seconds, src):
    """Opens rate streams a second from src, never says HELLO; the listener
    closes what it will, the oldest beyond 1000 are closed here."""
    held = collections.deque()
    opened = 0
    t0 = time.monotonic()
    end = t0 + seconds
    while time.monotonic() < end:
        due = int((time.monotonic() - t0) * rate)
        while opened < due and time.monotonic() < end:
            try:
                s = socket.socket()
                s.settimeout(0.2)
                s.bind((src, 0))
                s.connect(("127.0.0.1", port))
                held.append(s)
                opened += 1
            except OSError:
                s.close()
                opened += 1
            while len(held) > 1000:
                held.popleft().close()
        time.sleep(0.002)
    print(opened, flush=True)


async def pipe(reader, writer, delay):
    """Copies reader to writer, each chunk delay seconds after it came."""
    q = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def send():
        while True:
            due, data = await q.get()
            if data is None:
                break
            await asyncio.sleep(max(0.0, due - loop.time()))
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.ensure_future(send())
    try:
        while True:
            data = await reader.read(65536)
            await q.put((loop.time() + delay, data or None))
            if not data:
                break
    except OSError:
        await q.put((loop.time(), None))
    try:
        await sender
    except OSError:
        pass


async def relay_main(port, to, delay, seconds):
    async def on_client(r1, w1):
        try:
            r2, w2 = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", to, local_addr=("127.0.0.1", 0)), 5)
        except (OSError, asyncio.TimeoutError):
            w1.close()
            return
        await asyncio.gather(pipe(r1, w2, delay), pipe(r2, w1, delay), return_exceptions=True)

    server = await asyncio.start_server(on_client, "127.0.0.1", port)
    async with server:
        await asyncio.sleep(seconds)


def relay(port, to, delay_ms, seconds):
    asyncio.run(relay_main(port, to, delay_ms / 1000.0, seconds))


def main(argv):
    cmd, port = argv[1], int(argv[2])
    if cmd == "hello":
        hello(port, int(argv[3]), int(argv[4]), argv[5] if len(argv) > 5 else None)
    elif cmd == "idle":
        idle(port)
    elif cmd == "many":
        many(port, int(argv[3]))
    elif cmd == "oversize":
        oversize(port, int(argv[3]))
    elif cmd == "flood":
        flood(port, int(argv[3]))
    elif cmd == "bigframe":
        bigframe(port, int(argv[3]), int(argv[4]), argv[5], int(argv[6]))
    elif cmd == "hold":
        hold(port, int(argv[3]), float(argv[4]), argv[5])
    elif cmd == "relay":
        relay(port, int(argv[3]), int(argv[4]), float(argv[5]))
    else:
        sys.exit("tb-attack.py: unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
