# Message nits of issue 21 (D-20): empty program, FOO=1 cmd, [ and {, a newline in -m, lauka '', a probe killed by a signal
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
one_error() { [ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"; }

# '""' named an empty program and exited 126 as if it were not executable.
run "$LAUKA" --color never --backend rusage -- '""'
expect_rc 1; one_error
expect_err "^error: command names an empty program ('\"\"')$"

# FOO=1 cmd: not found, with the way to set a variable.
run "$LAUKA" --color never --backend rusage -- 'FOO=1 true'
expect_rc 127
expect_err "^tip: to set FOO for the command, run it through env: lauka -- 'env FOO=1 true'$"

# [ and { mean something to a shell (globbing, test, braces): refused like the other metacharacters.
for c in '[ -f x ]' 'ls [ab]*' 'echo {a,b}'; do
	run "$LAUKA" --color never --backend rusage -- "$c"
	expect_rc 1; one_error
	expect_err "contains the shell metacharacter '[[{]'; lauka runs commands without a shell$"
done

# A newline in -m split the error line in two.
run "$LAUKA" --color never --backend rusage -m "$(printf 'wall\ntime')" -- true
expect_rc 1; one_error
expect_err "^error: --measurements holds a control character (byte 0x0a); names are separated by commas$"

# lauka '': not "put it after '--': lauka -- ' ...'".
run "$LAUKA" ''
expect_rc 1; one_error
expect_err "^error: the verb is empty ('')$"
printf '%s\n' "$err" | grep -q "lauka -- ' \.\.\.'" && fail "the old tip: $err"

# A probe killed by a signal is said so, not "exit code 139".
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (the other nits passed)"
printf '#!/bin/sh\nkill -SEGV $$\n' >probe.sh
chmod +x probe.sh
LAUKA_PROBE="$PWD/probe.sh" run "$LAUKA" calibrate --backend valgrind --quick
[ "$rc" -ne 0 ] || fail "a crashing probe calibrated"
expect_err "was killed by signal 11 (Segmentation fault)$"
printf '%s\n' "$err" | grep -q "exit code 139" && fail "reported as exit code 139: $err"
exit 0
