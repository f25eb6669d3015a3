#!/usr/bin/env bash
# Measures `beaconrules serve` over loopback (numbers are printed, nothing is asserted), in memory
# (the default) and with --state (SQLite WAL, synchronous=FULL, group commit): throughput with
# pipelining on 4 connections, then latency at fixed rates. Also prints what one synchronous 4 KiB
# write costs on the disk of the state file, the floor under any --state reply latency. The --state
# run is repeated with SQLite's checkpoints inside the commits (the hidden `serve` flag
# --checkpoints-in-commits), as they were before the checkpointer thread, and with the owner
# copying the WAL back between commits, no thread (--checkpoints-between-commits), to compare in
# one run; the in-memory run is repeated with the engine on a thread of its own (--engine-thread)
# instead of on one of the event loops.
# With BASELINE=DIR (a folder holding another build's beaconrules, e.g. main's), the in-memory
# and the --state runs are also made with that binary, each right after this one's, for a
# before/after in one run. STATE_ONLY=1 runs only the default --state run (and its baseline),
# for quicker iterations; the default runs everything. BASELINE_FIRST=1 runs the baseline's --state
# run before this build's (the other order, to tell the machine's drift from the builds').
# Bytes written are also read from the server's /proc/PID/io, before and after each phase:
# write_bytes (what reached the block layer: the WAL, the checkpoints' copies into the file) and
# wchar (every write(2)/pwrite(2), the replies on the sockets included), an event and a commit.
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
# The server's bytes written so far: write_bytes (to the block layer) and wchar (every write).
io() { awk '/^write_bytes:/ { w = $2 } /^wchar:/ { c = $2 } END { printf "%d %d", w, c }' "/proc/$server/io"; }
# Commits and bytes written to the WAL so far, from the metrics port.
wal() {
    curl -s "127.0.0.1:$metrics/metrics" |
        awk '/^beaconrules_commit_seconds_count/ { c = $2 } /^beaconrules_wal_bytes_total/ { b = $2 } END { printf "%d %d", c, b }'
}
# What a phase cost the server: CPU per event, and (with --state) commits and WAL bytes, and
# the bytes /proc/PID/io counted (an event, and a commit beside the WAL's).
cost() {  # cost EVENTS CPU_BEFORE WAL_BEFORE IO_BEFORE
    local used=$(( $(cpu) - $2 ))
    read -r commits bytes <<<"$(wal)"
    read -r commits0 bytes0 <<<"$3"
    read -r disk chars <<<"$(io)"
    read -r disk0 chars0 <<<"$4"
    awk -v e="$1" -v ms="$used" -v c="$((commits - commits0))" -v b="$((bytes - bytes0))" \
        -v d="$((disk - disk0))" -v w="$((chars - chars0))" 'BEGIN {
        printf "server CPU %d ms (%.1f us an event)", ms, ms * 1000 / e
        if (b > 0) printf "; %d commits, WAL %.0f bytes an event, %.0f bytes a commit", c, b / e, b / c
        printf "\n  /proc io: write_bytes %.0f an event", d / e
        if (c > 0) printf ", %.0f a commit", d / c
        printf "; wchar %.0f an event", w / e
        if (c > 0) printf ", %.0f a commit", w / c
        printf "\n" }'
}

run() {  # run MODE [serve options...]
    local mode=$1
    shift
    "${serve_bin:-$bin}/beaconrules" serve --port 0 --metrics-port 0 "$@" >"$work/out" 2>"$work/log" &
    server=$!
    for _ in $(seq 1 100); do grep -q '^listening on' "$work/out" && grep -q '^metrics on' "$work/out" && break; sleep 0.1; done
    local port before written
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    metrics=$(sed -n 's/^metrics on .*:\([0-9]*\)$/\1/p' "$work/out")
    before=$(cpu) written=$(wal) disk=$(io)
    echo "== $mode: throughput, 4 connections, $events events each, pipelined"
    "$bin/beaconrules-load" --port "$port" --connections 4 --events "$events"
    cost $((events * 4)) "$before" "$written" "$disk"
    for rate in $rates; do
        before=$(cpu) written=$(wal) disk=$(io)
        echo "== $mode: latency, 4 connections, $rate events/s in total for 5 s"
        "$bin/beaconrules-load" --port "$port" --connections 4 --events $((rate * 5 / 4)) --rate "$rate"
        cost $((rate * 5 / 4 * 4)) "$before" "$written" "$disk"
    done
    kill -TERM "$server"
    wait "$server"
    server=
}

if [ -z "${STATE_ONLY:-}" ]; then
    run "in memory"
    if [ -n "${BASELINE:-}" ]; then
        serve_bin=$BASELINE run "in memory, baseline $BASELINE"
        serve_bin=
    fi
    # The engine on a thread of its own instead of on one of the event loops (the hidden flag).
    run "in memory, engine thread" --engine-thread
fi
this_state() {
    rm -f "$work"/state.db*
    run "--state" --state "$work/state.db"
    echo "== state file: $(du -h "$work/state.db" | cut -f1)"
}
baseline_state() {
    rm -f "$work"/state.db*
    serve_bin=$BASELINE run "--state, baseline $BASELINE" --state "$work/state.db"
    echo "== state file: $(du -h "$work/state.db" | cut -f1)"
    serve_bin=
}
if [ -n "${BASELINE:-}" ] && [ -n "${BASELINE_FIRST:-}" ]; then
    baseline_state
    this_state
else
    this_state
    [ -n "${BASELINE:-}" ] && baseline_state
fi
[ -n "${STATE_ONLY:-}" ] && exit 0
# The same with SQLite's checkpoints inside the commits, as before the checkpointer thread.
rm -f "$work"/state.db*
run "--state, checkpoints inside commits" --state "$work/state.db" --checkpoints-in-commits
# And with no checkpointer thread: the owner copies the WAL back between two commits.
rm -f "$work"/state.db*
run "--state, checkpoints between commits" --state "$work/state.db" --checkpoints-between-commits
