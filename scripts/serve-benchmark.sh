#!/usr/bin/env bash
# Measures `beaconrules serve` over loopback (numbers are printed, nothing is asserted), in memory
# (the default) and with --state (SQLite WAL, synchronous=FULL, group commit): throughput with
# pipelining on 4 connections, then latency at fixed rates. Also prints what one synchronous 4 KiB
# write costs on the disk of the state file, the floor under any --state reply latency. The --state
# run is repeated with SQLite's checkpoints inside the commits (BEACONRULES_CHECKPOINT_IN_COMMITS),
# as they were before the checkpointer thread, to compare in one run.
# Usage: scripts/serve-benchmark.sh [EVENTS_PER_CONNECTION] [RATE...]   (default: 50000 2000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-50000}
shift || true
rates=${*:-2000 20000}
swift build -c release --product beaconrules >/dev/null
swift build -c release --product beaconrules-load >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

echo "== fsync: 1,000 synchronous 4 KiB writes (dd oflag=dsync) in $work"
dd if=/dev/zero of="$work/fsync" bs=4k count=1000 oflag=dsync 2>&1 | tail -1 |
    awk '{ for (i = 1; i <= NF; i++) if ($i == "s,") printf "%.3f ms per synchronous write\n", $(i-1) }'
rm -f "$work/fsync"

# The server's CPU time (user + system) so far, in ms.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) * 1000 / hz }' "/proc/$server/stat"; }

run() {  # run MODE [serve options...]
    local mode=$1
    shift
    env ${checkpoint_env:-} "$bin/beaconrules" serve --port 0 "$@" >"$work/out" 2>"$work/log" &
    server=$!
    for _ in $(seq 1 100); do grep -q '^listening on' "$work/out" && break; sleep 0.1; done
    local port
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    local before
    before=$(cpu)
    echo "== $mode: throughput, 4 connections, $events events each, pipelined"
    "$bin/beaconrules-load" --port "$port" --connections 4 --events "$events"
    echo "server CPU $(( $(cpu) - before )) ms"
    for rate in $rates; do
        before=$(cpu)
        echo "== $mode: latency, 4 connections, $rate events/s in total for 5 s"
        "$bin/beaconrules-load" --port "$port" --connections 4 --events $((rate * 5 / 4)) --rate "$rate"
        echo "server CPU $(( $(cpu) - before )) ms"
    done
    kill -TERM "$server"
    wait "$server"
    server=
}

run "in memory"
run "--state" --state "$work/state.db"
echo "== state file: $(du -h "$work/state.db" | cut -f1)"
# The same with SQLite's checkpoints inside the commits, as before the checkpointer thread.
rm -f "$work"/state.db*
checkpoint_env=BEACONRULES_CHECKPOINT_IN_COMMITS=1 run "--state, checkpoints inside commits" --state "$work/state.db"
