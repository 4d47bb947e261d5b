# record --backend perf: perf's :u and :k modifiers (issue 36 P4): user mode only, kernel only (root, or
# perf_event_paranoid <= 1), one mode a record (the PMU rows' instructions:u and :k are checked in make check-pmu)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"

# Two modes in one record are refused before anything runs.
run "$LAUKA" --backend perf -n 3 -m task-clock:u,page-faults:k -- 'touch ran'
expect_rc 1
expect_err "^error: 'page-faults:k': one record counts in one mode, and an earlier measurement was named with :u"
expect_err '^tip: record the two modes one after the other'
[ ! -e ran ] || fail "the command ran although its measurement was refused"
# :k where the kernel may not be counted: a user at perf_event_paranoid >= 2
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -ge 2 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null && as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	else
		as_user() { "$@"; }
	fi
	if command -v as_user >/dev/null 2>&1; then
		chmod 777 .
		run as_user "$LAUKA" --backend perf -n 3 -m task-clock:k --db "$PWD/user.db" -- 'touch ran'
		expect_rc 2
		expect_err "^error: 'task-clock:k': counting the kernel needs root (or CAP_PERFMON), or perf_event_paranoid <= 1"
		expect_err '^fix: '
		[ ! -e ran ] || fail "the command ran although its measurement was refused"
	fi
fi
# :k where it may: a software event keeps its name and counts as it does (perf's modifiers are the PMU's)
if [ "$(id -u)" -eq 0 ]; then
	run "$LAUKA" --backend perf --color never -n 3 -m task-clock:k -- true
	expect_rc 0
	expect_out '^task-clock '
fi
# :u on an event the catalogue has is that event, in user mode (task-clock: a software event keeps its name)
run "$LAUKA" --backend perf --color never -n 3 -m task-clock:u -- true
expect_rc 0
expect_out '^task-clock '
# :u does not make an unknown name known
run "$LAUKA" --backend perf -n 3 -m no-such-event:u -- true
expect_rc 1
expect_err "unknown measurement 'no-such-event:u'"
exit 0
