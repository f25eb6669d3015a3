#!/usr/bin/env bash
# The soak (issue 17): a steady pipelined stream through `serve --state` and through `serve` in
# memory, then raw sightings through `serve` in memory, with short retention, printing the server's RSS and state-file size every million
# events (scripts/soak.py). Event times advance 0.5 s per event, so suppression intervals (1-24 h
# in the museum campaigns) and the response window (1 h here) expire as the run goes on; answers
# are kept 30 s of wall clock. Nothing is asserted: the figures are printed (README, docs/serve.md).
# Usage: scripts/soak.sh [EVENTS] [DEVICES] [RATE]   (default: 10000000 1000000 20000)
# BEACONRULES_BIN: a folder with release binaries already built (else they are built here).
# SOAK: which runs, of state, memory and sightings (default all three), e.g. SOAK="memory sightings".
# NICE: a niceness for the server and the client (e.g. -10 to keep builds beside from the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-10000000}
devices=${2:-1000000}
rate=${3:-20000}
if [ -z "${BEACONRULES_BIN:-}" ]; then
    nice swift build -c release --product beaconrules >/dev/null
    BEACONRULES_BIN=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

soak() {  # soak MODE [serve options...]
    local mode=$1
    shift
    nice -n "${NICE:-0}" "$BEACONRULES_BIN/beaconrules" serve --port 0 --campaigns Campaigns/museum \
        --answer-retention 30s --response-window 1h "$@" >"$work/out" 2>"$work/log" &
    server=$!
    for _ in $(seq 1 100); do grep -q '^listening on' "$work/out" && break; sleep 0.1; done
    local port
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    echo "== $mode: $events events over $devices devices at $rate events/s on 4 connections"
    nice -n "${NICE:-0}" python3 scripts/soak.py --port "$port" --pid "$server" ${state:+--state "$state"} ${client:-} \
        --events "$events" --devices "$devices" --rate "$rate" --report $((events / 10))
    kill -TERM "$server"
    wait "$server"
    server=
}

runs=${SOAK:-state memory sightings}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ " $runs " == *" state "* ]]; then state="$work/state.db" soak "serve --state" --state "$work/state.db"; fi
if [[ " $runs " == *" memory "* ]]; then state= soak "serve (in memory)"; fi
# Raw sightings: the presence layer's pairs (one per device and beacon) are forgotten once idle
# for the answer retention (SPEC section 5), so its memory levels off as devices keep coming.
if [[ " $runs " == *" sightings "* ]]; then state= client=--sightings soak "serve (in memory), sightings"; fi
