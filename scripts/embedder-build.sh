#!/usr/bin/env bash
# What a backend that embeds the service pays on its first build: a package of its own that
# depends on this repository (at REV, default HEAD) for the BeaconRulesService product alone and
# builds Examples/MuseumEmbedding/main.swift with it, in release, from an empty build folder.
# Prints the wall time and the modules compiled (the package's and its dependencies').
# Usage: scripts/embedder-build.sh [REV]      (by hand: a first release build takes minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
rev=$(git rev-parse --short "${1:-HEAD}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git worktree add --quiet --detach "$work/beaconrules" "$rev"
trap 'git -C "$repo" worktree remove --force "$work/beaconrules"; rm -rf "$work"' EXIT
mkdir -p "$work/embedder/Sources/Embedder"
cp Examples/MuseumEmbedding/main.swift "$work/embedder/Sources/Embedder/main.swift"
cat > "$work/embedder/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "Embedder",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../beaconrules")],
    targets: [.executableTarget(name: "Embedder", dependencies: [.product(name: "BeaconRulesService", package: "beaconrules")])]
)
MANIFEST
cd "$work/embedder"
swift package resolve > /dev/null 2>&1
# Wall time depends on what else the machine runs; the CPU time (user + system, every process
# of the build) much less: both are printed.
TIMEFORMAT='%R %U %S'
{ time swift build -c release > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }; } 2> "$work/time"
read -r wall user system < "$work/time"
modules=$(find .build/release/Modules .build/release -maxdepth 1 -name '*.swiftmodule' 2>/dev/null | xargs -n1 basename | sed 's/\.swiftmodule$//' | sort -u)
echo "revision: $rev"
echo "first release build of an embedder of BeaconRulesService: ${wall%.*} s wall, $(( ${user%.*} + ${system%.*} )) s of CPU"
echo "Swift modules built: $(echo "$modules" | wc -l)"
for heavy in PostgresNIO NIOSSL Crypto Hummingbird; do
  if echo "$modules" | grep -qx "$heavy"; then echo "  compiles $heavy"; else echo "  no $heavy"; fi
done
