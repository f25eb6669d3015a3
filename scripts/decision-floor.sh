#!/usr/bin/env bash
# Measures the floor under replay's decisions (scripts/decision-floor.c) on the benchmark's
# workload, against replay and `wc -l`, interleaved and pinned to one core. Prints numbers and
# asserts nothing about speed; it does check that the floor decides what replay decides (the same
# record ids, record for record) before timing it.
# Usage: scripts/decision-floor.sh [ROUNDS]   (default 5; the workload is scripts/bench.sh's)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
work=.build/bench
if [ ! -f "$work/events.jsonl" ]; then
    echo "no workload in $work: run scripts/bench.sh first" >&2
    exit 1
fi
swift build -c release --product beaconrules >/dev/null
bin=$(swift build -c release --show-bin-path)
mkdir -p .build/floor
python3 scripts/decision-floor-table.py "$work/campaigns/bench.json" > .build/floor/campaigns.txt
cc -O2 -march=native -o .build/floor/decision-floor scripts/decision-floor.c
replay=("$bin/beaconrules" replay "$work/events.jsonl" --campaigns "$work/campaigns" --locales Locales)

echo "== same decisions: record ids of the floor against replay's"
.build/floor/decision-floor .build/floor/campaigns.txt "$work/events.jsonl" --ids 2>/dev/null | sort > .build/floor/floor.ids
"${replay[@]}" | cut -d'"' -f8 | sort > .build/floor/replay.ids
if ! cmp -s .build/floor/floor.ids .build/floor/replay.ids; then
    echo "the floor's records differ from replay's (.build/floor/*.ids)" >&2
    exit 1
fi
echo "the same $(wc -l < .build/floor/replay.ids) records"

events=$(wc -l < "$work/events.jsonl")
seconds() { /usr/bin/time -f %e taskset -c 1 "$@" 2>&1 >/dev/null | tail -1; }
"${replay[@]}" >/dev/null  # the page cache warm for every command
wc -l "$work/events.jsonl" >/dev/null
rate() { awk -v n="$events" -v s="$1" 'BEGIN { printf "%s s (%.0f k/s)", s, n / (s > 0 ? s : 0.01) / 1000 }'; }
echo "== $rounds rounds, end to end (file in, records to /dev/null), one core"
printf '%-6s %-22s %-22s %s\n' round floor replay 'wc -l'
for round in $(seq "$rounds"); do
    floor=$(seconds .build/floor/decision-floor .build/floor/campaigns.txt "$work/events.jsonl")
    real=$(seconds "${replay[@]}")
    count=$(seconds wc -l "$work/events.jsonl")
    printf '%-6s %-22s %-22s %s\n' "$round" "$(rate "$floor")" "$(rate "$real")" "$(rate "$count")"
done
