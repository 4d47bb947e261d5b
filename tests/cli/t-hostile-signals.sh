# Signals and hooks (issue 21): SIGTERM/SIGHUP under valgrind, --cleanup after Ctrl-C or a failed --setup
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

wait_for() {	# wait_for FILE: until it exists (the command under measurement has started)
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -lt 1200 ] || fail "$1 never appeared; stderr: $(cat err.txt)"
		sleep 0.1
	done
}
bg_lauka() {	# bg_lauka ARGS...: lauka in the background, its pid in $pid, output in out.txt/err.txt
	"$LAUKA" "$@" >out.txt 2>err.txt &
	pid=$!
}
finish_bg() {
	wait "$pid"
	rc=$?
	out=$(cat out.txt); err=$(cat err.txt)
}

# --cleanup runs after a failed --setup (it may have half set up), and after Ctrl-C.
run "$LAUKA" --color never --backend rusage --setup 'sh -c "touch set; exit 3"' --cleanup 'touch cleaned' -- true
expect_rc 3
[ -e set ] && [ -e cleaned ] || fail "--cleanup did not run after a failed --setup: $(ls)"
rm -f set cleaned started
bg_lauka --color never --backend rusage --setup 'touch set' --cleanup 'touch cleaned' -- 'sh -c "touch started; exec sleep 60"'
wait_for started
kill -INT "$pid"
finish_bg
expect_rc 130
[ -e cleaned ] || fail "--cleanup did not run after SIGINT: $err"
expect_err "^lauka: interrupted before any run completed; nothing to report$"
# A command that never started is not cleaned up: its setup never ran.
rm -f started cleaned*
bg_lauka --color never --backend rusage --cleanup 'sh -c "touch cleaned-\$LAUKA_COMMAND_INDEX"' -- 'sh -c "touch started; exec sleep 60"' true
wait_for started
kill -TERM "$pid"
finish_bg
expect_rc 143
[ -e cleaned-1 ] && [ ! -e cleaned-2 ] || fail "cleanup ran for: $(ls cleaned-* 2>/dev/null)"

# SIGTERM and SIGHUP while valgrind measures a shell command: exit 128+N and "interrupted", not a false
# error about valgrind's half-written output file.
command -v valgrind >/dev/null || skip "valgrind is not installed (the hook cases above passed)"
for sig in TERM:143 HUP:129 INT:130; do
	rm -f started
	bg_lauka --color never --backend valgrind -m Ir -n 3 -- 'sh -c "touch started; exec sleep 60"'
	wait_for started
	sleep 0.5
	kill -"${sig%:*}" "$pid"
	finish_bg
	expect_rc "${sig#*:}"
	printf '%s\n' "$err" | grep -q '^error:' && fail "SIG${sig%:*}: an error line: $err"
	expect_err "^lauka: interrupted"
done
exit 0
