#!/usr/bin/env bash
# `replay --jobs 1` against `--jobs 2` (and more) on the benchmark's workload, interleaved, with
# the load average beside every round, then the load of 100,000 campaigns, in one run: for the
# lead to re-run on an idle machine. Prints numbers and asserts nothing about speed; it does check
# that every --jobs writes the very records of --jobs 1 (md5) before timing.
# Usage: scripts/jobs-benchmark.sh [ROUNDS] [JOBS...]   (default 5 rounds, jobs 2)
#   BENCH_WORK=.build/bench-heavy scripts/jobs-benchmark.sh   times another workload folder
#   (made by `beaconrules-bench --output-heavy --work .build/bench-heavy`).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
jobs=("$@")
[ ${#jobs[@]} -eq 0 ] && jobs=(2)
work=${BENCH_WORK:-.build/bench}
swift build -c release --product beaconrules >/dev/null
swift build -c release --product beaconrules-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
if [ ! -f "$work/events.jsonl" ]; then
    echo "no workload in $work: run scripts/bench.sh first (or beaconrules-bench --work $work)" >&2
    exit 1
fi
replay=("$bin/beaconrules" replay "$work/events.jsonl" --campaigns "$work/campaigns" --locales Locales)
events=$(wc -l < "$work/events.jsonl")
echo "== $(nproc) cores, $events events in $work; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== the same records with every --jobs (md5 of stdout)"
one=$("${replay[@]}" --jobs 1 | md5sum | cut -d' ' -f1)
echo "--jobs 1: $one"
for n in "${jobs[@]}"; do
    many=$("${replay[@]}" --jobs "$n" | md5sum | cut -d' ' -f1)
    echo "--jobs $n: $many"
    if [ "$many" != "$one" ]; then echo "--jobs $n writes other records than --jobs 1" >&2; exit 1; fi
done

seconds() { /usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1; }
echo "== $rounds rounds, interleaved: wall seconds (user+sys), ratio to --jobs 1, load average before the round"
for round in $(seq "$rounds"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r w1 u1 s1 <<< "$(seconds "${replay[@]}" --jobs 1)"
    line="round $round  load $load  --jobs 1: $w1 s ($(awk -v u="$u1" -v s="$s1" 'BEGIN { printf "%.2f", u + s }') cpu)"
    for n in "${jobs[@]}"; do
        read -r w u s <<< "$(seconds "${replay[@]}" --jobs "$n")"
        line+="  --jobs $n: $w s ($(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') cpu, $(awk -v a="$w1" -v b="$w" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.01) }'))"
    done
    echo "$line"
done

echo "== loading 100,000 campaigns from 10 files, in-process (best of 3); load average $(cut -d' ' -f1 /proc/loadavg)"
"$bin/beaconrules-bench" --load-only --work "$work"
