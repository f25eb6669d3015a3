#!/usr/bin/env bash
# The output-heavy workload (`beaconrules-bench --output-heavy`: 50 beacons per venue, so an
# event fires about seven records, ~5 KB out) timed against scripts/output-floor.c writing the
# same bytes (replay's records per event and bytes per record), interleaved, one core, with the
# load average beside every round; beside them scripts/decision-floor.c on the same workload (the
# same decisions and the same bytes, written by reference: the floor under any program that makes
# the decisions), after checking that it decides what replay decides. Prints numbers; asserts
# nothing about speed.
# Usage: scripts/output-heavy.sh [ROUNDS]   (default 5; makes the workload in .build/bench-heavy)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
work=.build/bench-heavy
swift build -c release --product beaconrules >/dev/null
swift build -c release --product beaconrules-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
if [ ! -f "$work/events.jsonl" ]; then
    "$bin/beaconrules-bench" --output-heavy --work "$work" --runs 1 --load-campaigns 1000
fi
mkdir -p .build/floor
cc -O2 -march=native -o .build/floor/output-floor scripts/output-floor.c
cc -O2 -march=native -o .build/floor/decision-floor scripts/decision-floor.c
python3 scripts/decision-floor-table.py "$work/campaigns/bench.json" > .build/floor/heavy-campaigns.txt
decide=(.build/floor/decision-floor .build/floor/heavy-campaigns.txt "$work/events.jsonl")
replay=("$bin/beaconrules" replay "$work/events.jsonl" --campaigns "$work/campaigns" --locales Locales)
events=$(wc -l < "$work/events.jsonl")
read -r records bytes <<< "$("${replay[@]}" --jobs 1 | wc -lc)"
perEvent=$(awk -v r="$records" -v e="$events" 'BEGIN { printf "%.3f", r / e }')
perRecord=$(awk -v b="$bytes" -v r="$records" 'BEGIN { printf "%d", b / r }')
echo "== $events events, $records records ($perEvent per event, $perRecord bytes each, $(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.1f", b / e / 1000 }') KB out per event)"
echo "== same decisions: record ids of the decision floor against replay's"
"${decide[@]}" --ids 2>/dev/null | sort > .build/floor/heavy-floor.ids
"${replay[@]}" --jobs 1 | cut -d'"' -f8 | sort > .build/floor/heavy-replay.ids
if ! cmp -s .build/floor/heavy-floor.ids .build/floor/heavy-replay.ids; then
    echo "the decision floor's records differ from replay's (.build/floor/heavy-*.ids)" >&2
    exit 1
fi
echo "the same $(wc -l < .build/floor/heavy-replay.ids) records"
floor=(.build/floor/output-floor "$work/events.jsonl" --records "$perEvent" --record-bytes "$perRecord")
"${floor[@]}"
seconds() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
echo "== $rounds rounds, interleaved, wall seconds: the output floor, the decision floor and replay --jobs 1 pinned to one core, replay --jobs 2 on two"
for round in $(seq "$rounds"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    f=$(seconds taskset -c 1 "${floor[@]}")
    d=$(seconds taskset -c 1 "${decide[@]}")
    r1=$(seconds taskset -c 1 "${replay[@]}" --jobs 1)
    r2=$(seconds "${replay[@]}" --jobs 2)
    echo "round $round  load $load  floor $f s  decision floor $d s ($(awk -v a="$d" -v b="$f" 'BEGIN { printf "%.2fx", a / b }') the floor)  replay --jobs 1 $r1 s ($(awk -v a="$r1" -v b="$f" 'BEGIN { printf "%.2fx", a / b }') the floor)  --jobs 2 $r2 s ($(awk -v a="$r2" -v b="$f" 'BEGIN { printf "%.2fx", a / b }'))"
done
