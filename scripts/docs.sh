#!/usr/bin/env bash
# Builds the DocC archives of the two library products, BeaconRules (the engine) and
# BeaconRulesService (the embedding API), and fails on any warning: a broken symbol link or an
# undocumented topic. `.ci/run` runs it after the tests (about 30 s after a debug build); `swift
# test` cannot run it, as SwiftPM's build folder is locked while tests run. The archives land in
# .build/plugins/Swift-DocC/outputs/.
set -euo pipefail
cd "$(dirname "$0")/.."
for target in BeaconRules BeaconRulesService; do
  swift package --disable-sandbox generate-documentation --target "$target" --warnings-as-errors "$@"
done
