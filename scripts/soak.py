#!/usr/bin/env python3
"""Soak client for `beaconrules serve`: a steady pipelined stream of museum events over many
devices, with event times spread so that suppression intervals and the response window expire,
printing the server's RSS and state-file size every REPORT events. Prints numbers; the caller
(scripts/soak.sh, or a reader) judges whether they level off.

With --sightings the stream is raw sightings (SPEC section 7) instead: each device heard five
times in a row at one beacon (a stay), then not again until every other device has been, so the
presence layer sees as many (device, beacon) pairs as the run has devices.

Usage: soak.py --port P --pid PID [--state FILE] [--events N] [--devices N] [--rate R] [--sightings]
"""
import argparse, os, selectors, socket, sys, time

BEACONS = ["b9407f30f5f8466eaff925556b57fe6d001000000%d" % i for i in range(1, 5)]
LOCALES = ["de-DE", "en", "fr-FR", "pt-BR"]


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def file_mib(path):
    try:
        return os.path.getsize(path) / 2**20
    except (OSError, TypeError):
        return None


def line(run, n, devices, t0, step_ms):
    # Devices visited in a scattered order; each gets an enter, then an exit or another enter.
    device = (n * 7919) % devices
    kind = "exit" if n % 3 == 0 else "enter"
    return ('{"id":"%s-%d","device":"dev-%d","type":"%s","beacon":"%s","time":%d,"locale":"%s"}\n'
            % (run, n, device, kind, BEACONS[(n // 7) % 4], t0 + n * step_ms, LOCALES[device % 4])).encode()


def sighting(run, n, devices, t0, step_ms):
    # Five readings in a row per device and beacon, the devices in a scattered order. A server's
    # clock refuses sightings older than its lateness, so each is stamped with the wall clock as
    # it is made (t0 and step_ms are not used).
    visit = n // 5
    device = (visit * 7919) % devices
    return ('{"id":"%s-%d","type":"sighting","device":"dev-%d","beacon":"%s","rssi":-60,"time":%d,"locale":"%s"}\n'
            % (run, n, device, BEACONS[visit % 4], int(time.time() * 1000), LOCALES[device % 4])).encode()


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
    a.add_argument("--report", type=int, default=1_000_000, help="print every this many events")
    a.add_argument("--step-ms", type=int, default=500, help="event time between events")
    a.add_argument("--window", type=int, default=2_000, help="lines in flight per connection")
    a.add_argument("--sightings", action="store_true", help="raw sightings instead of enter/exit events")
    o = a.parse_args()
    make = sighting if o.sightings else line

    run = "soak%x" % int(time.time() * 1000)
    t0 = 1_780_000_000_000
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(o.connections):
        s = socket.create_connection((o.host, o.port))
        s.setblocking(False)
        c = {"sock": s, "out": b"", "inflight": 0, "answered": 0, "rejected": 0, "tail": b""}
        conns.append(c)
        sel.register(s, selectors.EVENT_READ, c)
    sent = answered = rejected = 0
    start = began = time.monotonic()
    next_report = o.report
    print("events  seconds  rate/s  rss_MiB  state_MiB  wal_MiB  rejected", flush=True)
    while answered < o.events:
        now = time.monotonic()
        # A steady rate: when the server (or this client) fell more than a second behind, the
        # schedule moves on instead of sending the backlog in a burst.
        if (now - start) * o.rate - sent > o.rate:
            start = now - sent / o.rate
        due = min(o.events, int((now - start) * o.rate) + 1)
        # Send what the rate allows, round-robin in chunks, within each connection's window.
        while sent < due:
            progressed = False
            for c in conns:
                if sent >= due:
                    break
                room = min(o.window - c["inflight"], due - sent, 200)
                if room <= 0:
                    continue
                c["out"] += b"".join(make(run, sent + k, o.devices, t0, o.step_ms) for k in range(room))
                c["inflight"] += room
                sent += room
                progressed = True
            if not progressed:
                break
        for c in conns:
            if c["out"]:
                try:
                    n = c["sock"].send(c["out"])
                    c["out"] = c["out"][n:]
                except BlockingIOError:
                    pass
        for key, _ in sel.select(timeout=0.005):
            c = key.data
            try:
                data = c["sock"].recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                sys.exit("the server closed the connection after %d answers" % answered)
            lines = data.count(b"\n")
            c["rejected"] += data.count(b'{"ok":false')
            c["inflight"] -= lines
            answered += lines
        if answered >= next_report or answered >= o.events:
            rejected = sum(c["rejected"] for c in conns)
            elapsed = time.monotonic() - began
            state, wal = file_mib(o.state), file_mib(o.state and o.state + "-wal")
            print("%d  %.0f  %.0f  %.0f  %s  %s  %d" % (answered, elapsed, answered / elapsed, rss_mib(o.pid),
                  "%.0f" % state if state is not None else "-", "%.0f" % wal if wal is not None else "-", rejected), flush=True)
            next_report += o.report
    for c in conns:
        c["sock"].close()


if __name__ == "__main__":
    main()
