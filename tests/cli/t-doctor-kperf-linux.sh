# lauka doctor's macOS facts, measured on the model of XNU (the kperf stand-in) with real probes
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
kperf_standin "$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"

# As root: every fact holds on the model; the numbers are the model's rules (2+5 / 2+8, 3 records, 100 ms).
run "$LAUKA" doctor --backend kperf
expect_rc 0
expect_out '^ok    kpep file .*found in \$KPEP_DB_PATH, resolves to .*/kpep/chip.plist$'
expect_out '^ok    kpc counters .*7 before forcing, 10 after$'
expect_out '^ok    thread samples .*10 values per sample$'
expect_out '^ok    record layout .*3.00 records per sample'
expect_out '^ok    sample rate '
expect_out '^ok    coverage 1 s '
expect_out '^info  coverage 10 ms '
expect_out '^info  user mode only '
printf '%s\n' "$out" | grep -Eq '^info  kdebug cost .*open [1-9][0-9]{2,} ms, close [1-9][0-9]{2,} ms$' ||
	fail "kdebug set-up/reset not at least 100 ms each: $out"

run "$LAUKA" doctor --backend kperf --json
expect_rc 0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True
f = {x["name"]: x for x in d["facts"]}
assert f["kpc counters"]["observed"] == "7 before forcing, 10 after", f["kpc counters"]
' || fail "doctor --json: $out"

# N1 (audit 3): another kperf client left 32 actions; doctor names the count, and every fact still
# holds (the old code failed "kperf open" with 'kperf_action_count_set': Invalid argument).
LAUKA_STANDIN_STATE="$PWD/n1.state" LAUKA_STANDIN_ACTIONS=32 run "$LAUKA" doctor --backend kperf --json
expect_rc 0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True, [f for f in d["facts"] if f["verdict"] == "fail"]
f = {x["name"]: x for x in d["facts"]}
assert f["kperf actions"]["observed"].startswith("32 (set by another kperf client"), f["kperf actions"]
# what could not be verified without a Mac is listed, each with what stands in for the evidence
u = d["unverified"]
assert len(u) >= 8 and all(x["what"] and x["instead"] for x in u), u
for tag in ("N1", "N2", "N3", "N4", "R3", "N6", "Intel"):
    assert any(tag in x["what"] for x in u), tag
' || fail "doctor --json with 32 actions: $out"
run "$LAUKA" doctor --backend kperf
expect_out '^info  kperf actions  *[0-9]*'
expect_out '^not verified without a Mac'

# Without root: what rusage gives, and what sudo adds; exit 2.
LAUKA_STANDIN_EUID=501 run "$LAUKA" doctor --backend kperf
expect_rc 2
expect_out '^ok    rusage .*instructions [0-9]*, cycles [0-9]* of this process$'
expect_out '^FAIL  kperf .*root'
expect_err '^fix: sudo lauka doctor$'

# The counters held by another live process (this shell): EACCES, named as such.
LAUKA_STANDIN_STATE="$PWD/forced.state" LAUKA_STANDIN_FORCED=1 run "$LAUKA" doctor --backend kperf
expect_rc 2
expect_out '^FAIL  kpc forcing .*held by another process'

# Under Rosetta: refused.
LAUKA_STANDIN_TRANSLATED=1 run "$LAUKA" doctor --backend kperf
expect_rc 2
expect_out 'Rosetta'
exit 0
