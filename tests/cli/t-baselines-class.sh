# baselines --runner-class and --all-classes (issue 30.3) with the database: list narrows to a class, show and delete refuse a baseline of another class, --all-classes only with delete
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
run "$LAUKA" --color never --backend rusage -n 3 --runner-class ci-a --save-baseline a -- true
expect_rc 0
run "$LAUKA" --color never --backend rusage -n 3 --runner-class ci-b --save-baseline b -- true
expect_rc 0
run "$LAUKA" baselines --runner-class ci-b
expect_rc 0
printf '%s\n' "$out" | grep -q '^b ' || fail "list --runner-class ci-b lacks b: $out"
printf '%s\n' "$out" | grep -q '^a ' && fail "list --runner-class ci-b lists a: $out"
run "$LAUKA" baselines list --runner-class nope
expect_rc 0; expect_err "no baselines of runner class 'nope'"
run "$LAUKA" baselines show a --runner-class ci-b
expect_rc 1; expect_err "^error: baseline 'a' is of runner class 'ci-a', not 'ci-b'$"
run "$LAUKA" baselines show a --runner-class ci-a
expect_rc 0; expect_out "runner class   ci-a"
run "$LAUKA" baselines delete a --runner-class ci-b
expect_rc 1; expect_err "is of runner class 'ci-a', not 'ci-b'"
run "$LAUKA" baselines show a
expect_rc 0
run "$LAUKA" baselines list --all-classes
expect_rc 1; expect_err "^error: --all-classes only applies to lauka baselines delete$"
run "$LAUKA" baselines delete a --all-classes --runner-class ci-a
expect_rc 1; expect_err "both say which classes"
run "$LAUKA" baselines delete a --runner-class ci-a
expect_rc 0; expect_err "deleted baseline 'a'"
run "$LAUKA" baselines delete b --all-classes
expect_rc 0
exit 0
