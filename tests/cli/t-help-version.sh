# help and version: every verb has help; version lists backends with reasons
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
expect_rc 0; expect_out '^lauka [0-9]'; expect_out 'rusage *available'
run "$LAUKA" --version
expect_rc 0
run "$LAUKA" help
expect_rc 0; expect_out 'usage: lauka'; expect_out 'exit codes'
for v in record counters calibrate version help; do
	run "$LAUKA" help $v
	expect_rc 0; expect_out "usage: lauka $v\|usage: lauka \[record\]"
done
run "$LAUKA" record --help
expect_rc 0; expect_out '--runs'
run "$LAUKA" -h
expect_rc 0
run "$LAUKA" help nosuchverb
expect_rc 1; expect_err "no help for unknown verb 'nosuchverb'"
run "$LAUKA"
expect_rc 1; expect_out 'usage:'
exit 0
