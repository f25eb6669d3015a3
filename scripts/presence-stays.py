#!/usr/bin/env python3
"""Stays per (scanner, beacon) of every recorded run in Tests/Fixtures/starksm64, as the table
"Measured on the recorded scans" of docs/presence.md gives them.

For each run and each presence configuration it replays the run with the campaigns of
Tests/Fixtures/presence/starksm64-campaigns.json and counts the enters of `room-presence` (the
silent log) per (scanner, beacon): enters / pairs with a stay / most stays of one pair, and the
lines rejected. Run from the repository root after a build; BEACONRULES names the binary
(default: .build/release/beaconrules, else .build/debug/beaconrules).

    scripts/presence-stays.py [EXTRA OPTIONS FOR EVERY REPLAY ...]
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

RUNS = [
    "FourScannersBeacon5Run1-2015-03-13", "FourScannersBeacon5Run2-2015-03-13", "TwoScannersRun-2015-03-03",
    "FourScannersRun1-2015-03-13", "FourScannersRun2-2015-03-07", "FourScannersRun1-2015-03-10",
    "SixScannersRun-2015-03-31", "SevenScannersRun-2015-05-11",
]


def binary():
    if "BEACONRULES" in os.environ:
        return os.environ["BEACONRULES"]
    for build in ("release", "debug"):
        path = ".build/%s/beaconrules" % build
        if os.path.exists(path):
            return path
    sys.exit("no beaconrules built: run swift build first, or set BEACONRULES")


def stays(run, options):
    """(enters, pairs with a stay, most stays of one pair, rejected lines) of one replay."""
    result = subprocess.run(
        [binary(), "replay", "--input-format", "starksm64", "Tests/Fixtures/starksm64/%s.json.gz" % run,
         "--campaigns", "Tests/Fixtures/presence/starksm64-campaigns.json"] + options,
        capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit("%s: exit %d: %s" % (run, result.returncode, result.stderr))
    per_pair = collections.Counter()
    for line in result.stdout.splitlines():
        record = json.loads(line)
        if record.get("campaign") == "room-presence" and record.get("trigger") == "enter":
            per_pair[(record["device"], record["beacon"])] += 1
    rejected = sum(1 for line in result.stderr.splitlines() if '"kind":"error"' in line)
    return sum(per_pair.values()), len(per_pair), max(per_pair.values(), default=0), rejected


def main():
    extra = sys.argv[1:]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as gates:
        gates.write('{"exclusiveZones": "beacon", "enterRSSI": -85, "exitRSSI": -92}')
    configurations = [
        ("per pair", ["--exclusive-zones", "off"]),
        ("exclusive, -85/-92", ["--presence-settings", gates.name]),
        ("defaults", []),
    ]
    print("| file | " + " | ".join(name for name, _ in configurations) + " | rejected |")
    print("| --- | " + " | ".join("---:" for _ in configurations) + " | ---: |")
    try:
        for run in RUNS:
            cells, rejected = [], 0
            for _, options in configurations:
                enters, pairs, most, rejected = stays(run, options + extra)
                cells.append("%s / %s / %s" % (format(enters, ","), pairs, most))
            print("| %s | %s | %d |" % (run, " | ".join(cells), rejected), flush=True)
    finally:
        os.unlink(gates.name)


if __name__ == "__main__":
    main()
