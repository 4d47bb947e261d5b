#!/usr/bin/env python3
# Derive lauka's shipped Arm tables (catalog/arm-*.json) from Arm's PMU event files
# (github.com/ARM-software/data, pmu/*.json, Apache-2.0; catalog/LICENSE.arm-data): the same
# JSON format, with only the fields lauka reads (the core, its counters, and per event the code,
# names, flags and description), one event per line.
# Usage: armpmu-compact.py IN.json > catalog/arm-CORE.json
import json
import sys

TOP = ["_type", "cpu", "cpuid", "architecture", "pmu_architecture", "counters"]
KEEP = ["code", "name", "trm_name", "architectural", "for_driver", "description"]

src = json.load(open(sys.argv[1]))
head = {k: src[k] for k in TOP if k in src}
rows = []
for e in src["events"]:
    # Some files (Cortex-A35's) also list event-bus signals with no event number: not PMU events.
    if e.get("code") is None:
        continue
    d = {k: e[k] for k in KEEP if k in e and e[k] is not None and e[k] is not False and e[k] != ""}
    if "trm_name" in d and d["trm_name"] == d["name"]:
        del d["trm_name"]
    rows.append("  " + json.dumps(d, separators=(",", ":")))
print(json.dumps(head)[:-1] + ',\n "events": [\n' + ",\n".join(rows) + "\n ]}")
