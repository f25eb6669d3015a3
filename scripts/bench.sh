#!/usr/bin/env bash
# Builds release binaries and runs the seeded replay benchmark (see README "Performance").
# Extra arguments go to beaconrules-bench, e.g. --runs 5 or --events 100000.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product beaconrules
swift build -c release --product beaconrules-bench
exec .build/release/beaconrules-bench "$@"
