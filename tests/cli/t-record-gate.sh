# record --gate: exact comparison for deterministic counts, the whole interval above the limit otherwise; exit 3; warnings
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# Usage errors, before anything runs.
run "$LAUKA" --gate wall_time=10 -- 'touch ran' true
expect_rc 1; expect_err "^error: gate 'wall_time=10' needs a limit in percent"
run "$LAUKA" --gate wall_tme=10% -- 'touch ran' true
expect_rc 1; expect_err "^error: unknown measurement 'wall_tme'"; expect_err "did you mean 'wall_time'"
run "$LAUKA" --gate wall_time=10% -- 'touch ran'
expect_rc 1; expect_err "^error: --gate needs something to compare against"
[ ! -e ran ] || fail "a command ran despite a usage error"

# Timing: a 5x slower command fails a 10% gate (the whole interval lies far above it), and the
# gate warns that timing may cry wolf.  A gate still applies after the warning.
# (8 runs each: even on a loaded machine the reference stays clearly away from 0, so the interval is bounded)
run "$LAUKA" --backend rusage --color never -n 8 --gate wall_time=10% --json g.json -- 'sleep 0.02' 'sleep 0.1'
expect_rc 3
expect_err "^warning: gate 'wall_time=10%': wall_time is a timing measurement"
expect_out '^Gates (against command 1'
expect_out '^wall_time=10% .*2: sleep 0.1 .*FAIL$'
expect_out '^1 of 1 gate check failed$'
# The same command twice: nowhere near significant at 200%.
run "$LAUKA" --backend rusage --color never --gate wall_time=200% -- 'sleep 0.01' 'sleep 0.01'
expect_rc 0; expect_out '^wall_time=200% .* pass$'
if command -v python3 >/dev/null; then
	python3 - <<'EOP' || fail "gate JSON: $(cat g.json)"
import json
d = json.load(open("g.json"))
(g,) = d["gates"]
assert g["gate"] == "wall_time=10%" and g["limit_percent"] == 10 and g["command_index"] == 2
assert g["basis"] == "interval" and g["result"] == "fail"
# The gate's verdict is its rule applied to the exported interval, and the change is the delta's.
m = next(m for m in d["commands"][1]["measurements"] if m["name"] == "wall_time")
assert g["ci95_low"] == m["delta"]["ci95_low"] and g["ci95_low"] > 10
ref = next(m for m in d["commands"][0]["measurements"] if m["name"] == "wall_time")
want = (sum(m["samples"]) - sum(ref["samples"])) / sum(ref["samples"]) * 100
assert abs(g["change_percent"] - want) < 1e-6 * abs(want), (g, want)
EOP
fi

# A failing command's own code takes precedence over a failed gate.
run "$LAUKA" --backend rusage -n 3 --gate wall_time=10% -- 'sleep 0.01' 'sleep 0.05' "sh -c 'exit 5'"
expect_rc 5

command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (the timing gates passed)"
P="$LAUKA_BUILD/lauka-probe"
# Deterministic counts: alu runs exactly 2 instructions per iteration, so 1e4 more iterations are
# 2e4 more Ir.  The same work passes a 0% gate; more work fails a 1% gate and exits 3.
run "$LAUKA" --backend valgrind -m Ir --color never --gate Ir=0% --gate Ir=1000% --json v.json -- "$P alu 1e4" "$P alu 1e4" "$P alu 2e4"
expect_rc 3
# Simulated counts mean what valgrind defines on any machine: no "not validated" warning without a
# calibration (doc/ci.md, "Why a valgrind gate needs no calibration").
printf '%s\n' "$err" | grep -q 'may cry wolf\|calibrat' && fail "an uncalibrated valgrind gate warned: $err"
expect_out '^Ir=0% .*2: .*alu 1e4 .* +0.00% .*exact (sd 0, 2 and 1 runs) .*pass$'
expect_out '^Ir=0% .*3: .*alu 2e4 .*exact (sd 0, 2 runs each) .*FAIL$'
expect_out '^Ir=1000% .*3: .*alu 2e4 .*pass$'
if command -v python3 >/dev/null; then
	python3 - <<'EOP' || fail "Ir gate JSON: $(cat v.json)"
import json
d = json.load(open("v.json"))
ir = [next(m for m in c["measurements"] if m["name"] == "Ir") for c in d["commands"]]
assert all(m["stddev"] == 0 for m in ir)
# the failed one-run gate re-ran command 1 and 3 once more (issue 37 T3)
assert [len(m["samples"]) for m in ir] == [2, 1, 2], ir
assert ir[2]["mean"] - ir[0]["mean"] == 20000, "alu: 2 instructions per iteration"
g = [g for g in d["gates"] if g["gate"] == "Ir=0%" and g["command_index"] == 3][0]
assert g["basis"] == "exact" and g["result"] == "fail"
assert abs(g["change_percent"] - 20000 / ir[0]["mean"] * 100) < 1e-9
EOP
fi
# Once calibration has validated Ir on this machine, gating on it gives no warning.
run "$LAUKA" calibrate --backend valgrind --quick
expect_rc 0
run "$LAUKA" --backend valgrind -m Ir --gate Ir=1% -- "$P alu 1e4" "$P alu 1e4"
expect_rc 0
printf '%s\n' "$err" | grep -q 'may cry wolf' && fail "warned about a validated event: $err"
exit 0
