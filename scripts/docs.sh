#!/usr/bin/env bash
# Builds the DocC archive of BeaconRulesService (the embedding API) and fails on any warning: a
# broken symbol link or an undocumented topic. Run by hand before a release (about 25 s after a
# debug build); `swift test` cannot run it, as SwiftPM's build folder is locked while tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --disable-sandbox generate-documentation --target BeaconRulesService --warnings-as-errors "$@"
