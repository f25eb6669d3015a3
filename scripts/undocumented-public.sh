#!/usr/bin/env bash
# Lists the public declarations that have no doc comment of their own, and counts them (one per
# line): a line that declares something `public` (or `open`) whose nearest line above, past
# attributes (`@inlinable`, `@_specialize(...)`, ...), is not a `///` comment; a case of a public
# enum and a requirement of a public protocol likewise (a line `case a, b` counts once); a public
# enum written on one line with its cases. Witnesses of a documented protocol requirement count
# too (DocC would show the requirement's text, not what this type does). `public import` lines are
# not declarations. What DocC synthesizes (`!=`, `hashValue`, `init(rawValue:)`) has no line and
# is not counted. Run by hand: scripts/undocumented-public.sh [--list] [folder...] (default: the
# three library products' sources, Sources/BeaconRules, Sources/BeaconRulesService and
# Sources/BeaconRulesPostgres, and StoreError, public in BeaconRulesStore for the service).
set -euo pipefail
cd "$(dirname "$0")/.."
list=0
if [[ "${1:-}" == "--list" ]]; then list=1; shift; fi
folders=("$@")
if [[ ${#folders[@]} -eq 0 ]]; then folders=(Sources/BeaconRules Sources/BeaconRulesService Sources/BeaconRulesPostgres Sources/BeaconRulesStore/StoreError.swift); fi
found=$(find "${folders[@]}" -name '*.swift' | sort | xargs awk '
    FNR == 1 { kept = ""; publicEnum = 0; publicProtocol = 0 }
    {
        line = $0
        if (line ~ /^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*(public|open)[[:space:]]/ \
            && line !~ /^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*public[[:space:]]+import[[:space:]]/ \
            && kept !~ /^[[:space:]]*\/\/\//) {
            sub(/^[[:space:]]+/, "", line)
            print FILENAME ":" FNR ": " line
        }
        # The closing brace of an enum or protocol ends it.
        if (line ~ /^[[:space:]]*}/) {
            match(line, /^[[:space:]]*/)
            if (RLENGTH == enumIndent) publicEnum = 0
            if (RLENGTH == protocolIndent) publicProtocol = 0
        }
        # A case of a public enum (one level inside it) is public too.
        if (line ~ /^[[:space:]]*(indirect[[:space:]]+)?enum[[:space:]]/ || line ~ /[[:space:]]enum[[:space:]]+[A-Za-z_]/) {
            match(line, /^[[:space:]]*/); enumIndent = RLENGTH
            publicEnum = (line ~ /(public|open)[[:space:]]+(indirect[[:space:]]+)?enum[[:space:]]/)
        }
        if (publicEnum && line ~ /^[[:space:]]*case[[:space:]]+[A-Za-z_`]/ && line !~ /:[[:space:]]*(\/\/.*)?$/ \
            && kept !~ /^[[:space:]]*\/\/\//) {
            match(line, /^[[:space:]]*/)
            if (RLENGTH == enumIndent + 4) { sub(/^[[:space:]]+/, "", line); print FILENAME ":" FNR ": " line }
        }
        # A requirement of a public protocol (one level inside it) is public too.
        if (line ~ /^[[:space:]]*([a-z]+[[:space:]]+)*protocol[[:space:]]+[A-Za-z_]/) {
            match(line, /^[[:space:]]*/); protocolIndent = RLENGTH
            publicProtocol = (line ~ /(public|open)[[:space:]]+protocol[[:space:]]/)
        }
        if (publicProtocol && line ~ /^[[:space:]]*((mutating|static|nonmutating)[[:space:]]+)*(func|var|associatedtype|init|subscript)[[:space:](?<]/ \
            && kept !~ /^[[:space:]]*\/\/\//) {
            match(line, /^[[:space:]]*/)
            if (RLENGTH == protocolIndent + 4) { sub(/^[[:space:]]+/, "", line); print FILENAME ":" FNR ": " line }
        }
        # A public enum written on one line (`{ case a, b }`): its cases have no comment.
        if (line ~ /(public|open)[[:space:]]+enum[[:space:]].*\{[[:space:]]*case[[:space:]]/) {
            sub(/^[[:space:]]+/, "", line); print FILENAME ":" FNR ": " line
        }
        # What the next declaration sees above it: the last line that is not an attribute.
        if ($0 !~ /^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]*)+$/) kept = $0
    }')
if [[ $list -eq 1 && -n "$found" ]]; then echo "$found"; fi
if [[ -z "$found" ]]; then echo 0; else echo "$found" | wc -l; fi
