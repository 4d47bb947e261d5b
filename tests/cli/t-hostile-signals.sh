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

# A SIGKILLed lauka took no command along: it ran on.  Linux: lauka-spawn's parent-death signal kills
# its group; every system: the spawner sees lauka's request pipe close.  The second spawner is built
# without the signal, as on macOS, so the pipe watch is seen to do it alone.
for spawn in "$LAUKA_BUILD/lauka-spawn" "$LAUKA_BUILD/tests/lauka-spawn-watch"; do
	[ -x "$spawn" ] || continue
	rm -f cmd.pid
	export LAUKA_SPAWN="$spawn"
	bg_lauka --color never --backend rusage -- 'sh -c "echo \$\$ >cmd.pid; exec sleep 60"'
	wait_for cmd.pid
	sleep 0.2
	kill -KILL "$pid"
	finish_bg
	i=0
	while kill -0 "$(cat cmd.pid)" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { kill -KILL "$(cat cmd.pid)"; fail "the measured command outlived a SIGKILLed lauka ($spawn)"; }
		sleep 0.1
	done
	unset LAUKA_SPAWN
done

# xctrace: SIGINT/SIGTERM while `xctrace export` runs are honoured at once (they were ignored for up to
# its 300 s timeout), and a SIGKILLed lauka leaves no export running (it was orphaned).
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
if command -v python3 >/dev/null 2>&1 && [ -f "$kpep" ] && [ -f "$data/cpu-counters-template-legacy.xml" ]; then
	mkdir darwin-tmp
	for sig in INT:130 TERM:143 KILL:137; do
		rm -f export.pid
		LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_KPEP_FILE="$kpep" \
		LAUKA_XCTRACE_TEMPLATE="$data/cpu-counters-template-legacy.xml" LAUKA_XCTRACE_TMPDIR="$PWD/darwin-tmp" \
		LAUKA_STANDIN_EXPORT_SLEEP=120 LAUKA_STANDIN_PIDFILE="$PWD/export.pid" \
			bg_lauka --color never --backend xctrace -m cycles -- true
		wait_for export.pid
		t0=$(date +%s)
		kill -"${sig%:*}" "$pid"
		finish_bg
		t1=$(date +%s)
		expect_rc "${sig#*:}"
		[ $((t1 - t0)) -le 20 ] || fail "SIG${sig%:*} during xctrace export took $((t1 - t0)) s"
		[ "${sig%:*}" = KILL ] || expect_err "^lauka: interrupted"
		i=0
		while kill -0 "$(cat export.pid)" 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 100 ] || { kill -KILL "$(cat export.pid)"; fail "SIG${sig%:*}: the export process outlived lauka"; }
			sleep 0.1
		done
	done
fi

# SIGTERM and SIGHUP while valgrind measures a shell command: exit 128+N and "interrupted", not a false
# error about valgrind's half-written output file; at once, although the runs go in parallel (--jobs)
# workers (lauka waited in a read from the first worker until its 60 s command ended).
command -v valgrind >/dev/null || skip "valgrind is not installed (the hook cases above passed)"
for sig in TERM:143 HUP:129 INT:130; do
	rm -f started
	bg_lauka --color never --backend valgrind -m Ir -n 3 --jobs 3 -- 'sh -c "touch started; exec sleep 60"'
	wait_for started
	sleep 0.5
	t0=$(date +%s)
	kill -"${sig%:*}" "$pid"
	finish_bg
	t1=$(date +%s)
	[ $((t1 - t0)) -le 20 ] || fail "SIG${sig%:*} under valgrind took $((t1 - t0)) s"
	expect_rc "${sig#*:}"
	printf '%s\n' "$err" | grep -q '^error:' && fail "SIG${sig%:*}: an error line: $err"
	expect_err "^lauka: interrupted"
done
# A SIGKILLed lauka takes the parallel workers' commands along too (each worker has a spawner of its
# own, which lauka's death did not reach while the worker lived on).
if [ "$(uname -s)" = Linux ]; then
	rm -f pids started
	bg_lauka --color never --backend valgrind -m Ir -n 3 --jobs 3 -- 'sh -c "echo \$\$ >>pids; touch started; exec sleep 60"'
	wait_for started
	sleep 1
	kill -KILL "$pid"
	finish_bg
	i=0
	for p in $(cat pids); do
		while kill -0 "$p" 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 150 ] || { kill -KILL $(cat pids) 2>/dev/null; fail "a worker's command outlived a SIGKILLed lauka"; }
			sleep 0.1
		done
	done
fi
exit 0
