# record: a failing child's exit code is forwarded and completed runs are still reported
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" -n 3 -- "sh -c 'exit 3'"
expect_rc 3; expect_err "^error: command 1 'sh -c 'exit 3'' failed with exit code 3"

# stderr tail of the failing run is shown
run "$LAUKA" -n 3 -- "sh -c 'echo something broke >&2; exit 4'"
expect_rc 4; expect_err 'something broke'

# Fails on its third run: the two completed runs are still reported.
cat > flaky.sh <<'EOS'
#!/bin/sh
n=$(cat count 2>/dev/null || echo 0)
echo $((n + 1)) > count
[ "$n" -lt 2 ]
EOS
chmod +x flaky.sh
run "$LAUKA" -n 5 -- ./flaky.sh
expect_rc 1; expect_out 'Benchmark 1 (2 runs): ./flaky.sh'; expect_out '^wall_time'

# First failing code wins across commands; later commands still run.
run "$LAUKA" -n 3 -- "sh -c 'exit 5'" true "sh -c 'exit 6'"
expect_rc 5; expect_out 'Benchmark 2 (3 runs): true'

# Killed by a signal: 128 + signal number.
run "$LAUKA" -n 3 -- "sh -c 'kill -9 \$\$'"
expect_rc 137; expect_err 'killed by signal 9'

# Success is 0 and warm-ups are not counted but do run.
run "$LAUKA" --warmup 2 -n 3 -- "sh -c 'echo x >> runs'"
expect_rc 0; expect_out 'Benchmark 1 (3 runs)'
[ "$(wc -l < runs)" -eq 5 ] || fail "expected 5 executions (2 warm-up + 3), got $(wc -l < runs)"
exit 0
