# lauka doctor on Linux: each fact with expectation, observation and verdict; exit 0 iff no FAIL, else 2
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
unset LAUKA_KPERF_PATH LAUKA_KPERFDATA_PATH

run "$LAUKA" doctor
case $rc in 0|2) ;; *) fail "exit $rc; stderr: $err" ;; esac
expect_out '^lauka doctor: Linux$'
expect_out 'perf_event_paranoid'
expect_out 'hardware events'
expect_out 'expected: '
# The paranoid level shown is the kernel's (independent reference: /proc).
level=$(cat /proc/sys/kernel/perf_event_paranoid)
printf '%s\n' "$out" | grep -q "perf_event_paranoid  *$level" || fail "paranoid level $level not shown: $out"
# valgrind: its version as valgrind itself prints it, or 'not found'.
if command -v valgrind >/dev/null 2>&1; then
	expect_out "valgrind  *$(valgrind --version)"
else
	expect_out 'valgrind  *not found'
fi
nfail=$(printf '%s\n' "$out" | grep -c '^FAIL')
if [ "$nfail" -gt 0 ]; then
	expect_rc 2
	expect_err '^error: some facts lauka relies on do not hold here'
else
	expect_rc 0
fi
# Whether perf counts here, as perf itself says (the same verdict on hardware events).
if command -v perf >/dev/null 2>&1; then
	if perf stat -e instructions:u -x, true 2>&1 >/dev/null | grep -q '^[0-9]'; then
		expect_out '^ok    hardware events'
	else
		expect_out '^FAIL  hardware events'
		# ... and the way on without a PMU
		expect_err '^tip: no hardware PMU.*--backend valgrind'
	fi
fi

# --json: the same facts, valid JSON, the same verdict.
run "$LAUKA" doctor --json
case $rc in 0|2) ;; *) fail "exit $rc" ;; esac
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["platform"] == "Linux", d
names = [f["name"] for f in d["facts"]]
assert "perf_event_paranoid" in names and "hardware events" in names, names
assert all(f["verdict"] in ("ok", "info", "fail") and f["expect"] and f["observed"] for f in d["facts"])
assert d["ok"] == all(f["verdict"] != "fail" for f in d["facts"])
sys.exit(0 if d["ok"] else 2)' 
jrc=$?
[ "$jrc" -eq "$rc" ] || fail "--json says ok=$jrc, exit $rc"

# One backend only.
run "$LAUKA" doctor --backend valgrind
expect_rc 0
expect_out 'valgrind'
printf '%s\n' "$out" | grep -q paranoid && fail "--backend valgrind shows perf facts"

run "$LAUKA" doctor --bogus
expect_rc 1; expect_err "unknown option '--bogus'"
run "$LAUKA" doctor --backend nosuch
expect_rc 1; expect_err "unknown backend 'nosuch'"
run "$LAUKA" help doctor
expect_rc 0; expect_out '^usage: lauka doctor'
exit 0
