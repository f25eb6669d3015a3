#!/usr/bin/env python3
"""Flattens a benchmark campaign file (JSON, the SPEC's layout) into the table that
scripts/decision-floor.c reads: one campaign a line, in load order,

    eid trigger suppressionTime delay sendOnlyOnce frames [start end]... beacons beacon... tailBytes

times in epoch milliseconds (an open start or end as -2^62 or 2^62), suppressionTime and delay
in seconds as in the campaign (-1 or absent: no suppression), tailBytes the length of the
campaign's content as compact JSON (the floor writes a tail of that length per record).

    python3 scripts/decision-floor-table.py .build/bench/campaigns/bench.json > /tmp/floor-campaigns.txt
"""
import datetime
import json
import sys

OPEN = 1 << 62


def milliseconds(text):
    if text is None:
        return None
    layout = "%Y-%m-%dT%H:%M:%S.%f" if "." in text else "%Y-%m-%dT%H:%M:%S"
    moment = datetime.datetime.strptime(text.rstrip("Z"), layout).replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp() * 1000)


def main(path):
    for campaign in json.load(open(path)):
        frames = []
        for frame in campaign.get("timeframes") or []:
            start, end = milliseconds(frame.get("start")), milliseconds(frame.get("end"))
            frames += [-OPEN if start is None else start, OPEN if end is None else end]
        suppression = campaign.get("suppressionTime", -1)
        tail = json.dumps(campaign["content"], separators=(",", ":"))
        fields = [campaign["eid"], campaign["trigger"], -1 if suppression is None else suppression,
                  campaign.get("delay") or 0, 1 if campaign.get("sendOnlyOnce") else 0,
                  len(frames) // 2, *frames, len(campaign["beacons"]), *campaign["beacons"], len(tail)]
        print(" ".join(str(field) for field in fields))


if __name__ == "__main__":
    main(sys.argv[1])
