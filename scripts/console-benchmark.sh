#!/usr/bin/env bash
# Measures the console's campaign list (`GET /`) over 10,000 campaigns: the server's own time per
# request (its Server-Timing header, from the handler's start to the page written, snapshot
# included), and the total as curl sees it. Numbers are printed, nothing is asserted.
# The first request lints the set once (a snapshot kept until the next reload) and is shown apart.
# Usage: scripts/console-benchmark.sh [CAMPAIGNS] [REQUESTS]   (default: 10000 30)
# CONFIG=debug measures the debug build instead of the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10000}
requests=${2:-30}
config=${CONFIG:-release}
swift build -c "$config" --product beaconrules >/dev/null
bin=$(swift build -c "$config" --show-bin-path)
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/campaigns"
python3 - "$count" "$work/campaigns" <<'PY'
import json, sys
count, folder = int(sys.argv[1]), sys.argv[2]
campaigns = []
for i in range(count):
    strings = {lang: {"title": f"{lang} title {i}", "message": f"{lang} message {i}", "okButtonTitle": "OK", "cancelButtonTitle": "Cancel"}
               for lang in ["en", "de", "fr"][: 1 + i % 3]}
    campaigns.append({
        "eid": f"campaign-{i:05d}", "name": f"Campaign {i}", "trigger": 1 + i % 3, "type": 1,
        "beacons": [f"b9407f30f5f8466eaff925556b57fe6d{(i % 500):05d}{(i % 65000):05d}"],
        "suppressionTime": 3600,
        "timeframes": [{"start": "2026-01-01T00:00:00Z", "end": "2027-01-01T00:00:00Z"}] if i % 4 else [],
        "content": {"subject": f"Subject {i}", "body": f"Body {i}", "url": "https://example.com/",
                    "payload": {"onEnter": strings, "onExit": strings}},
    })
for part in range(10):
    with open(f"{folder}/part-{part}.json", "w") as f:
        json.dump(campaigns[part::10], f, indent=1)
PY

"$bin/beaconrules" console --port 0 --campaigns "$work/campaigns" --locales Locales > "$work/out" 2>&1 &
server=$!
for _ in $(seq 600); do grep -q '^listening on' "$work/out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/out")

timing() { curl -s -D - -o "$work/page" "127.0.0.1:$port/" | sed -n 's/^Server-Timing: render;dur=\([0-9.]*\).*/\1/Ip'; }
echo "$config build"
echo "first request (lints $count campaigns once): $(timing) ms server time, $(wc -c < "$work/page") bytes"
for _ in $(seq "$requests"); do timing; done | sort -n | awk -v n="$requests" '
    { t[NR] = $1 } END { printf "GET / over %d campaigns, %d requests: median %.1f ms, p90 %.1f ms, max %.1f ms server time\n", '"$count"', n, t[int((n + 1) / 2)], t[int(n * 0.9)], t[n] }'
curl -s -o /dev/null -w 'as curl sees one: %{time_total}s total, %{size_download} bytes\n' "127.0.0.1:$port/"
