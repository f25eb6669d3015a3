#!/usr/bin/env bash
# Measures `beaconrules serve` over loopback (numbers are printed, nothing is asserted):
# throughput with pipelining on 4 connections, then latency at a moderate fixed rate.
# Usage: scripts/serve-benchmark.sh [EVENTS_PER_CONNECTION] [RATE]
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-50000}
rate=${2:-2000}
swift build -c release --product beaconrules >/dev/null
swift build -c release --product beaconrules-load >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/beaconrules" serve --port 0 --state "$work/state.db" >"$work/out" 2>"$work/log" &
server=$!
for _ in $(seq 1 100); do grep -q '^listening on' "$work/out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/out")
echo "== throughput: 4 connections, $events events each, pipelined, --state (WAL, synchronous=FULL)"
"$bin/beaconrules-load" --port "$port" --connections 4 --events "$events"
echo "== latency: 4 connections, $rate events/s in total"
"$bin/beaconrules-load" --port "$port" --connections 4 --events $((rate * 5 / 4)) --rate "$rate"
kill -TERM "$server"
wait "$server"
echo "== state file: $(du -h "$work/state.db" | cut -f1) for $((events * 4 + rate * 5)) events"
