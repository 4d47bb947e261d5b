# record --backend perf: perf's :u modifier is accepted (user mode only), :k refused with the way to the kernel's share (issue 36 P4; the PMU rows' instructions:u are checked in make check-pmu)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"

run "$LAUKA" --backend perf -n 3 -m instructions:k -- 'touch ran'
expect_rc 1
expect_err "^error: 'instructions:k': lauka counts user mode (:u)"
expect_err '^tip: the user-mode count is -m instructions:u'
[ ! -e ran ] || fail "the command ran although its measurement was refused"
# :u on an event the catalogue has is that event, in user mode (task-clock: a software event keeps its name)
run "$LAUKA" --backend perf --color never -n 3 -m task-clock:u -- true
expect_rc 0
expect_out '^task-clock '
# :u does not make an unknown name known
run "$LAUKA" --backend perf -n 3 -m no-such-event:u -- true
expect_rc 1
expect_err "unknown measurement 'no-such-event:u'"
exit 0
