#!/usr/bin/env python3
# Derive lauka's shipped vendor tables (catalog/intel-*.json) from Intel's perfmon core event files
# (github.com/intel/perfmon, BSD-3-Clause; catalog/LICENSE.intel-perfmon): the same JSON format,
# with only the fields lauka reads (names, encoding, counters, MSR/offcore, TakenAlone, PEBS) and without fields
# whose value is zero, one event per line.  Usage: perfmon-compact.py [--lean] IN.json > catalog/intel-MODEL.json
# --lean (the tables added for ICX, SKX, CLX, HSW, BDW, TGL and RKL) also leaves out deprecated events and keeps
# one offcore-response event (Offcore=1) per encoding and counter list: lauka takes only their counters (every
# response value of an encoding has the same list), and Cascade Lake's 1,008 OCR combinations alone are 200 KB.
import json
import sys

KEEP = ["EventName", "EventCode", "UMask", "CounterMask", "Invert", "EdgeDetect", "AnyThread",
        "Counter", "CounterHTOff", "MSRIndex", "MSRValue", "Offcore", "Deprecated", "TakenAlone", "PEBS"]
ZERO = {"0", "0x0", "0x00", "", "null", None}

lean = "--lean" in sys.argv[1:]
src = json.load(open([a for a in sys.argv[1:] if a != "--lean"][0]))
seen = set()
hdr = src["Header"]
out = ['{"Header": ' + json.dumps({k: hdr[k] for k in ("Copyright", "Info", "DatePublished", "Version")}) + ',',
       ' "Events": [']
rows = []
for e in src["Events"]:
    if lean and e.get("Deprecated") == "1":
        continue
    if lean and e.get("Offcore") == "1":
        k = (e.get("EventCode"), e.get("UMask"), e.get("Counter"), e.get("CounterHTOff"))
        if k in seen:
            continue
        seen.add(k)
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
