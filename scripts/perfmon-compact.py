#!/usr/bin/env python3
# Derive lauka's shipped vendor tables (catalog/intel-*.json) from Intel's perfmon core event files
# (github.com/intel/perfmon, BSD-3-Clause; catalog/LICENSE.intel-perfmon): the same JSON format,
# with only the fields lauka reads (names, encoding, counters, MSR/offcore) and without fields
# whose value is zero, one event per line.  Usage: perfmon-compact.py IN.json > catalog/intel-MODEL.json
import json
import sys

KEEP = ["EventName", "EventCode", "UMask", "CounterMask", "Invert", "EdgeDetect", "AnyThread",
        "Counter", "CounterHTOff", "MSRIndex", "MSRValue", "Offcore", "Deprecated"]
ZERO = {"0", "0x0", "0x00", "", "null", None}

src = json.load(open(sys.argv[1]))
hdr = src["Header"]
out = ['{"Header": ' + json.dumps({k: hdr[k] for k in ("Copyright", "Info", "DatePublished", "Version")}) + ',',
       ' "Events": [']
rows = []
for e in src["Events"]:
    d = {}
    for k in KEEP:
        v = e.get(k)
        if k in ("EventName", "EventCode", "UMask", "Counter") or v not in ZERO:
            if k == "CounterHTOff" and v == e.get("Counter"):
                continue
            d[k] = v
    rows.append("  " + json.dumps(d, separators=(",", ":")))
out.append(",\n".join(rows))
out.append(" ]}")
print("\n".join(out))
