#!/usr/bin/env bash
# Measures `beaconrules serve` on PostgreSQL against SQLite, and two instances on one database
# against one (numbers are printed, nothing is asserted): pipelined throughput on 4 connections
# per instance, then latency (p50/p99) at 2,000 and 20,000 events/s. A private PostgreSQL cluster
# is started in a temporary folder (fsync on, as the postgres user when run as root) on this
# machine, and stopped at the end.
# Usage: scripts/serve-postgres-benchmark.sh [EVENTS_PER_CONNECTION] [RATE...]   (default: 20000 2000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-20000}
shift || true
rates=${*:-2000 20000}
swift build -c release --product beaconrules >/dev/null
swift build -c release --product beaconrules-load >/dev/null
bin=$(swift build -c release --show-bin-path)
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
chmod 777 "$work"
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    "${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U beacon -A trust --no-sync -E UTF8 --locale C >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
    -o "-p $port -k $work -c listen_addresses=127.0.0.1" start >/dev/null
database() {  # a new empty database; prints its URL
    local name="bench_${RANDOM}_$$"
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -qc "CREATE DATABASE $name"
    echo "postgres://beacon@127.0.0.1:$port/$name"
}

# CPU time (user + system, ms) of the serve instances, and of every PostgreSQL process.
cpu_of() { for pid in "$@"; do awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null; done |
    awk -v hz="$(getconf CLK_TCK)" '{ t += $1 } END { printf "%d", t * 1000 / hz }'; }
serve_cpu() { cpu_of "${servers[@]}"; }
pg_cpu() {  # live backends come and go: the postmaster's children's CPU counts once they exit
    local pm
    pm=$(head -1 "$work/pg/postmaster.pid")
    { cpu_of $(pgrep -P "$pm"); awk '{ print $16 + $17 }' "/proc/$pm/stat" |
        awk -v hz="$(getconf CLK_TCK)" '{ printf " %d", $1 * 1000 / hz }'; } | awk '{ printf "%d", $1 + $2 }'
}

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

start() {  # start NAME [serve options...]: starts an instance, sets $listening to its port
    local name=$1
    shift
    "$bin/beaconrules" serve --port 0 --log-level warning "$@" >"$work/$name.out" 2>"$work/$name.log" &
    servers+=($!)
    for _ in $(seq 1 100); do grep -qs '^listening on' "$work/$name.out" && break; sleep 0.1; done
    listening=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/$name.out")
}

stop_all() {
    for pid in "${servers[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
    servers=()
}

load() {  # load LABEL EVENTS_PER_CONNECTION RATE PORT...: one load client per port, at once
    local label=$1 count=$2 rate=$3
    shift 3
    local pids=() k=0 serve_before pg_before
    serve_before=$(serve_cpu)
    pg_before=$(pg_cpu)
    for p in "$@"; do
        k=$((k + 1))
        "$bin/beaconrules-load" --port "$p" --connections 4 --events "$count" --rate "$rate" >"$work/load$k" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    echo "-- $label: CPU of serve $(( $(serve_cpu) - serve_before )) ms, of PostgreSQL $(( $(pg_cpu) - pg_before )) ms"
    k=0
    for p in "$@"; do
        k=$((k + 1))
        echo "-- $label, instance $k: $(tr '\n' ' ' <"$work/load$k")"
    done
}

measure() {  # measure MODE PORT...
    local mode=$1
    shift
    echo "== $mode: throughput, 4 connections per instance, $events events each, pipelined"
    load "$mode" "$events" 0 "$@"
    for rate in $rates; do
        local per=$((rate / $#))
        echo "== $mode: latency, $rate events/s in total for 5 s"
        load "$mode" $((per * 5 / 4)) "$per" "$@"
    done
}

start sqlite --state "$work/state.db"
measure "one instance, SQLite" "$listening"
stop_all

start pg1 --state "$(database)"
measure "one instance, PostgreSQL" "$listening"
stop_all

url=$(database)
start pg2a --state "$url"
a=$listening
start pg2b --state "$url"
measure "two instances, one PostgreSQL" "$a" "$listening"
stop_all
echo "== machine: load average $(cut -d' ' -f1-3 /proc/loadavg)"
