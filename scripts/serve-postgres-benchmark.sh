#!/usr/bin/env bash
# Measures `beaconrules serve` on PostgreSQL against SQLite, and two instances on one database
# against one (numbers are printed, nothing is asserted): pipelined throughput on 4 connections
# per instance, then latency (p50/p99) at 2,000 and 20,000 events/s. A private PostgreSQL cluster
# is started in a temporary folder (fsync on, as the postgres user when run as root) on this
# machine, and stopped at the end.
# Each phase prints the CPU of the instances and of every PostgreSQL process (backends, and the
# postmaster's children that exited) per event, and the database's transactions and, with
# STATEMENTS=1 (pg_stat_statements loaded: it costs the database a little CPU), its statements
# per transaction, and each phase's statements by execution time (per transaction).
# ONE_ONLY=1 runs the one-instance PostgreSQL phases only (no SQLite, no two instances).
# Before each latency phase the database is brought to how it runs in service (`steady`: its
# tables analyzed, a checkpoint taken); FRESH=1 measures a new database's first minute instead.
# With BASELINE=DIR (a folder holding another build's beaconrules, e.g. main's .build/release),
# each PostgreSQL phase is also run with that binary, right after this one's, on a new database:
# a before/after in one run. With BIN=DIR, that folder's beaconrules and beaconrules-load are used
# and nothing is built.
# Usage: scripts/serve-postgres-benchmark.sh [EVENTS_PER_CONNECTION] [RATE...]   (default: 20000 2000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-20000}
shift || true
rates=${*:-2000 20000}
if [ -n "${BIN:-}" ]; then
    bin=$BIN
else
    swift build -c release --product beaconrules >/dev/null
    swift build -c release --product beaconrules-load >/dev/null
    bin=$(swift build -c release --show-bin-path)
fi
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
preload=
[ -n "${STATEMENTS:-}" ] && preload="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_utility=on"
"${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
    -o "-p $port -k $work -c listen_addresses=127.0.0.1 $preload" start >/dev/null
database() {  # a new empty database; prints its URL and sets $dbname
    dbname="bench_${RANDOM}_$$"
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -qc "CREATE DATABASE $dbname" >&2
    echo "postgres://beacon@127.0.0.1:$port/$dbname"
}
[ -n "${STATEMENTS:-}" ] && "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -qc "CREATE EXTENSION pg_stat_statements"
# The database's transactions (commits and rollbacks) and statements (0 without STATEMENTS=1) so
# far. The statistics reach the views within a second of a backend going idle: read after a pause.
pg_counts() {
    sleep 1.2
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -tAF' ' -c "
        SELECT (SELECT coalesce(sum(xact_commit + xact_rollback), 0) FROM pg_stat_database WHERE datname LIKE 'bench%'),
               $([ -n "${STATEMENTS:-}" ] && echo "(SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname LIKE 'bench%')" || echo 0)"
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
    "${serve_bin:-$bin}/beaconrules" serve --port 0 --log-level warning "$@" >"$work/$name.out" 2>"$work/$name.log" &
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
    local pids=() k=0 serve_before pg_before counts_before
    [ -n "${STATEMENTS:-}" ] && "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -qtAc "SELECT pg_stat_statements_reset()" >/dev/null
    counts_before=$(pg_counts)
    serve_before=$(serve_cpu)
    pg_before=$(pg_cpu)
    for p in "$@"; do
        k=$((k + 1))
        "$bin/beaconrules-load" --port "$p" --connections 4 --events "$count" --rate "$rate" >"$work/load$k" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    local serve_ms=$(( $(serve_cpu) - serve_before )) pg_ms=$(( $(pg_cpu) - pg_before ))
    local total=$((count * 4 * $#)) counts
    counts=$(pg_counts)
    read -r x0 s0 <<<"$counts_before"
    read -r x1 s1 <<<"$counts"
    awk -v label="$label" -v e="$total" -v s="$serve_ms" -v p="$pg_ms" -v x=$((x1 - x0)) -v st=$((s1 - s0)) 'BEGIN {
        printf "-- %s: %d events; CPU of serve %d ms (%.1f us an event), of PostgreSQL %d ms (%.1f us an event)",
            label, e, s, s * 1000 / e, p, p * 1000 / e
        if (x > 0) printf "; %d transactions (%.1f events each)", x, e / x
        if (st > 0 && x > 0) printf ", %.1f statements each", st / x
        printf "\n" }'

    if [ -n "${STATEMENTS:-}" ] && [ $((x1 - x0)) -gt 0 ]; then
        echo "-- $label: statements by time: calls a transaction, ms of execution a transaction, the statement"
        "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -tAF' | ' -c "
            SELECT round(sum(calls)::numeric / $((x1 - x0)), 2), round(sum(total_exec_time + total_plan_time)::numeric / $((x1 - x0)), 3),
                left(regexp_replace(query, '\s+', ' ', 'g'), 100)
            FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname LIKE 'bench%'
            GROUP BY query ORDER BY 2 DESC LIMIT 10" | sed 's/^/   /'
    fi
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
        [ -z "${FRESH:-}" ] && steady
        echo "== $mode: latency, $rate events/s in total for 5 s"
        load "$mode" $((per * 5 / 4)) "$per" "$@"
    done
}

# Before each latency phase, the database as it is in service rather than minutes old: its tables
# analyzed (autovacuum's job, within a minute of a table filling: until then the planner thinks
# they are empty and scans `firing` by bitmap and sorts it for the retention's sweep) and a
# checkpoint taken (after one, WAL segments are recycled: a new cluster zero-fills a new 16 MB
# segment every few seconds under load, a synchronous write of tens of milliseconds inside a
# commit). FRESH=1 leaves both out: the first minutes of a new database.
steady() {
    [ -n "${SQLITE_PHASE:-}" ] && return
    "$pgbin/vacuumdb" -h 127.0.0.1 -p "$port" -U beacon --all --analyze-only -q
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U beacon -d postgres -qc CHECKPOINT
}

if [ -z "${ONE_ONLY:-}" ]; then
    start sqlite --state "$work/state.db"
    SQLITE_PHASE=1 measure "one instance, SQLite" "$listening"
    stop_all
fi

one() {  # one LABEL
    start pg1 --state "$(database)"
    measure "one instance, PostgreSQL$1" "$listening"
    stop_all
}
two() {  # two LABEL
    local url a
    url=$(database)
    start pg2a --state "$url"
    a=$listening
    start pg2b --state "$url"
    measure "two instances, one PostgreSQL$1" "$a" "$listening"
    stop_all
}
one ""
[ -n "${BASELINE:-}" ] && serve_bin=$BASELINE one ", baseline $BASELINE"
if [ -z "${ONE_ONLY:-}" ]; then
    two ""
    [ -n "${BASELINE:-}" ] && serve_bin=$BASELINE two ", baseline $BASELINE"
fi
echo "== machine: load average $(cut -d' ' -f1-3 /proc/loadavg)"
