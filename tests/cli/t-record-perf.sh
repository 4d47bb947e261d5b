# record: perf backend counts a command and its children (inherit); hardware events skip cleanly without a PMU
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here: $(printf '%s\n' "$out" | grep perf)"

to_num() { # "1.2K" -> 1200
	awk -v s="$1" 'BEGIN { m = 1; if (s ~ /K$/) m = 1e3; if (s ~ /M$/) m = 1e6; if (s ~ /G$/) m = 1e9; sub(/[KMG]$/, "", s); printf "%d\n", s * m }'
}

run "$LAUKA" --color never -n 3 -m page-faults,task-clock -- 'ls /' "sh -c 'ls / >/dev/null; ls / >/dev/null; ls / >/dev/null'"
expect_rc 0
one=$(to_num "$(row_of 1 page-faults | awk '{print $2}')")
three=$(to_num "$(row_of 2 page-faults | awk '{print $2}')")
[ "$one" -gt 20 ] || fail "implausible page-faults for ls: $one"
# three processes (plus the shell) fault at least twice as often as one: children are counted
[ "$three" -gt $((2 * one)) ] || fail "children not counted: $one vs $three"
row_of 1 task-clock | grep -q 's ±' || fail "task-clock not shown in time units"

# Default set without -m: task-clock and page-faults come from perf.
run "$LAUKA" --color never -- true
expect_out '^task-clock'; expect_out '^page-faults'

if grep -q . /sys/bus/event_source/devices/cpu/type 2>/dev/null; then
	run "$LAUKA" -m cycles,instructions -- true
	expect_rc 0; expect_out '^cycles'
else
	# No PMU: asked-for hardware events are an error (2) before anything runs; defaults leave them out.
	run "$LAUKA" -m cycles -- 'touch ran'
	expect_rc 2; expect_err "cannot count 'cycles'"; expect_err 'no hardware PMU'
	[ ! -e ran ] || fail "command ran although its counters could not be opened"
	run "$LAUKA" --color never -- true
	printf '%s\n' "$out" | grep -q '^cycles' && fail "unsupported default event was shown"
fi
# Separate counters (no group) give the same deterministic counts as the group read.
run "$LAUKA" --color never -n 3 -m page-faults,minor-faults -- 'ls /'
g=$(row_of 1 page-faults | awk '{print $5}')
LAUKA_PERF_NOGROUP=1 run "$LAUKA" --color never -n 3 -m page-faults,minor-faults -- 'ls /'
expect_rc 0
s=$(row_of 1 page-faults | awk '{print $5}')
[ $(( g > s ? g - s : s - g )) -le 3 ] || fail "grouped ($g) and separate ($s) page-fault minimums differ"

# Aliases resolve through the catalogue.
run "$LAUKA" --color never -m faults -- true
expect_rc 0; expect_out '^page-faults'

# wall_time is timed by lauka-spawn around the command's exec and wait: opening, enabling or reading
# counters is never inside it.  Checked by structure, not by timing (that is a benchmark,
# scripts/bench-overhead.sh: the perf backend beside rusage): strace, nobody's tool here, sees every
# perf_event_open and ioctl come from lauka's own process, none from lauka-spawn or the command.
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer, in a SANITIZE=1 build, stops the world with ptrace, which strace already holds)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o tr.txt -e trace=execve,perf_event_open,ioctl "$LAUKA" --color never --backend perf -n 3 -- true \
		>out.txt 2>&1 || fail "lauka under strace failed: $(cat out.txt)"
	me=$(awk 'NR == 1 { print $1 }' tr.txt)
	spawn=$(awk '/execve\(".*lauka-spawn"/ { print $1; exit }' tr.txt)
	[ -n "$spawn" ] || fail "no lauka-spawn in the trace: $(head -c 500 tr.txt)"
	[ "$(grep -c 'perf_event_open(' tr.txt)" -ge 1 ] || fail "no perf_event_open in the trace"
	other=$(grep -E 'perf_event_open\(|ioctl\(' tr.txt | awk -v me="$me" '$1 != me' | head -n 3)
	[ -z "$other" ] || fail "counter work outside lauka's process (spawner $spawn): $other"
else
	echo "strace not installed: where counters are opened was not checked"
fi
exit 0
