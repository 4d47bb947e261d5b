# an address-space limit (ulimit -v) is named wherever it bites: lauka's own memory, valgrind that cannot map itself, a command that ran out under it; set by the test, never blamed on the command or a file
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
# ASan reserves terabytes of address space for its shadow memory: a sanitized lauka cannot run under
# ulimit -v at all, so this test is for the plain build.
if nm -D "$LAUKA" 2>/dev/null | grep -q __asan_init || nm "$LAUKA" 2>/dev/null | grep -q __asan_init; then
	skip "lauka is built with AddressSanitizer, which cannot run under ulimit -v"
fi
limited() {	# limited KB CMD...: CMD under an address-space limit of KB
	kb=$1; shift
	run sh -c 'ulimit -v "$0" && exec "$@"' "$kb" "$@"
}

# lauka's own allocations: a million runs of eight commands do not fit in 70 MB.  Without the limit
# the same plan is accepted (it is refused only for the memory, which the test checks by asking for
# fewer runs under the same limit).
limited 70000 "$LAUKA" record -n 1000000 -m wall_time -- true true true true true true true true
expect_rc 2
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "expected one line: $err"
expect_err "^error: lauka ran out of memory (its address space is limited to 70000 KB: raise it with ulimit -v)"
limited 70000 "$LAUKA" record -n 3 -m wall_time -- true true true true true true true true
expect_rc 0

# valgrind cannot map itself and the command in 60 MB: it stops with its own message on the command's
# stderr and leaves an empty output file.  lauka names the limit, not the file or the command.
if command -v valgrind >/dev/null 2>&1; then
	limited 60000 "$LAUKA" record --backend valgrind -n 3 -- true
	expect_rc 2
	expect_err "valgrind wrote no counts, most likely for lack of address space: the limit is 60000 KB (ulimit -v)"
	printf '%s\n' "$err" | grep -q "not a cachegrind or callgrind output" && fail "the output file was blamed: $err"
	# valgrind's own words, with --show-output: it did run out of memory (the test's reference for the cause)
	limited 60000 "$LAUKA" record --backend valgrind --show-output -n 3 -- true
	expect_rc 2
	expect_err "Valgrind cannot continue"
	# the same command with no limit is measured
	run "$LAUKA" record --backend valgrind -n 3 -m Ir -- true
	expect_rc 0
fi

# A command that needs more than the limit it inherits: its own failure, with the limit named.
command -v python3 >/dev/null 2>&1 || exit 0
limited 300000 "$LAUKA" record -n 3 -- "python3 -c 'x = bytearray(400 << 20)'"
expect_rc 1
expect_err "^error: command 1 .* failed with exit code 1"
expect_err "MemoryError"
expect_err "^tip: the command runs under an address-space limit of 300000 KB (ulimit -v), which it may have run out of"
# no limit, no such tip
run "$LAUKA" record -n 3 -- "python3 -c 'import sys; sys.exit(1)'"
expect_rc 1
printf '%s\n' "$err" | grep -q "address-space limit" && fail "a limit was named where none is set: $err"
exit 0
