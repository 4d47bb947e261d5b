# the kperf unit tests leave nothing in the temporary directory (state files, plist folders)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ -x "$LAUKA_BUILD/check_lauka" ] || skip "the unit test runner is not built"
[ -f "$LAUKA_BUILD/libkperf-standin.so" ] || skip "the kperf stand-in is not built"
mkdir t
( cd "$LAUKA_BUILD" && TMPDIR="$OLDPWD/t" CK_RUN_SUITE=kperf LAUKA_SRCDIR="$LAUKA_SRCDIR" ./check_lauka ) > unit.log 2>&1 ||
	fail "the kperf unit tests failed: $(tail -n 5 unit.log)"
left=$(ls -A t)
[ -z "$left" ] || fail "left in TMPDIR by the kperf unit tests: $left"
exit 0
