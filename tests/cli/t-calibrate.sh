# calibrate: usage errors, unknown backend, missing probe program; perf validates task-clock, marks hardware events unsupported
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" calibrate --bogus
printf '%s\n' "$err" | grep -q "built without the catalogue database" && skip "this lauka has no catalogue database"
expect_rc 1; expect_err "unknown option '--bogus'"
run "$LAUKA" calibrate extra; expect_rc 1; expect_err "unexpected argument 'extra'"
run "$LAUKA" calibrate --backend; expect_rc 1; expect_err "needs a value"
run "$LAUKA" calibrate --backend nope; expect_rc 1; expect_err "unknown backend 'nope'"; expect_err "tip:"
run "$LAUKA" calibrate -h; expect_rc 0; expect_out "usage: lauka calibrate"
run env PATH=/nonexistent "$LAUKA" calibrate --backend valgrind; expect_rc 2; expect_err "valgrind not found in PATH"

run env LAUKA_PROBE="$PWD/no-such-probe" "$LAUKA" calibrate --backend rusage --quick
expect_rc 1; expect_err "LAUKA_PROBE='$PWD/no-such-probe'"
# Next to a copy of lauka without the probe program: says how to fix it.
cp "$LAUKA" ./lauka
run ./lauka calibrate --backend rusage --quick
expect_rc 1; expect_err "lauka-probe' is missing"; expect_err "fix:"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
# Time is noisy on a shared machine: one retry before calling task-clock non-linear.
run "$LAUKA" calibrate --backend perf --quick
printf '%s\n' "$out" | grep -qE '^task-clock +validated ' || run "$LAUKA" calibrate --backend perf --quick
expect_rc 0
printf '%s\n' "$out" | grep -qE '^task-clock +validated ' ||
	fail "task-clock not validated: $(printf '%s\n' "$out" | grep -E '^(task-clock|re-measured)') (of: $out)"
printf '%s\n' "$out" | grep -qE '^page-faults +silent ' || fail "page-faults should not move with work: $out"
if ! grep -q . /sys/bus/event_source/devices/cpu/type 2>/dev/null; then
	for e in cycles instructions branch-misses L1-dcache-load-misses; do
		printf '%s\n' "$out" | grep -qE "^$e +unsupported " || fail "$e should be unsupported without a PMU"
	done
	expect_out "no hardware PMU"
fi
expect_out '^[0-9]* events: [1-9][0-9]* validated, 0 failed'
