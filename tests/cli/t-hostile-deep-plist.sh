# An XML plist nested 200,000 deep (counters --import, LAUKA_KPEP_FILE, LAUKA_XCTRACE_TEMPLATE) is
# refused with one error line before libplist builds it (it crashed freeing the tree: exit 139);
# comments and self-closing elements do not count as nesting
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
python3 -c "n=200000; print('<plist>'+'<array>'*n+'</array>'*n+'</plist>')" > deep.plist
python3 -c "n=255; print('<?xml version=\"1.0\"?><!-- <array> --><plist>'+'<array><true/>'*n+'</array>'*n+'</plist>')" > ok.plist
one_error() {
	expect_rc 2
	expect_err "^error: .*deep.plist.*XML plist nested more than 256 levels deep (lauka's limit)"
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"
}
run "$LAUKA" counters --import deep.plist
one_error
# 255 arrays in <plist> is within the limit: refused only for what it is.
run "$LAUKA" counters --import ok.plist
expect_rc 2
expect_err "the root is an array, expected a dictionary"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin"
run env LAUKA_KPEP_FILE="$PWD/deep.plist" "$LAUKA" record --backend xctrace -- true
one_error
run env LAUKA_KPEP_FILE="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist" LAUKA_XCTRACE_TEMPLATE="$PWD/deep.plist" \
	"$LAUKA" record --backend xctrace -- true
one_error
exit 0
