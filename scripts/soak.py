#!/usr/bin/env python3
"""Soak client for `beaconrules serve`: a steady pipelined stream of museum events over many
devices, with event times spread so that suppression intervals and the response window expire,
printing the server's RSS and state-file size every REPORT events. Prints numbers; the caller
(scripts/soak.sh, or a reader) judges whether they level off.

Each line's round trip (from the moment its bytes go to the socket to the moment its reply is
read; replies come in the order of the lines, so the n-th newline answers the n-th line) is
timed, and every REPORT events (a phase) it prints p50, p99, p99.9 and max of the phase, the lines
rejected in it and the first rejection's message (so a reader sees why lines were refused). The
percentiles come from a histogram of 64 bins per doubling (within 1.1%); the max is exact. A
client that falls behind its schedule shows in `behind_s`: how far behind the rate the sends were
at worst in the phase (the schedule moves on after a second, so a stall never turns into a burst),
and `load1` the machine's load average at the end of the phase (the server shares the machine
with this client and whatever else runs: latencies mean little beside a high load).

With --sightings the stream is raw sightings (SPEC section 7) instead: each device heard five
times in a row at one beacon (a stay), then not again until every other device has been, so the
presence layer sees as many (device, beacon) pairs as the run has devices.

The client is kept cheap so that it holds 20,000 lines/s on a busy 2-core machine: each line is a
pre-split template with only its numbers formatted in, a connection's lines go out in one `send`
per loop, and the garbage collector is off (nothing here makes cycles), so that the client itself
does not pause.

Usage: soak.py --port P --pid PID [--state FILE] [--events N] [--devices N] [--rate R] [--sightings]
"""
import argparse, collections, gc, math, os, selectors, socket, sys, time

BEACONS = ["b9407f30f5f8466eaff925556b57fe6d001000000%d" % i for i in range(1, 5)]
LOCALES = ["de-DE", "en", "fr-FR", "pt-BR"]
REJECTED = b'{"ok":false'


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def load1():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def file_mib(path):
    try:
        return os.path.getsize(path) / 2**20
    except (OSError, TypeError):
        return None


def events_maker(run, devices, t0, step_ms):
    # Devices visited in a scattered order; each gets an enter, then an exit or another enter.
    enter = [('{"id":"%s-%%d","device":"dev-%%d","type":"enter","beacon":"%s","time":%%d,"locale":"%%s"}\n' % (run, b)) for b in BEACONS]
    exit_ = [('{"id":"%s-%%d","device":"dev-%%d","type":"exit","beacon":"%s","time":%%d,"locale":"%%s"}\n' % (run, b)) for b in BEACONS]

    def make(first, count):
        out = []
        for n in range(first, first + count):
            device = (n * 7919) % devices
            template = (exit_ if n % 3 == 0 else enter)[(n // 7) % 4]
            out.append(template % (n, device, t0 + n * step_ms, LOCALES[device % 4]))
        return "".join(out).encode()
    return make


def sightings_maker(run, devices):
    # Five readings in a row per device and beacon, the devices in a scattered order. A server's
    # clock refuses sightings older than its lateness, so each is stamped with the wall clock as
    # it is made (the lines of one call share the time: they are made and sent together).
    templates = [('{"id":"%s-%%d","type":"sighting","device":"dev-%%d","beacon":"%s","rssi":-60,"time":%%d,"locale":"%%s"}\n' % (run, b)) for b in BEACONS]

    def make(first, count):
        now = int(time.time() * 1000)
        out = []
        for n in range(first, first + count):
            visit = n // 5
            device = (visit * 7919) % devices
            out.append(templates[visit % 4] % (n, device, now, LOCALES[device % 4]))
        return "".join(out).encode()
    return make


class Phase:
    """Round trips of one report interval: a histogram of 64 bins per doubling of microseconds."""
    BINS_PER_DOUBLING = 64

    def __init__(self):
        self.bins = collections.Counter()
        self.count = 0
        self.max = 0.0
        self.rejected = 0
        self.first_rejection = None
        self.behind = 0.0

    def add(self, seconds, n):
        us = seconds * 1e6
        if us > self.max:
            self.max = us
        self.bins[int(math.log2(us + 1) * self.BINS_PER_DOUBLING)] += n
        self.count += n

    def percentile(self, p):
        """The upper edge of the bin holding the p-th fraction of the phase's lines, in ms."""
        if self.count == 0:
            return float("nan")
        rank = max(1, math.ceil(self.count * p))
        seen = 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            if seen >= rank:
                return min(2 ** ((b + 1) / self.BINS_PER_DOUBLING) - 1, self.max) / 1000
        return self.max / 1000


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--host", default="127.0.0.1")
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--pid", type=int, required=True, help="the server's process id (for its RSS)")
    a.add_argument("--state", help="the server's state file (for its size)")
    a.add_argument("--events", type=int, default=10_000_000)
    a.add_argument("--devices", type=int, default=1_000_000)
    a.add_argument("--connections", type=int, default=4)
    a.add_argument("--rate", type=float, default=20_000, help="events/s in total")
    a.add_argument("--report", type=int, default=1_000_000, help="print every this many events (a phase)")
    a.add_argument("--step-ms", type=int, default=500, help="event time between events")
    a.add_argument("--window", type=int, default=2_000, help="lines in flight per connection")
    a.add_argument("--sightings", action="store_true", help="raw sightings instead of enter/exit events")
    o = a.parse_args()
    gc.disable()

    run = "soak%x" % int(time.time() * 1000)
    t0 = 1_780_000_000_000
    make = sightings_maker(run, o.devices) if o.sightings else events_maker(run, o.devices, t0, o.step_ms)
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(o.connections):
        s = socket.create_connection((o.host, o.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        # sent: (lines, when) per send of this connection, oldest first; replies pop from its front.
        c = {"sock": s, "out": b"", "inflight": 0, "sent": collections.deque(), "tail": b"", "grab": None}
        conns.append(c)
        sel.register(s, selectors.EVENT_READ, c)
    sent = answered = rejected = 0
    start = began = time.monotonic()
    next_report = o.report
    phase = Phase()
    phase_from, phase_at = 0, began
    print("events  seconds  rate/s  rss_MiB  state_MiB  wal_MiB  rejected  phase_rate/s  phase_rejected  p50_ms  p99_ms  p99.9_ms  max_ms  behind_s  load1  first_rejection",
          flush=True)
    while answered < o.events:
        now = time.monotonic()
        # A steady rate: when the server (or this client) fell more than a second behind, the
        # schedule moves on instead of sending the backlog in a burst.
        behind = (now - start) - sent / o.rate
        if behind > phase.behind:
            phase.behind = behind
        if behind > 1:
            start = now - sent / o.rate
        due = min(o.events, int((now - start) * o.rate) + 1)
        # What the rate allows, spread over the connections within each one's window.
        if sent < due:
            for k, c in enumerate(conns):
                share = (due - sent + len(conns) - 1 - k) // (len(conns) - k)
                room = min(o.window - c["inflight"], share, due - sent)
                if room <= 0:
                    continue
                c["out"] += make(sent, room)
                c["inflight"] += room
                c["sent"].append([room, None])
                sent += room
        for c in conns:
            if c["out"]:
                try:
                    n = c["sock"].send(c["out"])
                except BlockingIOError:
                    n = 0
                if n:
                    c["out"] = c["out"][n:]
                    stamp = time.monotonic()
                    # Lines queued by this call are timed from their first byte sent.
                    for item in reversed(c["sent"]):
                        if item[1] is not None:
                            break
                        item[1] = stamp
        for key, _ in sel.select(timeout=0.002):
            c = key.data
            try:
                data = c["sock"].recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                sys.exit("the server closed the connection after %d answers" % answered)
            got = time.monotonic()
            lines = data.count(b"\n")
            joined = c["tail"] + data
            refused = joined.count(REJECTED)
            phase.rejected += refused
            # The phase's first rejection, read to the end of its line (which may come in later reads).
            if c["grab"] is not None:
                c["grab"] += data[:2000]
            elif refused and phase.first_rejection is None:
                c["grab"] = joined[joined.find(REJECTED):][:2000]
            if c["grab"] is not None and (b"\n" in c["grab"] or len(c["grab"]) >= 2000):
                if phase.first_rejection is None:
                    phase.first_rejection = c["grab"].split(b"\n", 1)[0].decode(errors="replace")
                c["grab"] = None
            c["tail"] = data[-(len(REJECTED) - 1):]
            c["inflight"] -= lines
            answered += lines
            queue = c["sent"]
            while lines:
                item = queue[0]
                taken = min(item[0], lines)
                phase.add(got - (item[1] if item[1] is not None else got), taken)
                lines -= taken
                item[0] -= taken
                if item[0] == 0:
                    queue.popleft()
        if answered >= next_report or answered >= o.events:
            rejected += phase.rejected
            at = time.monotonic()
            elapsed = at - began
            state, wal = file_mib(o.state), file_mib(o.state and o.state + "-wal")
            print("%d  %.0f  %.0f  %.0f  %s  %s  %d  %.0f  %d  %.2f  %.2f  %.2f  %.2f  %.2f  %s  %s" % (
                answered, elapsed, answered / elapsed, rss_mib(o.pid),
                "%.0f" % state if state is not None else "-", "%.0f" % wal if wal is not None else "-", rejected,
                (answered - phase_from) / max(at - phase_at, 1e-9), phase.rejected,
                phase.percentile(0.50), phase.percentile(0.99), phase.percentile(0.999), phase.max / 1000, phase.behind,
                load1(), phase.first_rejection or "-"), flush=True)
            phase = Phase()
            phase_from, phase_at = answered, at
            for c in conns:
                c["grab"] = None
            next_report += o.report
    for c in conns:
        c["sock"].close()


if __name__ == "__main__":
    main()
