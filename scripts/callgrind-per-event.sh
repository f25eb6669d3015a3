#!/usr/bin/env bash
# Instructions per warm event of `replay` on the benchmark workload (docs/performance.md): a
# callgrind run over the first 500,000 events minus one over the first 400,000, divided by
# 100,000, with SWIFT_DETERMINISTIC_HASHING=1; and the md5 of the whole million's records.
# Usage: scripts/callgrind-per-event.sh [BINARY]   (default .build/release/beaconrules)
# One engine (--jobs 1) by default: the figure is the engine's. JOBS=2 counts `--jobs 2`, every
# thread's instructions together (the reader, the shards, the writer). KEEP=PREFIX keeps the
# callgrind files as PREFIX.400000 and PREFIX.500000 (for callgrind_annotate).
# The workload is the one scripts/bench.sh generates (WORK, default .build/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/beaconrules}
work=${WORK:-.build/bench}
[ -f "$work/events.jsonl" ] || { echo "no workload in $work: run scripts/bench.sh first" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# valgrind cannot read this toolchain's debug info.
strip --strip-debug -o "$scratch/beaconrules" "$binary"
head -n 400000 "$work/events.jsonl" > "$scratch/400000.jsonl"
head -n 500000 "$work/events.jsonl" > "$scratch/500000.jsonl"
declare -A collected
for n in 400000 500000; do
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$scratch/callgrind.$n" \
    "$scratch/beaconrules" replay --jobs "${JOBS:-1}" "$scratch/$n.jsonl" --campaigns "$work/campaigns" --locales Locales \
    > /dev/null 2> "$scratch/valgrind.$n"
  collected[$n]=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$scratch/valgrind.$n")
  if [ -n "${KEEP:-}" ]; then cp "$scratch/callgrind.$n" "$KEEP.$n"; fi
  echo "first $n events: ${collected[$n]} instructions"
done
echo "per warm event: $(( (collected[500000] - collected[400000]) / 100 )) instructions / 1000 events"
"$binary" replay --jobs 1 "$work/events.jsonl" --campaigns "$work/campaigns" --locales Locales > "$scratch/records"
echo "records of the million: $(md5sum < "$scratch/records" | cut -d' ' -f1), $(wc -l < "$scratch/records") records"
