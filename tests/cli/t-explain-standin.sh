# record --explain on the macOS paths through the stand-ins: xctrace guided (slots named by a stand-in calibration) and kperf (a stand-in calibration stored in the database); what a real Mac would give is not verified here
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the xctrace stand-in is a Python script)"
[ -x "$LAUKA_BUILD/lauka-probe" ] || skip "lauka-probe not built"

# --- xctrace --guided: calibrate names the slots from the stand-in's synthetic Figure-11-like tables
# (tests/xctrace-synth.py: the cache slot, named chase-responsive as its count per step is not a miss
# count's, reads 0.0834 per work count on alu and 8.8165 on chase, the
# mispredict slot 25x alu on branch), then record reads each command against that map.  The stand-in
# serves a probe's table by the command's arguments (it does not count anything), so `true chase N`
# stands for the chase probe at N steps: the rules are tested, not a real Mac.
(
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_XCTRACE_CPUFAMILY=0x8765edea
export LAUKA_PROBE="$LAUKA_BUILD/lauka-probe" LAUKA_KPEP_FILE="$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"
mkdir xt && export TMPDIR="$PWD/xt" LAUKA_DB="$PWD/xt.db"

run "$LAUKA" record --backend xctrace --guided --explain -- "true alu 1000"
expect_rc 1
expect_err "^fix: lauka calibrate --backend xctrace \[--quick\]"

run "$LAUKA" calibrate --backend xctrace --quick
expect_rc 0
run "$LAUKA" record -n 3 --backend xctrace --guided --explain --export-json x.json -- \
	"true alu 20000000" "true chase 20000000" "true branch 20000000" "true alu 40000000"
expect_rc 0
expect_out "cost model none (no validated cycles event)"
python3 - <<'PY' || fail "xctrace guided diagnoses: $out"
import json
dg = [c["diagnosis"] for c in json.load(open("x.json"))["commands"]]
assert [x["verdict"] for x in dg] == ["neither", "memory-bound", "branch-bound", "neither"], [x["verdict"] for x in dg]
assert dg[0]["work_event"] == "slot0" and dg[0]["cycle_shares"] is None
mem = {r["kind"]: r for r in dg[1]["rates"]}["memory"]
# the stored map's levels: the control 0.0834, the chase 8.8165 per work count
assert mem["event"] == "slot2" and abs(mem["control"] - 0.0834) < 1e-3 and abs(mem["probe"] - 8.8165) < 1e-3, mem
assert dg[3]["delta_cause"] == "work", dg[3]     # twice the alu probe: the same rates
assert "functions" not in dg[0]                   # no callgrind output under xctrace
PY
) || exit 1

# --- kperf: a calibration with a cycles counter, stored as lauka calibrate stores it (db_store_calibration's
# tables), so that the kperf path computes this machine's costs per miss and per mispredict.  The stand-in's
# own counts follow time, not the command's behaviour, so only the reading is checked: what the costs
# are and that each command gets a verdict and a cause.
[ -f "$LAUKA_BUILD/libkperf-standin.so" ] || skip "stand-in library not built"
a14="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$a14" ] || skip "tests/fixtures/kpep-data/a14.plist absent"
kperf_standin "$a14"
export LAUKA_DB="$PWD/kp.db"
run "$LAUKA" record --backend kperf --explain -- true
expect_rc 1
expect_err "^error: --explain reads this machine's calibration of the kperf backend, and none is stored"
expect_err "^fix: lauka calibrate --backend kperf \[--quick\]"
run "$LAUKA" counters --backend kperf
expect_rc 0
python3 - "$LAUKA_DB" <<'PY' || fail "cannot store the stand-in calibration"
import socket, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
(chip,) = db.execute("select coalesce(marketing_name, name) from pmu where kind = 'kpep' and name = 'a14'").fetchone()
machine = socket.gethostname() + "/" + chip
# per unit of each probe: an M1-like core at 4 instructions a cycle, ~100 cycles a chase step, 20 per mispredict
rows = [("FIXED_INSTRUCTIONS", "validated", "work-like", 2.0, 3.0, 9.0),
        ("FIXED_CYCLES", "linear", "work-like", 0.5, 100.0, 12.25),
        ("L1D_CACHE_MISS_LD_NONSPEC", "validated", "memory-bound-like", 0.0001, 1.2, 0.0001),
        ("BRANCH_MISPRED_NONSPEC", "validated", "branch-like", 0.00002, 0.00001, 0.5)]
with db:
    for ev, v, prof, alu, chase, br in rows:
        cur = db.execute("insert into verdict (pmu, backend, machine, event, verdict, profile, created_at) "
                         "values ('a14', 'kperf', ?, ?, ?, ?, ?)", (machine, ev, v, prof, int(time.time())))
        for probe, x in (("alu", alu), ("chase", chase), ("branch", br)):
            db.execute("insert into response values (?, ?, ?, ?, NULL)", (cur.lastrowid, probe, x, x))
PY
run "$LAUKA" record -n 3 --color never --backend kperf --explain -m inst_all --export-json k.json -- "$LAUKA_BUILD/kperf-spin 20" "$LAUKA_BUILD/kperf-spin 40"
expect_rc 0
# cycles per instruction 0.5 / 2; a miss (100 - 0.25 x 3) / 1.2 = 82.7 cycles, a mispredict (12.25 - 0.25 x 9) / 0.5 = 20
expect_out "cost model FIXED_CYCLES, with this machine's costs from calibration: 82.7 per miss, 20 per mispredict beyond 0.25 per FIXED_INSTRUCTIONS"
python3 - <<'PY' || fail "kperf diagnoses: $out"
import json
cmds = json.load(open("k.json"))["commands"]
for c in cmds:
    d = c["diagnosis"]
    m = {x["name"].lower(): x["mean"] for x in c["measurements"]}
    assert d["work_event"] == "FIXED_INSTRUCTIONS" and d["verdict"] in ("memory-bound", "branch-bound", "memory- and branch-bound", "neither")
    cs = d["cycle_shares"]
    assert cs["model"] == "measured" and abs(cs["cost_per_miss"] - 99.25 / 1.2) < 1e-9 and abs(cs["cost_per_mispredict"] - 20) < 1e-9
    cyc = m["fixed_cycles"]
    assert abs(cs["memory"] - min(1, m["l1d_cache_miss_ld_nonspec"] * 99.25 / 1.2 / cyc)) < 1e-9, (cs, m)
    assert abs(cs["branch"] - min(1, m["branch_mispred_nonspec"] * 20 / cyc)) < 1e-9, (cs, m)
assert "delta_cause" in cmds[1]["diagnosis"]
PY
exit 0
